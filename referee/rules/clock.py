"""The action clock every engine uses: how long the table has waited for the same thing.

Engines get time only as an argument (``now``, seconds), so a transcript and the live bot run
the same code; a reminder once, then the default action (docs/rules.md, "The clock").
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["WaitClock"]


@dataclass
class WaitClock:
    """How long the table has been waiting for the same thing (engines get time only as an
    argument). ``restart(now)`` on every change of what is awaited; ``now`` may be unknown (a
    transcript line without a time stamp): then the wait starts at the next ``waited`` call."""

    since: float | None = None
    reminded: bool = False

    def restart(self, now: float | None = None) -> None:
        self.since = now
        self.reminded = False

    def waited(self, now: float) -> float:
        if self.since is None or now < self.since:
            self.since = now
        return now - self.since

    def due(self, now: float, remind_after: int, act_after: int) -> str | None:
        """``"act"`` when the default action is due, ``"remind"`` once before that, else None
        (a limit of 0 disables it)."""
        waited = self.waited(now)
        if act_after and waited >= act_after:
            return "act"
        if remind_after and waited >= remind_after and not self.reminded:
            self.reminded = True
            return "remind"
        return None
