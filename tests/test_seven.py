"""seven engine, driven directly: every pay-table row, every result, NPC folds, jokers in and out
of the last slot, illegal actions, all-in and bankruptcy, compensation, chip conservation."""

from __future__ import annotations

import random
from collections import Counter
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
from referee.cards import JOKER, Card, Shoe, card_str, parse_cards
from referee.definitions import load
from referee.events import Event
from referee.games.seven.engine import SevenEngine, ace_high_or_better
from referee.games.seven.hands import SEVEN_CARD_CLASSES, seven_eval
from referee.rules.base import Deal, IllegalAction

WEAK = "2c 2d 5h 7s 9c Jd Kh"  # a pair of 2s (with a K: never DQ)

HANDS = {
    "seven_straight_flush": "2h 3h 4h 5h 6h 7h 8h",
    "seven_of_a_kind": "Kc Kd Kh Ks Kc Kd Kh",
    "royal_flush": "Ah Kh Qh Jh Th 2c 3d",
    "straight_flush": "9s 8s 7s 6s 5s 2c Kd",
    "seven_straight": "2c 3d 4h 5s 6c 7d 8h",
    "big_house": "Qc Qd Qh Qs Jc Jd Jh",
    "five_of_a_kind": "9c 9d 9h 9s 9c 2d 4h",
    "seven_flush": "2d 4d 6d 8d Td Qd Kd",
    "middle_house": "8c 8d 8h 5c 5d 3c 3d",
    "four_of_a_kind": "7c 7d 7h 7s 2c 4d 9h",
    "full_house": "6c 6d 6h 4c 4d 2s 9h",
    "flush": "Ac Jc 8c 5c 2c 3d 9h",
    "straight": "9c Td Jh Qs Kc 2d 3h",
    "defective_house": "Ac Ad Kc Kd 9h 9s 2c",
    "three_of_a_kind": "5c 5d 5h 9s Jc Kd 2h",
    "two_pair": "Jc Jd 4h 4s 9c Kd 2h",
    "one_pair": "Ac Ad 3h 5s 8c Td Qh",
    "high_card": "Ac 3d 5h 7s 9c Jd Kh",
}


def engine(**options: str) -> SevenEngine:
    return SevenEngine(load("seven"), dict(options))


def at_table(e: SevenEngine, *names: str, chips: int = 10_000) -> SevenEngine:
    """``names`` seated from seat 1 with ``chips`` each, the button on the dealer seat (6)."""
    for seat, n in enumerate(names, start=1):
        e.sit(seat, n, chips)
    e.set_button(6)
    return e


def declaration(cards: list[Card]) -> Parsed:
    """The honest declaration for 7 cards: the class name or the 2 cards outside the best 5."""
    best = seven_eval(cards)
    if best.klass in SEVEN_CARD_CLASSES:
        return action("discard", hand=best.klass)
    rest = Counter(cards) - Counter(best.cards)
    return action("discard", cards=[card_str(c) for c in rest.elements()])


def play(
    e: SevenEngine, hands: dict[str, str], dice: list[int], script: list[tuple[str, str]],
    dealer: str | None = WEAK, ante: int = 100,
) -> list[Event]:
    """Start a hand, post the humans' antes, run ``script`` (player, action), declare honestly."""
    deal = Deal(hands={n: parse_cards(h) for n, h in hands.items()},
                dealer=parse_cards(dealer) if dealer else [], dice=dice)
    out = e.start_hand(deal)
    npcs = {s.name for s in e.seated() if s.npc}
    for n in hands:
        if n not in npcs:
            out += e.act(n, action("allin") if ante == 0 else action("ante", amount=ante))
    for n, a in script:
        out += e.act(n, action(a))  # type: ignore[arg-type]
    for n in e.pending():
        if e.phase == "declare":
            out += e.act(n, declaration(deal.hands[n]))
    return out


def solo(hand: str, dealer: str = WEAK, die: int = 6, **options: str) -> list[Event]:
    e = at_table(engine(**options), "p")
    return play(e, {"p": hand}, [die], [("p", "call"), ("p", "call")], dealer=dealer)


HAND_ROWS = [(k, m) for k, m in load("seven").seven.hand_table.items() if k != "other"]


