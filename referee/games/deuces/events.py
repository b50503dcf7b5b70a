"""The events of a deuces hand that only deuces has: a duplicate removed and replaced, the
dealer's discards, a final hand at settlement (the bonus area's are
:mod:`referee.games.deuces.bonus`'s)."""

from __future__ import annotations

from typing import Literal

from referee.events import Event

__all__ = ["DealerDiscard", "Duplicate", "Showdown"]


class Duplicate(Event):
    """An identical card removed from ``player``'s hand (``dealer`` for the house) and replaced."""

    event: Literal["duplicate"] = "duplicate"
    player: str
    card: str
    replacement: str
    check: int  # 1 = before the decisions, 2 = after the refill


class Showdown(Event):
    """A final hand at settlement: ``player`` (``dealer`` for the house), its cards and class;
    for the dealer, whether it qualified."""

    event: Literal["showdown"] = "showdown"
    player: str
    cards: list[str]
    klass: str
    qualified: bool | None = None


class DealerDiscard(Event):
    """How many cards the dealer threw (which ones stays hidden until the dealer's hand opens)."""

    event: Literal["dealer_discard"] = "dealer_discard"
    count: int
