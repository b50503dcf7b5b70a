"""``deuces`` engine, driven directly (Deal + parsed actions): pay tables row by row, every
settlement result, the bonus area (markers, doubling, trimming, the 2 rule), the refill order,
jokers in and out of the last slot, all-in and bankruptcy, illegal actions, dealing mistakes."""

from __future__ import annotations

from typing import Any

import pytest
from event_helpers import of

from referee.actions import Parsed, action
from referee.cards import JOKER, cards_str, parse_cards
from referee.definitions import load
from referee.events import Event
from referee.games.deuces.dealer import house_way_v1
from referee.games.deuces.engine import DeucesEngine, area_class, refill_order
from referee.rules import Deal, IllegalAction, OptionError, create
from referee.rules.voice import refusal_text

RULES = load("deuces").deuces
assert RULES is not None


def C(text: str) -> list[Any]:
    return list(parse_cards(text))


def engine(**options: str) -> DeucesEngine:
    e = create("deuces", dict(options))
    assert isinstance(e, DeucesEngine)
    return e


def play(
    hands: dict[str, str],
    dealer: str,
    shoe: str = "",
    actions: list[tuple[str, Parsed]] | None = None,
    *,
    seats: dict[str, int] | None = None,
    chips: int = 100_000,
    bonus: str | None = "3c 7d 9h Ks",
    markers: list[int] | None = None,
    antes: dict[str, Parsed] | None = None,
    e: DeucesEngine | None = None,
    **options: str,
) -> tuple[DeucesEngine, list[Event]]:
    """Seat the players (seat 1, 2, … unless ``seats``), deal, ante 100 each (or ``antes``),
    then apply ``actions`` (default: everyone stands pat)."""
    if e is None:
        e = engine(**options)
        for i, name in enumerate(hands):
            e.sit((seats or {}).get(name, i + 1), name, chips)
        if bonus is not None:
            e.set_bonus_area(C(bonus), markers)
    events = e.start_hand(
        Deal(hands={n: C(h) for n, h in hands.items()}, dealer=C(dealer), shoe=C(shoe))
    )
    for name in hands:
        events += e.act(name, (antes or {}).get(name, action("ante", amount=100)))
    if actions is None:
        actions = [(n, action("play")) for n in hands]
    for name, a in actions:
        events += e.act(name, a)
    return e, events


def final(events: list[Event]) -> dict[str, str]:
    """Final hands at settlement (the dealer's under ``dealer``)."""
    return {s["player"]: " ".join(s["cards"]) for s in of(events, "showdown")}


def settle(events: list[Event]) -> dict[str, tuple[str, int]]:
    return {s["player"]: (s["result"], s["payout"]) for s in of(events, "settle")}


# --- pay tables: every row ------------------------------------------------------------------

# (player's pat hand, player class, dealer's pat hand, dealer class): the player beats the dealer.
WINS = [
    ("Ah Kh Qh Jh Th", "natural_royal_flush", "2c 2d 2h 2s 9c", "four_deuces"),
    ("2c 2d 2h 2s 5d", "four_deuces", "2c Kd Qd Jd Td", "wild_royal_flush"),
    ("2d Ks Qs Js Ts", "wild_royal_flush", "9c 9d 9h 2s 2c", "five_of_a_kind"),
    ("Ac Ad Ah 2s 2d", "five_of_a_kind", "5h 6h 7h 8h 9h", "straight_flush"),
    ("4s 5s 6s 7s 8s", "straight_flush", "8c 8d 8h 8s 3c", "four_of_a_kind"),
    ("Jc Jd Jh Js 5c", "four_of_a_kind", "7c 7d 7h 4s 4c", "full_house"),
    ("Qc Qd Qh 6s 6c", "full_house", "3d 6d 9d Jd Kd", "flush"),
    ("4h 8h Th Qh Ah", "flush", "3c 4d 5h 6s 7c", "straight"),
]


@pytest.mark.parametrize(("mine", "pclass", "theirs", "dclass"), WINS)
def test_win_pays_ante_by_player_table_and_bet_by_dealer_table(
    mine: str, pclass: str, theirs: str, dclass: str
) -> None:
    e, ev = play({"alice": mine}, theirs)
    expected = 100 * int(RULES.player_table[pclass]) + 100 * int(RULES.dealer_table[dclass])
    assert settle(ev) == {"alice": ("win", expected)}
    assert e.stacks() == {"alice": 100_000 - 200 + expected}


def test_straight_beats_dealer_trips_after_the_dealer_draws() -> None:
    # the house way keeps the trips and draws two: T T T + 4d 8s stays three of a kind
    e, ev = play({"alice": "9c Td Jh Qs Kc"}, "Tc Td Th 5s 3c", shoe="4d 8s")
    assert settle(ev) == {"alice": ("win", 100 * 2 + 100 * 2)}
    assert e.stacks() == {"alice": 100_000 + 200}


def test_dealer_fold_pays_ante_by_hand_and_returns_the_bet() -> None:
    # dealer: no pair, no draw -> throws all five, draws 4h 5c 8d Qs As: high card, folds
    e, ev = play(
        {"alice": "Ac Ad Ah 7s 9d", "bob": "Kc Kd 5h 7c 9s"},
        "3c 6d 9h Js Kc",
        shoe="4h 5c 8d Qs As",
    )
    assert settle(ev) == {
        "alice": ("dealer_fold", 100 * 1 + 100 * 1),  # three of a kind 1x, dealer fold 1x
        "bob": ("dealer_fold", 0 + 100),  # "other" 0x: the ante is lost
    }
    assert e.stacks() == {"alice": 100_000, "bob": 100_000 - 100}


def test_lose_push_and_fold() -> None:
    e, ev = play(
        {"alice": "Ac Ad Ah 7s 9d", "bob": "3d 4h 5s 6c 7d", "carol": "Kc Qd 9h 6s 4c"},
        "3c 4d 5h 6s 7c",
        actions=[
            ("alice", action("play")),
            ("bob", action("play")),
            ("carol", action("fold")),
        ],
    )
    assert settle(ev) == {"alice": ("lose", 0), "bob": ("push", 200), "carol": ("fold", 0)}
    assert e.stacks() == {"alice": 100_000 - 200, "bob": 100_000, "carol": 100_000 - 100}
    house = of(ev, "house")[0]
    assert house == {"event": "house", "hand": 1, "staked": 500, "paid": 200, "result": 300}


