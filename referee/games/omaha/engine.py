"""The omaha engine as the service sees it: the parts of the package put together, each owned
here and handed only what it works on, and the two things that belong to no single part -- the
action transaction's dispatch (who judges an action, who carries it out) and the action clock
(a reminder, then the default action through the same transaction as a player's).

Who owns what:

- :class:`~.table.Settings` -- the rules variant, the blinds in force, the multiplier;
- :class:`~.table.Seating` -- the seats, the button, the bank conversion, leaving;
- :class:`~.state.Hand` -- the hand being played (the one state the parts share);
- :class:`~.state.ActionClock` -- the time last heard and the wait for the player awaited;
- :class:`~.tourney.TournamentClock` -- a tournament's schedule and eliminations (if one);
- :class:`~.showdown.Showdown` -- the rake, the showdown, the pots, the hand's end;
- :class:`~.rounds.Rounds` -- a player's intent, the moves, out-of-turn money, the prompt;
- :class:`~.flying.FlyingBook` -- flying actions: judged, recorded, resolved at the turn;
- :class:`~.dealer.Dealer` -- the deal and moving the hand along;
- :class:`~.mistakes.Mistakes` -- forced folds, removals, the dealing-mistake procedures.
"""

from __future__ import annotations

from referee.actions import Parsed
from referee.cards import Card
from referee.definitions import GameDefinition
from referee.events import Event, Phrase, line
from referee.games.omaha.dealer import Dealer
from referee.games.omaha.flying import FlyingBook
from referee.games.omaha.mistakes import Mistakes
from referee.games.omaha.rounds import BETTING_ACTIONS, Rounds
from referee.games.omaha.showdown import Showdown
from referee.games.omaha.state import (
    LIVE_PHASES,
    ActionClock,
    AfterFoldPlan,
    FlyingPlan,
    Hand,
    Plan,
    ShowdownPlan,
    TurnPlan,
    say,
)
from referee.games.omaha.table import Seating, Settings
from referee.games.omaha.tourney import TournamentClock
from referee.rules.base import (
    BuyIn,
    Deal,
    DealPlan,
    Decision,
    Engine,
    IllegalAction,
    Offer,
    SeatState,
)
from referee.rules.betting import Options
from referee.rules.tournament import Tournament


