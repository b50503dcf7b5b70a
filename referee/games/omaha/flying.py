"""Flying actions (FA): a declaration by a player in the hand before their turn (docs/rules.md
`omaha`, "Flying actions"). Its own module because it is the part of the rules with the most
cases: recorded and applied at the turn if still legal (α), voided with a restriction (β: call
or fold, raise or fold, the check penalty), the all-in FA (void, half the stack stays in the
pot), a second declaration while one is pending, and the third FA (fold and removal).

A declaration is judged as if it were the player's turn at the moment it is declared: a raise FA
must name a make that would be legal then (else it is refused and not counted); the judging
reads only (:meth:`FlyingBook.check`), the counting and its effects are the apply. The book
makes its moves through the betting (:class:`~referee.games.omaha.rounds.Rounds`); the dealer
asks it to resolve a declaration when the player's turn comes.
"""

from __future__ import annotations

from referee.actions import Parsed
from referee.cards import Card
from referee.events import (
    Event,
    FlyingAction,
    FlyingActionApplied,
    FlyingActionVoid,
    Penalty,
    line,
)
from referee.games.omaha import voice
from referee.games.omaha.rounds import Rounds
from referee.games.omaha.showdown import cards_shown
from referee.games.omaha.state import (
    FlyingDeclaration,
    FlyingPlan,
    Hand,
    HandPlayer,
    Move,
    say,
    shown,
)
from referee.games.omaha.table import Seating, Settings


class FlyingBook:
    """The flying actions of the table's hand: declarations pending (on the hand's players) and
    each seat's count (on the seats, across hands: the third is a removal)."""

    def __init__(self, hand: Hand, settings: Settings, seating: Seating, rounds: Rounds) -> None:
        self.hand = hand
        self.settings = settings
        self.seating = seating
        self.rounds = rounds

    def check(self, p: HandPlayer, action: Parsed, now: float | None) -> FlyingPlan:
        """Judge a declaration made before the player's turn (reads only)."""
        b = self.hand.b()
        name = action.action
        assert name is not None
        pending = p.fa is not None
        resolved: tuple[Move, int] | None = None
        if not pending and name == "check":
            resolved = ("check", 0)  # accepted even facing a bet: β3 judges it at the turn
        elif not pending and name == "call":
            resolved = ("call", 0) if b.options(p.idx).call > 0 else ("check", 0)
        elif not pending and name not in ("allin", "fold"):
            resolved = self.rounds.resolve(p, action)  # refuses malformed/out-of-range ones
        shown: tuple[Card, ...] = ()
        limit_reached = self.seating.sitters[p.seat].fa_count + 1 >= self.settings.fa_limit
        if name == "fold" and not pending and not limit_reached:
            shown = cards_shown(p, action)
        return FlyingPlan(p, name, resolved, shown, now)

    def apply(self, plan: FlyingPlan) -> tuple[list[Event], bool]:
        """Carry out a declaration :meth:`check` accepted; with True when the player left the
        hand (a fold, or a removal): the dealer must then move the hand on."""
        b = self.hand.b()
        p = plan.player
        sitter = self.seating.sitters[p.seat]
        name = plan.action
        sitter.fa_count += 1
        events: list[Event] = [FlyingAction(player=p.name, action=name, count=sitter.fa_count)]
        if sitter.fa_count >= self.settings.fa_limit:
            events.append(Penalty(player=p.name, kind="flying_action_limit"))
            events.append(say("room", line("omaha.fa_limit", player=p.name,
                                          count=sitter.fa_count)))
            events.extend(self.rounds.fold_now(p))
            events.extend(self.rounds.remove_now(p))
            return events, True
        if p.fa is not None:
            events.append(say("room", line("omaha.fa_first_stands", player=p.name)))
            return events, False
        if name == "allin":
            s = b.seats[p.idx]
            up = self.settings.rules.allin_fa_return == "up"
            half = s.stack // 2 if up else -(-s.stack // 2)
            self.rounds.pay_dead(p, half)
            events.append(Penalty(player=p.name, kind="allin_fa", chips=half))
            events.append(say("room", line("omaha.fa_allin", player=p.name, chips=half)))
            events.extend(self.rounds.fold_now(p))
            return events, True
        if name == "fold":
            events.extend(self.rounds.fold_now(p))
            if plan.show:
                p.shown = list(plan.show)
                events += voice.said(shown(p.name, p.shown, "fold"))
            return events, True
        assert plan.resolved is not None
        kind, to = plan.resolved
        s = b.seats[p.idx]
        if kind == "check":
            p.fa = FlyingDeclaration("check", b.max_bet, 0)
        elif kind == "call":
            p.fa = FlyingDeclaration("call", b.max_bet, min(s.stack, b.max_bet - s.bet))
        else:
            p.fa = FlyingDeclaration("raise", to, to - s.bet)
        p.reserved = p.fa.chips
        events.append(say("room", line("omaha.fa_recorded", player=p.name,
                                      count=sitter.fa_count)))
        return events, False

    def resolve(self, p: HandPlayer) -> list[Event]:
        """The player with a pending flying action is now to act: apply it or restrict them."""
        b = self.hand.b()
        fa = p.fa
        assert fa is not None
        p.fa = None
        o = b.options(p.idx)
        s = b.seats[p.idx]
        events: list[Event] = []
        if fa.kind == "check":
            if o.call == 0:
                events.append(FlyingActionApplied(player=p.name, action="check"))
                events.append(say("room", line("fa_applied", player=p.name,
                                              action=line("act_check"))))
                return events + self.rounds.apply(p, "check", 0)
            pen = min(self.settings.bb, s.stack)
            self.rounds.pay_dead(p, pen)
            p.restrict = "call_or_fold"
            events.append(Penalty(player=p.name, kind="check_fa", chips=pen))
            events.append(say("room", line("omaha.fa_check_void", player=p.name, chips=pen,
                                          call=b.options(p.idx).call)))
            if s.stack == 0:  # the penalty took everything: nothing left to decide
                p.restrict = None
                events.extend(self.rounds.apply(p, "call", 0))
            return events
        if fa.kind == "call":
            if b.max_bet == fa.to:
                events.append(FlyingActionApplied(player=p.name, action="call"))
                events.append(say("room", line("fa_applied", player=p.name,
                                              action=line("act_call"))))
                return events + self.rounds.apply(p, "call", 0)
            p.restrict = "call_or_fold"
            events.append(FlyingActionVoid(player=p.name, action="call", chips=fa.chips))
            events.append(say("room", line("omaha.fa_call_void", player=p.name,
                                          chips=fa.chips,
                                          call=b.options(p.idx).call)))
            return events
        # raise
        if o.can_raise and o.min_to <= fa.to <= o.max_to:
            events.append(FlyingActionApplied(player=p.name, action="raise"))
            events.append(say("room", line("fa_applied", player=p.name,
                                          action=line("act_raise"))))
            return events + self.rounds.apply(p, "raise", fa.to)
        events.append(FlyingActionVoid(player=p.name, action="raise", chips=fa.chips))
        if o.can_raise:
            p.restrict = "raise_or_fold"
            then = line("omaha.raise_or_fold", min=o.min_to, max=o.max_to)
        else:
            p.restrict = "call_or_fold"
            then = line("omaha.fa_raise_void_call", call=o.call)
        events.append(say("room", line("omaha.fa_raise_void", player=p.name, chips=fa.chips,
                                      then=then)))
        return events
