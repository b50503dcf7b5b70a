"""Shared house-game helpers: payouts and rounding, stakes, all-in, joker bonus, seats."""

from __future__ import annotations

from decimal import Decimal

import pytest
from event_helpers import refused_with
from hypothesis import given
from hypothesis import strategies as st

from referee.cards import parse_cards
from referee.events import HandEnd, Leave, Settle
from referee.rules.base import IllegalAction, OptionError
from referee.rules.house import (
    Compensation,
    HandBook,
    HouseResult,
    HouseTable,
    allin_ante,
    bet_size,
    check_ante,
    joker_bonus,
    pay,
    settlement_line,
    table_options,
)
from referee.rules.voice import say_text


def test_pay_includes_stake_and_rounds_by_ruling() -> None:
    assert pay(100, 2) == 200
    assert pay(100, Decimal("3.5")) == 350
    assert pay(33, Decimal("3.5")) == 115  # 115.5 down
    assert pay(33, Decimal("3.5"), "up") == 116
    assert pay(33, Decimal("1.5"), "down") == 49
    assert pay(0, 201) == 0
    with pytest.raises(ValueError):
        pay(-1, 2)


@given(st.integers(0, 10**9), st.decimals(min_value=0, max_value=1000, places=2))
def test_pay_rounding_brackets_exact(stake: int, mult: Decimal) -> None:
    exact = Decimal(stake) * mult
    down, up = pay(stake, mult, "down"), pay(stake, mult, "up")
    assert down <= exact <= up
    assert up - down in (0, 1)
    assert (up == down) == (exact == exact.to_integral_value())


def test_bet_size_rounds_down() -> None:
    assert bet_size(100, Decimal("2.5")) == 250
    assert bet_size(33, Decimal("2.5")) == 82


def test_table_options() -> None:
    assert table_options({}, 100) == (100, False)
    assert table_options({"ante": "50", "lastslot": "on"}, 100) == (50, True)
    for bad in ({"ante": "0"}, {"ante": "x"}, {"lastslot": "yes"}, {"rules": "loj"}):
        with pytest.raises(OptionError):
            table_options(bad, 100)


def test_check_ante() -> None:
    assert check_ante(200, 600, 100, cover=3) == 200
    with refused_with("house.ante_multiple", unit=100):
        check_ante(150, 1000, 100, cover=2)
    assert check_ante(150, 1000, 100, cover=2, multiple=False) == 150
    with refused_with("house.ante_minimum", unit=100):
        check_ante(50, 1000, 100, cover=2, multiple=False)
    with refused_with("house.ante_short", chips=599, need=600):
        check_ante(200, 599, 100, cover=3)
    with refused_with("house.ante_short", chips=250, need=251):
        check_ante(100, 250, 100, cover=2, side=51)
    with pytest.raises(IllegalAction):
        check_ante(None, 1000, 100, cover=2)


@given(st.integers(1, 10**7), st.integers(2, 3), st.integers(0, 10**6))
def test_allin_ante_never_overcommits(chips: int, divisor: int, side: int) -> None:
    if side > chips or (chips - side) // divisor == 0:
        with pytest.raises(IllegalAction):
            allin_ante(chips, divisor, side)
        return
    ante = allin_ante(chips, divisor, side)
    # the rest covers the later bets (divisor - 1 more antes), and at most divisor-1 chips idle
    assert side + ante * divisor <= chips < side + (ante + 1) * divisor


def test_allin_examples() -> None:
    assert allin_ante(100, 3) == 33  # seven: remainder 1 not bet
    assert allin_ante(101, 2, side=21) == 40  # holdem_aa: AA first, then half