def test_every_pay_table_row_is_exercised() -> None:
    """Guard: the parametrised cases above (and the bonus cases below) cover every row."""
    player_rows = {w[1] for w in WINS} | {"straight", "three_of_a_kind", "other"}
    dealer_rows = {w[3] for w in WINS} | {"three_of_a_kind", "dealer_fold"}
    bonus_rows = {b[2] for b in BONUS}
    assert player_rows == set(RULES.player_table)
    assert dealer_rows == set(RULES.dealer_table)
    assert bonus_rows == set(RULES.bonus_table)


# --- the bonus area -------------------------------------------------------------------------

# (bonus area, player's hand with a duplicate, class made in the area, area afterwards)
BONUS = [
    ("Ts Js Qs Ks", "As As 4c 6d 8h", "natural_royal_flush", "Js Qs Ks As"),
    ("2c 2d 2h 9c", "2s 2s 4c 6d 8h", "four_deuces", "2d 2h 9c 2s"),
    ("2c Js Qs Ks", "As As 4c 6d 8h", "wild_royal_flush", "Js Qs Ks As"),
    ("9c 9d 2h 2s", "9h 9h 4c 6d 8s", "five_of_a_kind", "9d 2h 2s 9h"),
    ("5h 6h 7h 8h", "9h 9h 4c 6d 8s", "straight_flush", "6h 7h 8h 9h"),
    ("8c 8d 8h 3c", "8s 8s 4c 6d Ks", "four_of_a_kind", "8d 8h 3c 8s"),
    ("7c 7d 4s 4c", "7h 7h 3c 6d Ks", "full_house", "7d 4s 4c 7h"),
    ("3d 6d 9d Jd", "Kd Kd 4c 6s 8h", "flush", "6d 9d Jd Kd"),
    ("3c 4d 5h 6s", "7c 7c 9c Jd Ks", "straight", "4d 5h 6s 7c"),
    ("Tc Td 5s 3c", "Th Th 4c 6d Ks", "three_of_a_kind", "Td 5s 3c Th"),
]


@pytest.mark.parametrize(("area", "hand", "klass", "after"), BONUS)
def test_bonus_area_pays_the_ante_by_the_bonus_table(
    area: str, hand: str, klass: str, after: str
) -> None:
    e, ev = play(
        {"alice": hand}, "3c 6d 9h Js Kc", shoe="Ad 4h 5c 8d Qs As", bonus=area,
        actions=[("alice", action("fold"))],
    )
    paid = of(ev, "bonus_payout")
    assert [(b["player"], b["klass"], b["amount"], b["markers"]) for b in paid] == [
        ("alice", klass, 100 * int(RULES.bonus_table[klass]), 0)
    ]
    assert e.bonus_area == (C(after), [0, 0, 0, 0])
    assert of(ev, "bonus_area")[-1] == {
        "event": "bonus_area", "cards": after.split(), "markers": [0, 0, 0, 0],
    }
    # the bonus is paid whatever happens to the hand: alice folded and lost only her ante
    assert e.stacks() == {"alice": 100_000 - 100 + 100 * int(RULES.bonus_table[klass])}


def test_no_bonus_below_three_of_a_kind_and_area_trims_oldest() -> None:
    e, ev = play({"alice": "Ah Ah 4c 6d 8h"}, "3c 6d 9h Js Kc", shoe="Ad", bonus="3c 7d 9h Ks",
                 actions=[("alice", action("fold"))])
    assert of(ev, "bonus_payout") == []
    assert e.bonus_area == (C("7d 9h Ks Ah"), [0, 0, 0, 0])
    dup = of(ev, "duplicate")
    assert dup == [
        {"event": "duplicate", "player": "alice", "card": "Ah", "replacement": "Ad", "check": 1}
    ]


def test_marker_doubles_the_bonus_payout() -> None:
    # T T T 3 in the area; a second Td is removed: Td is already there -> a marker on it, and the
    # area (still three tens) pays 2x ante doubled once
    e, ev = play({"alice": "Td Td 4c 6h 8s"}, "3c 6d 9h Js Kc", shoe="Ad 4h 5c 8d Qs As",
                 bonus="Tc Td Th 3c", actions=[("alice", action("fold"))])
    paid = of(ev, "bonus_payout")
    assert [(b["klass"], b["markers"], b["amount"]) for b in paid] == [
        ("three_of_a_kind", 1, 100 * 2 * 2)
    ]
    assert e.bonus_area == (C("Tc Td Th 3c"), [0, 1, 0, 0])


def test_markers_stay_with_their_card_and_leave_with_it() -> None:
    # two markers on the oldest card Td; Th joins: only a pair of tens, no bonus; Td leaves the
    # area and its markers with it
    e, ev = play({"alice": "Th Th 4c 6h 8s"}, "3c 6d 9h Js Kc", shoe="Ad 4h 5c 8d Qs As",
                 bonus="Td 3c 9c Kd", markers=[2, 0, 0, 0], actions=[("alice", action("fold"))])
    assert of(ev, "bonus_payout") == []
    assert e.bonus_area == (C("3c 9c Kd Th"), [0, 0, 0, 0])
    # two markers on Td (not the oldest); Th makes three tens: 2x ante doubled twice
    e2, ev2 = play({"alice": "Th Th 4c 6h 8s"}, "3c 6d 9h Js Kc", shoe="Ad 4h 5c 8d Qs As",
                   bonus="3c Td Tc 9c", markers=[0, 2, 0, 0],
                   actions=[("alice", action("fold"))])
    assert [(b["klass"], b["markers"], b["amount"]) for b in of(ev2, "bonus_payout")] == [
        ("three_of_a_kind", 2, 100 * 2 * 4)
    ]
    assert e2.bonus_area == (C("Td Tc 9c Th"), [2, 0, 0, 0])


def test_a_removed_deuce_already_in_the_area_gets_no_marker() -> None:
    e, ev = play({"alice": "2c 2c 4c 6h 8s"}, "3c 6d 9h Js Kc", shoe="Ad 4h 5c 8d Qs As",
                 bonus="2c 2d 2h 3c", actions=[("alice", action("fold"))])
    # 2 2 2 3 would be four of a kind... but nothing changed, so nothing is judged or paid
    assert of(ev, "bonus_payout") == []
    assert e.bonus_area == (C("2c 2d 2h 3c"), [0, 0, 0, 0])


