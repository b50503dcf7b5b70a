"""Omaha tournaments and max buy-in tables: transcripts written by hand from the
rulings in referee/rules/tournament.py, and a property test over random tournaments."""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import pytest
from event_helpers import directive
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.adapters.transcript import replay_events
from referee.cards import card_str
from referee.rules import OptionError, create
from referee.service import Referee

DIR = Path(__file__).parent / "transcripts" / "tournament"


def run(name: str) -> tuple[list[dict[str, Any]], Referee]:
    ref = Referee()
    return [e.to_json() for e in replay_events(DIR / name, referee=ref)], ref


def of(evs: list[dict[str, Any]], kind: str, **match: Any) -> list[dict[str, Any]]:
    return [e for e in evs if e["event"] == kind and all(e.get(k) == v for k, v in match.items())]


def test_max_buyin_brings_at_most_the_limit_and_the_rest_stays_in_the_bank() -> None:
    evs, ref = run("maxbuyin.txt")
    assert of(evs, "bank", player="alice", reason="buy_in") == [
        {"event": "bank", "player": "alice", "delta": -500, "balance": 1500,
         "reason": "buy_in"}]
    assert "aliceさんが1番席に着席しました（チップ 5,000）。" in [e["text"] for e in of(evs, "say")]
    # below the limit: everything, as at any ring table
    assert of(evs, "bank", player="bob", reason="buy_in")[0]["delta"] == -300
    assert of(evs, "leave", player="alice") == [
        {"event": "leave", "player": "alice", "chips": 5000, "bank": 500}]
    assert ref.bank.balance("alice") == 2000 and ref.bank.balance("bob") == 300


def test_three_player_tournament_to_the_end() -> None:
    evs, ref = run("three_players.txt")
    # entries into the pool; dave's bank (50) cannot pay the 100 entry: refused, nothing moved
    assert [(e["player"], e["delta"]) for e in of(evs, "bank", reason="entry")] == [
        ("alice", -100), ("bob", -100), ("carol", -100)]
    says = [e["text"] for e in of(evs, "say")]
    assert "daveさん: エントリー費 100P に足りません（バンク 50P）" in says
    assert not of(evs, "bank", player="dave", reason="entry")
    # no late registration; no leaving while it runs
    assert "daveさん: トーナメントはすでに始まっています（途中参加はできません）" in says
    assert "aliceさん: トーナメント中は退席できません（チップがなくなると敗退です）" in says
    # the blinds rise on schedule: hands 1-2 at level 1, hand 3 at level 2
    assert of(evs, "level_up") == [
        {"event": "level_up", "level": 2, "sb": 20, "bb": 50, "ante": 0}]
    starts = [i for i, e in enumerate(evs) if e["event"] == "hand_start"]
    assert evs.index(of(evs, "level_up")[0]) > starts[2]
    # eliminations in different hands, with their places
    ends = [i for i, e in enumerate(evs) if e["event"] == "hand_end"]
    (carol,) = of(evs, "eliminated", player="carol")
    (bob,) = of(evs, "eliminated", player="bob")
    assert carol["place"] == 3 and ends[0] < evs.index(carol) < starts[1]
    assert bob["place"] == 2 and evs.index(bob) > ends[2]
    # no rake, and the chips in play stay entrants x stack at every hand's end
    assert not of(evs, "rake")
    for i in ends:
        assert sum(evs[i]["stacks"].values()) == 3 * 1000
    (end,) = of(evs, "tournament_end")
    assert end["places"] == {"alice": 1, "bob": 2, "carol": 3}
    assert end["prizes"] == {"alice": 210, "bob": 90}
    # the bank: entries and prizes in the ledger (alice's hand bonus 2 x 400 at the end of her
    # seat; tournament chips are worth nothing)
    ledger = [(e.player, e.delta, e.reason) for e in ref.bank.ledger
              if e.reason != "opening balance"]
    assert ledger == [("alice", -100, "entry"), ("bob", -100, "entry"),
                      ("carol", -100, "entry"), ("alice", 210, "prize"), ("bob", 90, "prize"),
                      ("alice", 800, "leave")]
    assert ref.bank.balance("alice") == 500 - 100 + 210 + 800
    assert ref.bank.balance("bob") == 500 - 100 + 90
    assert ref.bank.balance("carol") == 0