def test_joker_bonus_normal_and_last_slot() -> None:
    kw = {"ante_mult": 2, "bets_mult": 2, "lastslot_extra": 3}
    b = joker_bonus(ante=100, bets=200, holding=1000, sat_with=2000, last_slot=False, **kw)
    assert (b.restore, b.extra, b.normal, b.payout) == (0, 0, 600, 600)
    b = joker_bonus(ante=100, bets=200, holding=1000, sat_with=2000, last_slot=True, **kw)
    assert (b.restore, b.extra, b.normal) == (1000, 0, 600)
    b = joker_bonus(ante=100, bets=200, holding=2000, sat_with=2000, last_slot=True, **kw)
    assert (b.restore, b.extra, b.normal, b.payout) == (0, 900, 600, 1500)  # 5x in all


def test_handbook_result() -> None:
    book = HandBook()
    book.stake("a", 300)
    book.stake("b", 100)
    book.pay("a", 600)
    ev = book.event(3)
    assert (ev.staked, ev.paid, ev.result) == (400, 600, -200)


def test_table_seats_and_bankruptcy() -> None:
    t = HouseTable(6, 20, npc_allowed=False)
    t.sit(1, "a", 100, False)
    with pytest.raises(IllegalAction):
        t.sit(1, "b", 100, False)
    with pytest.raises(IllegalAction):
        t.sit(2, "a", 100, False)
    with pytest.raises(IllegalAction):
        t.sit(7, "b", 100, False)
    with pytest.raises(IllegalAction):
        t.sit(2, "b", 19, False)
    with pytest.raises(IllegalAction):
        t.sit(2, "npc", 100, True)
    t.sit(3, "c", 100, False)
    t.players[1].chips = 19
    t.players[3].leaving = True
    out = t.after_hand()
    leaves = [e for e in out if isinstance(e, Leave)]
    assert [(e.player, e.chips, e.bank) for e in leaves] == [("a", 19, 19), ("c", 100, 100)]
    assert t.players == {}


def test_table_dealt_players_checks_the_deal() -> None:
    t = HouseTable(6, 20, npc_allowed=False)
    with refused_with("house.nobody_seated"):
        t.dealt_players({}, 2)
    t.sit(2, "b", 100, False)
    t.sit(1, "a", 100, False)
    two = {"a": parse_cards("As Kd"), "b": parse_cards("2c 2d")}
    assert [p.name for p in t.dealt_players(two, 2)] == ["a", "b"]
    with refused_with("house.deal_strangers", players="z"):
        t.dealt_players(two | {"z": parse_cards("3c 3d")}, 2)
    with refused_with("house.deal_count", count=2, player="b"):
        t.dealt_players({"a": two["a"]}, 2)
    with refused_with("house.deal_count", count=7, player="a"):
        t.dealt_players(two, 7)


def test_table_credit_and_close_hand() -> None:
    t = HouseTable(6, 20, npc_allowed=False)
    t.sit(1, "a", 100, False)
    t.sit(2, "b", 100, False)
    book = HandBook()
    book.stake("a", 50)
    book.stake("b", 90)
    book.stake("gone", 10)  # a player removed during the hand
    t.players[1].chips, t.players[2].chips = 50, 10
    t.credit(book, [
        Settle(player="a", result="win", payout=100),
        Settle(player="b", result="lose", payout=0),
        Settle(player="gone", result="fold", payout=0),  # removed: folded, forfeits the stake
    ])
    assert t.stacks() == {"a": 150, "b": 10}
    assert book.paid == {"a": 100, "b": 0}
    # paying someone no longer seated would credit nobody and break the books
    with pytest.raises(AssertionError, match="not seated"):
        t.credit(book, [Compensation(player="gone", payout=20, bets={"ante": 20})])
    assert book.paid == {"a": 100, "b": 0}
    out = t.close_hand(4, book)
    assert isinstance(out[0], HouseResult) and (out[0].staked, out[0].paid) == (150, 100)
    assert isinstance(out[1], HandEnd) and out[1].stacks == {"a": 150, "b": 10}  # before leaves
    assert [(e.player, e.chips) for e in out if isinstance(e, Leave)] == [("b", 10)]
    assert t.stacks() == {"a": 150}
    line = settlement_line([*out[:1], Settle(player="a", result="win", payout=100)])
    assert say_text(line) == "精算 aさん: 勝ち 100"  # Japanese result words, never the ids
