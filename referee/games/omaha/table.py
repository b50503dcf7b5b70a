"""The omaha table between hands: its settings, read once from the definition and the table's
options, and its seats -- sitting down and standing up (with the ×10 bank conversion), the
button, the buy-in.

Two classes, each owned by the engine and handed to the parts that need them: the settings are
read by every part (the blinds change only with a tournament's level), the seats by the deal,
the showdown's payouts and whatever makes a player leave.
"""

from __future__ import annotations

from referee.definitions import GameDefinition
from referee.events import Event, Leave, line
from referee.games.omaha.options import parse_options
from referee.games.omaha.rules import OmahaRules
from referee.games.omaha.state import Sitter, say
from referee.rules.base import BuyIn, IllegalAction, OptionError
from referee.rules.betting import Limit
from referee.rules.tournament import Tournament, TournamentOptions
from referee.rules.voice import leave_line


class Settings:
    """What the table plays: the rules variant, the limit, the blinds and ante in force, the
    chip multiplier, the seats and the flying-action limit (an unknown option is refused here,
    before any table exists)."""

    def __init__(self, definition: GameDefinition, options: dict[str, str]) -> None:
        if not isinstance(definition.rules, OmahaRules):
            raise OptionError("omaha.no_definition")
        self.rules: OmahaRules = definition.section(OmahaRules)
        opts = parse_options(self.rules, options)
        self.world: bool = opts["rules"] == "world"
        self.limit: Limit = opts["limit"]
        self.ante_on: bool = opts["ante"]
        self.equal: bool = opts["equal"]
        self.level: int = opts["level"]
        self.set_level(self.level)
        self.max_seats = definition.seats.max
        self.fa_limit = definition.penalties.flying_action_limit
        self.mult = 1 if self.equal else self.rules.chip_multiplier
        self.max_buyin: int = 0 if opts["tournament"] else opts["maxbuyin"]
        self.tournament: TournamentOptions | None = None
        if opts["tournament"]:
            self.tournament = TournamentOptions(
                opts["stack"], opts["entry"], opts["level_hands"] or None,
                opts["level_minutes"] or None, opts["payouts"])

    def set_level(self, level: int) -> None:
        """The blinds (and the ante, where the table plays one) of ``level``."""
        lv = self.rules.levels[level - 1]
        self.sb, self.bb = lv.sb, lv.bb
        self.ante = lv.ante if self.ante_on else 0


