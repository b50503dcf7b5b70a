"""Cards, card notation and shoes.

A card is a small int so the evaluators can index tables with it: ``rank * 4 + suit`` with
rank 0..12 for 2..A and suit 0..3 for c d h s; the joker is 52. Multi-deck shoes simply hold the
same int several times -- identical cards are different physical cards but equal values, which is
exactly what the evaluators must assume.
"""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Iterable, Sequence
from typing import NewType

from referee.faces import RANKS as RANKS
from referee.faces import SUIT_SYMBOLS as SUIT_SYMBOLS
from referee.faces import SUITS as SUITS
from referee.lang import vocab
from referee.lang.catalog import text as say
from referee.lang.normalize import fold

Card = NewType("Card", int)

JOKER = Card(52)


class CardError(ValueError):
    """Unreadable card notation; the message names the offending text (Japanese, for players:
    a command line prints it). ``code`` and ``params`` are the catalogue message it says, for
    an engine's refusal to carry as a fact."""

    def __init__(self, code: str, /, **params: str) -> None:
        self.code = code
        self.params = params
        super().__init__(say(code, **params))


def make(rank: int, suit: int) -> Card:
    return Card(rank * 4 + suit)


def rank_of(card: Card) -> int:
    """0..12 for 2..A; 13 for the joker."""
    return card >> 2


def suit_of(card: Card) -> int:
    """0..3 for c d h s; 4 for the joker."""
    return card & 3 if card != JOKER else 4


def is_joker(card: Card) -> bool:
    return card == JOKER


def card_str(card: Card) -> str:
    """Canonical form: ``As``, ``Td``, ``JK``."""
    if card == JOKER:
        return "JK"
    if not 0 <= card < 52:
        raise CardError("card_bad_value", value=str(card))
    return RANKS[card >> 2] + SUITS[card & 3]


def cards_str(cards: Iterable[Card]) -> list[str]:
    return [card_str(c) for c in cards]


def pretty(card: Card) -> str:
    """Human display with suit symbols (``A♠``), for chat messages."""
    if card == JOKER:
        return "JK"
    r = RANKS[card >> 2]
    return ("10" if r == "T" else r) + SUIT_SYMBOLS[SUITS[card & 3]]


_PRETTY_OF = {card_str(Card(c)): pretty(Card(c)) for c in range(53)}  # the joker is 52


def pretty_strs(cards: Iterable[str]) -> str:
    """Cards as an event writes them (``["Ah", "Td"]``) as the room reads them (``A♥ 10♦``):
    the room's lines are rendered from events."""
    return " ".join([_PRETTY_OF[c] for c in cards])


# --- notation -----------------------------------------------------------------------------

# The words come from the one card table (grammar/cards.toml), in the folded form.
_CW = vocab.cards()
_SUIT_WORDS = _CW.suit_of
_RANK_WORDS = {
    "a": "A", "k": "K", "q": "Q", "j": "J", "t": "T", "10": "T",
    **{str(n): str(n) for n in range(2, 10)},
}
_SUIT_SYM = _CW.symbols
_RANK = r"(?:10|[2-9tjqka])"
# Order matters: the joker first, then forms with explicit suit words, then the compact form.
CARD_PATTERN = (
    rf"(?:(?P<jk>{vocab.alternation(sorted(_CW.jokers, key=len, reverse=True))})"
    rf"|(?P<jsuit>{_CW.suit_words_re}){re.escape(_CW.of)}?(?P<jrank>{_RANK})"
    rf"|(?P<srank>{_RANK})(?P<ssym>[{_SUIT_SYM}cdhs])"
    rf"|(?P<psym>[{_SUIT_SYM}])(?P<prank>{_RANK}))"
)
_CARD_RE = re.compile(CARD_PATTERN)
# Between cards: blanks, commas, slashes, middle dots (after NFKC).
_SEP_RE = re.compile(r"[\s,\u3001/\u30fb|]+")


def normalize(text: str) -> str:
    """The one normaliser's fold (:func:`referee.lang.normalize.fold`): NFKC, case-folded,
    katakana as hiragana, so スペード and すぺーど are one word."""
    return fold(text)


def _from_match(m: re.Match[str]) -> Card:
    if m.group("jk"):
        return JOKER
    if m.group("jsuit"):
        rank, suit = m.group("jrank"), m.group("jsuit")
    elif m.group("srank"):
        rank, suit = m.group("srank"), m.group("ssym")
    else:
        rank, suit = m.group("prank"), m.group("psym")
    return make(RANKS.index(_RANK_WORDS[rank]), SUITS.index(_SUIT_WORDS[suit]))


def parse_card(text: str) -> Card:
    """One card in any notation the community uses.

    ``As``, ``A♠``, ``Ａ♠``, ``10s``, ``スペードのA``, ``JK``.
    """
    norm = normalize(text.strip())
    m = _CARD_RE.fullmatch(norm)
    if m is None:
        raise CardError("card_unreadable", text=text)
    return _from_match(m)


def parse_cards(text: str) -> list[Card]:
    """All cards in a string, separated by spaces/commas or written together (``AhKh``)."""
    norm = normalize(text)
    out: list[Card] = []
    pos = 0
    while pos < len(norm):
        sep = _SEP_RE.match(norm, pos)
        if sep:
            pos = sep.end()
            continue
        m = _CARD_RE.match(norm, pos)
        if m is None:
            bad = _SEP_RE.split(norm[pos:], maxsplit=1)[0]
            if len(norm) == len(text):  # show the player's own spelling where positions agree
                bad = text[pos : pos + len(bad)]
            raise CardError("card_unreadable", text=bad)
        out.append(_from_match(m))
        pos = m.end()
    return out


# --- shoes -----------------------------------------------------------------------------------

def full_deck() -> list[Card]:
    return [Card(i) for i in range(52)]


class Shoe:
    """N decks plus jokers, shuffled by an injectable random source (CSPRNG by default)."""

    def __init__(
        self, decks: int = 1, jokers: int = 0, rng: random.Random | None = None
    ) -> None:
        if decks < 1 or jokers < 0:
            raise ValueError("a shoe needs at least one deck and a non-negative joker count")
        self.decks = decks
        self.jokers = jokers
        self._rng: random.Random = rng if rng is not None else secrets.SystemRandom()
        self.cards: list[Card] = []
        self.reset()

    def reset(self) -> None:
        """Gather every card and shuffle."""
        self.cards = full_deck() * self.decks + [JOKER] * self.jokers
        self._rng.shuffle(self.cards)

    def draw(self, n: int = 1) -> list[Card]:
        if n > len(self.cards):
            raise ValueError("the shoe is empty")
        out, self.cards = self.cards[:n], self.cards[n:]
        return out

    def remove(self, cards: Sequence[Card]) -> None:
        """Take specific cards out (e.g. cards already dealt by a transcript)."""
        for c in cards:
            self.cards.remove(c)

    def __len__(self) -> int:
        return len(self.cards)