@pytest.mark.parametrize(("klass", "mult"), HAND_ROWS)
def test_hand_table_rows(klass: str, mult: Any) -> None:
    s = settle(solo(HANDS[klass]))["p"]
    assert (s["result"], s["hand"]) == ("win", klass)
    assert s["ante"] == int(100 * mult)
    assert s["bets"] == 400  # two calls, 2x


@pytest.mark.parametrize("klass", ["flush", "straight", "defective_house", "three_of_a_kind",
                                   "two_pair", "one_pair"])
def test_hand_table_other_row(klass: str) -> None:
    s = settle(solo(HANDS[klass]))["p"]
    assert (s["result"], s["hand"], s["ante"], s["bets"]) == ("win", klass, 200, 400)


@pytest.mark.parametrize(("klass", "mult"), list(load("seven").seven.owner_short_table.items()))
def test_owner_short_table_rows(klass: str, mult: Any) -> None:
    # the die picks the player's own hand: it beats the dealer seat (1 win: 1x on the bets)
    s = settle(solo(HANDS[klass], die=1))["p"]
    assert s["dealer_hand"] is True and s["wins"] == 1
    assert (s["ante"], s["bets"]) == (int(100 * mult), 200)
    assert s["result"] == "win"


H_K = "Kc Kd 2h 4s 6c 8d Th"  # pair of kings
H_9 = "9c 9d 2h 4s 6c Jd Qh"  # pair of nines (no A/K, but better than a pair of 3s)
H_5 = "5c 5d 2h 7s 9c Jd Kh"  # pair of fives


@pytest.mark.parametrize("wins", [0, 1, 2, 3, 4, 5])
def test_win_count_rows(wins: int) -> None:
    e = engine()
    names = ["o", "a", "b", "c", "d"]
    for seat, n in enumerate(names, start=1):
        e.sit(seat, n, 10_000)
    e.set_button(6)
    others = [H_5] * wins + [H_K] * (5 - wins)  # a, b, c, d, then the dealer seat
    hands = {"o": H_9} | dict(zip(names[1:], others[:4], strict=True))
    script = [(n, "call") for n in names] * 2
    out = play(e, hands, [1], script, dealer=others[4])
    s = settle(out)["o"]
    mult = load("seven").seven.win_count_table[str(wins)]
    assert s["wins"] == wins
    assert s["payout"] == int(300 * mult)
    assert s["result"] == {0: "lose", 1: "push"}.get(wins, "win")
    for n, h in zip(names[1:], others[:4], strict=True):  # the others play against o's hand
        assert settle(out)[n]["result"] == ("lose" if h == H_5 else "win")


def test_a_folded_hand_is_not_in_the_win_count() -> None:
    """A hand that folded has left the game: the dealer hand's owner does not count it as beaten
    (docs/rules.md, seven's settlement)."""
    e = engine()
    names = ["o", "a", "b", "c", "d"]
    for seat, n in enumerate(names, start=1):
        e.sit(seat, n, 10_000)
    e.set_button(6)
    hands = {"o": H_9, "a": H_5, "b": H_K, "c": H_K, "d": H_K}
    script = [("o", "call"), ("a", "fold"), ("b", "call"), ("c", "call"), ("d", "call")]
    script += [("o", "call"), ("b", "call"), ("c", "call"), ("d", "call")]
    out = play(e, hands, [1], script, dealer=H_5)
    s = settle(out)
    assert s["o"]["wins"] == 1  # the dealer seat's pair of fives; a's folded fives are not counted
    assert s["a"]["result"] == "fold"


def test_result_rows_lose_push_dq_fold() -> None:
    e = at_table(engine(), "w", "l", "t", "q", "f")
    hands = {"w": H_K, "l": H_5, "t": H_9, "q": "8c 3d 5h 7s 2c Jd Qh", "f": H_K}
    script = [("w", "call"), ("l", "call"), ("t", "call"), ("q", "call"), ("f", "fold")]
    script += [("w", "call"), ("l", "raise"), ("t", "call"), ("q", "extra_raise")]
    out = play(e, hands, [6], script, dealer=H_9)
    s = settle(out)
    assert (s["w"]["result"], s["w"]["payout"]) == ("win", 200 + 400)
    assert (s["l"]["result"], s["l"]["payout"]) == ("lose", 0)
    assert (s["t"]["result"], s["t"]["payout"]) == ("push", 300)  # identical pair of 9s
    assert (s["q"]["result"], s["q"]["payout"]) == ("dq", 100 + 100 + 250)
    assert (s["f"]["result"], s["f"]["payout"]) == ("fold", 0)
    end = ev(out, "hand_end")[0]["stacks"]
    assert end == {"w": 10_300, "l": 9_600, "t": 10_000, "q": 10_000, "f": 9_900}


