"""Private messages: the one routing rule (referee.routing) and the
service's refusals -- a table is never opened from a private message, and a table command with
no table chosen is refused with a reason, privately."""

from __future__ import annotations

import itertools
import random

import pytest
from event_helpers import handle, says

from referee.events import Event
from referee.inputs import Message
from referee.routing import private_route
from referee.service import Referee

_ids = itertools.count()


def msg(ref: Referee, sender: str, text: str, room: str, dm: bool = False) -> list[Event]:
    return handle(ref, Message(id=f"r{next(_ids)}", room=room, sender=sender, text=text, dm=dm))


def two_tables() -> Referee:
    ref = Referee(moderators=["dealer"], rng=random.Random(3))
    for p in ("alice", "bob", "carol"):
        msg(ref, "dealer", f"!grant @{p} 2000", "!t1")
    msg(ref, "dealer", "!open omaha level=1", "!t1")
    msg(ref, "dealer", "!open omaha level=1", "!t2")
    msg(ref, "alice", "!sit", "!t1")
    msg(ref, "bob", "!sit", "!t1")
    msg(ref, "carol", "!sit", "!t2")
    return ref


def test_route_by_seat_by_name_or_none() -> None:
    ref = two_tables()
    assert private_route(ref, "alice", "!leave").room == "!t1"
    assert private_route(ref, "carol", "手札").room == "!t2"
    # Not seated: no table, unless one is named (its alias, or its room id).
    assert private_route(ref, "dealer", "!deal").room is None
    named = private_route(ref, "dealer", "!deal #two:hs", {"#two:hs": "!t2"})
    assert (named.room, named.text, named.named) == ("!t2", "!deal", True)
    assert private_route(ref, "dealer", "!deal !t1").room == "!t1"
    # A name that is no table is just text; a command word is never taken for a room.
    assert private_route(ref, "dealer", "!deal #nowhere:hs", {"#two:hs": "!t2"}).room is None
    assert private_route(ref, "dealer", "!t1").room is None


def test_open_in_a_private_message_is_refused() -> None:
    ref = two_tables()
    ev = msg(ref, "dealer", "!open holdem_aa", "!dm-dealer", dm=True)
    assert "!dm-dealer" not in ref.tables
    (refusal,) = says(ev, "dealer")
    assert "個別メッセージでは開けません" in refusal
    assert not says(ev, "room")


def test_table_command_without_a_table_is_refused_privately() -> None:
    ref = two_tables()
    ev = msg(ref, "dealer", "!deal", "!dm-dealer", dm=True)
    (refusal,) = says(ev, "dealer")
    assert "!deal" in refusal and not says(ev, "room")
    assert not ref.tables["!t1"].engine.in_hand


@pytest.mark.parametrize("command", ["!hand 1", "!rules"])
def test_table_reading_commands_without_a_table_say_how_to_name_one(command: str) -> None:
    ev = msg(two_tables(), "dealer", command, "!dm-dealer", dm=True)
    (refusal,) = says(ev, "dealer")
    assert f"!{command.split()[0][1:]}" in refusal and not says(ev, "room")


def test_private_commands_announce_in_the_table_room() -> None:
    ref = two_tables()
    route = private_route(ref, "dealer", "!deal !t1")
    assert route.room == "!t1"
    ev = msg(ref, "dealer", route.text, route.room, dm=True)
    assert ref.tables["!t1"].engine.in_hand
    assert any("さんの番です" in s for s in says(ev, "room"))  # to the table's room
    ev = msg(ref, "alice", "!leave", private_route(ref, "alice", "!leave").room or "", dm=True)
    assert any("退席" in s for s in says(ev, "room"))


def test_the_read_api_and_the_table_events() -> None:
    """What adapters read instead of the tables dict: rooms, a view without the engine, where a
    player sits, and which tables an input opened or closed."""
    ref = two_tables()
    assert ref.rooms() == ["!t1", "!t2"]
    view = ref.table_view("!t1")
    assert view is not None and (view.game, view.seated, view.in_hand) == (
        "omaha", ("alice", "bob"), False)
    assert view.seats >= 2 and ref.table_view("!nowhere") is None
    assert ref.seated_rooms("carol") == ["!t2"] and ref.seated_rooms("dealer") == []
    opened = ref.process(Message(id="open3", room="!t3", sender="dealer", text="!open seven"))
    assert opened is not None and (opened.opened, opened.closed) == (["!t3"], [])
    closed = ref.process(Message(id="close3", room="!t3", sender="dealer", text="!close"))
    assert closed is not None and (closed.opened, closed.closed) == ([], ["!t3"])
    assert not ref.has_table("!t3") and ref.balances()["alice"] >= 0


def test_table_listeners_hear_every_open_and_close_but_not_a_rebuild() -> None:
    ref = Referee(moderators=["dealer"])
    heard: list[tuple[str, str]] = []
    ref.on_table(lambda ev: heard.append((ev.event, ev.room)))
    msg(ref, "dealer", "!open omaha", "!a")
    msg(ref, "dealer", "!close", "!a")
    assert heard == [("table_open", "!a"), ("table_close", "!a")]
    again = Referee(moderators=["dealer"])
    again.on_table(lambda ev: heard.append((ev.event, ev.room)))
    again.rebuild([{"kind": "message", "id": "x", "room": "!b", "sender": "dealer",
                    "text": "!open omaha", "time": None, "dm": False}])
    assert again.has_table("!b") and len(heard) == 2
