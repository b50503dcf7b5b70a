"""The betting of an omaha hand: what a player's message means against the legal range (a make,
a pot-sized raise, an all-in), the turn's check and its apply, the moves with the room's
acknowledgement, the money that moves out of turn (penalties, reserved chips, folds and
removals), a round's end and the turn prompt.

The money arithmetic is :mod:`referee.rules.betting`'s; this part turns intent into its calls.
Moving the hand from round to round is the dealer's (:mod:`.dealer`); a declaration out of turn
is the flying book's (:mod:`.flying`), which makes its moves through this part.
"""

from __future__ import annotations

from functools import lru_cache

from referee.actions import Parsed
from referee.events import ActionEvent, Event, Phrase, Returned, Say, joined, line
from referee.games.omaha import voice
from referee.games.omaha.showdown import cards_shown
from referee.games.omaha.state import (
    ActionClock,
    Hand,
    HandPlayer,
    Move,
    TurnPlan,
    action_event,
    say,
    shown,
)
from referee.games.omaha.table import Seating, Settings
from referee.rules.base import IllegalAction, Offer
from referee.rules.betting import Options
from referee.rules.voice import action_line

GAME = "omaha"

BETTING_ACTIONS = frozenset(("fold", "check", "call", "bet", "raise", "allin"))


def _no_raise(o: Options) -> IllegalAction:
    if o.call == 0:
        return IllegalAction("omaha.no_bet")
    return IllegalAction("omaha.no_raise", call=o.call)


