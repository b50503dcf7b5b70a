"""Leaving the table's room leaves the hand (docs/rules.md, rulings on tables and people): a
player who leaves, is kicked or banned (the adapters send a ``departed`` directive) is folded at
once, is never awarded a pot, goes back to the bank as on ``!leave``, and the table goes on
without waiting for the clock -- in every game."""

from __future__ import annotations

import itertools
import random

from event_helpers import as_json, directive, handle

from referee.events import Event
from referee.inputs import Message
from referee.service import Referee

ROOM = "!table"
_ids = itertools.count()


def msg(ref: Referee, sender: str, text: str) -> list[Event]:
    return handle(ref, Message(f"m{next(_ids)}", ROOM, sender, text, time=1000.0))


def depart(ref: Referee, name: str, how: str = "ban") -> list[dict]:
    return as_json(directive(ref, f"d{next(_ids)}", ROOM, "departed",
                             {"name": name, "how": how}))


def omaha_hand() -> Referee:
    ref = Referee(moderators=["dealer"], rng=random.Random(3))
    for p in ("alice", "bob", "carol"):
        msg(ref, "dealer", f"!grant @{p} 2000")
    msg(ref, "dealer", "!open omaha level=1")
    for p in ("alice", "bob", "carol"):
        msg(ref, p, "!sit")
    msg(ref, "dealer", "!deal")
    return ref


def to_act(ref: Referee) -> str:
    view = ref.tables[ROOM].engine
    turn = view.to_act() if hasattr(view, "to_act") else None
    assert isinstance(turn, str), turn
    return turn


def test_the_player_to_act_is_folded_at_once_and_the_table_moves_on() -> None:
    ref = omaha_hand()
    who = to_act(ref)
    before = ref.bank.balance(who)
    ev = depart(ref, who)
    folds = [e for e in ev if e["event"] == "action" and e["player"] == who]
    assert folds and folds[0]["action"] == "fold", ev
    assert ref.tables[ROOM].engine.in_hand
    assert to_act(ref) != who  # the next player is prompted now, not after the clock
    # the rest of the hand: nobody pays the departed player anything
    rest: list[dict] = []
    while ref.tables[ROOM].engine.in_hand:
        rest += as_json(msg(ref, to_act(ref), "フォールド"))
    pots = [e for e in rest if e["event"] == "pot"]
    assert pots and all(who not in p["shares"] for p in pots)
    assert who not in ref.seated_names(ROOM)
    leave = [e for e in ev + rest if e["event"] == "leave" and e["player"] == who]
    assert len(leave) == 1
    assert ref.bank.balance(who) == before + leave[0]["bank"]


def test_a_player_not_to_act_is_folded_too_and_the_last_one_wins() -> None:
    ref = omaha_hand()
    first = to_act(ref)
    others = [p for p in ("alice", "bob", "carol") if p != first]
    ev = depart(ref, others[0], "leave") + depart(ref, others[1], "kick")
    assert not ref.tables[ROOM].engine.in_hand  # one player left in the hand: it is over
    pots = [e for e in ev if e["event"] == "pot"]
    assert pots and all(set(p["shares"]) == {first} for p in pots), pots
    assert ref.seated_names(ROOM) == {first}


def test_a_spectator_or_an_empty_room_departing_changes_nothing() -> None:
    ref = omaha_hand()
    before = ref.state()
    assert depart(ref, "mallory") == []
    assert ref.state()["tables"] == before["tables"]
    other = Referee()
    assert as_json(directive(other, "x1", "!nowhere", "departed", {"name": "a"})) == []


def test_departure_between_hands_leaves_at_once() -> None:
    ref = Referee(moderators=["dealer"], rng=random.Random(3))
    msg(ref, "dealer", "!grant @alice 2000")
    msg(ref, "dealer", "!open omaha level=1")
    msg(ref, "alice", "!sit")
    ev = depart(ref, "alice")
    assert [e["event"] for e in ev if e["event"] == "leave"] == ["leave"]
    assert ref.bank.balance("alice") == 2000