def test_triplicate_removes_two_cards_one_at_a_time() -> None:
    e, ev = play({"alice": "Kh Kh Kh 4c 6d"}, "3c 6d 9h Js Kc", shoe="9s Td 4h 5c 8d Qs As",
                 bonus="3c 7d 9h Ks", actions=[])
    assert [(d["card"], d["replacement"]) for d in of(ev, "duplicate")] == [
        ("Kh", "9s"), ("Kh", "Td")
    ]
    # first Kh placed (3c leaves), the second is already there: a marker
    assert e.bonus_area == (C("7d 9h Ks Kh"), [0, 0, 0, 1])
    assert e.holdings("alice") == C("Kh 9s Td 4c 6d")
    assert e.held_this_hand("alice") == C("Kh Kh Kh 4c 6d 9s Td")
    assert e.shown("alice") == C("Kh 9s Td 4c 6d")
    ev = e.act("alice", action("play", keep=["Kh", "9s", "Td", "4c", "6d"]))
    assert final(ev)["alice"] == "Kh 9s Td 4c 6d"
    assert e.holdings("alice") == []  # the hand is over


def test_area_class_with_fewer_than_five_cards() -> None:
    assert area_class(C("2c 2d 2h 2s")) == "four_deuces"
    assert area_class(C("8c 8d 2h 3c")) == "three_of_a_kind"
    assert area_class(C("8c 8d 2h 8s")) == "four_of_a_kind"
    assert area_class(C("8c 8d 3h 4c")) is None
    assert area_class([]) is None


def test_empty_area_is_filled_from_the_deal_board_and_announced() -> None:
    e = engine()
    e.sit(1, "alice", 1000)
    ev = e.start_hand(Deal(hands={"alice": C("Ah Kd 9c 6s 4h")}, dealer=C("3c 6d 9h Js Kc"),
                           board=C("Ac 5d 9s Jh")))
    assert of(ev, "bonus_area") == [
        {"event": "bonus_area", "cards": ["Ac", "5d", "9s", "Jh"], "markers": [0, 0, 0, 0]}
    ]
    assert e.bonus_area == (C("Ac 5d 9s Jh"), [0, 0, 0, 0])


def test_bonus_area_carries_over_between_hands() -> None:
    e, _ = play({"alice": "Ah Ah 4c 6d 8h"}, "3c 6d 9h Js Kc", shoe="Ad",
                actions=[("alice", action("fold"))])
    assert e.bonus_area[0] == C("7d 9h Ks Ah")
    _, ev = play({"alice": "Kd Qc 9c 6s 4h"}, "3c 6d 9h Js Kc", e=e,
                 actions=[("alice", action("fold"))])
    assert of(ev, "bonus_area")[0]["cards"] == ["7d", "9h", "Ks", "Ah"]


def test_set_bonus_area_is_validated() -> None:
    e = engine()
    for cards, markers in [
        (C("Ah Ah 3c 4d"), None), (C("Ah Kh Qh Jh Th"), None), ([JOKER, *C("3c 4d 5h")], None),
        (C("Ah 3c 4d 5h"), [0, 0]), (C("2h 3c 4d 5h"), [1, 0, 0, 0]),
    ]:
        with pytest.raises(IllegalAction):
            e.set_bonus_area(cards, markers)
    assert e.bonus_area == ([], [])


# --- duplicates after the refill, and the dealer's -------------------------------------------

def test_second_duplicate_check_players_then_dealer() -> None:
    # alice keeps Qh and draws four, one of them Qh again; the dealer keeps the trips T T T and
    # draws Th (a duplicate of its own Th). Refill: alice, alice, alice, dealer, alice, dealer.
    e, ev = play(
        {"alice": "Qh 3c 5d 7s 9h"},
        "Tc Td Th 5s 3c",
        shoe="Qh 8c 6d Th Jc 4d Kd As",
        actions=[("alice", action("play", keep=["Qh"]))],
    )
    dups = [(d["player"], d["card"], d["replacement"], d["check"]) for d in of(ev, "duplicate")]
    assert dups == [("alice", "Qh", "Kd", 2), ("dealer", "Th", "As", 2)]
    assert final(ev) == {"dealer": "Tc Td Th As 4d", "alice": "Qh Kd 8c 6d Jc"}
    assert settle(ev) == {"alice": ("lose", 0)}
    assert e.bonus_area == (C("9h Ks Qh Th"), [0, 0, 0, 0])


def test_dealer_duplicates_feed_the_area_but_pay_nobody_by_default() -> None:
    e, ev = play({"alice": "Ac Kd 9c 6s 4h"}, "Tc Td Th Th 3c", shoe="4d 8s 9s",
                 bonus="Ts Tc 5h 6h")
    # dealer keeps T T T T (four of a kind: pat), the duplicate Th is removed after the refill
    dups = [(d["player"], d["card"]) for d in of(ev, "duplicate")]
    assert dups == [("dealer", "Th")]
    assert of(ev, "bonus_payout") == []
    assert e.bonus_area == (C("Tc 5h 6h Th"), [0, 0, 0, 0])


# --- refill order ---------------------------------------------------------------------------

def test_refill_order_seed_example() -> None:
    assert refill_order([("seat1", 4), ("seat3", 2), ("dealer", 3)]) == [
        "seat3", "seat3", "dealer", "seat1", "seat3", "dealer"
    ]


def test_refill_order_in_the_engine() -> None:
    # seat 1 keeps 4, seat 3 keeps 2, the dealer keeps three of a kind (3 cards)
    _e, ev = play(
        {"alice": "Ac Ad Ah Kc 4d", "bob": "9s 9d 3h 5c 7h"},
        "Tc Td Th 5s 3c",
        shoe="Jc Jd Js Qc Qd Qs",
        seats={"alice": 1, "bob": 3},
        actions=[
            ("alice", action("play", discard=["4d"])),
            ("bob", action("play", keep=["9s", "9d"])),
        ],
    )
    # seat 3 (3rd card), seat 3 (4th), dealer (4th), seat 1 (5th), seat 3 (5th), dealer (5th)
    assert final(ev) == {
        "dealer": "Tc Td Th Js Qs",
        "alice": "Ac Ad Ah Kc Qc",
        "bob": "9s 9d Jc Jd Qd",
    }
    private = [(s["to"], s["text"]) for s in of(ev, "say") if s["text"].startswith("補充")]
    assert private == [
        ("bob", "補充: J♣"), ("bob", "補充: J♦"), ("alice", "補充: Q♣"), ("bob", "補充: Q♦"),
    ]


