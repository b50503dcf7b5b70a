"""holdem_aa engine, driven directly: every pay-table row, every result, illegal actions, all-in,
bankruptcy, the dealing-mistake guarantee, and chip conservation over random deals."""

from __future__ import annotations

import random
from typing import Any

import pytest
from event_helpers import refused_with
from examples import examples
from house_helpers import (  # tests/ is on sys.path (rootdir-less import)
    assert_tables_checked,
    definition_text,
    ev,
    play_randomly,
    settle,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.actions import Parsed, action
from referee.cards import full_deck, parse_cards
from referee.definitions import load
from referee.events import Event
from referee.games.holdem_aa.engine import HoldemAAEngine
from referee.rules.base import Deal, IllegalAction, OptionError


def engine(**options: str) -> HoldemAAEngine:
    return HoldemAAEngine(load("holdem_aa"), dict(options))


def dealt(
    hands: dict[str, str], dealer: str = "3h 3s", board: str = "9c 8c 7c 6d 5h",
) -> tuple[HoldemAAEngine, list[Event]]:
    """``hands``' players seated from seat 1 with 1000 chips each, and a hand started."""
    e = engine()
    for seat, n in enumerate(hands, start=1):
        e.sit(seat, n, 1000)
    out = e.start_hand(Deal(hands={n: parse_cards(h) for n, h in hands.items()},
                            dealer=parse_cards(dealer), board=parse_cards(board)))
    return e, out


AB = {"a": "As Kd", "b": "2c 2d"}  # two players, each 1000 chips, the default dealer and board


def one_hand(
    hole: str, dealer: str, board: str, stake: int = 100, aa: int = 0, decision: str = "call",
    chips: int = 10_000, **options: str,
) -> tuple[HoldemAAEngine, list[Event]]:
    e = engine(**options)
    e.sit(1, "p", chips)
    out = e.start_hand(Deal(hands={"p": parse_cards(hole)}, dealer=parse_cards(dealer),
                            board=parse_cards(board)))
    out += e.act("p", action("ante", amount=stake, aa=aa or None))
    out += e.act("p", action(decision))  # type: ignore[arg-type]
    return e, out


# (hole, dealer, board, result, ante row multiplier x100, AA multiplier, hand)
ROWS = [
    ("Ah Kh", "4c 4d", "Qh Jh Th 2c 3d", "win", 101, 201, "royal_flush"),
    ("9h 8h", "Kc Kd", "7h 6h 5h 2c Jd", "win", 21, 51, "straight_flush"),
    ("Ac Ad", "Kc Kd", "Ah As 2c 7d 9s", "win", 11, 41, "four_of_a_kind"),
    ("Kc Kd", "Qc Qd", "Kh 2s 2c 7d 9s", "win", 5, 31, "full_house"),
    ("Ac 9c", "4d 4h", "2c 5c 7c Kd 3s", "win", 3.5, 21, "flush"),
    ("9c 8d", "Kc Kh", "7h 6s 5c Kd 2s", "win", 2.5, 8, "straight"),
    ("7c 7d", "Qc Qd", "7h Ks 2c 9d 4s", "win", 2, 8, "three_of_a_kind"),
    ("Kc Qd", "Jc Jd", "Kh Qs 2c 9d 4s", "win", 2, 8, "two_pair"),
    ("Ac 5d", "3c 3d", "Ah 9s 2c Jd 4h", "dealer_fold", 2, 8, "one_pair"),
    ("Kc Kd", "Qc Qd", "Ah 9s 2c Jd 4h", "win", 2, 0, "one_pair"),  # pair of kings: AA lost
]


@pytest.mark.parametrize(("hole", "dealer", "board", "result", "ante_x", "aa_x", "hand"), ROWS)
def test_pay_rows(
    hole: str, dealer: str, board: str, result: str, ante_x: float, aa_x: int, hand: str
) -> None:
    e, out = one_hand(hole, dealer, board, stake=100, aa=100)
    s = settle(out)["p"]
    call_x = {"win": 2, "dealer_fold": 1}[result]
    assert s["result"] == result
    assert s["hand"] == hand
    assert s["ante"] == int(100 * ante_x)
    assert s["call"] == 100 * call_x
    assert s["aa"] == 100 * aa_x
    assert s["payout"] == s["ante"] + s["call"] + s["aa"]
    assert e.stacks()["p"] == 10_000 - 300 + s["payout"]


def test_push_lose_and_fold_rows() -> None:
    # both play the board's broadway straight: push, ante 1x and call 1x; AA (high card) lost
    _, out = one_hand("2c 3d", "4c 5h", "Ah Kd Qc Jd Ts", aa=50)
    s = settle(out)["p"]
    assert (s["result"], s["payout"], s["ante"], s["call"], s["aa"]) == ("push", 200, 100, 100, 0)
    # dealer's aces beat a high card
    e, out = one_hand("2c 3d", "Ac Ad", "Ks 9h 7d 5c 4s")
    assert settle(out)["p"]["result"] == "lose"
    assert settle(out)["p"]["payout"] == 0
    assert e.stacks()["p"] == 9_800
    # a fold loses the ante and the AA, even a qualifying AA (aces on the flop)
    e, out = one_hand("Ac Ad", "2c 3d", "Ah Ks 9h 7d 5c", aa=100, decision="fold")
    assert settle(out)["p"] == {"event": "settle", "player": "p", "result": "fold", "payout": 0,
                                "ante": 0, "call": 0, "aa": 0}
    assert e.stacks()["p"] == 9_800


def test_dealer_qualifies_with_pair_of_fours_only() -> None:
    _, out = one_hand("Ac Kd", "4c 4d", "2h 7s 9c Jd 3s")  # pair of 4s: plays, player loses
    assert settle(out)["p"]["result"] == "lose"
    _, out = one_hand("2c 5d", "3c 3d", "Ah 7s 9c Jd Ks")  # pair of 3s: dealer folds
    s = settle(out)["p"]
    assert (s["result"], s["ante"], s["call"]) == ("dealer_fold", 200, 100)


def test_payout_rounding_down() -> None:
    _, out = one_hand("Ac 9c", "4d 4h", "2c 5c 7c Kd 3s", stake=5, ante="5")
    assert settle(out)["p"]["ante"] == 17  # 5 x 3.5 = 17.5, rounded down


def test_private_cards_and_room_messages() -> None:
    e, out = dealt(AB)
    out += e.act("a", action("ante", amount=100))
    assert e.holdings("a") == []  # nothing dealt before every stake is in
    out += e.act("b", action("ante", amount=100))
    says = ev(out, "say")
    assert {"event": "say", "to": "a", "text": "ハンド#1 あなたの手札: A♠ K♦",
            "cards": ["As", "Kd"]} in says
    private = [s for s in says if s["to"] in ("a", "b")]
    assert [s["to"] for s in private] == ["a", "b"]
    room = " ".join(s["text"] for s in says if s["to"] == "room")
    assert "A♠" not in room and "2♣" not in room
    assert e.shown("a") == []
    out = e.act("a", action("call"))
    out += e.act("b", action("fold"))
    room = " ".join(s["text"] for s in ev(out, "say") if s["to"] == "room")
    assert "A♠ K♦" in room  # the caller's hand is opened
    assert "2♣" not in room  # the folded hand stays closed


def test_ante_phase_and_decisions_any_order() -> None:
    e, _ = dealt(AB | {"c": "Qh Qs"})
    assert e.pending() == ["a", "b", "c"]
    for n in ("c", "a", "b"):
        e.act(n, action("ante", amount=100))
    assert e.pending() == ["a", "b", "c"]
    e.act("b", action("call"))
    e.act("c", action("fold"))
    out = e.act("a", action("call"))
    assert [s["player"] for s in ev(out, "settle")] == ["a", "b", "c"]
    assert not e.in_hand


def rejected(e: HoldemAAEngine, player: str, act: Parsed, code: str, /,
             **params: Any) -> None:
    """Refused with ``code`` (and those ``params``), and nothing changed."""
    before = (e.stacks(), e.phase, e.pending())
    with refused_with(code, **params):
        e.act(player, act)
    assert (e.stacks(), e.phase, e.pending()) == before


def test_illegal_actions_change_nothing() -> None:
    e, _ = dealt(AB)
    rejected(e, "a", action("ante", amount=100, aa=101), "holdem_aa.aa_max", max=100)
    rejected(e, "a", action("ante", amount=150), "house.ante_multiple", unit=100)
    rejected(e, "a", action("ante", amount=600), "house.ante_short", chips=1000, need=1200)
    rejected(e, "a", action("ante"), "house.ante_amount_needed", unit=100)
    rejected(e, "a", action("call"), "holdem_aa.not_all_posted")
    rejected(e, "zed", action("ante", amount=100), "house.not_in_hand")
    e.act("a", action("ante", amount=100, aa=100))
    rejected(e, "a", action("ante", amount=100), "holdem_aa.already_posted")
    e.act("b", action("ante", amount=100))
    rejected(e, "a", action("raise", to=300), "holdem_aa.wrong_action")
    rejected(e, "b", action("ante", amount=100), "holdem_aa.stakes_closed")
    e.act("b", action("fold"))
    rejected(e, "b", action("call"), "house.already_folded")
    rejected(e, "b", action("fold"), "house.already_folded")


def test_allin_aa_first_then_half() -> None:
    e = engine()
    e.sit(1, "a", 101)
    e.start_hand(Deal(hands={"a": parse_cards("As Ad")}, dealer=parse_cards("3h 3s"),
                      board=parse_cards("Ac 8c 7c 6d 2h")))
    with refused_with("holdem_aa.aa_max", max=30):
        e.act("a", action("allin", aa=41))  # (101-41)//2 = 30 < 41
    out = e.act("a", action("allin", aa=33))
    a = ev(out, "action")[0]
    assert (a["ante"], a["aa"], a["amount"]) == (34, 33, 67)
    assert e.stacks()["a"] == 34  # exactly the call left
    out = e.act("a", action("call"))
    s = settle(out)["a"]
    # trips of aces on the flop (AA 8x), dealer pair of 3s: dealer folds, ante by the table 2x
    assert (s["result"], s["aa"], s["ante"], s["call"]) == ("dealer_fold", 264, 68, 34)
    assert e.stacks()["a"] == 264 + 68 + 34


def test_bankruptcy_below_20() -> None:
    e = engine(ante="10")
    e.sit(1, "a", 59)
    e.sit(2, "b", 60)
    out = e.start_hand(Deal(hands={"a": parse_cards("2c 3d"), "b": parse_cards("2h 3s")},
                            dealer=parse_cards("Ac Ad"), board=parse_cards("Ks 9h 7d 5c 4s")))
    out = e.act("a", action("ante", amount=20))
    out += e.act("b", action("ante", amount=20))
    out += e.act("a", action("call"))
    out += e.act("b", action("call"))
    assert ev(out, "hand_end")[0]["stacks"] == {"a": 19, "b": 20}
    assert [(x["player"], x["chips"], x["bank"]) for x in ev(out, "leave")] == [("a", 19, 19)]
    assert e.stacks() == {"b": 20}
    with refused_with("house.sit_bankrupt", limit=20):
        e.sit(3, "c", 19)


def test_options() -> None:
    assert engine(ante="50", lastslot="on").ante_unit == 50
    with pytest.raises(OptionError):
        engine(ante="-5")
    with pytest.raises(OptionError):
        engine(level="3")
    with pytest.raises(IllegalAction):
        engine().sit(1, "npc", 1000, npc=True)


def test_bad_deals_refused() -> None:
    e = engine()
    e.sit(1, "a", 1000)
    good = {"hands": {"a": parse_cards("As Kd")}, "dealer": parse_cards("3h 3s"),
            "board": parse_cards("9c 8c 7c 6d 5h")}
    for bad in (
        {"hands": {"a": parse_cards("As")}},
        {"hands": {"a": parse_cards("As Kd"), "zz": parse_cards("2c 2d")}},
        {"dealer": parse_cards("3h")},
        {"board": parse_cards("9c 8c 7c 6d")},
        {"dealer": parse_cards("As 3s")},  # As twice in one deck
        {"board": parse_cards("9c 8c 7c 6d JK")},
    ):
        with pytest.raises(IllegalAction):
            e.start_hand(Deal(**{**good, **bad}))  # type: ignore[arg-type]
        assert not e.in_hand
    e.start_hand(Deal(**good))  # type: ignore[arg-type]
    with pytest.raises(IllegalAction):
        e.start_hand(Deal(**good))  # type: ignore[arg-type]


def test_removed_caller_is_folded_and_the_hand_settles_without_them() -> None:
    e, _ = dealt({"a": "As Kd", "b": "2c 2d"})
    e.act("a", action("ante", amount=100))
    e.act("b", action("ante", amount=100))
    e.act("a", action("call"))
    out = e.remove("a")
    assert [x["action"] for x in ev(out, "action")] == ["fold"]
    out = e.act("b", action("call"))
    assert settle(out)["a"]["result"] == "fold" and settle(out)["a"]["payout"] == 0
    assert e.shown("a") == []  # a dead hand is not opened
    assert ev(out, "hand_end")[0]["stacks"] == {"b": 1000 - 200 + settle(out)["b"]["payout"]}


def test_shown_is_the_callers_hands_opened_at_the_showdown() -> None:
    e, _ = dealt({"a": "As Kd", "b": "2c 2d", "c": "7h 8h"})
    for n in "abc":
        e.act(n, action("ante", amount=100))
    e.act("a", action("call"))
    e.act("b", action("fold"))
    # before the showdown every hole card is private, decided or not
    assert [e.shown(n) for n in "abc"] == [[], [], []]
    assert e.holdings("a") == parse_cards("As Kd")
    out = e.act("c", action("call"))  # the last decision: showdown, settlement, hand_end
    assert "aさんのハンド: A♠ K♦" in " ".join(x["text"] for x in ev(out, "say"))
    assert e.shown("a") == parse_cards("As Kd")
    assert e.shown("c") == parse_cards("7h 8h")
    assert e.shown("b") == []  # folded: never opened
    assert e.shown("nobody") == []
    # the next hand starts with nothing shown; a dealing mistake opens nothing
    e.start_hand(Deal(hands={"a": parse_cards("Qs Qd"), "b": parse_cards("3c 4d"),
                             "c": parse_cards("9h Th")},
                      dealer=parse_cards("5s 5d"), board=parse_cards("2h 6s Jc Kc 4s")))
    assert [e.shown(n) for n in "abc"] == [[], [], []]
    for n in "abc":
        e.act(n, action("ante", amount=100))
    e.act("a", action("call"))
    e.dealing_mistake("nogame")
    assert [e.shown(n) for n in "abc"] == [[], [], []]


def test_leave_and_remove() -> None:
    e, _ = dealt(AB)
    e.act("a", action("ante", amount=100))
    out = e.leave("b")  # not posted yet: out of the hand at once, the hand goes on
    assert [x["player"] for x in ev(out, "leave")] == ["b"]
    assert e.holdings("a")  # dealt: b was the last one awaited
    assert e.leave("a") and e.in_hand  # posted: leaves after the hand
    out = e.act("a", action("fold"))
    assert [(x["player"], x["chips"]) for x in ev(out, "leave")] == [("a", 900)]
    assert e.stacks() == {}


def test_force_fold_of_the_last_awaited_stake_deals() -> None:
    e, _ = dealt(AB)
    e.act("a", action("ante", amount=100))
    out = e.force_fold("b")  # b had not posted: out of the hand, and a was only waiting for b
    assert ev(out, "say")[0]["text"] == "bさんはこのゲームから外れました"
    assert e.phase == "decide" and e.pending() == ["a"] and e.holdings("a")
    out = e.act("a", action("call"))
    assert list(settle(out)) == ["a"]
    # forcing out the only player left to post ends the hand: nobody is in it
    e, _ = dealt(AB)
    e.force_fold("a")
    out = e.force_fold("b")
    assert not e.in_hand and ev(out, "hand_end")[0]["stacks"] == {"a": 1000, "b": 1000}


def test_compensation_guarantee() -> None:
    # a: AA qualifies with a flush on the flop (21x > the 8x guarantee); b folds; c has no AA
    e, _ = dealt({"a": "Ac 9c", "b": "As Ad", "c": "2h 7d"}, board="2c 5c 7c Kd 3d")
    e.act("a", action("ante", amount=100, aa=100))
    e.act("b", action("ante", amount=100, aa=50))
    e.act("c", action("ante", amount=200))
    e.act("a", action("call"))
    e.act("b", action("fold"))
    out = e.dealing_mistake("nogame")
    comp = {x["player"]: x for x in ev(out, "compensation")}
    assert comp["a"]["bets"] == {"ante": 200, "aa": 2100, "call": 200}
    assert comp["b"]["bets"] == {"ante": 200, "aa": 400}  # folded: the guarantee still pays
    assert comp["c"]["bets"] == {"ante": 400}  # undecided, no call
    assert e.stacks() == {"a": 1000 - 300 + 2500, "b": 1000 - 150 + 600, "c": 1000 - 200 + 400}
    house = ev(out, "house")[0]
    assert house["result"] == -sum(v - 1000 for v in e.stacks().values())
    assert not e.in_hand
    with pytest.raises(IllegalAction):
        e.dealing_mistake("nogame")


@pytest.mark.parametrize("kind", ["nogame", "misdeal"])
@pytest.mark.parametrize("when", ["stakes", "decide", "force_fold", "called"])
def test_removed_player_forfeits_the_stake_and_gets_no_guarantee(kind: str, when: str) -> None:
    # ruling: a player removed by a penalty forfeits this hand's stake to the house
    e, _ = dealt({"a": "As Kd", "b": "2c 2d", "c": "7h 8h"})
    e.act("a", action("ante", amount=100, aa=50))
    e.act("b", action("ante", amount=100))
    if when != "stakes":
        e.act("c", action("ante", amount=100))
    if when == "force_fold":
        e.force_fold("a")
    behind = 850
    if when == "called":
        e.act("a", action("call"))
        behind = 750
    out = e.remove("a")
    assert [(x["player"], x["chips"]) for x in ev(out, "leave")] == [("a", behind)]
    assert not e.is_seated("a")
    out += e.dealing_mistake(kind)
    assert sorted(x["player"] for x in ev(out, "compensation")) == (
        ["b"] if when == "stakes" else ["b", "c"]
    )
    house = ev(out, "house")[0]
    end = ev(out, "hand_end")[0]["stacks"]
    assert house["paid"] == sum(x["payout"] for x in ev(out, "compensation"))
    assert sum(end.values()) + behind + house["result"] == 3000


# --- chip conservation over random deals ---------------------------------------------------


def random_hand(rng: random.Random, chips: dict[str, int]) -> tuple[Deal, list[tuple[str, Parsed]]]:
    deck = full_deck()
    rng.shuffle(deck)
    names = list(chips)
    hands = {n: deck[2 * i : 2 * i + 2] for i, n in enumerate(names)}
    k = 2 * len(names)
    deal = Deal(hands=hands, dealer=deck[k : k + 2], board=deck[k + 2 : k + 7])
    script: list[tuple[str, Parsed]] = []
    for n in names:
        c = chips[n]
        if rng.random() < 0.2 or c < 300:
            aa = rng.randint(0, c // 3)
            script.append((n, action("allin", aa=aa or None)))
        else:
            ante = 100 * rng.randint(1, max(1, min(5, c // 300)))
            aa = rng.choice([0, 0, ante // 2, ante])
            script.append((n, action("ante", amount=ante, aa=aa or None)))
    order = names[:]
    rng.shuffle(order)
    for n in order:
        script.append((n, action(rng.choice(["call", "call", "fold"]))))  # type: ignore[arg-type]
    return deal, script


def random_table(rng: random.Random, players: int) -> HoldemAAEngine:
    """``players`` players p0, p1, ... from seat 1, each with a random stack."""
    e = engine()
    for i in range(players):
        e.sit(i + 1, f"p{i}", rng.choice([25, 90, 400, 1000, 5000]))
    return e


@settings(max_examples=examples(150), deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_chips_conserved(seed: int, players: int) -> None:
    rng = random.Random(seed)
    e = random_table(rng, players)
    for _ in range(3):
        if not e.stacks():
            break
        before = e.stacks()
        deal, script = random_hand(rng, before)
        out = e.start_hand(deal)
        for n, act in script:
            try:
                out += e.act(n, act)
            except IllegalAction:
                out += e.act(n, action("allin"))  # refused stakes fall back to all-in
        assert not e.in_hand
        house = ev(out, "house")[0]
        end = ev(out, "hand_end")[0]["stacks"]
        assert sum(end.values()) + house["result"] == sum(before.values())
        staked = {n: 0 for n in before}
        for a in ev(out, "action"):
            staked[a["player"]] += a["amount"]
        for n, s in settle(out).items():
            assert end[n] == before[n] - staked[n] + s["payout"]
            assert s["payout"] >= 0
        assert house["staked"] == sum(staked.values())
        assert all(v >= 20 for v in e.stacks().values())


def test_action_clock_sits_out_then_folds() -> None:
    e, _ = dealt(AB)
    e.act("a", action("ante", amount=100), now=1000.0)
    assert e.tick(1059.0) == []
    remind = e.tick(1060.0)
    assert [x["text"] for x in ev(remind, "say")] == ["bさん、アンティをベットしてください"]
    assert e.tick(1061.0) == []  # reminded once
    out = e.tick(1120.0)  # b sits this hand out; a is dealt
    assert "時間切れ" in ev(out, "say")[0]["text"]
    assert e.pending() == ["a"] and e.holdings("a")
    assert e.tick(1179.0) == []
    out = e.tick(1240.0)  # a never decides: folded
    assert settle(out) == {"a": {"event": "settle", "player": "a", "result": "fold", "payout": 0,
                                 "ante": 0, "call": 0, "aa": 0}}
    assert e.stacks() == {"a": 900, "b": 1000}
    assert e.tick(5000.0) == []


def test_definition_tables_are_checked(tmp_path: Any) -> None:
    src = definition_text("holdem_aa")
    assert_tables_checked(tmp_path, "holdem_aa", [
        (src.replace("dealer_fold = 1\n", ""), "call_table"),
        (src.replace("push = 1\nlose = 0\n", "lose = 0\n"), "ante_table"),
        (src.replace("pair_of_aces = 8\n", "one_pair = 8\n"), "aa_table"),
        (src.replace("aa = 8\n", ""), "mistake_payout"),
    ])


def test_config_rulings() -> None:
    d = load("holdem_aa")
    assert d.holdem_aa is not None

    def ruled(**changes: Any) -> HoldemAAEngine:
        rules = d.holdem_aa.model_copy(update=changes)  # type: ignore[union-attr]
        return HoldemAAEngine(d.model_copy(update={"holdem_aa": rules}), {})

    # dealer qualification threshold: with pairs of 3s allowed the dealer's 3s play (and win)
    e = ruled(dealer_qualify_pair=3)
    e.sit(1, "p", 10_000)
    e.start_hand(Deal(hands={"p": parse_cards("2c 5d")}, dealer=parse_cards("3c 3d"),
                      board=parse_cards("Ah 7s 9c Jd Ks")))
    e.act("p", action("ante", amount=100))
    assert settle(e.act("p", action("call")))["p"]["result"] == "lose"
    # antes of any size from one unit up
    e = ruled(ante_multiple=False)
    e.sit(1, "p", 10_000)
    e.start_hand(Deal(hands={"p": parse_cards("2c 5d")}, dealer=parse_cards("3c 3d"),
                      board=parse_cards("Ah 7s 9c Jd Ks")))
    with refused_with("house.ante_minimum", unit=100):
        e.act("p", action("ante", amount=99))
    assert ev(e.act("p", action("ante", amount=150)), "action")[0]["ante"] == 150


def snapshot(e: HoldemAAEngine) -> str:
    return repr((e.phase, e.hand_no, e.stacks(), e.seats, e.book, e.table.players))


@settings(max_examples=examples(120), deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_random_play_refusals_leave_no_trace(seed: int, players: int) -> None:
    """Random messages from random players (most of them illegal at that moment), the clock,
    and now and then a dealing mistake: a refused action changes nothing, the books balance."""
    rng = random.Random(seed)
    e = random_table(rng, players)

    def random_action(who: str, deal: Deal) -> Parsed:
        return rng.choice([
            action("ante", amount=rng.choice([None, 50, 100, 200, 1000]),
                   aa=rng.choice([None, 0, 50, 100, 300])),
            action("allin", aa=rng.choice([None, 10, 100])),
            action("call"), action("call"), action("fold"), action("raise", to=300),
            action("discard", cards=["2c", "3c"]),
        ])

    play_randomly(e, rng, new_deal=lambda before: random_hand(rng, before)[0],
                  random_action=random_action, snapshot=lambda: snapshot(e), mistake_rate=0.03,
                  paid_kinds=("settle", "compensation"))
