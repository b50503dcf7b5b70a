"""The base of the omaha engine's layers (``rounds`` → ``flying`` → ``mistakes`` → ``engine``):
the parts it owns -- the settings and seats (:mod:`.table`), the hand (:mod:`.state`), a
tournament's clock (:mod:`.tourney`), the showdown (:mod:`.showdown`) -- and the queries, then
the betting of a hand: the deal (antes, blinds, the button), what a player's message means
against the legal range (a make, a pot-sized raise, an all-in), the action transaction
(:meth:`OmahaRounds._check_act` reads and refuses, :meth:`OmahaRounds._apply_act` carries the
plan out), the turn prompt, and moving from round to round up to the showdown.

The money arithmetic is :mod:`referee.rules.betting`'s; this layer turns intent into its calls.
The two calls that go up the layers (a betting round resolves a pending flying action; a
declaration out of turn is judged as a flying action) are declared here.
"""

from __future__ import annotations

from functools import lru_cache

from referee.actions import Parsed
from referee.cards import Card
from referee.definitions import GameDefinition
from referee.events import ActionEvent, Event, HandStart, Returned
from referee.games.omaha import voice
from referee.games.omaha.showdown import Showdown, cards_shown
from referee.games.omaha.state import (
    LIVE_PHASES,
    ActionClock,
    AfterFoldPlan,
    FlyingPlan,
    Hand,
    HandPlayer,
    Move,
    Phase,
    Plan,
    ShowdownPlan,
    Sitter,
    TurnPlan,
    action_event,
    say,
    show,
    shown,
    word,
)
from referee.games.omaha.table import Seating, Settings
from referee.games.omaha.tourney import TournamentClock
from referee.lang.catalog import text as msg
from referee.rules.base import BuyIn, Deal, Decision, Engine, IllegalAction, SeatState
from referee.rules.betting import Betting, Options, Seat
from referee.rules.tournament import Tournament
from referee.rules.voice import action_line

GAME = "omaha"

BETTING_ACTIONS = frozenset(("fold", "check", "call", "bet", "raise", "allin"))


def _no_raise(o: Options) -> IllegalAction:
    if o.call == 0:
        return IllegalAction("omaha.no_bet")
    return IllegalAction("omaha.no_raise", call=o.call)