def test_dq_rule() -> None:
    # a pair of 3s without A or K is DQ; with a K it plays; a pair of 4s plays without A/K
    for hand, result in [("3c 3d 5h 7s 9c Jd Qh", "dq"), ("3c 3d 5h 7s 9c Jd Kh", "win"),
                         ("4c 4d 6h 8s Tc Jd Qh", "win"), ("2c 5d 7h 9s Tc Jd Qh", "dq"),
                         ("2c 5d 7h 9s Tc Jd Ah", "lose")]:
        assert settle(solo(hand, dealer="2c 2d 5h 7s 8c 9d Th"))["p"]["result"] == result, hand


def test_dealer_hand_folded_every_player_wins() -> None:
    e = at_table(engine(), "a", "b", "c")
    hands = {"a": H_K, "b": "8c 3d 5h 7s 2c Jd Qh", "c": H_5}
    out = play(e, hands, [5, 1], [("a", "fold"), ("b", "call"), ("c", "raise"),
                                  ("b", "call"), ("c", "call")])
    s = settle(out)
    assert s["a"]["result"] == "fold"
    assert "wins" not in s["a"]
    assert (s["b"]["result"], s["b"]["dealer_fold"], s["b"]["payout"]) == ("win", True, 600)
    assert (s["c"]["result"], s["c"]["payout"]) == ("win", 200 + 600)
    assert "ダイス: 5→1" in " ".join(x["text"] for x in ev(out, "say"))


def test_npc_folds_at_each_action_and_calls() -> None:
    e = engine()
    e.sit(1, "h", 10_000)
    e.sit(2, "n1", 10_000, npc=True)
    e.sit(3, "n2", 10_000, npc=True)
    e.sit(4, "n3", 10_000, npc=True)
    e.set_button(6)
    hands = {
        "h": H_K,
        "n1": "2c 3d 6h Ks Ac 4d 5h",  # no card of 7+ in the first three: folds at once
        "n2": "7c 3d 6h 2s 4c Kd Jh",  # a 7 first, then 7 6 4 3 2: no pair, no ace: folds
        "n3": "Tc 3d 6h Ad 4c Kd Jh",  # a T, then an ace: calls twice
    }
    out = e.start_hand(Deal(hands={n: parse_cards(c) for n, c in hands.items()},
                            dealer=parse_cards(WEAK), dice=[4]))
    antes = [a["player"] for a in ev(out, "action") if a["action"] == "ante"]
    assert antes == ["n1", "n2", "n3"]  # NPCs post at once, one unit
    assert e.to_act() is None  # waiting for h's ante
    out += e.act("h", action("ante", amount=100))
    assert e.to_act() == "h"
    out += e.act("h", action("call"))
    acts = [(a["player"], a["action"]) for a in ev(out, "action") if a["action"] != "ante"]
    assert acts == [("h", "call"), ("n1", "fold"), ("n2", "call"), ("n3", "call")]
    out += e.act("h", action("call"))
    acts = [(a["player"], a["action"]) for a in ev(out, "action") if a["action"] != "ante"]
    assert acts[4:] == [("h", "call"), ("n2", "fold"), ("n3", "call")]
    assert e.pending() == ["h"]  # the NPC declared by itself
    out += e.act("h", declaration(parse_cards(H_K)))
    s = settle(out)
    assert (s["n1"]["result"], s["n2"]["result"]) == ("fold", "fold")
    # the die picks n3's A-high: it beats neither h's kings nor the dealer seat's 2s
    assert (s["n3"]["dealer_hand"], s["n3"]["wins"], s["n3"]["result"]) == (True, 0, "lose")
    assert s["h"]["result"] == "win"


def test_npc_second_action_test() -> None:
    cards = parse_cards
    assert not ace_high_or_better(cards("7c 3d 6h 2s 4c"))
    assert ace_high_or_better(cards("7c 3d 6h 2s Ac"))
    assert ace_high_or_better(cards("7c 3d 7h 2s 4c"))
    assert ace_high_or_better(cards("7c 3c 6c 2c 9c"))  # flush
    assert ace_high_or_better(cards("7c 3d 6h 5s 4c"))  # straight
    assert ace_high_or_better(cards("7c 3d 6h 2s JK"))