# --- jokers ---------------------------------------------------------------------------------

def test_joker_dealt_pays_twice_the_ante() -> None:
    e, ev = play({"alice": "JK Kd 9c 6s 4h"}, "3c 6d 9h Js Kc", actions=[("alice", action("fold"))])
    assert [(j["player"], j["payout"], j["restore"]) for j in of(ev, "joker")] == [
        ("alice", 200, 0)
    ]
    assert e.stacks() == {"alice": 100_000 - 100 + 200}


def test_joker_at_the_refill_pays_ante_and_bet() -> None:
    _e, ev = play({"alice": "Kd Kc 9c 6s 4h"}, "Tc Td Th 5s 3c", shoe="JK 7c 4d 8s 5h",
                 actions=[("alice", action("play", keep=["Kd", "Kc"]))])
    assert [j["payout"] for j in of(ev, "joker")] == [200 + 200]
    # alice holds 2, the dealer 3: alice, alice, dealer, alice, dealer
    assert final(ev) == {"dealer": "Tc Td Th 4d 5h", "alice": "Kd Kc JK 7c 8s"}
    assert settle(ev)["alice"][0] == "win"  # K K K (joker) 7 8 beats T T T 4 5


def test_joker_in_the_last_slot_restores_a_loser() -> None:
    e = engine(lastslot="on")
    e.sit(1, "alice", 1000)
    e.set_bonus_area(C("3c 7d 9h Ks"))
    # hand 1: alice loses 200
    play({"alice": "Ac Kd 9c 6s 4h"}, "Tc Td Th Ts 3c", e=e)
    assert e.stacks() == {"alice": 800}
    # hand 2: a joker while below the sit-down chips: back to 1000, then the normal 2x ante
    _, ev = play({"alice": "JK Kd 9c 6s 4h"}, "3c 6d 9h Js Kc", e=e,
                 actions=[("alice", action("fold"))])
    assert [(j["payout"], j["restore"]) for j in of(ev, "joker")] == [(200 + 200, 200)]
    assert e.stacks() == {"alice": 1000 - 100 + 200}


def test_joker_in_the_last_slot_pays_five_times_when_not_behind() -> None:
    e, ev = play({"alice": "JK Kd 9c 6s 4h"}, "3c 6d 9h Js Kc", lastslot="on",
                 actions=[("alice", action("fold"))])
    assert [(j["payout"], j["restore"]) for j in of(ev, "joker")] == [(500, 0)]
    # and toggled off again by the moderator: back to 2x
    e.set_last_slot(False)
    _, ev = play({"alice": "JK Kd 9c 6s 4h"}, "3c 6d 9h Js Kc", e=e,
                 actions=[("alice", action("fold"))])
    assert [j["payout"] for j in of(ev, "joker")] == [200]


def test_joker_is_never_a_duplicate() -> None:
    _e, ev = play({"alice": "JK JK 9c 6s 4h"}, "3c 6d 9h Js Kc",
                 actions=[("alice", action("fold"))])
    assert of(ev, "duplicate") == []
    assert len(of(ev, "joker")) == 2


# --- all-in and bankruptcy ------------------------------------------------------------------

def test_allin_antes_half_the_chips_rounded_down() -> None:
    e = engine()
    e.sit(1, "alice", 151)
    e.set_bonus_area(C("3c 7d 9h Ks"))
    e2, ev = play({"alice": "Ac Kd 9c 6s 4h"}, "Tc Td Th Ts 3c", e=e,
                  antes={"alice": action("allin")})
    assert of(ev, "action")[:2] == [
        {"event": "action", "player": "alice", "action": "allin", "amount": 75},
        {"event": "action", "player": "alice", "action": "play", "amount": 75,
         "cards": ["Ac", "Kd", "9c", "6s", "4h"]},  # kept, as the room is told
    ]
    # lost both: 1 chip left, below 20 -> bankrupt and stood up
    assert of(ev, "hand_end")[0]["stacks"] == {"alice": 1}
    assert of(ev, "leave") == [{"event": "leave", "player": "alice", "chips": 1, "bank": 1}]
    assert e2.stacks() == {}


def test_ante_must_leave_the_play_bet_and_be_a_multiple_of_the_unit() -> None:
    e = engine()
    e.sit(1, "alice", 150)
    e.start_hand(Deal(hands={"alice": C("Ac Kd 9c 6s 4h")}, dealer=C("Tc Td Th Ts 3c")))
    for a in (
        action("ante", amount=100),  # 100 + the play bet 100 > 150
        action("ante"),  # a bare ante is one unit: the same
        action("ante", amount=50),  # not a multiple of the unit
        action("ante", amount=0),
    ):
        with pytest.raises(IllegalAction):
            e.act("alice", a)
    ev = e.act("alice", action("allin"))
    assert of(ev, "action")[0]["amount"] == 75
    e2 = engine()
    e2.sit(1, "bob", 1000)
    e2.start_hand(Deal(hands={"bob": C("Ac Kd 9c 6s 4h")}, dealer=C("Tc Td Th Ts 3c")))
    ev = e2.act("bob", action("ante", amount=500))  # exactly covers the play bet
    assert of(ev, "action")[0]["amount"] == 500


def test_bankrupt_below_twenty_but_not_at_twenty() -> None:
    e = engine(ante="10")
    e.sit(1, "alice", 60)
    e.sit(2, "bob", 59)
    e.set_bonus_area(C("3c 7d 9h Ks"))
    _, ev = play({"alice": "Ac Kd 9c 6s 4h", "bob": "Ac Kd 9c 6s 4h"}, "Tc Td Th Ts 3c", e=e,
                 antes={"alice": action("ante", amount=20), "bob": action("ante", amount=20)})
    assert of(ev, "hand_end")[0]["stacks"] == {"alice": 20, "bob": 19}
    assert [x["player"] for x in of(ev, "leave")] == ["bob"]
    assert e.stacks() == {"alice": 20}
    with pytest.raises(IllegalAction):
        e.sit(3, "carol", 19)


# --- illegal actions change nothing ---------------------------------------------------------

def fingerprint(e: DeucesEngine) -> str:
    return repr((e.stacks(), e.bonus_area, e.flow.hand, e.hand_no, e.clock))


