"""Typed inputs: what an adapter hands the service (issue #20).

Three kinds, one per source of change: a chat :class:`Message`, a :class:`Directive` (a
transcript's ``# table:`` / ``# deal:`` lines, a moderator console's operations), and a
:class:`Tick` (a live adapter's timer driving the action clock without a message). Every adapter
builds them with these constructors -- never a dict by hand -- and the store keeps them as their
:func:`record` (the JSON dict of ``Outcome.input``), from which :func:`from_record` gives them
back. ``id`` is unique per source (Matrix event id, transcript ``file:line``, ``irc:run:seq``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeAlias

__all__ = ["Directive", "Input", "InputError", "Message", "Tick", "from_record", "record"]


class InputError(ValueError):
    """A stored or submitted input that is not one of the three kinds."""


@dataclass(frozen=True, slots=True)
class Message:
    """A chat message in ``room`` (``dm``: a private room with the bot)."""

    id: str
    room: str
    sender: str
    text: str
    time: float | None = None
    dm: bool = False


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
        return {"kind": "message", "id": inp.id, "room": inp.room, "sender": inp.sender,
                "text": inp.text, "time": inp.time, "dm": inp.dm}
    if isinstance(inp, Directive):
        return {"kind": "directive", "id": inp.id, "room": inp.room, "name": inp.name,
                "args": dict(inp.args)}
    return {"kind": "tick", "id": inp.id, "room": inp.room, "time": inp.time}


def from_record(data: dict[str, Any]) -> Input:
    """The typed input of a stored record (extra keys such as a recorded ``deal`` are the
    service's, read from the record itself). Raises InputError for anything else."""
    try:
        kind = data.get("kind", "message")
        if kind == "message":
            t = data.get("time")
            return Message(str(data["id"]), str(data.get("room", "")), str(data["sender"]),
                           str(data["text"]), None if t is None else float(t),
                           bool(data.get("dm", False)))
        if kind == "directive":
            return Directive(str(data["id"]), str(data.get("room", "")), str(data["name"]),
                             dict(data.get("args") or {}))
        if kind == "tick":
            return Tick(str(data["id"]), str(data.get("room", "")), float(data["time"]))
    except (KeyError, TypeError, ValueError) as e:
        raise InputError(f"malformed {data.get('kind', 'message')} input: {e}") from None
    raise InputError(f"unknown input kind: {kind!r}")
