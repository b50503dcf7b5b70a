"""Which events of a room's timeline are the bot's business: those after its own join (history
before it is not), and on a first run ever in a room it was joined to beforehand, only what came
lately. Pure functions over nio's events, testable without a homeserver."""

from __future__ import annotations

from typing import Any


def is_own_join(ev: Any, me: str) -> bool:
    return (getattr(ev, "state_key", None) == me
            and getattr(ev, "membership", None) == "join"
            and getattr(ev, "prev_membership", None) != "join")


FIRST_RUN_WINDOW = 300.0  # seconds before its first start a bot still reads (after its join)


def first_run(events: list[Any], state: list[Any], me: str, since: float) -> list[Any]:
    """The timeline events of a room the bot joined before its first sync that came after its
    own join (in the timeline, else in the room's state) and after ``since`` (wall time)."""
    after, found = after_own_join(events, me)
    if not found:
        joins = [getattr(e, "server_timestamp", 0) for e in state
                 if getattr(e, "state_key", None) == me
                 and getattr(e, "membership", None) == "join"]
        if not joins:
            return []  # when it joined is unknown: all history
        after = [e for e in events if getattr(e, "server_timestamp", 0) > max(joins)]
    return [e for e in after if getattr(e, "server_timestamp", 0) / 1000.0 >= since]


def after_own_join(events: list[Any], me: str) -> tuple[list[Any], bool]:
    """The events after the bot's own join (history before it is not the bot's business)."""
    for i in range(len(events) - 1, -1, -1):
        if is_own_join(events[i], me):
            return events[i + 1:], True
    return [], False