class Seating:
    """The seats across hands: who sits where, the button, the conversion between bank points
    and chips, and the ``leave`` a player's standing up emits. ``tourney``: the tournament the
    table plays, if any (its entrants come and go with the seats before it starts)."""

    def __init__(self, settings: Settings, tourney: Tournament | None) -> None:
        self.settings = settings
        self.tourney = tourney
        self.sitters: dict[int, Sitter] = {}
        self.by_name: dict[str, Sitter] = {}
        self._order: list[Sitter] | None = None
        self.button: int | None = None
        self.button_set = False  # ``# button:`` named the next hand's button

    def __getstate__(self) -> dict[str, object]:
        """The seats without their order cache (derived, rebuilt on demand)."""
        state = dict(vars(self))
        state["_order"] = None
        return state

    def order(self) -> list[Sitter]:
        """Seated players in seat order (cached: the service asks on every message)."""
        if self._order is None:
            self._order = [self.sitters[k] for k in sorted(self.sitters)]
        return self._order

    def seat_of(self, name: str) -> Sitter:
        s = self.by_name.get(name)
        if s is None:
            raise IllegalAction("omaha.not_seated", player=name)
        return s

    # --- bank points and chips ---------------------------------------------------------------
    def to_points(self, chips: int) -> int:
        """Play chips back to bank points (÷10 rounded up, or as-is at an equal-value table)."""
        mult = self.settings.mult
        if mult == 1:
            return chips
        if self.settings.rules.leave_rounding == "up":
            return -(-chips // mult)
        return chips // mult

    def buy_in_chips(self, bank_points: int) -> int:
        if bank_points < 0:
            raise IllegalAction("omaha.no_points")
        return bank_points * self.settings.mult

    def buy_in(self, bank_points: int) -> BuyIn:
        """Ring: every point, or at most the max buy-in (the rest stays in the bank), ×10.
        Tournament: the entry fee into the prize pool, for the starting stack."""
        t = self.tourney
        if t is not None:
            if t.started:
                raise IllegalAction("tournament_started")
            if bank_points < t.options.entry:
                raise IllegalAction("tournament_entry_short", entry=t.options.entry,
                                    bank=bank_points)
            return BuyIn(t.options.entry, t.options.stack, "entry")
        max_buyin = self.settings.max_buyin
        points = min(bank_points, max_buyin) if max_buyin else bank_points
        return BuyIn(points, self.buy_in_chips(points))

    # --- sitting down and standing up ---------------------------------------------------------
    def sit(self, seat: int, name: str, chips: int, npc: bool, played: bool) -> list[Event]:
        """``played``: the table has dealt a hand already (a newcomer then posts a live BB)."""
        settings = self.settings
        if npc:
            raise IllegalAction("omaha.no_npc")
        if not 1 <= seat <= settings.max_seats:
            raise IllegalAction("omaha.seat_range", seats=settings.max_seats)
        if seat in self.sitters:
            raise IllegalAction("omaha.seat_taken", seat=seat)
        if name in self.by_name:
            raise IllegalAction("omaha.already_seated", player=name)
        if chips <= 0:
            raise IllegalAction("omaha.no_chips")
        t = self.tourney
        if t is not None and t.started:
            raise IllegalAction("tournament_started")
        s = Sitter(seat, name, chips, newcomer=settings.world and played and t is None)
        if t is not None:
            t.entrants.append(name)
        self.sitters[seat] = s
        self.by_name[name] = s
        self._order = None
        return []  # the room's line is the service's, from its seated event

    def leave_event(self, s: Sitter, chips: int) -> list[Event]:
        """Stand ``s`` up with ``chips``: the seat is freed and its ``leave`` says what goes
        back to the bank."""
        del self.sitters[s.seat]
        del self.by_name[s.name]
        self._order = None
        t = self.tourney
        if t is None:
            bank = self.to_points(chips) + s.bonus
        elif not t.started:  # an entrant who leaves before the first hand: the entry back
            t.entrants.remove(s.name)
            bank = t.options.entry + s.bonus
        else:  # tournament chips are worth nothing in the bank
            bank = s.bonus
        leave = Leave(player=s.name, chips=chips, bank=bank)
        return [leave, leave_line(leave)]

    def leave(self, name: str, playing: bool) -> list[Event]:
        """``playing``: ``name`` is in the hand being played (they stand up after it)."""
        s = self.seat_of(name)
        t = self.tourney
        if t is not None and t.started and not t.finished:
            raise IllegalAction("tournament_no_leave")
        if playing:
            s.leaving = True
            return [say("room", line("seat.leaving", player=name))]
        return self.leave_event(s, s.chips)

    def set_button(self, seat: int, in_hand: bool) -> None:
        max_seats = self.settings.max_seats
        if not 1 <= seat <= max_seats:
            raise IllegalAction("omaha.seat_range", seats=max_seats)
        if in_hand:
            raise IllegalAction("omaha.button_in_hand")
        self.button = seat
        self.button_set = True

    def next_seat(self, seat: int, eligible: list[int]) -> int:
        """The first of ``eligible`` clockwise after ``seat``."""
        max_seats = self.settings.max_seats
        for k in range(1, max_seats + 1):
            cand = (seat - 1 + k) % max_seats + 1
            if cand in eligible:
                return cand
        raise AssertionError("no eligible seat")