class Rounds:
    """The betting rounds of the table's hand (``hand``: the one the dealer deals)."""

    def __init__(self, hand: Hand, settings: Settings, seating: Seating,
                 clock: ActionClock) -> None:
        self.hand = hand
        self.settings = settings
        self.seating = seating
        self.clock = clock

    # --- resolving the player's intent ----------------------------------------------------------
    def raise_word(self) -> str:
        """What raising is called now, as its catalogue key: a make over a live bet, else a
        bet."""
        return "omaha.word_make" if self.hand.b().max_bet > 0 else "omaha.word_bet"

    def resolve(self, p: HandPlayer, a: Parsed) -> tuple[Move, int]:
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
                                        word=line(self.raise_word()), max=o.max_to)
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
                raise IllegalAction("omaha.amount_needed", word=line(self.raise_word()),
                                    amount=str(max(o.min_to, self.settings.bb)))
            if not o.can_raise:
                raise _no_raise(o)
            if to == allin_to and o.min_to <= to <= o.max_to:
                return "raise", to
            if not o.min_to <= to <= o.max_to:
                if o.min_to == o.max_to:
                    raise IllegalAction("omaha.make_exact", word=line(self.raise_word()),
                                        min=o.min_to)
                raise IllegalAction("omaha.make_range", word=line(self.raise_word()), min=o.min_to,
                                    max=o.max_to)
            return "raise", to
        raise IllegalAction("omaha.not_now")

    def apply(self, p: HandPlayer, kind: Move, to: int, ack: bool = True) -> list[Event]:
        """Carry out an accepted betting action: its ``action`` event and the room's one-line
        acknowledgement (「bobさん: コール 10」; a bet, a make and an all-in name the total).
        A fold that shows cards is acknowledged by its show line instead (``ack`` False)."""
        b = self.hand.b()
        if kind == "fold":
            self.commit_reserve(p)
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

    # --- the turn (Engine.act: check, then apply) ---------------------------------------------
    def check_turn(self, p: HandPlayer, action: Parsed, now: float | None) -> TurnPlan:
        """The player to act: the move ``action`` stands for, within a β restriction (reads
        only)."""
        b = self.hand.b()
        shown = cards_shown(p, action) if action.action == "fold" else ()
        kind, to = self.resolve(p, action)
        if not any(o.action == kind for o in self.offers(p)):
            o = b.options(p.idx)
            if p.restrict == "raise_or_fold":
                raise IllegalAction("omaha.raise_or_fold", min=o.min_to, max=o.max_to)
            raise IllegalAction("omaha.call_or_fold", call=o.call)
        return TurnPlan(p, kind, to, shown, now)

    def offers(self, p: HandPlayer) -> tuple[Offer, ...]:
        """What the player to act may do now, with the chips of each: a check or a call (not
        after a flying raise turned invalid: β raise or fold), a make in the legal range (not
        after a β call-or-fold), a fold. Every figure is the betting's one reading of the
        seat: chips a voided flying action left in count as chips of this action."""
        o = self.hand.b().options(p.idx)
        out: list[Offer] = []
        if p.restrict != "raise_or_fold":
            out.append(Offer("check") if o.call == 0 else Offer("call", chips=o.call))
        if o.can_raise and p.restrict != "call_or_fold":
            out.append(Offer("raise", min_to=o.min_to, max_to=o.max_to))
        out.append(Offer("fold"))
        return tuple(out)

    def apply_turn(self, plan: TurnPlan) -> list[Event]:
        """Carry out a turn :meth:`check_turn` accepted (the dealer then moves the hand on)."""
        p = plan.player
        p.restrict = None
        events = self.apply(p, plan.move, plan.to, ack=not plan.show)
        if plan.show:
            p.shown = list(plan.show)
            events += voice.said(shown(p.name, p.shown, "fold"))
        self.clock.restart()
        return events

    # --- out-of-turn money: penalties, reserved chips, folds and removals ----------------------
    def pay_dead(self, p: HandPlayer, chips: int) -> None:
        """A penalty from ``p``'s stack into the main pot as dead money, remembered per player:
        a misdeal rewind refunds it to a player still in the hand but must keep a removed
        player's (their seat is not rewound, so the chips would otherwise vanish)."""
        b = self.hand.b()
        b.seats[p.idx].stack -= chips
        b.dead += chips
        p.dead += chips
        b.touch()

    def commit_reserve(self, p: HandPlayer) -> None:
        """A player folding with FA chips reserved: those chips stay in the pot."""
        if p.reserved:
            s = self.hand.b().seats[p.idx]
            s.stack -= p.reserved
            s.bet += p.reserved
            s.committed += p.reserved
            p.reserved = 0
            self.hand.b().touch()

    def fold_now(self, p: HandPlayer) -> list[Event]:
        """Fold out of turn (FA fold, penalties): reserved FA chips stay in the pot."""
        b = self.hand.b()
        self.commit_reserve(p)
        p.fa = None
        p.restrict = None
        if b.to_act() == p.idx:
            b.fold(p.idx)
        else:
            b.fold_out_of_turn(p.idx)
        return [ActionEvent(player=p.name, action="fold")]

    def remove_now(self, p: HandPlayer) -> list[Event]:
        """Take ``p`` out of the hand and off their seat at once (a penalty): their bets stay
        in the pot, what is left of their stack goes with them."""
        b = self.hand.b()
        s = b.seats[p.idx]
        chips = s.stack
        s.stack = 0
        b.touch()
        p.removed = True
        return self.seating.leave_event(self.seating.sitters[p.seat], chips)

    def end_round(self) -> list[Event]:
        """Close the betting round: declarations lapse, an uncalled bet's excess returns."""
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

    def prompt(self, p: HandPlayer) -> Event:
        """The turn prompt, in every game's shape (seat.turn): the choices with their cost."""
        return _turn_say(p.name, self.offers(p), self.raise_word())


@lru_cache(maxsize=4096)
def _turn_say(player: str, offers: tuple[Offer, ...], raise_word: str) -> Say:
    """The prompt, remembered: the same prompts come back hand after hand, and there is one on
    every turn; the same say (a fact) each time, so the voice renders it once."""
    return say("room", _turn_line(player, offers, raise_word))


def _turn_line(player: str, offers: tuple[Offer, ...], raise_word: str) -> Phrase:
    """The prompt's sentence: exactly the offers, in their order. ``raise_word``: メイク /
    ベット (its catalogue key)."""
    choices: list[Phrase] = []
    for o in offers:
        if o.action == "check":
            choices.append(line("omaha.choice_check"))
        elif o.action == "call":
            choices.append(line("omaha.choice_call", call=o.chips))
        elif o.action == "raise" and o.min_to < o.max_to:
            choices.append(line("omaha.choice_range", word=line(raise_word), min=o.min_to,
                               max=o.max_to))
        elif o.action == "raise":
            choices.append(line("omaha.choice_make", word=line(raise_word), min=o.min_to))
        else:
            choices.append(line("omaha.choice_fold"))
    return line("seat.turn", player=player, choices=joined(" / ", choices))
