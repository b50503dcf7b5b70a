"""The cards' canonical names (``As``, ``Td``, ``JK``: what events write) and faces (``A♠``,
``10♦``, ``JK``: what the room reads), without :mod:`referee.cards`' notation parser and its
vocabulary: the console's hand page draws cards from these, and a console start that serves
a kept database must not build the parser for it."""

from __future__ import annotations

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}

CARD_FACES: dict[str, str] = {
    **{RANKS[c >> 2] + SUITS[c & 3]: ("10" if RANKS[c >> 2] == "T" else RANKS[c >> 2])
       + SUIT_SYMBOLS[SUITS[c & 3]] for c in range(52)},
    "JK": "JK",
}
"""Every card of the 53 (card ``rank * 4 + suit``, the joker 52) by its name: its face."""