def test_illegal_actions_are_refused_in_japanese_without_trace() -> None:
    e = engine()
    e.sit(1, "alice", 1000)
    e.sit(2, "bob", 1000)
    e.set_bonus_area(C("3c 7d 9h Ks"))
    with pytest.raises(IllegalAction):
        e.act("alice", action("ante", amount=100))  # no hand yet
    e.start_hand(Deal(hands={"alice": C("Ac Kd 9c 6s 4h"), "bob": C("Qc Qd 9d 6h 4s")},
                      dealer=C("3c 6d 9h Js Kc"), shoe=C("4h 5c 8d Qs As 7c 7d 7h 7s Jc")))
    def refused(who: str, a: Parsed) -> None:
        before = fingerprint(e)
        with pytest.raises(IllegalAction) as err:
            e.act(who, a)
        assert refusal_text(err.value.code, err.value.params), err.value.code  # a catalogue code
        assert fingerprint(e) == before, (who, a)

    refused("alice", action("play", keep=["Ac"]))  # before the ante
    refused("carol", action("ante", amount=100))  # not seated
    refused("alice", action("raise", to=300))
    e.act("alice", action("ante", amount=100))
    refused("alice", action("ante", amount=100))  # twice
    refused("alice", action("fold"))  # anted: wait for the cards
    e.act("bob", action("ante", amount=100))
    e.act("bob", action("fold"))
    for who, a in [
        ("bob", action("play")),  # acting after folding
        ("bob", action("fold")),
        ("alice", action("play", keep=["As"])),  # keeping a card not held
        ("alice", action("play", discard=["Kd", "Kd"])),  # discarding more than held
        ("alice", action("play", keep=["Ac"], discard=["Kd"])),  # inconsistent
        ("alice", action("play", keep=["Xx"])),
        ("alice", action("ante", amount=100)),
        ("alice", action("check")),
    ]:
        refused(who, a)
    ev = e.act("alice", action("play", keep=["Ac", "Kd"]))
    assert settle(ev)["bob"] == ("fold", 0)
    with pytest.raises(IllegalAction):
        e.act("alice", action("play"))  # the hand is over


def test_running_out_of_shoe_cards_is_refused_without_trace() -> None:
    e = engine()
    e.sit(1, "alice", 1000)
    e.start_hand(Deal(hands={"alice": C("Ac Kd 9c 6s 4h")}, dealer=C("Tc Td Th Ts 3c"),
                      shoe=C("5c")))
    e.act("alice", action("ante", amount=100))
    before = fingerprint(e)
    with pytest.raises(IllegalAction):
        e.act("alice", action("play", keep=["Ac"]))
    assert fingerprint(e) == before


def test_options() -> None:
    assert engine(ante="50").ante_unit == 50
    assert engine(lastslot="on").last_slot is True
    for bad in ({"ante": "0"}, {"ante": "x"}, {"lastslot": "maybe"}, {"level": "3"}):
        with pytest.raises(OptionError):
            engine(**bad)


# --- dealing mistakes -----------------------------------------------------------------------

def three_dealt(dealer: str) -> DeucesEngine:
    """alice, bob and carol (seats 1-3, 1000 chips each) in a hand that waits for their antes."""
    e = engine()
    for i, n in enumerate(("alice", "bob", "carol")):
        e.sit(i + 1, n, 1000)
    e.set_bonus_area(C("3c 7d 9h Ks"))
    e.start_hand(Deal(
        hands={
            "alice": C("Ac Kd 9c 6s 4h"), "bob": C("Qc Qd 9d 6h 4s"), "carol": C("5c 7d 8h 9s Js"),
        },
        dealer=C(dealer), shoe=C("4h 5c 8d Qs As"),
    ))
    return e


def test_dealing_mistake_pays_the_guarantee() -> None:
    e = three_dealt("3c 6d 9h Js Kc")
    for n in ("alice", "bob", "carol"):
        e.act(n, action("ante", amount=100))
    e.act("alice", action("play"))
    e.act("bob", action("fold"))
    ev = e.dealing_mistake("nogame")
    comp = {c["player"]: (c["payout"], c["bets"]) for c in of(ev, "compensation")}
    assert comp == {
        "alice": (400, {"ante": 200, "play": 200}),
        "bob": (200, {"ante": 200}),  # folded: guaranteed anyway
        "carol": (200, {"ante": 200}),
    }
    assert e.stacks() == {"alice": 1200, "bob": 1100, "carol": 1100}
    assert not e.in_hand


def test_nogame_before_the_deal_returns_the_antes() -> None:
    e = engine()
    e.sit(1, "alice", 1000)
    e.sit(2, "bob", 1000)
    e.start_hand(Deal(hands={"alice": C("Ac Kd 9c 6s 4h"), "bob": C("Qc Qd 9d 6h 4s")},
                      dealer=C("3c 6d 9h Js Kc")))
    e.act("alice", action("ante", amount=100))
    ev = e.dealing_mistake("nogame")
    assert [(c["player"], c["payout"]) for c in of(ev, "compensation")] == [("alice", 100)]
    assert e.stacks() == {"alice": 1000, "bob": 1000}


# --- seating --------------------------------------------------------------------------------

def test_leave_during_a_hand_waits_for_its_end() -> None:
    e = engine()
    e.sit(1, "alice", 1000)
    e.start_hand(Deal(hands={"alice": C("Ac Kd 9c 6s 4h")}, dealer=C("3c 6d 9h Js Kc"),
                      shoe=C("4h 5c 8d Qs As")))
    e.act("alice", action("ante", amount=100))
    assert of(e.leave("alice"), "leave") == []
    ev = e.act("alice", action("fold"))
    assert of(ev, "leave") == [{"event": "leave", "player": "alice", "chips": 900, "bank": 900}]
    assert e.seated() == []


def test_sitting_out_before_the_ante() -> None:
    e, ev = play({"alice": "Ac Kd 9c 6s 4h", "bob": "Qc Qd 9d 6h 4s"}, "Tc Td Th Ts 3c",
                 antes={"bob": action("fold")}, actions=[("alice", action("fold"))])
    assert settle(ev) == {"alice": ("fold", 0)}
    assert e.stacks()["bob"] == 100_000
    assert not e.in_this_hand("bob")


