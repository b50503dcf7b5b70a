"""The live adapters' timer for the action clock (the adapter owns the wall clock; the service
only receives the time as an input).

Without it a table ticks only when someone writes, so a player who never acts stalls it. Every
tick is saved as an input, so ticks are rationed: only tables where a hand is running and the
clock is not paused (``Referee.wants_tick``), and at most one every ``every`` seconds per table.
The engines' deadlines are whole seconds (``remind_after``/``act_after``), so a reminder or a
default action comes at most ``every`` seconds late."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from referee.service import Referee

TICK_EVERY = 5.0  # seconds between two timer ticks of one table


def due_ticks(referee: Referee, now: float, last: dict[str, float], every: float = TICK_EVERY,
              rooms: Collection[str] | None = None) -> list[str]:
    """The tables (rooms, sorted) to tick at ``now``: waiting on someone, not paused, and not
    ticked by the timer in the last ``every`` seconds (``last``: room -> time of its last timer
    tick, kept by the caller). ``rooms`` limits it to the rooms this adapter serves."""
    out = []
    for room in referee.rooms():
        if rooms is not None and room not in rooms:
            continue
        if not referee.wants_tick(room):
            continue
        if now - last.get(room, float("-inf")) >= every:
            out.append(str(room))
    return out
