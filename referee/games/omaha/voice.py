"""What an omaha room is told happened, rendered from the typed events alone: the board, the
cards a player shows or mucks, a pot and its odd chips, a hand bonus. The engine emits the event
and appends its line from here, so a sentence never says more than the record holds (the
history, the console and ``referee verify`` read the events, never these lines). Lines every
game shares (an action, the rake) are :mod:`referee.rules.voice`'s.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.cards import pretty_strs
from referee.events import (
    BoardDealt,
    Event,
    HandBonus,
    HouseTopup,
    Mucked,
    Phrase,
    Pot,
    Say,
    Shown,
    hand_name,
    joined,
)
from referee.events import line as msg

__all__ = ["board_line", "bonus_line", "line", "muck_line", "pot_line", "said", "shown_line"]

#: a board event's street, as the catalogue numbers omaha's streets (omaha.street_N)
STREET_NUMBER = {"flop": 1, "turn": 2, "river": 3}





def _room(said: Phrase) -> Say:
    return Say.of("room", said)


def board_line(ev: BoardDealt) -> Say:
    """「フロップ: 9♣ 9♦ 2♥」: the street's name, then the whole board so far."""
    street = msg(f"omaha.street_{STREET_NUMBER[ev.street]}")
    return _room(msg("omaha.street", street=street, cards=pretty_strs(ev.board)))


def shown_line(ev: Shown) -> Say:
    """The cards a player shows: opened at the showdown (with the hand's class), shown after
    everyone else folded, shown with a fold or with a muck."""
    cards = pretty_strs(ev.cards)
    if ev.why == "showdown":
        klass = ev.hand_class or ""
        return _room(msg("omaha.opened", player=ev.player, cards=cards,
                         hand=hand_name("omaha", klass) if klass else ""))
    if ev.why == "fold":
        return _room(msg("omaha.fold_show", player=ev.player, cards=cards))
    if ev.why == "muck":
        return _room(msg("omaha.mucked_show", player=ev.player, cards=cards))
    return _room(msg("omaha.shown", player=ev.player, cards=cards))


def muck_line(ev: Mucked) -> Say:
    """A hand given up at the showdown without showing a card."""
    return _room(msg("omaha.mucked", player=ev.player))


def pot_line(ev: Pot, topup: HouseTopup | None = None) -> Say:
    """A pot and who gets what (「メインポット 390 → alice 390」), with every chip accounted
    for: the house's top-up to the rounded-up share (``topup``, the event before the pot) or
    the odd chips and who got them. An uncontested pot: who won it."""
    if ev.uncontested:
        (player, chips), = ev.shares.items()
        return _room(msg("omaha.won_uncontested", player=player, chips=chips))
    label = msg("omaha.main_pot") if ev.index == 0 else msg("omaha.side_pot", index=ev.index)
    listed = joined(msg("omaha.share_sep"), [msg("omaha.share", player=n, chips=c)
                                             for n, c in ev.shares.items()])
    award = msg("omaha.pot_award", pot=label, chips=ev.amount, shares=listed)
    if topup is not None:
        return _room(joined("", [award, msg("omaha.pot_house_topup", chips=topup.amount)]))
    if ev.odd:
        return _room(joined("", [award, msg("omaha.pot_odd_chips", chips=ev.odd,
                                            player=ev.odd_to)]))
    return _room(award)


def bonus_line(ev: HandBonus) -> Say:
    """A hand bonus credited to the player's bank."""
    return _room(msg("omaha.hand_bonus", player=ev.player, points=ev.bank))


def line(so_far: Sequence[Event]) -> Say | None:
    """The room's line for the omaha fact event that ends ``so_far`` (the events of one input
    up to it: a pot's line reads the house's top-up just before it); None for an event omaha
    says nothing of."""
    ev = so_far[-1]
    before = so_far[-2] if len(so_far) > 1 else None
    if isinstance(ev, BoardDealt):
        return board_line(ev)
    if isinstance(ev, Shown):
        return shown_line(ev)
    if isinstance(ev, Mucked):
        return muck_line(ev)
    if isinstance(ev, Pot):
        return pot_line(ev, before if isinstance(before, HouseTopup) else None)
    if isinstance(ev, HandBonus):
        return bonus_line(ev)
    return None


def said(ev: BoardDealt | Shown | Mucked | HandBonus) -> list[Event]:
    """A fact event, then the room's line rendered from it."""
    out = line([ev])
    assert out is not None
    return [ev, out]
