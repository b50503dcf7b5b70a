"""An omaha table playing a tournament (``tournament=on``): what the table does at a hand's start
(the blind schedule) and end (eliminations, places, the prizes), and the ``!status`` lines.
The tournament's own arithmetic is :mod:`referee.rules.tournament`'s (it has the rulings); this
part connects it to the seats and the blinds."""

from __future__ import annotations

from referee.events import Eliminated, Event, LevelUp, Phrase, TournamentEnd, line
from referee.games.omaha.state import ActionClock
from referee.games.omaha.table import Seating, Settings
from referee.rules.base import IllegalAction
from referee.rules.tournament import Tournament
from referee.rules.voice import eliminated_line, level_line, tournament_end_line


class TournamentClock:
    """The tournament of one table: ``tourney`` (entrants, levels, places) read against the
    clock at each deal, and the seats it empties at each hand's end."""

    def __init__(self, tourney: Tournament, settings: Settings, seating: Seating,
                 clock: ActionClock) -> None:
        self.tourney = tourney
        self.settings = settings
        self.seating = seating
        self.clock = clock
        self.start_stacks: dict[str, int] = {}  # the stacks of the hand's start, for places

    def check_hand(self) -> None:
        """Refuse a deal when the tournament is over (before anything changes)."""
        if self.tourney.finished:
            raise IllegalAction("tournament_over")

    def hand_starts(self, stacks: dict[str, int]) -> list[Event]:
        """At a hand's start (``stacks``: the players dealt in): the tournament begins with
        its first hand; the blinds follow the schedule."""
        t = self.tourney
        now = self.clock.now
        self.start_stacks = stacks
        if not t.started:
            t.started, t.started_at = True, now
        level = t.level_at(t.hands, now)
        t.hands += 1
        if level == t.level:
            return []
        first = t.level == 0
        t.level = level
        settings = self.settings
        settings.set_level(level)
        if first:
            return []
        up = LevelUp(level=level, sb=settings.sb, bb=settings.bb, ante=settings.ante)
        return [up, level_line(up)]

    def end_of_hand(self) -> list[Event]:
        """Eliminations (placed by the stacks they started the hand with), then the end."""
        t = self.tourney
        seating = self.seating
        events: list[Event] = []
        busted = [(s.name, self.start_stacks.get(s.name, 0)) for s in seating.order()
                  if s.chips == 0]
        places = t.place(busted) if busted else {}
        for name, place in sorted(places.items(), key=lambda kv: (-kv[1], kv[0])):
            out = Eliminated(player=name, place=place)
            events += [out, eliminated_line(out)]
            events.extend(seating.leave_event(seating.by_name[name], 0))
        if t.left == 1 and t.entrants:
            winner = next(s for s in seating.order())
            t.places[winner.name] = 1
            prizes = t.pay()
            ranking = sorted(t.places.items(), key=lambda kv: (kv[1], t.entrants.index(kv[0])))
            end = TournamentEnd(places=dict(ranking), prizes=prizes)
            events += [end, tournament_end_line(end)]
            events.extend(seating.leave_event(winner, winner.chips))
        return events

    def status(self, now: float | None) -> list[Phrase]:
        t = self.tourney
        if t.finished:
            return [line("tournament_over")]
        chips = [s.chips for s in self.seating.order()]
        lv = self.settings.rules.levels[max(t.level, t.start_level) - 1]
        return [line(
            "tournament_status", level=max(t.level, t.start_level), sb=lv.sb, bb=lv.bb,
            next=t.next_level_in(now if now is not None else self.clock.now) if t.started
            else line("tournament_not_started"), left=t.left, entrants=len(t.entrants),
            average=sum(chips) // len(chips) if chips else 0, pool=t.pool,
        )]
