"""The ``deuces`` bonus area: four cards from a separate one-deck shoe, with markers.

A module of its own because the area is not part of one hand, nor even of one table: it stays
between games, a closing table hands it on to the next deuces table (:meth:`BonusArea.carried`,
:meth:`BonusArea.carry`; the service stores it), and the store saves it. It also has its own
rules, apart from the hand's (docs/rules.md ``deuces``):

* The bonus deck is a single deck, so a duplicate's twin is either placed in the area (newest
  last) or, when it is already there, gets a **marker** -- never on a 2: then nothing happens and
  nothing is judged.
* After each change the area is judged (:func:`area_class`): three of a kind or better pays
  ``ante x bonus_table[class] x 2^(markers in the area)`` to whom the engine says (the player
  whose card went in; for the dealer's duplicates, nobody or every player, by *config*).
* Then the oldest cards leave, with their markers, until ``bonus_area_size`` (4) remain.

The engine (:mod:`referee.games.deuces.engine`) calls :meth:`BonusArea.feed` and credits the
payouts it returns; everything here is the area's own state and words.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from referee.cards import JOKER, Card, CardError, Shoe, card_str, cards_str, parse_card
from referee.events import BonusArea as BonusAreaEvent
from referee.events import Event
from referee.games.deuces import voice
from referee.games.deuces.events import AreaFed, BonusPayout
from referee.games.deuces.hands import DEUCES as DEUCES_CLASSES
from referee.rules.base import IllegalAction
from referee.rules.house import Rounding, pay

__all__ = ["BonusArea", "BonusPayout", "Slot", "area_class", "draw_bonus_area", "is_wild"]

_DEUCE = 0


def is_wild(card: Card) -> bool:
    return card == JOKER or card >> 2 == _DEUCE


def order(klass: str) -> int:
    """A deuces class's place in the ranking (0 = the best)."""
    return DEUCES_CLASSES.index(klass)


def evaluate(cards: list[Card]) -> tuple[str, object]:
    """(class id, comparable strength) of a five-card deuces hand."""
    from referee.hands import evaluate as hand_value

    value = hand_value("deuces", list(cards))
    return str(value.klass), value


def class_name(klass: str) -> str:
    from referee.hands import NAMES

    return NAMES["deuces"][klass]


def area_class(cards: list[Card]) -> str | None:
    """The bonus area's class if it is three of a kind or better, else None.

    Five cards go to the deuces evaluator; fewer (an area that has not filled up, or four cards
    after a marker) are counted: four 2s are four deuces, else wilds + the most common natural
    rank make four or three of a kind.
    """
    if len(cards) >= 5:
        klass = evaluate(cards[-5:])[0]
        return klass if order(klass) <= order("three_of_a_kind") else None
    wilds = sum(1 for c in cards if is_wild(c))
    counts = Counter(c >> 2 for c in cards if not is_wild(c))
    top = max(counts.values(), default=0) + wilds
    if wilds >= 4:
        return "four_deuces"
    if top >= 4:
        return "four_of_a_kind"
    if top >= 3:
        return "three_of_a_kind"
    return None


def draw_bonus_area(rng: random.Random | None = None, size: int = 4) -> list[Card]:
    """The very first bonus area: ``size`` cards from a fresh one-deck shoe (the service's job)."""
    return Shoe(decks=1, jokers=0, rng=rng).draw(size)


@dataclass
class Slot:
    card: Card
    markers: int = 0


@dataclass
class BonusArea:
    """The area, oldest card first; ``size`` cards remain between changes."""

    size: int
    slots: list[Slot] = field(default_factory=list)

    @property
    def cards(self) -> list[Card]:
        return [s.card for s in self.slots]

    @property
    def markers(self) -> list[int]:
        return [s.markers for s in self.slots]

    def check(self, cards: list[Card], markers: list[int] | None = None) -> list[Slot]:
        """The slots ``cards`` and ``markers`` make, or IllegalAction (nothing changes)."""
        marks = list(markers) if markers is not None else [0] * len(cards)
        if len(cards) > self.size:
            raise IllegalAction("deuces.area_size", size=self.size)
        if len(marks) != len(cards) or any(m < 0 for m in marks):
            raise IllegalAction("deuces.area_markers_mismatch")
        if JOKER in cards or len(set(cards)) != len(cards):
            raise IllegalAction("deuces.area_one_deck")
        if any(m and is_wild(c) for c, m in zip(cards, marks, strict=True)):
            raise IllegalAction("deuces.area_deuce_marker")
        return [Slot(c, m) for c, m in zip(cards, marks, strict=True)]

    def set(self, cards: list[Card], markers: list[int] | None = None) -> None:
        self.slots = self.check(cards, markers)

    def check_first(self, board: list[Card]) -> list[Slot]:
        """The very first area from a deal's ``board`` (``size`` distinct natural cards)."""
        if len(board) != self.size or JOKER in board or len(set(board)) != self.size:
            raise IllegalAction("deuces.first_area", size=self.size)
        return [Slot(c) for c in board]

    # --- carried over from one table to the next ---------------------------------------------
    def carried(self) -> dict[str, Any]:
        """The area as JSON-ready data: ``{"cards": ["Ah", …], "markers": [0, …]}``."""
        return {"cards": cards_str(self.cards), "markers": self.markers}

    def carry(self, data: Mapping[str, Any]) -> None:
        """Take over an area :meth:`carried` gave (IllegalAction if it is not one)."""
        try:
            cards = [parse_card(str(c)) for c in data.get("cards", [])]
            markers = [int(m) for m in data.get("markers", [0] * len(cards))]
        except (CardError, TypeError, ValueError) as e:
            raise IllegalAction("deuces.area_data", error=str(e)) from None
        self.set(cards, markers)

    # --- a duplicate's twin goes in ----------------------------------------------------------
    def feed(
        self,
        card: Card,
        payees: list[tuple[str, int]],
        table: Mapping[str, Decimal],
        rounding: Rounding,
    ) -> tuple[list[Event], list[tuple[str, int]]]:
        """Place ``card`` (or a marker on its twin), judge the area, trim it: the events, and
        the payouts ``(player, chips)`` for the engine to credit. ``payees`` are ``(player,
        ante)`` pairs; ``table`` is the game's ``bonus_table``."""
        slot = next((x for x in self.slots if x.card == card), None)
        out: list[Event] = []
        paid: list[tuple[str, int]] = []
        if slot is not None:
            if is_wild(card):
                return voice.said(AreaFed(card=card_str(card), change="deuce")), paid
            slot.markers += 1
            out += voice.said(AreaFed(card=card_str(card), change="marker"))
        else:
            self.slots.append(Slot(card))
            out += voice.said(AreaFed(card=card_str(card), change="placed"))
        cards = self.cards
        klass = area_class(cards)
        markers = sum(self.markers)
        if klass is not None:
            mult = table[klass]
            for name, ante in payees:
                amount = pay(ante, mult, rounding) * 2**markers
                paid.append((name, amount))
                out += voice.said(BonusPayout(player=name, card=card_str(card),
                                              cards=cards_str(cards), klass=klass,
                                              multiplier=str(mult), markers=markers,
                                              amount=amount))
        while len(self.slots) > self.size:
            self.slots.pop(0)
        out.append(self.event())
        return out, paid

    # --- what the room sees ------------------------------------------------------------------
    def event(self) -> BonusAreaEvent:
        return BonusAreaEvent(cards=cards_str(self.cards), markers=self.markers)