def test_joker_outside_last_slot() -> None:
    e = at_table(engine(), "p")
    # joker dealt as the 4th card: after the first action (a raise: 2x ante)
    out = play(e, {"p": "Ac Kd 9h JK 6c 2d Th"}, [6], [("p", "raise"), ("p", "call")])
    j = ev(out, "joker")[0]
    assert (j["player"], j["payout"], j["restore"], j["ante"], j["bets"]) == ("p", 600, 0, 100, 200)
    # the joker plays wild: A A (pair of aces) beats the dealer's pair of 2s
    s = settle(out)["p"]
    assert (s["result"], s["hand"]) == ("win", "one_pair")
    assert e.stacks()["p"] == 10_000 - 400 + 600 + s["payout"]


def test_joker_in_first_three_pays_on_the_ante_only() -> None:
    e = at_table(engine(), "p")
    out = play(e, {"p": "JK Kd 9h Ac 5c 2d 3h"}, [6], [("p", "call"), ("p", "call")])
    assert ev(out, "joker")[0]["payout"] == 200


def test_joker_last_slot_extra_and_restore() -> None:
    e = at_table(engine(lastslot="on"), "p", chips=3_000)
    # not below the sitting points: 5x ante and 5x action bets
    out = play(e, {"p": "Ac Kd 9h JK 5c 2d 3h"}, [6], [("p", "call"), ("p", "call")])
    assert ev(out, "joker")[0]["payout"] == 500 + 500
    # lose a hand, then a joker restores the points to 3000 first (no extra 3x)
    e2 = at_table(engine(), "p", chips=3_000)
    play(e2, {"p": H_5}, [6], [("p", "call"), ("p", "call")], dealer=H_K)
    assert e2.stacks()["p"] == 2_700
    e2.set_last_slot(True)
    out = play(e2, {"p": "Ac Kd 9h JK 5c 2d 3h"}, [6], [("p", "call"), ("p", "call")])
    j = ev(out, "joker")[0]
    assert (j["restore"], j["payout"]) == (300, 300 + 200 + 200)
    assert "ラス枠" in " ".join(x["text"] for x in ev(out, "say"))


def test_dealer_seat_joker_pays_nobody() -> None:
    out = solo(H_K, dealer="JK 2d 5h 7s 9c Jd 3h")
    assert ev(out, "joker") == []


def rejected(e: SevenEngine, player: str, act: Parsed, code: str, /, **params: Any) -> None:
    """Refused with ``code`` (and those ``params``), and nothing changed."""
    before = (e.stacks(), e.phase, e.pending(), e.to_act())
    with refused_with(code, **params):
        e.act(player, act)
    assert (e.stacks(), e.phase, e.pending(), e.to_act()) == before