def test_status_shows_the_level_the_blinds_and_the_players_left() -> None:
    evs, _ = run("three_players.txt")
    status = [e["text"] for e in of(evs, "say") if "トーナメント: " in e["text"]]
    assert status[0].endswith("トーナメント: レベル1（SB 10 / BB 20）・開始前・残り 3/3 人・"
                              "平均スタック 1,000・賞金総額 300P")
    assert "レベル2（SB 20 / BB 50）・次のレベルまで 1 ハンド・残り 2/3 人" in status[1]
    assert [e["text"] for e in of(evs, "say")][-1].endswith("トーナメントは終了しました")


def test_double_elimination_is_placed_by_the_stacks_at_the_start_of_the_hand() -> None:
    evs, _ = run("double_elimination.txt")
    assert of(evs, "hand_end")[0]["stacks"] == {"alice": 1030, "bob": 990, "carol": 980,
                                                "dave": 1000}
    assert [(e["player"], e["place"]) for e in of(evs, "eliminated")] == [
        ("carol", 4), ("dave", 3)]


@pytest.mark.parametrize("options,code", [
    ({"stack": "1000"}, "omaha.option_tournament_only"),
    ({"tournament": "on", "maxbuyin": "500"}, "omaha.option_tournament_maxbuyin"),
    ({"tournament": "on", "payouts": "70,20"}, "tournament_payouts_sum"),
    ({"tournament": "on", "level_hands": "2", "level_minutes": "5"}, "omaha.option_level_both"),
    ({"tournament": "maybe"}, "omaha.option_onoff"),
    ({"maxbuyin": "-5"}, "omaha.option_count"),
])
def test_bad_tournament_options_are_refused_with_the_reason(
    options: dict[str, str], code: str
) -> None:
    with pytest.raises(OptionError) as refused:
        create("omaha", options)
    assert refused.value.code == code, refused.value.params


# --- property: the pool paid out equals the entries; the chips in play never change ----------

def _play(seed: int, n: int, stack: int, entry: int, payouts: str) -> None:
    rng = random.Random(seed)
    ref = Referee(moderators=["dealer"])
    ids = itertools.count()
    room = "t"

    def msg(sender: str, text: str) -> list[Any]:
        out = ref.process({"kind": "message", "id": f"m{next(ids)}", "room": room,
                           "sender": sender, "text": text, "time": float(next(ids)),
                           "dm": False})
        return out.events if out is not None else []

    names = [f"p{i}" for i in range(n)]
    directive(ref, "d0", room, "table", {"game": "omaha", "options": {
        "tournament": "on", "limit": "no", "stack": str(stack), "entry": str(entry),
        "level_hands": "3", "payouts": payouts}})
    for i, name in enumerate(names):
        directive(ref, f"b{i}", room, "bank", {"name": name, "points": entry + rng.randint(0, 50)})
        msg(name, "!sit")
    engine = ref.tables[room].engine
    ends: list[Any] = []
    for hand in range(200):
        if not engine.stacks():
            break
        deck = list(range(52))
        rng.shuffle(deck)
        seated = list(engine.stacks())
        hands = {p: [card_str(deck.pop()) for _ in range(4)] for p in seated}
        events = directive(ref, f"deal{hand}", room, "deal",
                               {"hands": hands, "board": [card_str(deck.pop()) for _ in range(5)]})
        while engine.in_hand:
            who = engine.to_act()
            assert who is not None
            choice = rng.choice(["オールイン", "コール", "チェック", "フォールド", "オープン"])
            evs = msg(who, choice)
            if any(e.event == "rejected" for e in evs):
                evs = msg(who, "オープン" if engine.decision(who) == "showdown" else "フォールド")
            events += evs
        ends += [e for e in events if e.event in ("hand_end", "tournament_end")]
    hand_ends = [e for e in ends if e.event == "hand_end"]
    assert hand_ends
    for e in hand_ends:
        assert sum(e.stacks.values()) == n * stack  # chips in play: entrants x stack
    (end,) = [e for e in ends if e.event == "tournament_end"]
    assert sum(end.prizes.values()) == n * entry  # the pool paid out = the entries collected
    assert sorted(end.places.values())[0] == 1 and len(end.places) == n
    prizes = sum(e.delta for e in ref.bank.ledger if e.reason == "prize")
    entries = -sum(e.delta for e in ref.bank.ledger if e.reason == "entry")
    assert prizes == entries == n * entry


@settings(max_examples=examples(25), deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 6), st.sampled_from([500, 1000, 3000]),
       st.integers(0, 333), st.sampled_from(["100", "70,30", "50,30,20", "34,33,33"]))
def test_random_tournaments_pay_out_the_pool_and_keep_the_chips(
    seed: int, n: int, stack: int, entry: int, payouts: str
) -> None:
    _play(seed, n, stack, entry, payouts)
