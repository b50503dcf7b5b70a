"""The omaha engine as the service sees it: the layers of the package put together
(:mod:`~referee.games.omaha.table` has the order), and the action clock -- the one part that
drives the others (a reminder, then the default action through the same transaction as a
player's)."""

from __future__ import annotations

from referee.actions import Parsed
from referee.events import Event
from referee.games.omaha.mistakes import OmahaMistakes
from referee.games.omaha.state import say
from referee.lang.catalog import text as msg
from referee.rules.base import DealPlan


class OmahaEngine(OmahaMistakes):
    """Pot-limit Omaha ring game (or tournament) at one table."""

    deal_plan = DealPlan(4, board=5)

    def tick(self, now: float) -> list[Event]:
        """The wait for the player awaited (the turn, or opening at the showdown): a reminder
        at ``remind_after`` seconds, the default at ``act_after`` -- check if possible, else
        fold; at the showdown open (or muck, by the definition; never the last hand standing)."""
        limits = self.definition.clock
        self.clock.now = now if self.clock.now is None else max(self.clock.now, now)
        if self.clock.wait.since is None:
            self.clock.wait.waited(now)  # the first reading after a deal starts the wait
            return []
        who = self.to_act()
        if who is None:
            return []
        due = self.clock.wait.due(now, limits.remind_after, limits.act_after)
        if due == "act":
            p = self.hand.pmap[who]
            if self.hand.phase == "showdown":
                last = self.hand.b().live_count() <= 1
                word = "open" if limits.showdown_default == "open" or last else "muck"
                return self.act(who, Parsed(kind="action", action=word), now)
            o = self.hand.b().options(p.idx)
            word = "check" if o.call == 0 and p.restrict is None else "fold"
            events = self.act(who, Parsed(kind="action", action=word), now)
            return [say("room", msg("omaha.timeout", player=who)), *events]
        if due == "remind":
            return [say("room", msg("omaha.remind", player=who))]
        return []