def test_illegal_actions_change_nothing() -> None:
    e = engine()
    e.sit(1, "a", 10_000)
    e.sit(2, "b", 10_000)
    e.sit(3, "c", 500)
    e.set_button(6)
    hands = {"a": HANDS["full_house"], "b": HANDS["big_house"], "c": H_5}
    e.start_hand(Deal(hands={n: parse_cards(h) for n, h in hands.items()},
                      dealer=parse_cards(WEAK), dice=[6]))
    rejected(e, "a", action("call"), "seven.not_all_posted")
    rejected(e, "a", action("ante", amount=50), "house.ante_multiple", unit=100)
    rejected(e, "c", action("ante", amount=200), "house.ante_short", chips=500, need=600)
    e.act("a", action("ante", amount=100))
    rejected(e, "a", action("ante", amount=100), "seven.already_posted")
    e.act("b", action("ante", amount=100))
    e.act("c", action("ante", amount=100))  # 400 chips left
    rejected(e, "b", action("call"), "seven.not_your_turn_whose", player="a")
    rejected(e, "a", action("extra_raise"), "seven.extra_round2_only")
    rejected(e, "a", action("discard", cards=["2s", "9h"]), "seven.not_declare_time")
    e.act("a", action("fold"))
    rejected(e, "a", action("call"), "house.already_folded")
    e.act("b", action("hyper_raise"))
    rejected(e, "c", action("hyper_raise"), "seven.chips_short", chips=400, need=500)
    e.act("c", action("raise"))
    rejected(e, "b", action("call"), "seven.hyper_no_round2")
    rejected(e, "c", action("hyper_raise"), "seven.hyper_round1_only")
    rejected(e, "c", action("extra_raise"), "seven.chips_short", chips=200, need=250)
    e.act("c", action("call"))
    assert e.phase == "declare"
    # b holds a big house (a 7-card class): discarding is weakening, a weaker name too
    rejected(e, "b", action("discard", cards=["Jc", "Jd"]), "seven.name_seven_card_hand")
    rejected(e, "b", action("discard", hand="four_of_a_kind"), "seven.no_lowering")
    rejected(e, "b", action("discard", hand="seven_of_a_kind"), "seven.hand_not_made")
    # c holds a pair of 5s: keeping the pair is required
    rejected(e, "c", action("discard", cards=["5c", "2h"]), "seven.weakens")
    # throwing the 9 keeps the pair but a weaker kicker: refused, the class named as kept
    rejected(e, "c", action("discard", cards=["9c", "2h"]), "seven.weakens_kicker")
    rejected(e, "c", action("discard", cards=["Ac", "2h"]), "seven.not_in_hand_card")
    rejected(e, "c", action("discard", cards=["2h"]), "seven.two_discards")
    e.act("c", action("discard", cards=["2h", "7s"]))
    rejected(e, "c", action("discard", cards=["2h", "7s"]), "seven.already_declared")
    out = e.act("b", action("discard", hand="big_house"))
    s = settle(out)
    assert s["b"]["ante"] == 200 * 10  # hyper raise doubled the ante; big house 10x
    assert s["b"]["bets"] == 400 * 2


def test_allin_third_no_raises_and_bankruptcy() -> None:
    e = at_table(engine(), "p", chips=100)
    out = e.start_hand(Deal(hands={"p": parse_cards(H_5)}, dealer=parse_cards(H_K), dice=[6]))
    out += e.act("p", action("allin"))
    assert ev(out, "action")[-1]["amount"] == 33 and e.stacks()["p"] == 67
    rejected(e, "p", action("raise"), "seven.no_raise_after_allin")
    rejected(e, "p", action("hyper_raise"), "seven.no_raise_after_allin")
    out += e.act("p", action("call"))
    rejected(e, "p", action("extra_raise"), "seven.no_raise_after_allin")
    out += e.act("p", action("call"))
    out += e.act("p", declaration(parse_cards(H_5)))
    assert settle(out)["p"]["result"] == "lose"
    assert ev(out, "hand_end")[0]["stacks"] == {"p": 1}
    assert [(x["player"], x["chips"], x["bank"]) for x in ev(out, "leave")] == [("p", 1, 1)]
    with refused_with("house.sit_bankrupt", limit=30):
        e.sit(1, "q", 29)


def test_button_die_dealing_order_and_button_moves() -> None:
    e = engine()
    e.sit(2, "a", 10_000)
    e.sit(4, "b", 10_000)
    # no button yet: the first die (3) places it; seat 4 is dealt first, then 6, then 2
    out = e.start_hand(Deal(hands={"a": parse_cards(H_5), "b": parse_cards(H_K)},
                            dealer=parse_cards(WEAK), dice=[3, 1, 5, 6]))
    assert ev(out, "hand_start")[0]["button"] == 3
    e.act("a", action("ante", amount=100))
    out = e.act("b", action("ante", amount=100))
    deal_line = next(e["text"] for e in ev(out, "say") if e["text"].startswith("配札"))
    assert deal_line.index("4番") < deal_line.index("6番") < deal_line.index("2番")
    assert e.to_act() == "b"
    for n in ("b", "a", "b", "a"):
        out = e.act(n, action("call"))
    out = e.act("b", declaration(parse_cards(H_K)))
    out += e.act("a", declaration(parse_cards(H_5)))
    # seats 1 and 5 are empty: rolled again
    assert "ダイス: 1→5→6" in " ".join(x["text"] for x in ev(out, "say"))
    assert e.button == 4
    out = e.start_hand(Deal(hands={"a": parse_cards(H_5), "b": parse_cards(H_K)},
                            dealer=parse_cards(WEAK), dice=[2]))
    assert ev(out, "hand_start")[0]["button"] == 4


