"""``deuces`` end to end through ``referee replay`` transcripts (tests/transcripts/deuces/*.txt):
the settle rows and payouts, bonus payouts and the bonus area, jokers, all-in and bankruptcy,
rejected actions and dealing mistakes, and the final stacks. The expected numbers are worked out
by hand from the pay tables in the transcripts' comments, not read back from the engine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from event_helpers import of

from referee.adapters.transcript import replay_events

pytest.importorskip("referee.parse")

ROOT = Path(__file__).resolve().parent.parent
DIR = ROOT / "tests" / "transcripts" / "deuces"


def events(name: str) -> list[dict[str, Any]]:
    return [e.to_json() for e in replay_events(DIR / name)]


def settles(evs: list[dict[str, Any]]) -> list[tuple[str, str, int]]:
    return [(e["player"], e["result"], e["payout"]) for e in of(evs, "settle")]


def stacks(evs: list[dict[str, Any]]) -> list[dict[str, int]]:
    return [e["stacks"] for e in of(evs, "hand_end")]


def test_pay_tables_every_player_and_dealer_row() -> None:
    evs = events("pay_tables.txt")
    # ante x player's class + play bet x dealer's class (100 each; multipliers include stakes)
    expected = [
        ("win", 800 * 100 + 201 * 100),  # natural royal / four deuces
        ("win", 200 * 100 + 26 * 100),  # four deuces / royal with deuce
        ("win", 25 * 100 + 16 * 100),  # royal with deuce / five of a kind
        ("win", 15 * 100 + 10 * 100),  # five of a kind / straight flush
        ("win", 9 * 100 + 6 * 100),  # straight flush / four of a kind
        ("win", 5 * 100 + 4 * 100),  # four of a kind / full house
        ("win", 3 * 100 + 3 * 100),  # full house / flush
        ("win", 2 * 100 + 3 * 100),  # flush / straight
        ("win", 2 * 100 + 2 * 100),  # straight / three of a kind
        ("dealer_fold", 1 * 100 + 1 * 100),  # three of a kind / dealer fold
        ("dealer_fold", 0 * 100 + 1 * 100),  # less than three of a kind / dealer fold
    ]
    assert settles(evs) == [("alice", r, p) for r, p in expected]
    classes = [(e["klass"]) for e in of(evs, "showdown") if e["player"] == "alice"]
    assert classes == [
        "natural_royal_flush", "four_deuces", "wild_royal_flush", "five_of_a_kind",
        "straight_flush", "four_of_a_kind", "full_house", "flush", "straight",
        "three_of_a_kind", "one_pair",
    ]
    dealer = [(e["klass"]) for e in of(evs, "showdown") if e["player"] == "dealer"]
    assert dealer == [
        "four_deuces", "wild_royal_flush", "five_of_a_kind", "straight_flush", "four_of_a_kind",
        "full_house", "flush", "straight", "three_of_a_kind", "high_card", "high_card",
    ]
    chips = 100_000
    for (_, payout), end in zip(expected, stacks(evs), strict=True):
        chips += payout - 200
        assert end == {"alice": chips}
    assert chips == 231_300


def test_bonus_table_every_row() -> None:
    evs = events("bonus_table.txt")
    rows = [
        ("natural_royal_flush", 2000), ("four_deuces", 400), ("wild_royal_flush", 50),
        ("five_of_a_kind", 30), ("straight_flush", 18), ("four_of_a_kind", 10),
        ("full_house", 6), ("flush", 4), ("straight", 4), ("three_of_a_kind", 2),
    ]
    paid = [(e["klass"], e["amount"], e["markers"]) for e in of(evs, "bonus_payout")]
    assert paid == [(k, m * 100, 0) for k, m in rows]
    assert settles(evs) == [("alice", "fold", 0)] * 10
    assert stacks(evs)[-1] == {"alice": 100_000 + sum(m * 100 for _, m in rows) - 10 * 100}
    # the area after the first hand: the new As in, the oldest (Ts) out
    areas = of(evs, "bonus_area")
    assert areas[1] == {
        "event": "bonus_area", "cards": ["Js", "Qs", "Ks", "As"], "markers": [0, 0, 0, 0],
    }


def test_every_settlement_result() -> None:
    evs = events("results.txt")
    assert settles(evs) == [
        ("alice", "lose", 0), ("bob", "push", 200), ("carol", "fold", 0),
        ("dave", "win", 2 * 100 + 3 * 100),
        ("alice", "dealer_fold", 200), ("bob", "dealer_fold", 100), ("carol", "fold", 0),
        ("dave", "dealer_fold", 2 * 100 + 100),
    ]
    assert stacks(evs) == [
        {"alice": 9800, "bob": 10000, "carol": 9900, "dave": 10300},
        {"alice": 9800, "bob": 9900, "carol": 9800, "dave": 10400},
    ]


def test_seed_refill_order() -> None:
    evs = events("refill_order.txt")
    refills = [(e["to"], e["text"]) for e in of(evs, "say") if e["text"].startswith("補充")]
    # seat 3, seat 3, (dealer), seat 1, seat 3, (dealer): the dealer's cards are not sent
    assert refills == [
        ("bob", "補充: J♣"), ("bob", "補充: J♦"), ("alice", "補充: Q♣"), ("bob", "補充: Q♦"),
    ]
    hands = {e["player"]: e["cards"] for e in of(evs, "showdown")}
    assert hands == {
        "bob": ["9s", "9d", "Jc", "Jd", "Qd"],
        "dealer": ["Tc", "Td", "Th", "Js", "Qs"],
        "alice": ["Ac", "Ad", "Ah", "Kc", "Qc"],
    }
    assert settles(evs) == [("alice", "win", 100 + 200), ("bob", "lose", 0)]


def test_markers_double_and_the_area_carries_over() -> None:
    evs = events("markers.txt")
    paid = [(e["card"], e["markers"], e["amount"]) for e in of(evs, "bonus_payout")]
    assert paid == [("Td", 1, 2 * 100 * 2), ("Th", 2, 2 * 100 * 4), ("Kd", 2, 2 * 100 * 4)]
    last = of(evs, "bonus_area")[-1]
    assert (last["cards"], last["markers"]) == (["Td", "Th", "3c", "Kd"], [1, 1, 0, 0])
    assert stacks(evs)[-1] == {"alice": 10_000 - 300 + 400 + 800 + 800}


def test_jokers_in_and_out_of_the_last_slot() -> None:
    evs = events("jokers.txt")
    jokers = [(e["payout"], e["restore"]) for e in of(evs, "joker")]
    assert jokers == [
        (200, 0),  # last slot off: 2x ante
        (500, 0),  # last slot on, not behind: 5x ante
        (1500 + 200 + 200, 1500),  # behind: restored to 10000, then 2x ante + 2x play bet
        (200, 0),  # last slot off again
    ]
    assert [e["stacks"]["alice"] for e in of(evs, "hand_end")] == [
        10_100, 10_500, 8_500, 10_500, 10_600,
    ]
    # the joker plays wild but is never a duplicate
    assert of(evs, "duplicate") == []


def test_allin_and_bankruptcy() -> None:
    evs = events("allin_bankruptcy.txt")
    antes = [(e["player"], e["action"], e["amount"]) for e in of(evs, "action")]
    assert antes[:3] == [("alice", "allin", 75), ("bob", "ante", 20), ("carol", "ante", 20)]
    assert ("bob", "allin", 10) in antes
    assert stacks(evs) == [{"alice": 1, "bob": 20, "carol": 19}, {"bob": 20}]
    assert [(e["player"], e["chips"], e["bank"]) for e in of(evs, "leave")] == [
        ("alice", 1, 1), ("carol", 19, 19),
    ]


def test_illegal_actions_are_rejected_and_change_nothing() -> None:
    evs = events("illegal.txt")
    rejected = [(e["player"], e["text"]) for e in of(evs, "rejected")]
    assert rejected == [
        ("alice", "アンティ100"),  # no hand yet
        ("alice", "Ac を残す"),  # before the ante
        ("alice", "アンティ50"),  # not a multiple of the unit
        ("alice", "アンティ100"),  # twice
        ("carol", "アンティ10000"),  # the play bet would not be covered
        ("bob", "全部残す"),  # after folding
        ("alice", "As を残す"),  # a card she does not hold
        ("alice", "Kd Kd を捨てる"),  # more than she holds
        ("alice", "フォールド"),  # after playing
        ("alice", "全部残す"),
    ]
    for e in of(evs, "rejected"):
        assert any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in e["reason"])
    # only the accepted actions moved chips: 100 + 100 alice, 100 bob, 100 + 100 carol
    assert [(e["player"], e["action"], e["amount"]) for e in of(evs, "action")] == [
        ("alice", "ante", 100), ("bob", "ante", 100), ("carol", "ante", 100),
        ("bob", "fold", 0), ("alice", "play", 100), ("carol", "play", 100),
    ]
    assert stacks(evs) == [{"alice": 9800, "bob": 9900, "carol": 9800}]


def test_dealing_mistake_compensation() -> None:
    evs = events("dealing_mistake.txt")
    comp = [(e["player"], e["payout"], e["bets"]) for e in of(evs, "compensation")]
    assert comp == [
        ("alice", 400, {"ante": 200, "play": 200}),
        ("bob", 200, {"ante": 200}),
        ("carol", 200, {"ante": 200}),
    ]
    assert of(evs, "settle") == []
    assert stacks(evs) == [{"alice": 10_200, "bob": 10_100, "carol": 10_100}]


def test_player_chooses_the_duplicate_order() -> None:
    evs = events("duplicate_choice.txt")
    assert [(e["player"], e["text"]) for e in of(evs, "rejected")] == [
        ("bob", "全部残す"),  # the check waits for alice
        ("alice", "5s を捨てる"),  # not a duplicate
    ]
    assert [(e["card"], e["replacement"]) for e in of(evs, "duplicate")] == [
        ("Kd", "7c"), ("Ah", "8c"),
    ]
    last = of(evs, "bonus_area")[-1]
    assert (last["cards"], last["markers"]) == (["9h", "Ks", "Kd", "Ah"], [0, 0, 0, 0])
    assert stacks(evs) == [{"alice": 9900, "bob": 9900}]


def test_action_clock() -> None:
    evs = events("clock.txt")
    says = [e["text"] for e in of(evs, "say") if e["to"] == "room"]
    assert "bobさん、アンティをお願いします" in says
    assert "時間切れのためbobさんはこのハンドを見送ります" in says
    assert "時間切れのためaliceさんはフォールドです" in says
    assert settles(evs) == [("alice", "fold", 0)]
    assert stacks(evs) == [{"alice": 9900, "bob": 10000}]


def test_chips_balance_in_every_transcript() -> None:
    """Every chip that left a player is in a payout or in the house's result: per hand, each
    stack moves by exactly (payouts received - chips staked), and the house's result is the
    sum of what the players lost."""
    for path in sorted(DIR.glob("*.txt")):
        before: dict[str, int] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("# seat "):
                name, chips = line.split(":", 1)[1].split()[:2]
                before[name] = int(chips)
        staked: dict[str, int] = {}
        got: dict[str, int] = {}
        for e in events(path.name):
            kind = e["event"]
            if kind == "action":
                staked[e["player"]] = staked.get(e["player"], 0) + e["amount"]
            elif kind in ("settle", "joker", "compensation", "bonus_payout"):
                amount = e["amount"] if kind == "bonus_payout" else e["payout"]
                got[e["player"]] = got.get(e["player"], 0) + amount
            elif kind == "house":
                assert e["result"] == sum(staked.values()) - sum(got.values()), path.name
            elif kind == "hand_end":
                for name, chips in before.items():
                    want = chips - staked.get(name, 0) + got.get(name, 0)
                    assert e["stacks"][name] == want, (path.name, e["hand"], name)
                before, staked, got = dict(e["stacks"]), {}, {}
            elif kind == "leave":
                del before[e["player"]]


def test_replay_cli(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "referee.cli", "replay", str(DIR / "results.txt")],
        capture_output=True, text=True, check=True, timeout=60,
    )
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert settles(lines) == settles(events("results.txt"))


def test_removed_player_forfeits_the_stake_on_a_dealing_mistake() -> None:
    evs = events("penalty_nogame.txt")
    # alice had played (ante 100 + play 100): folded, both bets forfeit, she leaves with 9800
    assert [(e["player"], e["action"]) for e in of(evs, "action")][-1] == ("alice", "fold")
    assert [(e["player"], e["chips"]) for e in of(evs, "leave")] == [("alice", 9800)]
    comp = [(e["player"], e["payout"], e["bets"]) for e in of(evs, "compensation")]
    assert comp == [("bob", 200, {"ante": 200}), ("carol", 200, {"ante": 200})]
    house = of(evs, "house")[0]
    assert (house["staked"], house["paid"], house["result"]) == (400, 400, 0)
    assert stacks(evs) == [{"bob": 10_100, "carol": 10_100}]
