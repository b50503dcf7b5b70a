"""The cards' path through a ``deuces`` hand: duplicates, the refill, and a dry run of both.

A module of its own because two parts of the engine need the same card logic: the hand itself
(:mod:`referee.games.deuces.engine`), and the check before each action, which must know -- without
changing anything -- whether the shoe holds enough cards for everything the action sets off
(the deal and the first duplicate check after the last ante; the refill, the second check and
the settlement after the last decision). A transcript may give a short ``shoe``; running out is
refused before anything moves, so a refusal leaves no trace (the engine validates, then applies;
it never copies its state to roll back).

:class:`DryRun` replays just the card flow on copies of the card lists (hands, the dealer's,
the queue of the duplicate check): the same steps in the same order as the engine, by the same
helpers (:func:`dup_kinds`, :func:`later_copy`, :func:`refill_order`), but no events, chips or
bonus area. It raises IllegalAction (``deuces.shoe_short``) where the engine would run out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from referee.cards import JOKER, Card
from referee.rules.base import IllegalAction

__all__ = ["DEALER", "DryRun", "Status", "dup_kinds", "later_copy", "refill_order", "take"]

#: The dealer's name in the queue of the duplicate check and in ``duplicate`` events.
DEALER = "dealer"

#: A player's part in the hand: waiting for their ``ante``; ``anted``; sitting it ``out``;
#: ``deciding`` (play or fold); ``played``; ``folded``.
Status = Literal["ante", "anted", "out", "deciding", "played", "folded"]

#: Where the hand stands: the ``ante`` phase, the duplicate ``check`` waiting for a player's
#: choice of order, the ``decide`` phase (play or fold); None once settled (dry run only).
HandPhase = Literal["ante", "check", "decide"]


def dup_kinds(cards: list[Card]) -> list[Card]:
    """Cards held more than once (jokers never count), in the order their copies appear."""
    out: list[Card] = []
    for i, c in enumerate(cards):
        if c != JOKER and c in cards[:i] and c not in out:
            out.append(c)
    return out


def later_copy(cards: list[Card], card: Card) -> int:
    """Where the copy of ``card`` that goes is: the later one (the first keeps its place)."""
    return next(i for i, c in enumerate(cards) if c == card and c in cards[:i])


def take(hand: list[Card], cards: list[Card]) -> list[Card] | None:
    """``hand`` minus the multiset ``cards``; None when ``cards`` is not part of the hand."""
    left = list(hand)
    for c in cards:
        if c not in left:
            return None
        left.remove(c)
    return left


def refill_order(counts: list[tuple[str, int]], size: int = 5) -> list[str]:
    """Who receives each refill card: ``counts`` in seat order with the dealer last.

    Repeatedly, every hand holding the fewest cards gets one, in that order, until all hold
    ``size`` (seed example: seat 1 holds 4, seat 3 holds 2, dealer 3 → 3, 3, dealer, 1, 3, dealer).
    """
    held = dict(counts)
    out: list[str] = []
    while any(n < size for n in held.values()):
        low = min(held.values())
        for who, _ in counts:
            if held[who] == low:
                held[who] += 1
                out.append(who)
    return out


class DryRun:
    """The card flow of a hand from a given point, on copies (see the module doc).

    ``players`` are ``(name, seat, status, cards, dealt)`` in check order (from the button);
    the mutators mirror the engine's automatic steps of the same names."""

    def __init__(
        self,
        players: list[tuple[str, int, Status, list[Card], list[Card]]],
        dealer: list[Card],
        shoe: list[Card],
        *,
        phase: HandPhase,
        check: int,
        queue: list[str],
        choice: bool,
        dealer_way: Callable[[list[Card]], list[Card]],
    ) -> None:
        self.order = [p[0] for p in players]
        self.seat = {p[0]: p[1] for p in players}
        self.status: dict[str, Status] = {p[0]: p[2] for p in players}
        self.cards = {p[0]: list(p[3]) for p in players}
        self.dealt = {p[0]: p[4] for p in players}
        self.cards[DEALER] = list(dealer)
        self.shoe = shoe
        self.used = 0
        self.phase: HandPhase | None = phase
        self.check = check
        self.queue = list(queue)
        self.choice = choice
        self.dealer_way = dealer_way

    def drop(self, name: str) -> None:
        """``name`` leaves the hand (a leave before the ante)."""
        self.order.remove(name)
        del self.status[name]

    def draw(self) -> None:
        if self.used >= len(self.shoe):
            raise IllegalAction("deuces.shoe_short")
        self.used += 1

    def card(self) -> Card:
        c = self.shoe[self.used] if self.used < len(self.shoe) else JOKER
        self.draw()
        return c

    def dedupe(self, who: str, first: Card | None, default: bool) -> bool:
        cards = self.cards[who]
        while True:
            kinds = dup_kinds(cards)
            if not kinds:
                return False
            if first is not None:
                card, first = first, None
            elif who != DEALER and len(kinds) > 1 and self.choice and not default:
                return True
            else:
                card = kinds[0]
            i = later_copy(cards, card)
            cards[i] = self.card()

    def run_checks(self, first: Card | None = None, default: bool = False) -> None:
        while self.queue:
            owner = self.queue[0]
            if owner != DEALER and owner not in self.status:
                self.queue.pop(0)
                continue
            waiting = self.dedupe(owner, first, default)
            first, default = None, False
            if waiting:
                self.phase = "check"
                return
            self.queue.pop(0)
        if self.check == 1:
            self.phase = "decide"
            self.maybe_resolve()
        else:
            self.phase = None

    def maybe_resolve(self) -> None:
        if any(s == "deciding" for s in self.status.values()):
            return
        playing = sorted((n for n in self.order if self.status[n] == "played"),
                         key=lambda n: self.seat[n])
        if not playing:
            self.phase = None
            return
        counts = [(n, len(self.cards[n])) for n in playing] + [(DEALER, len(self.cards[DEALER]))]
        for who in refill_order(counts):
            self.cards[who].append(self.card())
        self.check = 2
        self.queue = [n for n in self.order if self.status[n] == "played"] + [DEALER]
        self.run_checks()

    def maybe_deal(self) -> None:
        if self.phase != "ante" or any(self.status[n] == "ante" for n in self.order):
            return
        active = [n for n in self.order if self.status[n] == "anted"]
        if not active:
            self.phase = None
            return
        for n in active:
            self.cards[n] = list(self.dealt[n])
            self.status[n] = "deciding"
        self.cards[DEALER] = list(self.dealer_way(list(self.cards[DEALER])))
        self.check = 1
        self.queue = list(active)
        self.run_checks()