def test_bad_deals_refused() -> None:
    e = engine()
    e.sit(1, "a", 10_000)
    good: dict[str, Any] = {"hands": {"a": parse_cards(H_5)}, "dealer": parse_cards(WEAK),
                            "dice": [6]}
    for bad in ({"hands": {"a": parse_cards("2c 3c")}}, {"dealer": []}, {"dice": []},
                {"dice": [2, 3]}, {"dice": [7]},
                {"hands": {"a": parse_cards("JK JK 2c 3c 4c 5c 6c")}},
                {"hands": {"a": parse_cards("2c 2c 2c 2c 2c 2c 2c")}}):
        e.button = 6
        with pytest.raises(IllegalAction):
            e.start_hand(Deal(**(good | bad)))
        assert not e.in_hand
    e.button = None
    with refused_with("seven.no_dealer_die"):
        e.start_hand(Deal(**good))  # one die: the button takes it, none left for the dealer hand


def test_compensation_guarantee() -> None:
    e = at_table(engine(), "a", "b", "c")
    e.start_hand(Deal(hands={"a": parse_cards(H_K), "b": parse_cards(H_5),
                             "c": parse_cards("JK 3d 5h 7s 2c Jd Qh")},
                      dealer=parse_cards(WEAK), dice=[6]))
    for n in ("a", "b", "c"):
        e.act(n, action("ante", amount=100))
    e.act("a", action("hyper_raise"))
    e.act("b", action("fold"))
    out = e.dealing_mistake("nogame")
    comp = {x["player"]: x for x in ev(out, "compensation")}
    assert comp["a"]["bets"] == {"ante": 400, "call": 800}
    assert comp["b"]["bets"] == {"ante": 200}
    assert comp["c"]["bets"] == {"ante": 200}
    # c keeps the joker bonus paid at the deal (2x ante)
    assert e.stacks() == {"a": 10_000 - 600 + 1200, "b": 10_100, "c": 10_000 - 100 + 200 + 200}
    assert ev(out, "house")[0]["result"] == -sum(v - 10_000 for v in e.stacks().values())


@pytest.mark.parametrize("kind", ["nogame", "misdeal"])
@pytest.mark.parametrize("force_fold_first", [False, True])
def test_removed_player_forfeits_the_stake_and_gets_no_guarantee(
    kind: str, force_fold_first: bool
) -> None:
    # ruling: a player removed by a penalty forfeits this hand's stake to the house
    e = at_table(engine(), "a", "b", "c")
    e.start_hand(Deal(hands={"a": parse_cards(H_K), "b": parse_cards(H_5),
                             "c": parse_cards(H_9)},
                      dealer=parse_cards(WEAK), dice=[6]))
    for n in ("a", "b", "c"):
        e.act(n, action("ante", amount=100))
    e.act("a", action("raise"))
    if force_fold_first:
        e.force_fold("b")
    out = e.remove("a")
    assert [(x["player"], x["chips"]) for x in ev(out, "leave")] == [("a", 9_700)]
    out += e.dealing_mistake(kind)
    assert [x["player"] for x in ev(out, "compensation")] == ["b", "c"]
    assert e.stacks() == {"b": 10_100, "c": 10_100}
    house = ev(out, "house")[0]
    assert (house["staked"], house["paid"], house["result"]) == (500, 400, 100)
    assert sum(ev(out, "hand_end")[0]["stacks"].values()) + 9_700 + house["result"] == 30_000


def test_draw_deal_is_playable() -> None:
    e = engine()
    e.sit(1, "a", 10_000)
    e.sit(3, "b", 10_000)
    rng = random.Random(7)
    deal = e.draw_deal(Shoe(6, 1, rng=rng), rng)
    assert sorted(deal.hands) == ["a", "b"] and len(deal.dealer) == 7
    # the button die, then rolls up to the first seat with a hand, then 12 spare rolls
    rolls = deal.dice[1:-12]
    assert rolls[-1] in (1, 3, 6) and all(d not in (1, 3, 6) for d in rolls[:-1])
    assert len(deal.dice[-12:]) == 12
    assert e.start_hand(deal)


# --- chip conservation over random deals ---------------------------------------------------


