"""Commit–reveal dealing: the deck of a randomly dealt hand follows from a server seed the bot
committed to (its SHA-256 announced before any card) and public entropy the bot could not know
when it committed. The algorithm (docs/fairness.md, version ``v1``) is written so that an
independent program can re-derive every deck:

* ``seed``: 32 bytes from the CSPRNG, written as 64 lowercase hex digits; the commitment is
  ``SHA-256(seed bytes)`` in lowercase hex.
* ``entropy``: a text (UTF-8); the service makes it from the room's messages between the
  commitment and the deal (:func:`entropy_line`).
* a byte stream per purpose (``deck``, ``bonus``, ``dice``): the concatenation of the blocks
  ``HMAC-SHA256(key=seed, msg=b"referee-deal-v1" 0x00 purpose 0x00 entropy 0x00 counter)`` for
  counter = 0, 1, 2, … as an unsigned 64-bit big-endian integer.
* ``below(n)``: the next 4 bytes of a stream as an unsigned 32-bit big-endian ``x``; accepted
  when ``x < 2**32 - 2**32 % n`` (rejection sampling, no modulo bias), the result ``x % n``.
* the shoe before shuffling: for each deck, the 52 cards ``2c 2d 2h 2s 3c … As`` (rank major,
  suits c d h s), then the jokers (``JK``); a Fisher–Yates shuffle from the last position down:
  for ``i`` = len−1 … 1, ``j = below(i + 1)`` from the ``deck`` stream, swap positions i and j.
* ``bonus`` (deuces' separate one-deck shoe, only when the first bonus area is drawn): a 52-card
  deck shuffled the same way from the ``bonus`` stream; ``dice`` (seven): ``below(6) + 1`` each,
  from the ``dice`` stream.

Nothing here does I/O; the service keeps the seed in its input record until the reveal.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from referee.cards import JOKER, Card, card_str, full_deck

VERSION = "v1"
_DOMAIN = b"referee-deal-v1"
T = TypeVar("T")


class FairnessError(ValueError):
    """A seed or a record that cannot be read (bad hex, wrong length)."""


def seed_bytes(seed: str) -> bytes:
    try:
        raw = bytes.fromhex(seed)
    except ValueError:
        raise FairnessError(f"the seed is not hex: {seed[:16]!r}") from None
    if len(raw) != 32:
        raise FairnessError(f"the seed must be 32 bytes (64 hex digits), not {len(raw)}")
    return raw


def new_seed(rng: random.Random) -> str:
    """A fresh server seed (the service passes its CSPRNG, ``secrets.SystemRandom``)."""
    return rng.getrandbits(256).to_bytes(32, "big").hex()


def commitment(seed: str) -> str:
    """What is announced before the deal: SHA-256 of the 32 seed bytes, lowercase hex."""
    return hashlib.sha256(seed_bytes(seed)).hexdigest()


def entropy_line(input_id: str, sender: str, text: str) -> str:
    """One room message as it enters the entropy: ``id TAB sender TAB text`` (the lines are
    joined with ``\\n``; the text as received, so everyone who saw it can recognise it). The id
    only when the chat server assigned it (a Matrix event id, ``$…``): an id the bot makes
    itself (IRC, the terminal) is one it could choose after seeing the rest -- left empty."""
    return f"{input_id if input_id.startswith('$') else ''}\t{sender}\t{text}"


class Stream:
    """The HMAC-SHA256 byte stream of one purpose, and ``below(n)`` on it."""

    def __init__(self, seed: str, entropy: str, purpose: str) -> None:
        self._key = seed_bytes(seed)
        self._prefix = _DOMAIN + b"\x00" + purpose.encode() + b"\x00" + entropy.encode() + b"\x00"
        self._counter = 0
        self._buf = b""

    def read(self, n: int) -> bytes:
        while len(self._buf) < n:
            block = hmac.new(self._key, self._prefix + self._counter.to_bytes(8, "big"),
                             hashlib.sha256).digest()
            self._counter += 1
            self._buf += block
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def below(self, n: int) -> int:
        if not 1 <= n <= 2**32:
            raise ValueError("below(n) needs 1 <= n <= 2**32")
        limit = 2**32 - 2**32 % n
        while True:
            x = int.from_bytes(self.read(4), "big")
            if x < limit:
                return x % n

    def shuffle(self, xs: MutableSequence[T]) -> None:
        for i in range(len(xs) - 1, 0, -1):
            j = self.below(i + 1)
            xs[i], xs[j] = xs[j], xs[i]


def fresh_shoe(decks: int, jokers: int) -> list[Card]:
    return full_deck() * decks + [JOKER] * jokers


def shuffled_shoe(seed: str, entropy: str, decks: int, jokers: int) -> list[Card]:
    """The shoe in the order the cards leave it."""
    cards = fresh_shoe(decks, jokers)
    Stream(seed, entropy, "deck").shuffle(cards)
    return cards


class DealRandom(random.Random):
    """The random source handed to an engine's ``draw_deal``: ``randint`` (seven's dice) reads
    the ``dice`` stream, ``shuffle`` (deuces' bonus deck) the ``bonus`` stream, and both are
    recorded so the reveal can list them. Anything else would escape the scheme: refused."""

    def __init__(self, seed: str, entropy: str) -> None:
        super().__init__(0)
        self._dice = Stream(seed, entropy, "dice")
        self._bonus = Stream(seed, entropy, "bonus")
        self.dice: list[int] = []
        self.bonus_deck: list[str] = []

    def randint(self, a: int, b: int) -> int:
        if (a, b) != (1, 6):
            raise ValueError("the deal scheme only rolls six-sided dice")
        d = self._dice.below(6) + 1
        self.dice.append(d)
        return d

    def shuffle(self, x: MutableSequence[Any]) -> None:
        if self.bonus_deck:
            raise ValueError("the deal scheme shuffles one bonus deck per hand")
        self._bonus.shuffle(x)
        self.bonus_deck = [card_str(Card(c)) for c in x]

    def random(self) -> float:
        raise ValueError("the deal scheme has no other random draws")


@dataclass
class Derived:
    """Everything a seed and entropy decide for one hand (the reveal's contents)."""

    deck: list[str]
    bonus_deck: list[str] = field(default_factory=list)
    dice: list[int] = field(default_factory=list)


def derive(seed: str, entropy: str, decks: int, jokers: int, dice: int = 0,
           bonus: bool = False) -> Derived:
    """Re-derive a hand's deck (and ``dice`` rolls, and the bonus deck) from its reveal."""
    deck = [card_str(c) for c in shuffled_shoe(seed, entropy, decks, jokers)]
    rolls = Stream(seed, entropy, "dice")
    out = Derived(deck=deck, dice=[rolls.below(6) + 1 for _ in range(dice)])
    if bonus:
        b = full_deck()
        Stream(seed, entropy, "bonus").shuffle(b)
        out.bonus_deck = [card_str(c) for c in b]
    return out


def dealt_order(deal: dict[str, Any]) -> list[str]:
    """The cards of a recorded deal (``deal_to_json``) in the order they left the shoe: each
    hand in the order listed (seat order), then the dealer's, the board, the spare cards. (The
    reveal lists deuces' first bonus area as ``bonus``, from the bonus deck, not as ``board``.)"""
    out: list[str] = []
    for cards in dict(deal.get("hands", {})).values():
        out += list(cards)
    return out + list(deal.get("dealer", [])) + list(deal.get("board", [])) \
        + list(deal.get("shoe", []))


def is_prefix(part: Sequence[T], whole: Sequence[T]) -> int | None:
    """The first position where ``part`` differs from ``whole`` (None: it is a prefix)."""
    for i, c in enumerate(part):
        if i >= len(whole) or whole[i] != c:
            return i
    return None


#: At most this many room messages (the first ones after the commitment) enter the entropy.
ENTROPY_LINES = 64
#: A message's text is cut to this many characters in the entropy.
ENTROPY_TEXT = 200


@dataclass
class PendingDeal:
    """A table's commitment: the seed (kept in the input record, never sent before the reveal),
    the hand it is for, and the entropy collected since it was announced; once dealt, the
    derived deck (and dice, bonus deck) and the recorded deal, for the reveal."""

    seed: str
    hand: int
    lines: list[str] = field(default_factory=list)
    derived: Derived | None = None
    deal: dict[str, Any] | None = None

    def add(self, input_id: str, sender: str, text: str) -> None:
        if len(self.lines) < ENTROPY_LINES:
            self.lines.append(entropy_line(input_id, sender, text[:ENTROPY_TEXT]))

    def entropy(self) -> str:
        return "\n".join(self.lines)
