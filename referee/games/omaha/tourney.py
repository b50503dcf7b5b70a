"""An omaha table playing a tournament (``tournament=on``): what the table does at a hand's start
(the blind schedule) and end (eliminations, places, the prizes), and the ``!status`` lines.
The tournament's own arithmetic is :mod:`referee.rules.tournament`'s (it has the rulings); this
layer connects it to the seats."""

from __future__ import annotations

from referee.events import Eliminated, Event, LevelUp, TournamentEnd
from referee.games.omaha.table import OmahaTable
from referee.lang.catalog import text as msg
from referee.rules.base import IllegalAction
from referee.rules.tournament import Tournament
from referee.rules.voice import eliminated_line, level_line, tournament_end_line


class OmahaTournament(OmahaTable):
    def _check_tournament_hand(self) -> None:
        """Refuse a deal when the tournament is over (before anything changes)."""
        t = self.tourney
        if t is not None and t.finished:
            raise IllegalAction("tournament_over")

    def _tournament_hand(self, t: Tournament) -> list[Event]:
        """At a hand's start: the tournament begins with its first hand; the blinds follow the
        schedule."""
        if not t.started:
            t.started, t.started_at = True, self._now
        level = t.level_at(t.hands, self._now)
        t.hands += 1
        if level == t.level:
            return []
        first = t.level == 0
        t.level = level
        lv = self.rules.levels[level - 1]
        self.sb, self.bb = lv.sb, lv.bb
        self.ante = lv.ante if self.ante_on else 0
        if first:
            return []
        up = LevelUp(level=level, sb=lv.sb, bb=lv.bb, ante=self.ante)
        return [up, level_line(up)]

    def _tournament_end_of_hand(self, t: Tournament) -> list[Event]:
        """Eliminations (placed by the stacks they started the hand with), then the end."""
        events: list[Event] = []
        busted = [(s.name, self._start_stacks.get(s.name, 0)) for s in self._seat_order()
                  if s.chips == 0]
        places = t.place(busted) if busted else {}
        for name, place in sorted(places.items(), key=lambda kv: (-kv[1], kv[0])):
            out = Eliminated(player=name, place=place)
            events += [out, eliminated_line(out)]
            events.extend(self._leave_event(self.by_name[name], 0))
        if t.left == 1 and t.entrants:
            winner = next(s for s in self._seat_order())
            t.places[winner.name] = 1
            prizes = t.pay()
            ranking = sorted(t.places.items(), key=lambda kv: (kv[1], t.entrants.index(kv[0])))
            end = TournamentEnd(places=dict(ranking), prizes=prizes)
            events += [end, tournament_end_line(end)]
            events.extend(self._leave_event(winner, winner.chips))
        return events

    def status(self, now: float | None = None) -> list[str]:
        t = self.tourney
        if t is None:
            return [msg("ring_maxbuyin", points=self.max_buyin)] if self.max_buyin else []
        if t.finished:
            return [msg("tournament_over")]
        chips = [s.chips for s in self._seat_order()]
        lv = self.rules.levels[max(t.level, t.start_level) - 1]
        return [msg(
            "tournament_status", level=max(t.level, t.start_level), sb=lv.sb, bb=lv.bb,
            next=t.next_level_in(now if now is not None else self._now) if t.started
            else msg("tournament_not_started"), left=t.left, entrants=len(t.entrants),
            average=sum(chips) // len(chips) if chips else 0, pool=t.pool,
        )]