@settings(max_examples=examples(120), deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.booleans())
def test_chips_conserved(seed: int, players: int, last_slot: bool) -> None:
    rng = random.Random(seed)
    e = engine(lastslot="on" if last_slot else "off")
    for i in range(players):
        e.sit(i + 1, f"p{i}", rng.choice([30, 100, 350, 1000, 5000]), npc=rng.random() < 0.3)
    for _ in range(3):
        if not e.stacks():
            break
        before = e.stacks()
        deal = e.draw_deal(Shoe(6, 1, rng=rng), rng)
        held = [h for h in [*deal.hands.values(), deal.dealer] if JOKER in h]
        if not held and rng.random() < 0.5:  # the shoe's one joker, dealt to a player often
            hand = rng.choice(list(deal.hands.values()))
            hand[rng.randrange(7)] = JOKER
        out = e.start_hand(deal)
        while e.in_hand:
            if e.phase == "stakes":
                n = e.pending()[0]
                c = e.stacks()[n]
                ante = 100 * rng.randint(1, 3)
                act = action("ante", amount=ante) if 3 * ante <= c and rng.random() < 0.8 \
                    else action("allin")
            elif e.phase == "declare":
                n = e.pending()[0]
                act = declaration(deal.hands[n])
            else:
                n = e.to_act() or ""
                act = action(rng.choice(["call", "call", "raise", "hyper_raise", "extra_raise",
                                         "fold"]))  # type: ignore[arg-type]
            try:
                out += e.act(n, act)
            except IllegalAction:
                out += e.act(n, action("call"))
        house = ev(out, "house")[0]
        end = ev(out, "hand_end")[0]["stacks"]
        assert sum(end.values()) + house["result"] == sum(before.values())
        staked = dict.fromkeys(before, 0)
        for a in ev(out, "action"):
            staked[a["player"]] += a["amount"]
        bonus = dict.fromkeys(before, 0)
        for j in ev(out, "joker"):
            bonus[j["player"]] += j["payout"]
        for n, s in settle(out).items():
            assert end[n] == before[n] - staked[n] + bonus[n] + s["payout"]
        assert house["staked"] == sum(staked.values())
        assert house["paid"] == sum(bonus.values()) + sum(s["payout"] for s in settle(out).values())
        assert all(v >= 30 for v in e.stacks().values())


def test_action_clock_defaults() -> None:
    e = at_table(engine(), "a", "b", "c")
    e.start_hand(Deal(hands={"a": parse_cards(H_K), "b": parse_cards(H_5), "c": parse_cards(H_9)},
                      dealer=parse_cards(WEAK), dice=[6]))
    e.act("a", action("ante", amount=100), now=0.0)
    e.act("b", action("ante", amount=100), now=5.0)
    assert "cさん" in ev(e.tick(65.0), "say")[0]["text"]
    e.tick(125.0)  # c sits the hand out
    assert e.to_act() == "a" and e.holdings("c") == []
    e.act("a", action("call"), now=130.0)
    out = e.tick(250.0)  # b does not act: folded
    assert ("b", "fold") in [(x["player"], x["action"]) for x in ev(out, "action")]
    e.act("a", action("call"), now=260.0)
    assert e.phase == "declare"
    out = e.tick(380.0)  # a's best hand is declared for them
    assert "自動宣言" in " ".join(x["text"] for x in ev(out, "say"))
    s = settle(out)
    assert (s["a"]["result"], s["b"]["result"]) == ("win", "fold")
    assert "c" not in s and e.stacks()["c"] == 10_000


def ruled(**changes: Any) -> SevenEngine:
    d = load("seven")
    assert d.seven is not None
    return SevenEngine(d.model_copy(update={"seven": d.seven.model_copy(update=changes)}), {})


def test_config_rulings() -> None:
    # the dealer seat's hand may be left out of the win count
    for flag, wins in ((True, 1), (False, 0)):
        e = at_table(ruled(win_count_dealer_seat=flag), "p")
        out = play(e, {"p": H_K}, [1], [("p", "call"), ("p", "call")])
        assert settle(out)["p"]["wins"] == wins
    # the owner's short table may be switched off: the ante then follows the win count (1x)
    e = at_table(ruled(owner_short_table_applies=False), "p")
    out = play(e, {"p": HANDS["royal_flush"]}, [1], [("p", "call"), ("p", "call")])
    assert settle(out)["p"]["ante"] == 100
    # a folded dealer hand may still leave DQ hands with the DQ result
    e = at_table(ruled(dq_when_dealer_folds=True), "a", "q")
    out = play(e, {"a": H_K, "q": "8c 3d 5h 7s 2c Jd Qh"}, [1],
               [("a", "fold"), ("q", "call"), ("q", "call")])
    assert settle(out)["q"]["result"] == "dq"
    # payouts rounded up instead of down (2.5x on an ante of 5: 13, not 12)
    d = load("seven")
    assert d.seven is not None
    e = SevenEngine(d.model_copy(update={"seven": d.seven.model_copy(
        update={"payout_rounding": "up"})}), {"ante": "5"})
    e.sit(1, "p", 10_000)
    e.set_button(6)
    out = play(e, {"p": HANDS["full_house"]}, [6], [("p", "call"), ("p", "call")], ante=5)
    assert settle(out)["p"]["ante"] == 13