# --- the house way --------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("hand", "kept"),
    [
        ("3c 4d 5h 6s 7c", "3c 4d 5h 6s 7c"),  # straight: pat
        ("Tc Td Th 5s 3c", "Tc Td Th"),  # trips
        ("2c Td Th 5s 3c", "2c Td Th"),  # trips with a wild
        ("2c 2d Ah 5s 9c", "2c 2d Ah"),  # two wilds + the highest card
        ("Kc Kd 5h 5s 9c", "Kc Kd"),  # two pair: the higher pair
        ("Ac 9c 5c 3c Kd", "Ac 9c 5c 3c"),  # four to a flush
        ("2h 9c 5c 3c Kd", "2h 9c 5c 3c"),  # wild + three suited
        ("9c Td Jh Qs 3c", "9c Td Jh Qs"),  # four to a straight
        ("Ac 3d 4h 5s 9c", "Ac 3d 4h 5s"),  # the wheel draw
        ("3c 6d 9h Js Kc", ""),  # nothing: draw five
        ("2c 6d 9h Js Kd", "2c 9h Js Kd"),  # wild + three within five ranks
        ("2c 6d 9h Ks 4c", "2c"),  # one wild, nothing else
    ],
)
def test_house_way(hand: str, kept: str) -> None:
    assert sorted(house_way_v1(C(hand))) == sorted(C(kept))


# --- configuration (games/deuces/definition.toml) ----------------------------------------------

def configured(**changes: Any) -> DeucesEngine:
    d = load("deuces")
    assert d.deuces is not None
    return DeucesEngine(d.model_copy(update={"deuces": d.deuces.model_copy(update=changes)}), {})


def test_config_dealer_duplicates_pay_the_players() -> None:
    e = configured(dealer_duplicate_bonus="players")
    e.sit(1, "alice", 100_000)
    e.set_bonus_area(C("Ts Tc 5h 6h"))
    _, ev = play({"alice": "Ac Kd 9c 6s 4h"}, "Tc Td Th Th 3c", shoe="4d 8s 9s", e=e)
    # the dealer's second Th joins T T: three tens in the area, alice (still in) is paid 2x ante
    assert [(b["player"], b["klass"], b["amount"]) for b in of(ev, "bonus_payout")] == [
        ("alice", "three_of_a_kind", 200)
    ]


def test_config_folded_players_without_mistake_guarantee() -> None:
    e = configured(mistake_pays_folded=False)
    e.sit(1, "alice", 1000)
    e.sit(2, "bob", 1000)
    e.start_hand(Deal(hands={"alice": C("Ac Kd 9c 6s 4h"), "bob": C("Qc Qd 9d 6h 4s")},
                      dealer=C("3c 6d 9h Js Kc"), shoe=C("4h 5c 8d Qs As")))
    e.act("alice", action("ante", amount=100))
    e.act("bob", action("ante", amount=100))
    e.act("bob", action("fold"))
    ev = e.dealing_mistake("misdeal", "alice")
    assert [(c["player"], c["payout"]) for c in of(ev, "compensation")] == [("alice", 200)]


def test_config_dealer_qualifies_lower() -> None:
    e = configured(dealer_qualify="one_pair",
                   dealer_table={**RULES.dealer_table, "two_pair": 2, "one_pair": 2})
    e.sit(1, "alice", 10_000)
    # the dealer keeps its pair of queens and draws 3h 6h 8h: it qualifies with one pair now;
    # alice's two pair beats it: the ante pays "other" 0x, the play bet 2x
    _, ev = play({"alice": "Ac Ad 9c 9s 4h"}, "Qc Qd 5h 7s 9d", shoe="3h 6h 8h", e=e)
    assert settle(ev) == {"alice": ("win", 0 + 200)}


def _definition_data() -> dict[str, Any]:
    import tomllib
    from decimal import Decimal

    from referee.definitions import path_of

    with path_of("deuces").open("rb") as f:
        return tomllib.load(f, parse_float=Decimal)


@pytest.mark.parametrize(
    ("table", "row"),
    [("bonus_table", "flush"), ("player_table", "other"), ("dealer_table", "dealer_fold"),
     ("player_table", "straight"), ("dealer_table", "three_of_a_kind"), ("joker", "ante"),
     ("mistake_payout", "play")],
)
def test_definition_refuses_a_missing_row(table: str, row: str) -> None:
    from pydantic import ValidationError

    from referee.definitions import validate

    data = _definition_data()
    validate(data)  # the shipped file is valid
    del data["deuces"][table][row]
    with pytest.raises(ValidationError, match=table):
        validate(data)


@pytest.mark.parametrize(
    ("key", "value"),
    [("dealer_strategy", "gut_feeling"), ("dealer_qualify", "six_of_a_kind"),
     ("dealer_duplicate_bonus", "everyone"), ("surprise", 1)],
)
def test_definition_refuses_unknown_values(key: str, value: Any) -> None:
    from pydantic import ValidationError

    from referee.definitions import validate

    data = _definition_data()
    data["deuces"][key] = value
    with pytest.raises(ValidationError):
        validate(data)
    data = _definition_data()
    data["deuces"]["bonus_table"]["six_of_a_kind"] = 99
    with pytest.raises(ValidationError, match="unknown rows"):
        validate(data)


# --- the live deal and the saved bonus area --------------------------------------------------

def test_draw_deal_draws_the_first_bonus_area_only_when_empty() -> None:
    import random

    from referee.cards import Shoe

    e = engine()
    e.sit(1, "alice", 1000)
    rng = random.Random(7)
    deal = e.draw_deal(Shoe(decks=6, jokers=1, rng=rng), rng)
    assert len(deal.hands["alice"]) == 5 and len(deal.dealer) == 5 and len(deal.shoe) == 120
    assert len(deal.board) == 4 and len(set(deal.board)) == 4 and JOKER not in deal.board
    ev = e.start_hand(deal)
    assert of(ev, "bonus_area")[0]["cards"] == cards_str(deal.board)
    e.act("alice", action("ante", amount=100))
    e.act("alice", action("fold"))
    assert e.draw_deal(Shoe(decks=6, jokers=1, rng=rng), rng).board == []


def test_saved_bonus_area_round_trips() -> None:
    e, _ = play({"alice": "Td Td 4c 6h 8s"}, "3c 6d 9h Js Kc", shoe="Ad", bonus="Tc Td Th 3c",
                actions=[("alice", action("fold"))])
    saved = e.bonus_area
    assert saved == (C("Tc Td Th 3c"), [0, 1, 0, 0])
    fresh = engine()
    fresh.set_bonus_area(*saved)
    assert fresh.bonus_area == saved


# --- the clock ------------------------------------------------------------------------------