class OmahaEngine(Engine):
    """Pot-limit Omaha ring game (or tournament) at one table."""

    game = "omaha"
    deal_plan = DealPlan(4, board=5)

    def __init__(self, definition: GameDefinition, options: dict[str, str]) -> None:
        self.hand = Hand()  # first: the base class sets the hand number
        super().__init__(definition, options)
        self.settings = settings = Settings(definition, self.options)
        tourney: Tournament | None = None
        if settings.tournament is not None:
            tourney = Tournament(settings.tournament, levels=list(settings.rules.levels),
                                 start_level=settings.level)
        self.seating = seating = Seating(settings, tourney)
        self.clock = clock = ActionClock()
        self.tournament = None if tourney is None else TournamentClock(
            tourney, settings, seating, clock)
        hand = self.hand
        self.showdown = Showdown(hand, settings, seating, self.tournament, clock)
        self.rounds = Rounds(hand, settings, seating, clock)
        self.flying = FlyingBook(hand, settings, seating, self.rounds)
        self.dealer = Dealer(hand, settings, seating, self.tournament, clock, self.rounds,
                             self.flying, self.showdown)
        self.mistakes = Mistakes(hand, settings, seating, clock, self.rounds, self.showdown,
                                 self.dealer)

    # --- the hand number the service reads (the hand keeps it) -------------------------------
    @property
    def hand_no(self) -> int:
        return self.hand.number

    @hand_no.setter
    def hand_no(self, number: int) -> None:
        self.hand.number = number

    # --- seating -------------------------------------------------------------------------------
    def to_points(self, chips: int) -> int:
        """Play chips back to bank points (÷10 rounded up, or as-is at an equal-value table)."""
        return self.seating.to_points(chips)

    def buy_in_chips(self, bank_points: int) -> int:
        return self.seating.buy_in_chips(bank_points)

    def buy_in(self, bank_points: int) -> BuyIn:
        return self.seating.buy_in(bank_points)

    def sit(self, seat: int, name: str, chips: int, npc: bool = False) -> list[Event]:
        return self.seating.sit(seat, name, chips, npc, self.hand.number > 0)

    def leave(self, name: str) -> list[Event]:
        hand = self.hand
        p = hand.pmap.get(name)
        return self.seating.leave(name, hand.live and p is not None and not p.removed)

    def set_button(self, seat: int) -> None:
        self.seating.set_button(seat, self.hand.live)

    def status(self, now: float | None = None) -> list[Phrase]:
        if self.tournament is not None:
            return self.tournament.status(now)
        max_buyin = self.settings.max_buyin
        return [line("ring_maxbuyin", points=max_buyin)] if max_buyin else []

    # --- the hand ------------------------------------------------------------------------------
    def start_hand(self, deal: Deal) -> list[Event]:
        return self.dealer.start_hand(deal)

    def _check_act(self, player: str, action: Parsed, now: float | None) -> Plan:
        """Who judges ``action``: the winner's OPEN / CLOSE after everyone folded and the
        showdown are the showdown's, a declaration out of turn the flying book's, the turn
        the betting's."""
        if action.kind != "action" or action.action is None:
            raise IllegalAction("omaha.not_an_action")
        name = action.action
        self.seating.seat_of(player)
        hand = self.hand
        p = hand.pmap.get(player)
        phase = hand.phase
        if phase == "over" and name in ("open", "close") and player == hand.winner_after_fold:
            return self.showdown.check_after_fold(p, action, now)
        if phase not in LIVE_PHASES:
            raise IllegalAction("omaha.no_hand")
        if p is None or p.removed:
            raise IllegalAction("omaha.not_in_hand")
        b = hand.b()
        seat = b.seats[p.idx]
        if seat.folded:
            raise IllegalAction("omaha.already_folded")
        if phase == "showdown":
            return self.showdown.check(p, action, now)
        if name in ("open", "muck", "close"):
            raise IllegalAction("omaha.not_showdown")
        if name not in BETTING_ACTIONS:
            raise IllegalAction("omaha.unknown_action")
        if seat.stack == 0:
            raise IllegalAction("omaha.already_allin")
        if b.to_act() != p.idx:
            return self.flying.check(p, action, now)
        return self.rounds.check_turn(p, action, now)

    def _apply_act(self, plan: Plan) -> list[Event]:
        if plan.now is not None:
            self.clock.now = plan.now
        if isinstance(plan, TurnPlan):
            events = self.rounds.apply_turn(plan)
            events.extend(self.dealer.advance())
            return events
        if isinstance(plan, FlyingPlan):
            events, moved = self.flying.apply(plan)
            if moved:
                events.extend(self.dealer.advance())
            return events
        if isinstance(plan, ShowdownPlan):
            return self.showdown.apply(plan)
        assert isinstance(plan, AfterFoldPlan)
        return self.showdown.apply_after_fold(plan)

    def tick(self, now: float) -> list[Event]:
        """The wait for the player awaited (the turn, or opening at the showdown): a reminder
        at ``remind_after`` seconds, the default at ``act_after`` -- check if possible, else
        fold; at the showdown open (or muck, by the definition; never the last hand standing)."""
        limits = self.definition.clock
        clock = self.clock
        clock.now = now if clock.now is None else max(clock.now, now)
        if clock.wait.since is None:
            clock.wait.waited(now)  # the first reading after a deal starts the wait
            return []
        who = self.to_act()
        if who is None:
            return []
        due = clock.wait.due(now, limits.remind_after, limits.act_after)
        if due == "act":
            hand = self.hand
            p = hand.pmap[who]
            if hand.phase == "showdown":
                last = hand.b().live_count() <= 1
                word = "open" if limits.showdown_default == "open" or last else "muck"
                return self.act(who, Parsed(kind="action", action=word), now)
            checks = any(o.action == "check" for o in self.rounds.offers(p))
            word = "check" if checks else "fold"
            events = self.act(who, Parsed(kind="action", action=word), now)
            return [say("room", line("omaha.timeout", player=who)), *events]
        if due == "remind":
            return [say("room", line("omaha.remind", player=who))]
        return []

    # --- operations decided outside the engine -------------------------------------------------
    def force_fold(self, player: str) -> list[Event]:
        return self.mistakes.force_fold(player)

    def remove(self, player: str) -> list[Event]:
        return self.mistakes.remove(player)

    def dealing_mistake(self, kind: str, player: str | None = None) -> list[Event]:
        return self.mistakes.dealing_mistake(kind, player)

    # --- queries -------------------------------------------------------------------------------
    @property
    def in_hand(self) -> bool:
        return self.hand.phase in LIVE_PHASES

    def at_showdown(self) -> bool:
        return self.hand.phase == "showdown"

    def stakes(self) -> dict[str, int]:
        s = self.settings
        return {"sb": s.sb, "bb": s.bb, "ante": s.ante}

    def history_seats(self) -> list[SeatState]:
        """Only the players dealt in (a sitter who joined mid-hand waits for the next)."""
        return [s for s in self.seated() if self.in_this_hand(s.name)]

    def stacks(self) -> dict[str, int]:
        order = self.seating.order()
        hand = self.hand
        bet = hand.bet
        if bet is None or hand.phase not in LIVE_PHASES:
            return {s.name: s.chips for s in order}
        out: dict[str, int] = {}
        pmap = hand.pmap
        for s in order:
            p = pmap.get(s.name)
            out[s.name] = s.chips if p is None else bet.seats[p.idx].stack - p.reserved
        return out

    def is_seated(self, name: str) -> bool:
        return name in self.seating.by_name

    def seated(self) -> list[SeatState]:
        st = self.stacks()
        return [SeatState(s.seat, s.name, st[s.name]) for s in self.seating.order()]

    def to_act(self) -> str | None:
        hand = self.hand
        if hand.phase == "betting":
            b = hand.bet
            assert b is not None
            return hand.players[b.actors[0]].name if b.actors else None
        if hand.phase == "showdown" and hand.sd_queue:
            return hand.players[hand.sd_queue[0]].name
        return None

    def decision(self, player: str) -> Decision | None:
        hand = self.hand
        if hand.phase == "over":
            return "after_fold" if player == hand.winner_after_fold else None
        if self.to_act() != player:
            return None
        return "bet" if hand.phase == "betting" else "showdown"

    def holdings(self, player: str) -> list[Card]:
        p = self.hand.pmap.get(player)
        return list(p.hole) if p else []

    def shown(self, player: str) -> list[Card]:
        p = self.hand.pmap.get(player)
        return list(p.shown) if p else []

    def board_cards(self) -> list[Card]:
        hand = self.hand
        return hand.board[: hand.shown_board]

    def offers(self, player: str) -> tuple[Offer, ...]:
        hand = self.hand
        p = hand.pmap.get(player)
        if p is None or self.decision(player) != "bet":
            return ()
        return self.rounds.offers(p)

    def options_for(self, player: str) -> Options:
        """The legal range of ``player`` now (tests, the lock-step check, help messages)."""
        hand = self.hand
        return hand.b().options(hand.pmap[player].idx)