def test_player_in_the_dealer_seat() -> None:
    e = engine()
    e.sit(1, "a", 10_000)
    e.sit(6, "b", 10_000)  # a sixth player takes the dealer seat: no separate dealer hand
    e.set_button(6)
    with refused_with("seven.dealer_seat_taken"):
        e.start_hand(Deal(hands={"a": parse_cards(H_K), "b": parse_cards(H_5)},
                          dealer=parse_cards(WEAK), dice=[6]))
    out = play(e, {"a": H_K, "b": H_5}, [6],
               [("a", "call"), ("b", "call"), ("a", "call"), ("b", "call")], dealer=None)
    s = settle(out)
    assert (s["b"]["dealer_hand"], s["b"]["wins"], s["b"]["result"]) == (True, 0, "lose")
    assert s["a"]["result"] == "win"


def test_definition_tables_are_checked(tmp_path: Any) -> None:
    src = definition_text("seven")
    assert_tables_checked(tmp_path, "seven", [
        (src.replace("dq = 1\n", ""), "result_table"),
        (src.replace("other = 2\n", "othr = 2\n"), "hand_table"),
        (src.replace("2 = 1.5\n", "two = 1.5\n"), "win_count_table"),
        (src.replace("royal_flush = 15\n", "royal = 15\n"), "owner_short_table"),
    ])


def snapshot(e: SevenEngine) -> str:
    return repr((e.phase, e.hand_no, e.stacks(), e.hands, e.book, e.table.players, e.button))


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_random_play_refusals_leave_no_trace(seed: int, players: int) -> None:
    """Random messages from random players (most of them illegal at that moment), the clock,
    and now and then a dealing mistake: a refused action changes nothing, the books balance."""
    rng = random.Random(seed)
    e = engine(lastslot=rng.choice(["on", "off"]))
    for i in range(players):
        e.sit(i + 1, f"p{i}", rng.choice([30, 100, 350, 1000, 5000]), npc=rng.random() < 0.2)

    def random_action(who: str, deal: Deal) -> Parsed:
        cards = deal.hands.get(who, [])
        return rng.choice([
            action("ante", amount=rng.choice([None, 50, 100, 200, 1000])),
            action("allin"), action("call"), action("call"), action("raise"),
            action("hyper_raise"), action("extra_raise"), action("fold"),
            action("discard", cards=[card_str(c) for c in rng.sample(cards, 2)]
                   if cards else ["2c", "3c"]),
            action("discard", hand=rng.choice(["big_house", "seven_flush", "seven_straight"])),
            declaration(cards) if cards else action("fold"),
        ])

    play_randomly(e, rng, new_deal=lambda before: e.draw_deal(Shoe(6, 1, rng=rng), rng),
                  random_action=random_action, snapshot=lambda: snapshot(e), mistake_rate=0.02,
                  paid_kinds=("settle", "compensation", "joker"))


def test_die_for_a_seat_vacated_during_the_antes() -> None:
    e = at_table(engine(), "a", "b")
    e.start_hand(Deal(hands={"a": parse_cards(H_K), "b": parse_cards(H_5)},
                      dealer=parse_cards(WEAK), dice=[2]))
    e.act("a", action("ante", amount=100))
    out = e.leave("b")  # before posting: out of the hand (and the table) at once
    assert [x["player"] for x in ev(out, "leave")] == ["b"]
    out = e.act("a", action("call")) + e.act("a", action("call"))
    out += e.act("a", declaration(parse_cards(H_K)))
    assert "ダイスが尽きたため" in " ".join(x["text"] for x in ev(out, "say"))
    assert settle(out)["a"]["result"] == "win"  # against the dealer seat's 2s