def test_clock_reminds_then_sits_out_then_folds() -> None:
    clock = load("deuces").clock
    e = engine()
    e.sit(1, "alice", 1000)
    e.sit(2, "bob", 1000)
    e.set_bonus_area(C("3c 7d 9h Ks"))
    e.start_hand(Deal(hands={"alice": C("Ac Kd 9c 6s 4h"), "bob": C("Qc Qd 9d 6h 4s")},
                      dealer=C("3c 6d 9h Js Kc"), shoe=C("4h 5c 8d Qs As")))
    assert e.tick(1000.0) == []  # the ante phase starts being timed
    e.act("alice", action("ante", amount=100), now=1001.0)
    ev = e.tick(1000.0 + clock.remind_after)
    assert [x["text"] for x in of(ev, "say")] == ["bobさん、アンティをお願いします"]
    assert e.tick(1000.0 + clock.remind_after + 1) == []  # reminded once
    ev = e.tick(1000.0 + clock.act_after)
    assert not e.in_this_hand("bob")
    assert "あなたの手札: A♣ K♦ 9♣ 6♠ 4♥" in [x["text"] for x in of(ev, "say")]
    # the decision clock starts now; alice never answers: reminded, then folded
    t0 = 1000.0 + clock.act_after
    assert of(e.tick(t0 + clock.remind_after), "say")[0]["text"] == (
        "aliceさん、勝負かフォールドの宣言をお願いします"
    )
    ev = e.tick(t0 + clock.act_after)
    assert settle(ev) == {"alice": ("fold", 0)}
    assert e.stacks() == {"alice": 900, "bob": 1000}
    assert e.tick(t0 + 10 * clock.act_after) == []  # no hand: nothing to time


# --- penalties: forced fold and removal -----------------------------------------------------

def test_force_fold_and_remove_mid_hand() -> None:
    e = three_dealt("Tc Td Th Ts 3c")
    # before her ante carol is simply left out of the hand
    assert of(e.force_fold("carol"), "action") == []
    assert not e.in_this_hand("carol")
    e.act("alice", action("ante", amount=100))
    e.act("bob", action("ante", amount=100))
    # bob is removed (an information leak, say): folded, ante lost, stood up at once
    ev = e.remove("bob")
    assert of(ev, "leave") == [{"event": "leave", "player": "bob", "chips": 900, "bank": 900}]
    with pytest.raises(IllegalAction):
        e.force_fold("bob")
    ev = e.act("alice", action("play"))
    assert settle(ev) == {"alice": ("lose", 0), "bob": ("fold", 0)}
    assert of(ev, "hand_end")[0]["stacks"] == {"alice": 800, "carol": 1000}
    house = of(ev, "house")[0]
    assert (house["staked"], house["paid"], house["result"]) == (300, 0, 300)


def _books_balance(ev: list[Event], before: int) -> None:
    """The hand's stacks at the end, the chips of those who left during it and the house's
    result add up to the chips at the start."""
    left = sum(x["chips"] for x in of(ev, "leave"))
    house = of(ev, "house")[0]
    assert sum(of(ev, "hand_end")[0]["stacks"].values()) + left + house["result"] == before


@pytest.mark.parametrize("kind", ["nogame", "misdeal"])
def test_removed_before_the_deal_forfeits_the_ante_on_a_dealing_mistake(kind: str) -> None:
    # ruling: a player removed by a penalty forfeits this hand's stake, no guarantee
    e = three_dealt("Tc Td Th Ts 3c")
    e.act("alice", action("ante", amount=100))
    e.act("bob", action("ante", amount=100))
    ev = e.remove("bob")
    ev += e.dealing_mistake(kind)
    assert [(c["player"], c["payout"]) for c in of(ev, "compensation")] == [("alice", 100)]
    assert e.stacks() == {"alice": 1000, "carol": 1000}
    house = of(ev, "house")[0]
    assert (house["staked"], house["paid"], house["result"]) == (200, 100, 100)
    _books_balance(ev, 3000)


@pytest.mark.parametrize("kind", ["nogame", "misdeal"])
def test_removed_after_the_deal_gets_no_guarantee(kind: str) -> None:
    e = three_dealt("Tc Td Th Ts 3c")
    for n in ("alice", "bob", "carol"):
        e.act(n, action("ante", amount=100))
    e.act("alice", action("play"))
    ev = e.remove("alice")  # she had already played: her hand is dead, both bets forfeit
    assert of(ev, "leave") == [{"event": "leave", "player": "alice", "chips": 800, "bank": 800}]
    ev += e.dealing_mistake(kind)
    comp = {c["player"]: c["payout"] for c in of(ev, "compensation")}
    assert comp == {"bob": 200, "carol": 200}
    assert e.stacks() == {"bob": 1100, "carol": 1100}
    _books_balance(ev, 3000)


def test_removed_after_playing_forfeits_and_the_hand_settles() -> None:
    e = three_dealt("Tc Td Th Ts 3c")
    for n in ("alice", "bob", "carol"):
        e.act(n, action("ante", amount=100))
    ev = e.act("bob", action("play"))
    ev += e.remove("bob")
    ev += e.act("alice", action("play"))
    ev += e.act("carol", action("fold"))
    assert settle(ev) == {"alice": ("lose", 0), "bob": ("fold", 0), "carol": ("fold", 0)}
    assert of(ev, "hand_end")[0]["stacks"] == {"alice": 800, "carol": 900}
    assert "bob" not in final(ev)
    _books_balance(ev, 3000)


# --- the player's choice of duplicate order -------------------------------------------------

TWO_KINDS = {"alice": "Ah Kd Ah Kd 5s", "bob": "Qc Jd 9d 6h 4s"}


def test_several_duplicate_kinds_wait_for_the_players_choice() -> None:
    e, ev = play(TWO_KINDS, "3c 6d 9h Js Kc", shoe="7c 8c 4h 5c 8d Qs As", bonus="3c 7d 9h Ks",
                 actions=[])
    assert e.to_act() == "alice"
    assert of(ev, "duplicate") == []
    assert "先に取り除くカード" in of(ev, "say")[-1]["text"]
    before = fingerprint(e)
    for who, a in [
        ("bob", action("play")),  # everyone waits for alice
        ("alice", action("play")),  # no card named
        ("alice", action("play", discard=["5s"])),  # not a duplicate
        ("alice", action("play", discard=["Ah", "Kd"])),  # one card only
    ]:
        with pytest.raises(IllegalAction):
            e.act(who, a)
        assert fingerprint(e) == before
    ev = e.act("alice", action("play", discard=["Kd"]))
    # Kd first (the area: 7d 9h Ks Kd), then Ah is the only kind left and goes by itself
    assert [(d["card"], d["replacement"]) for d in of(ev, "duplicate")] == [
        ("Kd", "7c"), ("Ah", "8c"),
    ]
    assert e.bonus_area == (C("9h Ks Kd Ah"), [0, 0, 0, 0])
    assert e.shown("alice") == C("Ah Kd 8c 7c 5s")
    assert e.to_act() is None
    e.act("alice", action("fold"))
    ev = e.act("bob", action("fold"))
    assert settle(ev) == {"alice": ("fold", 0), "bob": ("fold", 0)}


