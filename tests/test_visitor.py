"""The event visitor (:mod:`referee.records.visitor`): one walk over a log hands each event to
the visitor's ``visit_<kind>`` as its typed event, in order, inside the input hooks; kinds it has
no method for are skipped, an event that does not fit its kind goes to ``visit_unreadable``."""

from __future__ import annotations

from typing import Any

from referee.events import ActionEvent, HandEnd, HandStart
from referee.records.visitor import Entry, EventVisitor, walk, walk_events


class Trace(EventVisitor):
    def __init__(self) -> None:
        self.seen: list[Any] = []

    def begin_input(self, entry: Entry) -> None:
        self.seen.append(("begin", entry.seq))

    def end_input(self, entry: Entry) -> None:
        self.seen.append(("end", entry.seq))

    def end(self) -> None:
        self.seen.append("done")

    def visit_hand_start(self, ev: HandStart) -> None:
        self.seen.append(ev)

    def visit_action(self, ev: ActionEvent) -> None:
        self.seen.append(ev)

    def visit_unreadable(self, data: dict[str, Any], error: str) -> None:
        self.seen.append(("unreadable", data["event"]))


def test_walk_dispatches_typed_events_in_order() -> None:
    log = [
        Entry(1, "r", {}, None, [{"event": "hand_start", "hand": 1, "button": 2},
                                 {"event": "say", "to": "room", "text": "x"}]),
        Entry(2, "r", {}, None, [{"event": "action", "player": "a", "action": "call",
                                  "amount": 100},
                                 {"event": "action", "player": "a"},  # no action: unreadable
                                 {"event": "hand_end", "hand": 1, "stacks": {}}]),
    ]
    t = Trace()
    walk(log, t)
    assert t.seen == [("begin", 1), HandStart(hand=1, button=2), ("end", 1), ("begin", 2),
                      ActionEvent(player="a", action="call", amount=100),
                      ("unreadable", "action"), ("end", 2), "done"]


def test_typed_events_walk_as_one_input() -> None:
    t = Trace()
    walk_events("r", [HandStart(hand=3, button=1), HandEnd(hand=3, stacks={})], t)
    assert t.seen == [("begin", 0), HandStart(hand=3, button=1), ("end", 0)]
