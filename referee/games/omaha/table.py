"""The omaha table between hands and the state every part of the engine shares: the settings read
from the definition, seating and leaving (with the ×10 bank conversion), the button, and the
queries the service asks on every message.

It is the base of the engine's layers (``tourney`` → ``showdown`` → ``rounds`` → ``flying`` →
``mistakes`` → ``engine``): each layer adds one part of the rules and may call the ones below;
the two calls that go upwards (a betting round resolves a pending flying action; a declaration
out of turn is judged as a flying action) are declared here.
"""

from __future__ import annotations

from referee.actions import Parsed
from referee.cards import Card
from referee.definitions import GameDefinition
from referee.events import Event, Leave
from referee.games.omaha.options import parse_options
from referee.games.omaha.rules import OmahaRules
from referee.games.omaha.state import LIVE_PHASES, FlyingPlan, HandPlayer, Phase, Sitter, say
from referee.lang.catalog import text as msg
from referee.rules.base import (
    BuyIn,
    Decision,
    Engine,
    IllegalAction,
    OptionError,
    SeatState,
)
from referee.rules.betting import Betting, Limit, Options
from referee.rules.clock import WaitClock
from referee.rules.tournament import Tournament, TournamentOptions
from referee.rules.voice import leave_line


class OmahaTable(Engine):
    """Seats, settings and queries (see the module docstring for the layers above)."""

    game = "omaha"

    def __init__(self, definition: GameDefinition, options: dict[str, str]) -> None:
        super().__init__(definition, options)
        if not isinstance(definition.rules, OmahaRules):
            raise OptionError(msg("omaha.no_definition"))
        self.rules: OmahaRules = definition.section(OmahaRules)
        opts = parse_options(self.rules, self.options)
        self.world: bool = opts["rules"] == "world"
        self.limit: Limit = opts["limit"]
        self.ante_on: bool = opts["ante"]
        self.equal: bool = opts["equal"]
        lv = self.rules.levels[opts["level"] - 1]
        self.sb, self.bb = lv.sb, lv.bb
        self.ante = lv.ante if self.ante_on else 0
        self.max_seats = definition.seats.max
        self.fa_limit = definition.penalties.flying_action_limit
        self.mult = 1 if self.equal else self.rules.chip_multiplier
        self.max_buyin: int = 0 if opts["tournament"] else opts["maxbuyin"]
        self.tourney: Tournament | None = None
        if opts["tournament"]:
            self.tourney = Tournament(
                TournamentOptions(opts["stack"], opts["entry"], opts["level_hands"] or None,
                                  opts["level_minutes"] or None, opts["payouts"]),
                levels=list(self.rules.levels), start_level=opts["level"],
            )
        self._start_stacks: dict[str, int] = {}
        self.sitters: dict[int, Sitter] = {}
        self._order: list[Sitter] | None = None
        self.by_name: dict[str, Sitter] = {}
        self.button: int | None = None
        self._button_set = False
        self.total_rake = 0
        self.house_paid = 0  # LOJ top-ups and compensations, for the conservation checks
        self._clear_hand()
        self._now: float | None = None
        # the wait for the player to act (or to open at the showdown)
        self._clock = WaitClock()

    def _clear_hand(self) -> None:
        self.phase: Phase = "idle"
        self.players: list[HandPlayer] = []
        self.pmap: dict[str, HandPlayer] = {}
        self.bet: Betting | None = None
        self.board: list[Card] = []
        self.spare: list[Card] = []
        self.shown_board = 0
        self.street = 0
        self.aggressor: int | None = None
        self.flop_seen = False
        self.sd_queue: list[int] = []
        self.winner_after_fold: str | None = None
        self._snapshot: list[tuple[int, int, int, bool]] = []
        self._snap_money: tuple[int, int, int] = (0, 0, 0)
        self._first_idx = 0
        self._keys: dict[int, int] = {}

    # --- the calls that go up the layers (implemented by rounds / flying) --------------------
    def _advance(self) -> list[Event]:
        """After any change: resolve pending FAs, end rounds, deal streets, reach the showdown."""
        raise NotImplementedError

    def _resolve_fa(self, p: HandPlayer) -> list[Event]:
        """The player with a pending flying action is now to act: apply it or restrict them."""
        raise NotImplementedError

    def _check_flying(self, p: HandPlayer, action: Parsed, now: float | None) -> FlyingPlan:
        """Judge a declaration made before the player's turn (reads only)."""
        raise NotImplementedError

    def _apply_flying(self, plan: FlyingPlan) -> list[Event]:
        """Carry out a declaration :meth:`_check_flying` accepted."""
        raise NotImplementedError

    # --- helpers -------------------------------------------------------------------------
    def _b(self) -> Betting:
        assert self.bet is not None
        return self.bet

    def _seat_of(self, name: str) -> Sitter:
        s = self.by_name.get(name)
        if s is None:
            raise IllegalAction("omaha.not_seated", player=name)
        return s

    def _restart_clock(self) -> None:
        """Something new is awaited: the wait starts now (or at the next clock reading)."""
        self._clock.restart(self._now)

    def to_points(self, chips: int) -> int:
        """Play chips back to bank points (÷10 rounded up, or as-is at an equal-value table)."""
        if self.mult == 1:
            return chips
        if self.rules.leave_rounding == "up":
            return -(-chips // self.mult)
        return chips // self.mult

    def buy_in_chips(self, bank_points: int) -> int:
        if bank_points < 0:
            raise IllegalAction("omaha.no_points")
        return bank_points * self.mult

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
        points = min(bank_points, self.max_buyin) if self.max_buyin else bank_points
        return BuyIn(points, self.buy_in_chips(points))

    # --- seating ---------------------------------------------------------------------------
    def sit(self, seat: int, name: str, chips: int, npc: bool = False) -> list[Event]:
        if npc:
            raise IllegalAction("omaha.no_npc")
        if not 1 <= seat <= self.max_seats:
            raise IllegalAction("omaha.seat_range", seats=self.max_seats)
        if seat in self.sitters:
            raise IllegalAction("omaha.seat_taken", seat=seat)
        if name in self.by_name:
            raise IllegalAction("omaha.already_seated", player=name)
        if chips <= 0:
            raise IllegalAction("omaha.no_chips")
        t = self.tourney
        if t is not None and t.started:
            raise IllegalAction("tournament_started")
        s = Sitter(seat, name, chips, newcomer=self.world and self.hand_no > 0 and t is None)
        if t is not None:
            t.entrants.append(name)
        self.sitters[seat] = s
        self.by_name[name] = s
        self._order = None
        return []  # the room's line is the service's, from its seated event

    def _leave_event(self, s: Sitter, chips: int) -> list[Event]:
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

    def leave(self, name: str) -> list[Event]:
        s = self._seat_of(name)
        t = self.tourney
        if t is not None and t.started and not t.finished:
            raise IllegalAction("tournament_no_leave")
        p = self.pmap.get(name)
        if self.phase in LIVE_PHASES and p is not None and not p.removed:
            s.leaving = True
            return [say("room", msg("seat.leaving", player=name))]
        return self._leave_event(s, s.chips)

    def set_button(self, seat: int) -> None:
        if not 1 <= seat <= self.max_seats:
            raise IllegalAction("omaha.seat_range", seats=self.max_seats)
        if self.in_hand:
            raise IllegalAction("omaha.button_in_hand")
        self.button = seat
        self._button_set = True

    # --- queries -------------------------------------------------------------------------------
    @property
    def in_hand(self) -> bool:
        return self.phase in LIVE_PHASES

    def at_showdown(self) -> bool:
        return self.phase == "showdown"

    def stakes(self) -> dict[str, int]:
        return {"sb": self.sb, "bb": self.bb, "ante": self.ante}

    def history_seats(self) -> list[SeatState]:
        """Only the players dealt in (a sitter who joined mid-hand waits for the next)."""
        return [s for s in self.seated() if self.in_this_hand(s.name)]

    def stacks(self) -> dict[str, int]:
        order = self._seat_order()
        bet = self.bet
        if bet is None or self.phase not in LIVE_PHASES:
            return {s.name: s.chips for s in order}
        out: dict[str, int] = {}
        pmap = self.pmap
        for s in order:
            p = pmap.get(s.name)
            out[s.name] = s.chips if p is None else bet.seats[p.idx].stack - p.reserved
        return out

    def is_seated(self, name: str) -> bool:
        return name in self.by_name

    def __getstate__(self) -> dict[str, object]:
        """The table without its seat-order cache (derived, rebuilt on demand)."""
        state = dict(vars(self))
        state["_order"] = None
        return state

    def _seat_order(self) -> list[Sitter]:
        """Seated players in seat order (cached: the service asks on every message)."""
        if self._order is None:
            self._order = [self.sitters[k] for k in sorted(self.sitters)]
        return self._order

    def seated(self) -> list[SeatState]:
        st = self.stacks()
        return [SeatState(s.seat, s.name, st[s.name]) for s in self._seat_order()]

    def to_act(self) -> str | None:
        if self.phase == "betting":
            b = self.bet
            assert b is not None
            return self.players[b.actors[0]].name if b.actors else None
        if self.phase == "showdown" and self.sd_queue:
            return self.players[self.sd_queue[0]].name
        return None

    def decision(self, player: str) -> Decision | None:
        if self.phase == "over":
            return "after_fold" if player == self.winner_after_fold else None
        if self.to_act() != player:
            return None
        return "bet" if self.phase == "betting" else "showdown"

    def holdings(self, player: str) -> list[Card]:
        p = self.pmap.get(player)
        return list(p.hole) if p else []

    def shown(self, player: str) -> list[Card]:
        p = self.pmap.get(player)
        return list(p.shown) if p else []

    def board_cards(self) -> list[Card]:
        return self.board[: self.shown_board]

    def options_for(self, player: str) -> Options:
        """The legal range of ``player`` now (tests, the lock-step check, help messages)."""
        p = self.pmap[player]
        return self._b().options(p.idx)
