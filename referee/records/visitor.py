"""One walk over the event log, read by visitors (in the style of python-chess's PGN visitor).

The log is a sequence of inputs, each with the events it caused. :func:`walk` goes through it
once and hands every event to the visitor as its **typed** event (:mod:`referee.events`, or an
engine's own kind), calling ``visit_<kind>`` -- ``visit_hand_start``, ``visit_action``,
``visit_board`` ... -- when the visitor has such a method; a kind the visitor has no method for
costs a dict lookup and is never validated. Around each input it calls
:meth:`EventVisitor.begin_input` and :meth:`EventVisitor.end_input`, and :meth:`EventVisitor.end`
once at the end, so that a reader keeps what it needs per input (the console: where and when a
record happened) and per hand.

A visitor reads what the room was told only if it asks for it: nothing here looks at a private
``say`` or a ``deal`` unless a visitor's method does. An event whose fields do not fit its kind
(a database written by a much older referee) is handed to :meth:`EventVisitor.visit_unreadable`,
which skips it by default: a reader never stops at one bad event.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from referee.events import Event
from referee.rules.registry import event_types

Handler = Callable[[Any], None]


@dataclass(slots=True)
class Entry:
    """One input of the log: its place (``seq``), room, the input as typed (its JSON object),
    when the referee processed it (epoch seconds) and its events as stored (JSON objects, for
    the readers that are not visitors yet: the store's projection)."""

    seq: int
    room: str
    input: dict[str, Any]
    processed_at: float | None
    raw: list[dict[str, Any]] = field(default_factory=list)


class EventVisitor:
    """A reader of the log: override ``visit_<kind>(event)`` for the kinds it reads, and the
    input and end hooks it needs. :meth:`handlers` maps kinds to methods once per walk; a
    subclass may extend it (one method for several kinds)."""

    def handlers(self) -> dict[str, Handler]:
        out: dict[str, Handler] = {}
        for kind in event_types():
            method = getattr(self, f"visit_{kind}", None)
            if callable(method):
                out[kind] = method
        return out

    def begin_input(self, entry: Entry) -> None:
        """Before the input's first event."""

    def end_input(self, entry: Entry) -> None:
        """After the input's last event."""

    def end(self) -> None:
        """After the last input."""

    def visit_unreadable(self, data: dict[str, Any], error: str) -> None:
        """An event whose fields do not fit its kind: skipped."""


class Together(EventVisitor):
    """Several visitors read in one walk, each event handed to them in the order given."""

    def __init__(self, *visitors: EventVisitor) -> None:
        self.visitors = visitors

    def handlers(self) -> dict[str, Handler]:
        tables = [v.handlers() for v in self.visitors]
        out: dict[str, Handler] = {}
        for kind in {k for t in tables for k in t}:
            found = [t[kind] for t in tables if kind in t]
            out[kind] = found[0] if len(found) == 1 else _each(found)
        return out

    def begin_input(self, entry: Entry) -> None:
        for v in self.visitors:
            v.begin_input(entry)

    def end_input(self, entry: Entry) -> None:
        for v in self.visitors:
            v.end_input(entry)

    def end(self) -> None:
        for v in self.visitors:
            v.end()

    def visit_unreadable(self, data: dict[str, Any], error: str) -> None:
        for v in self.visitors:
            v.visit_unreadable(data, error)


def _each(handlers: list[Handler]) -> Handler:
    def handler(ev: Any) -> None:
        for h in handlers:
            h(ev)

    return handler


def typed(data: dict[str, Any]) -> Event:
    """The typed event of a stored JSON object (ValueError if its kind is unknown or its fields
    do not fit)."""
    cls = event_types().get(str(data.get("event")))
    if cls is None:
        raise ValueError(f"unknown event kind: {data.get('event')!r}")
    return cls.model_validate(data)


def walk(entries: Iterable[Entry], visitor: EventVisitor) -> None:
    """Hand every event of ``entries`` to ``visitor`` (see the module docstring)."""
    handlers = visitor.handlers()
    kinds = event_types()
    for entry in entries:
        visitor.begin_input(entry)
        for data in entry.raw:
            if not isinstance(data, dict):
                continue
            kind = data.get("event")
            handler = handlers.get(kind) if isinstance(kind, str) else None
            if handler is None:
                continue
            try:
                event = kinds[str(kind)].model_validate(data)
            except ValidationError as e:
                visitor.visit_unreadable(data, str(e).splitlines()[0])
                continue
            handler(event)
        visitor.end_input(entry)
    visitor.end()


def walk_events(room: str, events: Iterable[Event], visitor: EventVisitor) -> None:
    """Already typed events of one room (a replay, the live service) through ``visitor``,
    as one input."""
    handlers = visitor.handlers()
    entry = Entry(0, room, {}, None)
    visitor.begin_input(entry)
    for ev in events:
        handler = handlers.get(ev.event)
        if handler is not None:
            handler(ev)
    visitor.end_input(entry)


def log_entries(conn: sqlite3.Connection, batch: int = 512, after: int = 0) -> Iterator[Entry]:
    """Every input of a referee database's log in order (the compact layout or one not migrated
    yet), its JSON decoded; ``after``: only those after that seq (a reader resumed)."""
    import json

    from referee.store.log import register, source

    table = source(conn)
    if table == "log":
        register(conn)
    cur = conn.execute(f"SELECT seq, room, input, events, processed_at FROM {table}"
                       " WHERE seq > ? ORDER BY seq", (after,))
    while rows := cur.fetchmany(batch):
        for seq, room, raw_input, raw_events, processed_at in rows:
            events = json.loads(raw_events)
            yield Entry(int(seq), str(room), json.loads(raw_input), processed_at,
                        events if isinstance(events, list) else [])