class OmahaRounds(Engine):
    """The parts, the queries and the betting (see the module docstring for the layers)."""

    game = "omaha"

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

    def status(self, now: float | None = None) -> list[str]:
        if self.tournament is not None:
            return self.tournament.status(now)
        max_buyin = self.settings.max_buyin
        return [msg("ring_maxbuyin", points=max_buyin)] if max_buyin else []

    # --- the calls that go up the layers (implemented by flying) -----------------------------
    def _resolve_fa(self, p: HandPlayer) -> list[Event]:
        """The player with a pending flying action is now to act: apply it or restrict them."""
        raise NotImplementedError

    def _check_flying(self, p: HandPlayer, action: Parsed, now: float | None) -> FlyingPlan:
        """Judge a declaration made before the player's turn (reads only)."""
        raise NotImplementedError

    def _apply_flying(self, plan: FlyingPlan) -> list[Event]:
        """Carry out a declaration :meth:`_check_flying` accepted."""
        raise NotImplementedError

    # --- the deal ----------------------------------------------------------------------------
    def start_hand(self, deal: Deal) -> list[Event]:
        if self.hand.live:
            raise IllegalAction("omaha.hand_running")
        ready = sorted(seat for seat, s in self.seating.sitters.items() if s.chips > 0)
        if len(ready) < 2:
            raise IllegalAction("omaha.need_two")
        named = self.seating.button
        if self.seating.button_set and named is not None:
            button = named if named in ready else self.seating.next_seat(named, ready)
        elif named is None:
            start = 1 if self.settings.rules.button_start == "seat1" else ready[0]
            button = start if start in ready else self.seating.next_seat(start, ready)
        else:
            button = self.seating.next_seat(named, ready)
        # clockwise from the button's left (``ready`` is sorted; the button, if ready, is last)
        order = [s for s in ready if s > button] + [s for s in ready if s <= button]
        names = [self.seating.sitters[s].name for s in order]
        # validate the deal before touching anything
        for nm in deal.hands:
            if nm not in self.seating.by_name:
                raise IllegalAction("omaha.deal_stranger", player=nm)
        for nm in names:
            if len(deal.hands.get(nm, [])) != 4:
                raise IllegalAction("omaha.deal_count", player=nm)
        if len(deal.board) + len(deal.shoe) < 5:
            raise IllegalAction("omaha.deal_board")
        used = [c for nm in names for c in deal.hands[nm]] + list(deal.board) + list(deal.shoe)
        if len(set(used)) != len(used) or min(used) < 0 or max(used) > 51:
            raise IllegalAction("omaha.deal_duplicate")
        if self.tournament is not None:
            self.tournament.check_hand()

        self.hand.reset()
        events: list[Event] = []
        if self.tournament is not None:
            events.extend(self.tournament.hand_starts(
                {self.seating.sitters[s].name: self.seating.sitters[s].chips for s in order}))
        self.hand.number += 1
        self.seating.button = button
        self.seating.button_set = False
        self.hand.board = list(deal.board)
        self.hand.spare = list(deal.shoe)
        while len(self.hand.board) < 5:
            self.hand.board.append(self.hand.spare.pop(0))
        self.hand.players = [
            HandPlayer(nm, order[i], i, list(deal.hands[nm])) for i, nm in enumerate(names)
        ]
        self.hand.pmap = {p.name: p for p in self.hand.players}
        n = len(self.hand.players)
        bet = Betting([Seat(self.seating.sitters[s].chips) for s in order], self.settings.bb,
                      self.settings.limit)
        self.hand.bet = bet
        events.insert(0, HandStart(hand=self.hand.number, button=button))
        posts: list[str] = []
        if self.settings.ante:
            for i in range(n):
                bet.post(i, self.settings.ante, live=False)
            posts.append(msg("omaha.post_ante", ante=self.settings.ante))
        if n == 2:
            sb_i, bb_i = 1, 0  # heads-up: the button posts the SB and acts first preflop
        else:
            sb_i, bb_i = 0, 1
        blinds: list[tuple[int, str]] = []  # announced SB first, then BB (heads-up too)
        for i, p in enumerate(self.hand.players):
            sitter = self.seating.sitters[p.seat]
            if i == bb_i:
                paid = bet.post(i, self.settings.bb)
                blinds.append((1, msg("omaha.post_bb", player=p.name, chips=paid)))
            elif sitter.newcomer:
                paid = bet.post(i, self.settings.bb)
                blinds.append((2, msg("omaha.post_bb_newcomer", player=p.name, chips=paid)))
            elif i == sb_i:
                paid = bet.post(i, self.settings.sb)
                blinds.append((0, msg("omaha.post_sb", player=p.name, chips=paid)))
            sitter.newcomer = False
        posts += [t for _, t in sorted(blinds, key=lambda b: b[0])]
        self.hand.phase = "betting"
        self.hand.street = 0
        self.hand.first_idx = (bb_i + 1) % n
        bet.start_round(self.hand.first_idx, 0, facing=self.settings.bb)
        self.hand.snapshot = [(s.stack, s.bet, s.committed, s.folded) for s in bet.seats]
        self.hand.snap_money = (bet.collected, bet.dead, bet.max_bet)
        events.append(say("room", msg(
            "omaha.hand_start", hand=str(self.hand.number), button=button,
            player=self.seating.sitters[button].name, posts=" / ".join(posts),
        )))
        for p in self.hand.players:
            events.append(say(p.name, msg("omaha.your_cards", hand=str(self.hand.number),
                                          cards=show(p.hole)), p.hole))
        # the first clock reading after the deal starts the turn (a deal carries no time, and
        # the previous message's time could be long ago)
        self.clock.wait.restart(None)
        events.extend(self._advance())
        return events

    # --- resolving the player's intent ----------------------------------------------------------
    def _word(self) -> str:
        """What raising is called now: a make over a live bet, else a bet."""
        return word("omaha.word_make") if self.hand.b().max_bet > 0 else word("omaha.word_bet")

    def _resolve(self, p: HandPlayer, a: Parsed) -> tuple[Move, int]:
        """Turn a parsed betting action into (move, make) or refuse (reads only)."""
        b = self.hand.b()
        s = b.seats[p.idx]
        o = b.options(p.idx)
        name = a.action
        if name == "fold":
            return "fold", 0
        if name == "check":
            if o.call > 0:
                raise IllegalAction("omaha.no_check", call=o.call)
            return "check", 0
        if name == "call":
            return ("call", 0) if o.call > 0 else ("check", 0)
        allin_to = s.stack + s.bet
        if name == "allin":
            if s.stack <= o.call:
                return "call", 0
            if o.can_raise:
                if allin_to > o.max_to:
                    if self.settings.rules.oversize_allin == "max_raise":
                        return "raise", o.max_to
                    raise IllegalAction("omaha.allin_over_max", allin=allin_to,
                                        word=self._word(), max=o.max_to)
                return "raise", allin_to
            if o.no_raise_reason in ("covered", "no_opponent") and o.call > 0:
                return "call", 0
            if o.call == 0:
                raise IllegalAction("omaha.no_allin")
            raise IllegalAction("omaha.no_raise", call=o.call)
        if name in ("bet", "raise"):
            if a.pot:
                if not o.can_raise:
                    raise _no_raise(o)
                return "raise", o.max_to
            to = a.to if a.to is not None else a.amount
            if to is None:
                raise IllegalAction("omaha.amount_needed", word=self._word(),
                                    amount=str(max(o.min_to, self.settings.bb)))
            if not o.can_raise:
                raise _no_raise(o)
            if to == allin_to and o.min_to <= to <= o.max_to:
                return "raise", to
            if not o.min_to <= to <= o.max_to:
                if o.min_to == o.max_to:
                    raise IllegalAction("omaha.make_exact", word=self._word(), min=o.min_to)
                raise IllegalAction("omaha.make_range", word=self._word(), min=o.min_to,
                                    max=o.max_to)
            return "raise", to
        raise IllegalAction("omaha.not_now")

    def _apply(self, p: HandPlayer, kind: Move, to: int, ack: bool = True) -> list[Event]:
        """Carry out an accepted betting action: its ``action`` event and the room's one-line
        acknowledgement (「bobさん: コール 10」; a bet, a make and an all-in name the total).
        A fold that shows cards is acknowledged by its show line instead (``ack`` False)."""
        b = self.hand.b()
        if kind == "fold":
            self._commit_reserve(p)
            b.fold(p.idx)
            ev = action_event(p.name, "fold")
            return [ev, action_line(GAME, ev)] if ack else [ev]
        p.reserved = 0  # a call or a raise puts in at least the reserved chips
        if kind == "check":
            b.check_call(p.idx)
            return self._said(action_event(p.name, "check"))
        if kind == "call":
            paid = b.check_call(p.idx)
            act = "allin" if b.seats[p.idx].stack == 0 else "call"
            total = b.seats[p.idx].bet
            return self._said(action_event(p.name, act, paid, total))
        before = b.max_bet
        paid = b.raise_to(p.idx, to)
        self.hand.aggressor = p.idx
        if b.seats[p.idx].stack == 0:
            act = "allin"
        else:
            act = "raise" if before > 0 else "bet"
        return self._said(action_event(p.name, act, paid, to))

    @staticmethod
    def _said(ev: ActionEvent) -> list[Event]:
        """An accepted action's event, then the room's line rendered from it."""
        return [ev, action_line(GAME, ev)]

    # --- the action transaction (Engine.act: check, then apply) ------------------------------
    def _check_act(self, player: str, action: Parsed, now: float | None) -> Plan:
        if action.kind != "action" or action.action is None:
            raise IllegalAction("omaha.not_an_action")
        name = action.action
        self.seating.seat_of(player)
        p = self.hand.pmap.get(player)
        hand = self.hand
        if hand.phase == "over" and name in ("open", "close") and player == hand.winner_after_fold:
            return self.showdown.check_after_fold(p, action, now)
        if not self.hand.live:
            raise IllegalAction("omaha.no_hand")
        if p is None or p.removed:
            raise IllegalAction("omaha.not_in_hand")
        b = self.hand.b()
        seat = b.seats[p.idx]
        if seat.folded:
            raise IllegalAction("omaha.already_folded")
        if self.hand.phase == "showdown":
            return self.showdown.check(p, action, now)
        if name in ("open", "muck", "close"):
            raise IllegalAction("omaha.not_showdown")
        if name not in BETTING_ACTIONS:
            raise IllegalAction("omaha.unknown_action")
        if seat.stack == 0:
            raise IllegalAction("omaha.already_allin")
        if b.to_act() != p.idx:
            return self._check_flying(p, action, now)
        shown = cards_shown(p, action) if name == "fold" else ()
        kind, to = self._resolve(p, action)
        if p.restrict == "call_or_fold" and kind not in ("fold", "call"):
            raise IllegalAction("omaha.call_or_fold", call=b.options(p.idx).call)
        if p.restrict == "raise_or_fold" and kind not in ("fold", "raise"):
            o = b.options(p.idx)
            raise IllegalAction("omaha.raise_or_fold", min=o.min_to, max=o.max_to)
        return TurnPlan(p, kind, to, shown, now)

    def _apply_act(self, plan: Plan) -> list[Event]:
        if plan.now is not None:
            self.clock.now = plan.now
        if isinstance(plan, TurnPlan):
            return self._apply_turn(plan)
        if isinstance(plan, FlyingPlan):
            return self._apply_flying(plan)
        if isinstance(plan, ShowdownPlan):
            return self.showdown.apply(plan)
        assert isinstance(plan, AfterFoldPlan)
        return self.showdown.apply_after_fold(plan)

    def _apply_turn(self, plan: TurnPlan) -> list[Event]:
        p = plan.player
        p.restrict = None
        events = self._apply(p, plan.move, plan.to, ack=not plan.show)
        if plan.show:
            p.shown = list(plan.show)
            events += voice.said(shown(p.name, p.shown, "fold"))
        self.clock.restart()
        events.extend(self._advance())
        return events

    # --- out-of-turn money: penalties, reserved chips, folds and removals ----------------------
    def _pay_dead(self, p: HandPlayer, chips: int) -> None:
        """A penalty from ``p``'s stack into the main pot as dead money, remembered per player:
        a misdeal rewind refunds it to a player still in the hand but must keep a removed
        player's (their seat is not rewound, so the chips would otherwise vanish)."""
        b = self.hand.b()
        b.seats[p.idx].stack -= chips
        b.dead += chips
        p.dead += chips
        b.touch()

    def _commit_reserve(self, p: HandPlayer) -> None:
        """A player folding with FA chips reserved: those chips stay in the pot."""
        if p.reserved:
            s = self.hand.b().seats[p.idx]
            s.stack -= p.reserved
            s.bet += p.reserved
            s.committed += p.reserved
            p.reserved = 0
            self.hand.b().touch()

    def _fold_now(self, p: HandPlayer) -> list[Event]:
        """Fold out of turn (FA fold, penalties): reserved FA chips stay in the pot."""
        b = self.hand.b()
        self._commit_reserve(p)
        p.fa = None
        p.restrict = None
        if b.to_act() == p.idx:
            b.fold(p.idx)
        else:
            b.fold_out_of_turn(p.idx)
        return [ActionEvent(player=p.name, action="fold")]

    def _remove_now(self, p: HandPlayer) -> list[Event]:
        b = self.hand.b()
        s = b.seats[p.idx]
        chips = s.stack
        s.stack = 0
        b.touch()
        p.removed = True
        return self.seating.leave_event(self.seating.sitters[p.seat], chips)

    # --- moving the hand along -------------------------------------------------------------------
    def _advance(self) -> list[Event]:
        events: list[Event] = []
        b = self.hand.b()
        while self.hand.phase == "betting":
            if b.live_count() <= 1:
                events.extend(self._end_round())
                events.extend(self.showdown.award_uncontested())
                return events
            if b.actors:
                p = self.hand.players[b.actors[0]]
                if p.fa is not None:
                    events.extend(self._resolve_fa(p))
                    continue
                events.append(self._prompt(p))
                return events
            events.extend(self._end_round())
            if self.hand.street == 3:
                events.extend(self.showdown.start_showdown())
                return events
            self.hand.street += 1
            self.hand.aggressor = None
            self.hand.shown_board = 3 if self.hand.street == 1 else self.hand.shown_board + 1
            if self.hand.street == 1:
                self.hand.flop_seen = True
            events.extend(self.showdown.street_lines())
            if b.betting_possible():
                b.start_round(0, self.hand.street)
            self.clock.restart()
        return events

    def _end_round(self) -> list[Event]:
        b = self.hand.b()
        for p in self.hand.players:
            p.fa = None
            p.restrict = None
            p.reserved = 0
        ret = b.end_round()
        if ret is None:
            return []
        j, back = ret
        return [Returned(player=self.hand.players[j].name, amount=back)]

    def _prompt(self, p: HandPlayer) -> Event:
        """The turn prompt, in every game's shape (seat.turn): the choices with their cost."""
        b = self.hand.b()
        o = b.options(p.idx)
        if o.can_raise and p.restrict != "call_or_fold":
            return say("room", _turn_line(p.name, o.call, self._word(), o.min_to, o.max_to))
        return say("room", _turn_line(p.name, o.call, None, 0, 0))

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

    def options_for(self, player: str) -> Options:
        """The legal range of ``player`` now (tests, the lock-step check, help messages)."""
        hand = self.hand
        return hand.b().options(hand.pmap[player].idx)

    # --- the parts' state, read through the engine (tests, the benchmark, checks) ---------------
    def _rake_for(self, total: int) -> int:
        return self.showdown.rake_for(total)

    @property
    def total_rake(self) -> int:
        return self.showdown.total_rake

    @property
    def house_paid(self) -> int:
        return self.showdown.house_paid

    @property
    def sitters(self) -> dict[int, Sitter]:
        return self.seating.sitters

    @property
    def sb(self) -> int:
        return self.settings.sb

    @property
    def bb(self) -> int:
        return self.settings.bb

    @property
    def ante(self) -> int:
        return self.settings.ante

    @property
    def phase(self) -> Phase:
        return self.hand.phase

    @property
    def players(self) -> list[HandPlayer]:
        return self.hand.players

    @property
    def pmap(self) -> dict[str, HandPlayer]:
        return self.hand.pmap

    @property
    def bet(self) -> Betting | None:
        return self.hand.bet

    @property
    def board(self) -> list[Card]:
        return self.hand.board

    @property
    def street(self) -> int:
        return self.hand.street

    @property
    def shown_board(self) -> int:
        return self.hand.shown_board

    @property
    def flop_seen(self) -> bool:
        return self.hand.flop_seen

    @flop_seen.setter
    def flop_seen(self, seen: bool) -> None:
        self.hand.flop_seen = seen

    @property
    def sd_queue(self) -> list[int]:
        return self.hand.sd_queue


@lru_cache(maxsize=4096)
def _turn_line(player: str, call: int, raise_word: str | None, lo: int, hi: int) -> str:
    """The prompt's text (remembered: the same prompts come back hand after hand, and there is
    one on every turn). ``raise_word``: メイク / ベット, or None when raising is not offered."""
    choices = [word("omaha.choice_check") if call == 0 else msg("omaha.choice_call", call=call)]
    if raise_word is not None:
        if lo < hi:
            choices.append(msg("omaha.choice_range", word=raise_word, min=lo, max=hi))
        else:
            choices.append(msg("omaha.choice_make", word=raise_word, min=lo))
    choices.append(word("omaha.choice_fold"))
    return msg("seat.turn", player=player, choices=" / ".join(choices))
