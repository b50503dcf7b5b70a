"""What a deuces room is told happened, rendered from the typed events: an action (a play names
the bet, the exchange and the cards kept), the dealer's discards, every hand opened and its
duplicates, the final hands, the dealer's qualification and each result. The engine emits the
events and appends these lines (see :mod:`referee.rules.voice`), so a sentence never says more
than the record holds; and the bonus area: what it holds, a card fed to it, what it paid."""

from __future__ import annotations

from collections.abc import Sequence

from referee.cards import pretty_strs
from referee.events import (
    ActionEvent,
    BonusArea,
    Event,
    HandSeats,
    HandStart,
    Say,
    Settle,
    Shown,
    hand_name,
    joined,
)
from referee.events import line as text
from referee.games.deuces.cards import DEALER
from referee.games.deuces.events import AreaFed, BonusPayout, DealerDiscard, Duplicate, Showdown
from referee.rules.house import house_line, names
from referee.rules.voice import action_line as common_action_line

__all__ = ["HAND_SIZE", "action_line", "area_line", "bonus_line", "dealer_line", "duplicate_line",
           "fed_line", "line", "result_line", "said", "shown_line"]

GAME = "deuces"
HAND_SIZE = 5


def action_line(ev: ActionEvent) -> Say:
    """An accepted action: a play with its exchange and kept cards, everything else the line
    every game says."""
    if ev.action != "play":
        return common_action_line(GAME, ev)
    kept = ev.cards or []
    n = HAND_SIZE - len(kept)
    exchange = text("deuces.exchange", count=n) if n else text("deuces.no_exchange")
    cards = pretty_strs(kept)
    return Say.of("room", text(
        "deuces.played", player=ev.player, bet=ev.amount, exchange=exchange,
        kept=text("deuces.kept", cards=cards) if kept else ""))



def shown_line(ev: Shown) -> Say:
    """A hand opened in the room: a player's at the first check (with the seat), the dealer's,
    or a player's final hand after the refill (``why`` ``result``)."""
    cards = pretty_strs(ev.cards)
    if ev.player == DEALER:
        return Say.of("room", text("deuces.dealer_hand", cards=cards))
    if ev.why == "result":
        return Say.of("room", text("deuces.hand", player=ev.player, cards=cards))
    return Say.of("room", text("deuces.opened", seat=ev.seat, player=ev.player,
                                    cards=cards))


def duplicate_line(ev: Duplicate) -> Say:
    """An identical card removed from a hand and what replaced it."""
    who = text("deuces.dealer") if ev.player == DEALER else names([ev.player])
    return Say.of("room", text("deuces.duplicate", who=who, card=pretty_strs([ev.card]),
                                    new=pretty_strs([ev.replacement])))


def dealer_line(ev: Showdown) -> Say:
    """The dealer's final hand: qualified, or folding (its cards shown)."""
    hand = hand_name(GAME, ev.klass)
    if ev.qualified:
        return Say.of("room", text("deuces.dealer_qualifies", hand=hand))
    return Say.of("room", text("deuces.dealer_folds", hand=hand, cards=pretty_strs(ev.cards)))


def area_line(ev: BonusArea) -> Say:
    """The bonus area's cards, with the markers on them."""
    if not ev.cards:
        return Say.of("room", text("deuces.area_empty"))
    marks = [text("deuces.area_mark", card=pretty_strs([c]), count=str(m))
             for c, m in zip(ev.cards, ev.markers, strict=True) if m]
    return Say.of("room", text(
        "deuces.area", cards=pretty_strs(ev.cards),
        markers=text("deuces.area_markers", marks=joined(text("deuces.area_marks_sep"), marks))
        if marks else ""))


def fed_line(ev: AreaFed) -> Say:
    """A duplicate's twin placed in the area, a marker put on it, or (a 2) nothing."""
    return Say.of("room", text(f"deuces.area_{ev.change}", card=pretty_strs([ev.card])))


def bonus_line(ev: BonusPayout) -> Say:
    """What the area's class paid a player, doubled once per marker."""
    doubling = text("deuces.bonus_doubling", markers=str(ev.markers)) if ev.markers else ""
    return Say.of("room", text("deuces.bonus_paid", hand=hand_name(GAME, ev.klass),
                                    player=ev.player, amount=ev.amount,
                                    multiplier=ev.multiplier, doubling=doubling))


def result_line(ev: Settle) -> Say:
    """A played hand's result against the dealer, with its class (「aliceさん ハイカード 負け:
    0」)."""
    return Say.of("room", text("deuces.result", player=ev.player,
                                    hand=hand_name(GAME, ev.hand or ""),
                                    result=text(f"result_{ev.result}"), payout=ev.payout))


def line(so_far: Sequence[Event]) -> Say | None:
    """The room's line for the deuces fact event that ends ``so_far`` (the events of one input
    up to it); None for the others (a folded hand's settle has no line of its own)."""
    ev = so_far[-1]
    before = so_far[-2] if len(so_far) > 1 else None
    if isinstance(ev, ActionEvent):
        return action_line(ev)
    if isinstance(ev, Settle) and ev.hand is not None:
        return result_line(ev)
    if isinstance(ev, BonusArea) and isinstance(before, HandStart | HandSeats):
        return area_line(ev)  # what a hand starts with (the service's seats follow its start)
    if isinstance(ev, AreaFed):
        return fed_line(ev)
    if isinstance(ev, BonusPayout):
        return bonus_line(ev)
    if isinstance(ev, DealerDiscard):
        return Say.of("room", text("deuces.dealer_discards", count=ev.count))
    if isinstance(ev, Shown):
        # a hand shown again after a duplicate was replaced: the duplicate's line tells it
        if isinstance(before, Duplicate):
            return duplicate_line(before)
        return shown_line(ev)
    if isinstance(ev, Showdown) and ev.player == DEALER and ev.qualified is not None:
        return dealer_line(ev)
    return house_line(so_far)


def said(ev: ActionEvent | Settle | DealerDiscard | Shown | Showdown | AreaFed | BonusPayout
         ) -> list[Event]:
    """A fact event, then the room's line rendered from it."""
    out = line([ev])
    assert out is not None
    return [ev, out]
