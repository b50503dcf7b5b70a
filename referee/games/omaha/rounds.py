"""The betting of an omaha hand: the deal (antes, blinds, the button), what a player's message
means against the legal range (a make, a pot-sized raise, an all-in), the action transaction
(:meth:`OmahaRounds._check_act` reads and refuses, :meth:`OmahaRounds._apply_act` carries the
plan out), the turn prompt, and moving from round to round up to the showdown.

The money arithmetic is :mod:`referee.rules.betting`'s; this layer turns intent into its calls.
"""

from __future__ import annotations

from functools import lru_cache

from referee.actions import Parsed
from referee.events import ActionEvent, Event, HandStart, Returned
from referee.games.omaha import voice
from referee.games.omaha.showdown import OmahaShowdown
from referee.games.omaha.state import (
    AfterFoldPlan,
    FlyingPlan,
    HandPlayer,
    Move,
    Plan,
    ShowdownPlan,
    TurnPlan,
    action_event,
    say,
    show,
    shown,
    word,
)
from referee.lang.catalog import text as msg
from referee.rules.base import Deal, IllegalAction
from referee.rules.betting import Betting, Options, Seat
from referee.rules.voice import action_line

GAME = "omaha"

BETTING_ACTIONS = frozenset(("fold", "check", "call", "bet", "raise", "allin"))


def _no_raise(o: Options) -> IllegalAction:
    if o.call == 0:
        return IllegalAction("omaha.no_bet")
    return IllegalAction("omaha.no_raise", call=o.call)