def test_duplicate_choice_defaults_on_the_clock_and_when_switched_off() -> None:
    clock = load("deuces").clock
    e, _ = play(TWO_KINDS, "3c 6d 9h Js Kc", shoe="7c 8c 4h 5c 8d Qs As", actions=[])
    assert e.tick(0.0) == []
    assert "先に取り除く重複カードの指定" in of(e.tick(clock.remind_after), "say")[0]["text"]
    ev = e.tick(clock.act_after)
    default = [(d["card"], d["replacement"]) for d in of(ev, "duplicate")]
    assert default == [("Ah", "7c"), ("Kd", "8c")]  # the second Ah comes before the second Kd
    assert e.to_act() is None
    off = configured(duplicate_choice=False)
    off.sit(1, "alice", 100_000)
    off.sit(2, "bob", 100_000)
    _, ev = play(TWO_KINDS, "3c 6d 9h Js Kc", shoe="7c 8c 4h 5c 8d Qs As", actions=[], e=off)
    assert [(d["card"], d["replacement"]) for d in of(ev, "duplicate")] == default


def test_force_fold_of_the_chooser_applies_the_default_order() -> None:
    e, _ = play(TWO_KINDS, "3c 6d 9h Js Kc", shoe="7c 8c 4h 5c 8d Qs As", actions=[])
    ev = e.force_fold("alice")
    assert [d["card"] for d in of(ev, "duplicate")] == ["Ah", "Kd"]
    ev = e.act("bob", action("fold"))
    assert settle(ev) == {"alice": ("fold", 0), "bob": ("fold", 0)}


def test_choice_at_the_second_check() -> None:
    # alice keeps Ah Kd and draws Ah Kd 9s: two kinds after the refill; the dealer waits
    e, ev = play({"alice": "Ah Kd 3c 5d 7s"}, "Tc Td Th Ts 3c", shoe="Ah Kd 9s 4h 6h",
                 actions=[("alice", action("play", keep=["Ah", "Kd"]))])
    assert e.to_act() == "alice" and of(ev, "settle") == []
    ev = e.act("alice", action("play", discard=["Ah"]))
    assert [(d["card"], d["replacement"], d["check"]) for d in of(ev, "duplicate")] == [
        ("Ah", "4h", 2), ("Kd", "6h", 2),
    ]
    assert final(ev) == {"dealer": "Tc Td Th Ts 3c", "alice": "Ah Kd 4h 6h 9s"}
    assert settle(ev) == {"alice": ("lose", 0)}


def test_removing_the_chooser_at_the_second_check_skips_their_hand() -> None:
    e, _ = play({"alice": "Ah Kd 3c 5d 7s"}, "Tc Td Th Ts 3c", shoe="Ah Kd 9s 4h 6h",
                actions=[("alice", action("play", keep=["Ah", "Kd"]))])
    assert e.to_act() == "alice"
    ev = e.remove("alice")  # her dead hand is not checked: no duplicate, no bonus for her
    assert of(ev, "duplicate") == [] and of(ev, "bonus_payout") == []
    assert settle(ev) == {"alice": ("fold", 0)}
    assert not e.in_hand and e.seated() == []


# --- the bonus area handed from a closing table to the next (carried / carry) ---------------

def test_the_bonus_area_is_carried_to_the_next_table_as_json_data() -> None:
    import json

    e, _ = play({"alice": "Th Th 4c 6h 8s"}, "3c 6d 9h Js Kc", shoe="Ad 4h 5c 8d Qs As",
                bonus="Tc 7d 9h Ks", markers=[1, 0, 0, 0])
    data = json.loads(json.dumps(e.carried()))
    assert data == {"cards": cards_str(e.bonus_area[0]), "markers": e.bonus_area[1]}
    nxt = engine()
    assert nxt.carried() is None  # nothing to hand on yet
    nxt.carry(data)
    assert nxt.bonus_area == e.bonus_area and nxt.carried() == data


@pytest.mark.parametrize("bad", [
    {"cards": ["Xx"]}, {"cards": ["Ah", "Ah"]}, {"cards": ["Ah"], "markers": [1, 2]},
    {"cards": ["2h"], "markers": [1]}, {"cards": ["Ah", "Kd", "Qs", "Jc", "Th"]},
    {"cards": ["JK"]}, {"cards": ["Ah"], "markers": ["many"]},
])
def test_a_carried_area_that_is_not_one_is_refused_without_change(bad: dict[str, Any]) -> None:
    e = engine()
    e.set_bonus_area(C("3c 7d 9h Ks"), [0, 1, 0, 0])
    with pytest.raises(IllegalAction):
        e.carry(bad)
    assert e.carried() == {"cards": ["3c", "7d", "9h", "Ks"], "markers": [0, 1, 0, 0]}


def test_the_area_cannot_be_carried_in_during_a_hand() -> None:
    e = engine()
    e.sit(1, "alice", 1000)
    e.start_hand(Deal(hands={"alice": C("Ac Kd 9c 6s 4h")}, dealer=C("Tc Td Th Ts 3c")))
    with pytest.raises(IllegalAction):
        e.carry({"cards": ["Ah"], "markers": [0]})


def test_no_deep_copy_of_the_state_per_call() -> None:
    import copy
    from unittest import mock

    with mock.patch.object(copy, "deepcopy", side_effect=AssertionError("deepcopy")):
        e, ev = play({"alice": "Ac Kd 9c 6s 4h", "bob": "Ah Ah 4c 6d 8h"}, "3c 6d 9h Js Kc",
                     shoe="Ad 4h 5c 8d Qs As 7c 7d 7h 7s Jc")
        e.tick(1.0)
    assert of(ev, "hand_end")
