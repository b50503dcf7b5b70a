"""Typed inputs: what an adapter hands the service.

Three kinds, one per source of change: a chat :class:`Message`, a :class:`Directive` (a
transcript's ``# table:`` / ``# deal:`` lines, a moderator console's operations), and a
:class:`Tick` (a live adapter's timer driving the action clock without a message). Every adapter
builds them with these constructors -- never a dict by hand -- and the store keeps them as their
:func:`record` (the JSON dict of ``Outcome.input``), which a restart hands back to
``Referee.process`` as it is. ``id`` is unique per source (Matrix event id, transcript
``file:line``, ``irc:run:seq``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

__all__ = ["Directive", "Input", "Message", "Tick", "from_record", "record"]


@dataclass(frozen=True, slots=True)
class Message:
    """A chat message in ``room`` (``dm``: a private room with the bot; ``edit``: the new text
    of an edited message, which the room now sees -- judged for hand talk and interference, but
    never an action or a command: the edited original stands)."""

    id: str
    room: str
    sender: str
    text: str
    time: float | None = None
    dm: bool = False
    edit: bool = False


@dataclass(frozen=True, slots=True)
class Directive:
    """An operation that is not chat: ``name`` is ``table``, ``seat``, ``deal``, ``bank``, …"""

    id: str
    room: str
    name: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Tick:
    """The action clock at ``time`` (seconds), with no message."""

    id: str
    room: str
    time: float


Input: TypeAlias = Message | Directive | Tick


def record(inp: Input) -> dict[str, Any]:
    """The JSON dict the store keeps for ``inp`` (``kind`` names the type)."""
    if isinstance(inp, Message):
        rec = {"kind": "message", "id": inp.id, "room": inp.room, "sender": inp.sender,
               "text": inp.text, "time": inp.time, "dm": inp.dm}
        if inp.edit:
            rec["edit"] = True
        return rec
    if isinstance(inp, Directive):
        return {"kind": "directive", "id": inp.id, "room": inp.room, "name": inp.name,
                "args": dict(inp.args)}
    return {"kind": "tick", "id": inp.id, "room": inp.room, "time": inp.time}


def from_record(rec: Mapping[str, Any]) -> Input:
    """The typed input a stored record is (its other keys -- what the input drew -- are the
    outcome's, see :data:`referee.outcome.DRAWN`). Reads every record the store has kept: a
    message's ``time`` and ``dm`` may be missing in old ones (no time, not private)."""
    kind = rec.get("kind")
    if kind == "directive":
        return Directive(str(rec["id"]), str(rec.get("room", "")), str(rec["name"]),
                         dict(rec.get("args", {})))
    if kind == "tick":
        return Tick(str(rec["id"]), str(rec.get("room", "")), float(rec["time"]))
    now = rec.get("time")
    return Message(str(rec["id"]), str(rec.get("room", "")), str(rec.get("sender", "")),
                   str(rec.get("text", "")), float(now) if now is not None else None,
                   bool(rec.get("dm", False)), bool(rec.get("edit", False)))