class OmahaRounds(OmahaShowdown):
    # --- the deal ----------------------------------------------------------------------------
    def _next_seat(self, seat: int, eligible: list[int]) -> int:
        for k in range(1, self.max_seats + 1):
            cand = (seat - 1 + k) % self.max_seats + 1
            if cand in eligible:
                return cand
        raise AssertionError("no eligible seat")

    def start_hand(self, deal: Deal) -> list[Event]:
        if self.in_hand:
            raise IllegalAction("omaha.hand_running")
        ready = sorted(seat for seat, s in self.sitters.items() if s.chips > 0)
        if len(ready) < 2:
            raise IllegalAction("omaha.need_two")
        if self._button_set and self.button is not None:
            button = self.button if self.button in ready else self._next_seat(self.button, ready)
        elif self.button is None:
            start = 1 if self.rules.button_start == "seat1" else ready[0]
            button = start if start in ready else self._next_seat(start, ready)
        else:
            button = self._next_seat(self.button, ready)
        # clockwise from the button's left (``ready`` is sorted; the button, if ready, is last)
        order = [s for s in ready if s > button] + [s for s in ready if s <= button]
        names = [self.sitters[s].name for s in order]
        # validate the deal before touching anything
        for nm in deal.hands:
            if nm not in self.by_name:
                raise IllegalAction("omaha.deal_stranger", player=nm)
        for nm in names:
            if len(deal.hands.get(nm, [])) != 4:
                raise IllegalAction("omaha.deal_count", player=nm)
        if len(deal.board) + len(deal.shoe) < 5:
            raise IllegalAction("omaha.deal_board")
        used = [c for nm in names for c in deal.hands[nm]] + list(deal.board) + list(deal.shoe)
        if len(set(used)) != len(used) or min(used) < 0 or max(used) > 51:
            raise IllegalAction("omaha.deal_duplicate")
        self._check_tournament_hand()

        self._clear_hand()
        events: list[Event] = []
        t = self.tourney
        if t is not None:
            events.extend(self._tournament_hand(t))
        self._start_stacks = {self.sitters[s].name: self.sitters[s].chips for s in order}
        self.hand_no += 1
        self.button = button
        self._button_set = False
        self.board = list(deal.board)
        self.spare = list(deal.shoe)
        while len(self.board) < 5:
            self.board.append(self.spare.pop(0))
        self.players = [
            HandPlayer(nm, order[i], i, list(deal.hands[nm])) for i, nm in enumerate(names)
        ]
        self.pmap = {p.name: p for p in self.players}
        n = len(self.players)
        bet = Betting([Seat(self.sitters[s].chips) for s in order], self.bb, self.limit)
        self.bet = bet
        events.insert(0, HandStart(hand=self.hand_no, button=button))
        posts: list[str] = []
        if self.ante:
            for i in range(n):
                bet.post(i, self.ante, live=False)
            posts.append(msg("omaha.post_ante", ante=self.ante))
        if n == 2:
            sb_i, bb_i = 1, 0  # heads-up: the button posts the SB and acts first preflop
        else:
            sb_i, bb_i = 0, 1
        blinds: list[tuple[int, str]] = []  # announced SB first, then BB (heads-up too)
        for i, p in enumerate(self.players):
            sitter = self.sitters[p.seat]
            if i == bb_i:
                paid = bet.post(i, self.bb)
                blinds.append((1, msg("omaha.post_bb", player=p.name, chips=paid)))
            elif sitter.newcomer:
                paid = bet.post(i, self.bb)
                blinds.append((2, msg("omaha.post_bb_newcomer", player=p.name, chips=paid)))
            elif i == sb_i:
                paid = bet.post(i, self.sb)
                blinds.append((0, msg("omaha.post_sb", player=p.name, chips=paid)))
            sitter.newcomer = False
        posts += [t for _, t in sorted(blinds, key=lambda b: b[0])]
        self.phase = "betting"
        self.street = 0
        self._first_idx = (bb_i + 1) % n
        bet.start_round(self._first_idx, 0, facing=self.bb)
        self._snapshot = [(s.stack, s.bet, s.committed, s.folded) for s in bet.seats]
        self._snap_money = (bet.collected, bet.dead, bet.max_bet)
        events.append(say("room", msg(
            "omaha.hand_start", hand=str(self.hand_no), button=button,
            player=self.sitters[button].name, posts=" / ".join(posts),
        )))
        for p in self.players:
            events.append(say(p.name, msg("omaha.your_cards", hand=str(self.hand_no),
                                          cards=show(p.hole)), p.hole))
        # the first clock reading after the deal starts the turn (a deal carries no time, and
        # the previous message's time could be long ago)
        self._clock.restart(None)
        events.extend(self._advance())
        return events

    # --- resolving the player's intent ----------------------------------------------------------
    def _word(self) -> str:
        """What raising is called now: a make over a live bet, else a bet."""
        return word("omaha.word_make") if self._b().max_bet > 0 else word("omaha.word_bet")

    def _resolve(self, p: HandPlayer, a: Parsed) -> tuple[Move, int]:
        """Turn a parsed betting action into (move, make) or refuse (reads only)."""
        b = self._b()
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
                    if self.rules.oversize_allin == "max_raise":
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
                                    amount=str(max(o.min_to, self.bb)))
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
        b = self._b()
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
        self.aggressor = p.idx
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
        self._seat_of(player)
        p = self.pmap.get(player)
        if self.phase == "over" and name in ("open", "close") and player == self.winner_after_fold:
            return self._check_after_fold(p, action, now)
        if not self.in_hand:
            raise IllegalAction("omaha.no_hand")
        if p is None or p.removed:
            raise IllegalAction("omaha.not_in_hand")
        b = self._b()
        seat = b.seats[p.idx]
        if seat.folded:
            raise IllegalAction("omaha.already_folded")
        if self.phase == "showdown":
            return self._check_showdown(p, action, now)
        if name in ("open", "muck", "close"):
            raise IllegalAction("omaha.not_showdown")
        if name not in BETTING_ACTIONS:
            raise IllegalAction("omaha.unknown_action")
        if seat.stack == 0:
            raise IllegalAction("omaha.already_allin")
        if b.to_act() != p.idx:
            return self._check_flying(p, action, now)
        shown = self._cards_shown(p, action) if name == "fold" else ()
        kind, to = self._resolve(p, action)
        if p.restrict == "call_or_fold" and kind not in ("fold", "call"):
            raise IllegalAction("omaha.call_or_fold", call=b.options(p.idx).call)
        if p.restrict == "raise_or_fold" and kind not in ("fold", "raise"):
            o = b.options(p.idx)
            raise IllegalAction("omaha.raise_or_fold", min=o.min_to, max=o.max_to)
        return TurnPlan(p, kind, to, shown, now)

    def _apply_act(self, plan: Plan) -> list[Event]:
        if plan.now is not None:
            self._now = plan.now
        if isinstance(plan, TurnPlan):
            return self._apply_turn(plan)
        if isinstance(plan, FlyingPlan):
            return self._apply_flying(plan)
        if isinstance(plan, ShowdownPlan):
            return self._apply_showdown(plan)
        assert isinstance(plan, AfterFoldPlan)
        return self._apply_after_fold(plan)

    def _apply_turn(self, plan: TurnPlan) -> list[Event]:
        p = plan.player
        p.restrict = None
        events = self._apply(p, plan.move, plan.to, ack=not plan.show)
        if plan.show:
            p.shown = list(plan.show)
            events += voice.said(shown(p.name, p.shown, "fold"))
        self._restart_clock()
        events.extend(self._advance())
        return events

    # --- out-of-turn money: penalties, reserved chips, folds and removals ----------------------
    def _pay_dead(self, p: HandPlayer, chips: int) -> None:
        """A penalty from ``p``'s stack into the main pot as dead money, remembered per player:
        a misdeal rewind refunds it to a player still in the hand but must keep a removed
        player's (their seat is not rewound, so the chips would otherwise vanish)."""
        b = self._b()
        b.seats[p.idx].stack -= chips
        b.dead += chips
        p.dead += chips
        b.touch()

    def _commit_reserve(self, p: HandPlayer) -> None:
        """A player folding with FA chips reserved: those chips stay in the pot."""
        if p.reserved:
            s = self._b().seats[p.idx]
            s.stack -= p.reserved
            s.bet += p.reserved
            s.committed += p.reserved
            p.reserved = 0
            self._b().touch()

    def _fold_now(self, p: HandPlayer) -> list[Event]:
        """Fold out of turn (FA fold, penalties): reserved FA chips stay in the pot."""
        b = self._b()
        self._commit_reserve(p)
        p.fa = None
        p.restrict = None
        if b.to_act() == p.idx:
            b.fold(p.idx)
        else:
            b.fold_out_of_turn(p.idx)
        return [ActionEvent(player=p.name, action="fold")]

    def _remove_now(self, p: HandPlayer) -> list[Event]:
        b = self._b()
        s = b.seats[p.idx]
        chips = s.stack
        s.stack = 0
        b.touch()
        p.removed = True
        return self._leave_event(self.sitters[p.seat], chips)

    # --- moving the hand along -------------------------------------------------------------------
    def _advance(self) -> list[Event]:
        events: list[Event] = []
        b = self._b()
        while self.phase == "betting":
            if b.live_count() <= 1:
                events.extend(self._end_round())
                events.extend(self._award_uncontested())
                return events
            if b.actors:
                p = self.players[b.actors[0]]
                if p.fa is not None:
                    events.extend(self._resolve_fa(p))
                    continue
                events.append(self._prompt(p))
                return events
            events.extend(self._end_round())
            if self.street == 3:
                events.extend(self._start_showdown())
                return events
            self.street += 1
            self.aggressor = None
            self.shown_board = 3 if self.street == 1 else self.shown_board + 1
            if self.street == 1:
                self.flop_seen = True
            events.extend(self._street_lines())
            if b.betting_possible():
                b.start_round(0, self.street)
            self._restart_clock()
        return events

    def _end_round(self) -> list[Event]:
        b = self._b()
        for p in self.players:
            p.fa = None
            p.restrict = None
            p.reserved = 0
        ret = b.end_round()
        if ret is None:
            return []
        j, back = ret
        return [Returned(player=self.players[j].name, amount=back)]

    def _prompt(self, p: HandPlayer) -> Event:
        """The turn prompt, in every game's shape (seat.turn): the choices with their cost."""
        b = self._b()
        o = b.options(p.idx)
        if o.can_raise and p.restrict != "call_or_fold":
            return say("room", _turn_line(p.name, o.call, self._word(), o.min_to, o.max_to))
        return say("room", _turn_line(p.name, o.call, None, 0, 0))


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
