"""The events only deuces has: a duplicate removed and replaced, the dealer's discards, a final
hand at settlement, a duplicate's twin fed to the bonus area and what the area paid (the area's
state itself is the core ``bonus_area`` event)."""

from __future__ import annotations

from typing import Literal

from referee.events import Event

__all__ = ["AreaFed", "BonusPayout", "DealerDiscard", "Duplicate", "Showdown"]


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


class AreaFed(Event):
    """A duplicate's twin ``card`` went to the bonus area: ``placed`` (newest last), a
    ``marker`` on the twin already there, or nothing (``deuce``: a 2 gets no marker)."""

    event: Literal["area_fed"] = "area_fed"
    card: str
    change: Literal["placed", "marker", "deuce"]


class BonusPayout(Event):
    """The bonus area made ``klass`` after ``card`` went in: ``amount`` paid to ``player``."""

    event: Literal["bonus_payout"] = "bonus_payout"
    player: str
    card: str
    cards: list[str]
    klass: str
    multiplier: str
    markers: int
    amount: int
