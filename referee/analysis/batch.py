"""Batch (numpy) hand evaluation: the referee's own keys for millions of hands at once.

Nothing here decides what a hand is worth on its own: the lookup tables are filled from the
referee's evaluators, and where a table is derived (the five-card keys from their rank counts,
the best of 6 or 7 cards as the best of its five-card parts, the deuces classes of the one-deck
shapes) tests/test_analysis.py and tests/test_batch_evaluators.py check it against those
evaluators exhaustively or on random hands.

* Packed counters: every card maps to one 64-bit word holding ``5**rank`` in one of two rank
  fields (ranks 2..8 low, 9..A high) and a 4-bit counter of its suit. Adding a hand's words
  gives both rank multisets (base-5 digits, at most 4 of a rank) and all four suit counts in one
  pass; ``+3`` on each counter sets its top bit exactly when that suit holds 5 or more (a flush).
  The two rank fields index two small tables (78,125 and 15,625 entries) whose sum indexes the
  table of every rank multiset: no search, three gathers a hand.
* Two cards a gather: a hand's cards are one byte each in C-contiguous rows, so two neighbouring
  cards read as one ``uint16`` (a strided view, no copy) index :data:`PAIR_WORD`,
  the sum of their two words (65,536 entries, 2,704 of them used): four gathers for seven cards.
* Seven cards skip the two-field index: their words carry SKPokerEval's seven-card rank keys
  (:data:`SEVEN_RANK_KEY`) instead of base-5 digits, whose sum is distinct for every seven-card
  rank multiset and indexes a 15.6 MB table of two-byte strengths (a key's index among the
  7,462 five-card keys) directly; one more small gather gives the key.
* :func:`standard_keys`: ``holdem_aa`` / ``omaha``-style best 5 of 5..7 distinct cards (one
  deck). The five-card multisets' keys (6,175 of them) are computed from their rank counts
  (:func:`five_keys`), checked against the reference evaluator
  (:func:`referee.hands.standard.key_from_cards`) on every one; six and seven cards take the
  best of their five-card sub-multisets (a hand without a flush has no flush among its parts).
  A flush (in 7 one-deck cards it rules out quads and full houses) is looked up by its suit's
  rank bitmask in :mod:`referee.hands.standard`'s flush table.
* :func:`five_card_key_counts`: every distinct best-5 key of the C(52, 5) one-deck hands and
  how many hands have it, counted per rank multiset (the number of suit assignments, less the
  four flushes of five distinct ranks) instead of dealt.
* the deuces classes and keys in bulk are deuces' own (:mod:`referee.games.deuces.batch`), on
  the same packed words and multiset tables (:class:`Multisets`, :func:`multisets_of`).
* :func:`combinations_colex` / :func:`five_card_hands`: all k-card hands in colex order (row
  ``i`` is the hand whose :func:`colex_index` is ``i``), built by columns, not by iteration.
"""

from __future__ import annotations

from functools import cache
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.hands.names import STANDARD
from referee.hands.standard import FLUSH

IntArray = npt.NDArray[np.int64]
CardArray = npt.NDArray[np.uint8]
UIntArray = npt.NDArray[np.unsignedinteger[Any]]
_CAT = {name: len(STANDARD) - 1 - i for i, name in enumerate(STANDARD)}  # class -> category

#: binomial table: BINOM[n, k] = C(n, k) for n <= 52, k <= 7
BINOM = np.array([[comb(n, k) for k in range(8)] for n in range(53)], dtype=np.int64)

_LOW = 7  # ranks 0..6 (2..8) go to the low field, 7..12 (9..A) to the high one
_HI_SHIFT = 17  # 4 * 5**6 + 3 * 5**5 < 2**17: seven cards never overflow the low field
SUIT_SHIFT = 32
_FOFF = np.int64(0x3333 << SUIT_SHIFT)
_FMASK = np.int64(0x8888 << SUIT_SHIFT)
#: the packed word of each card: rank digit in its field, +1 on its suit's counter
CARD_WORD = np.array(
    [(5 ** (c >> 2) if c >> 2 < _LOW else 5 ** ((c >> 2) - _LOW) << _HI_SHIFT)
     + (1 << (SUIT_SHIFT + 4 * (c & 3))) for c in range(52)], dtype=np.int64)
#: each card's bit in four 16-bit rank masks, one per suit (only read for flushes)
SUIT_BITS = np.array([1 << ((c >> 2) + 16 * (c & 3)) for c in range(52)], dtype=np.int64)
FLUSH_TABLE = np.array(FLUSH, dtype=np.int64)


def _count_vectors(kinds: int, most: int) -> npt.NDArray[np.int64]:
    """Every vector of ``kinds`` counts, each 0..4, summing to at most ``most`` (rows)."""
    out = np.zeros((1, 0), dtype=np.int8)
    for _ in range(kinds):
        total = out.sum(axis=1)
        parts = []
        for n in range(5):
            keep = out[total + n <= most]
            parts.append(np.hstack([keep, np.full((keep.shape[0], 1), n, dtype=np.int8)]))
        out = np.vstack(parts)
    return out.astype(np.int64)


class Multisets:
    """The two-field index of rank multisets of at most ``most`` cards (module doc)."""

    def __init__(self, most: int) -> None:
        lo = _count_vectors(_LOW, most)
        hi = _count_vectors(13 - _LOW, most)
        self.size = lo.shape[0] * hi.shape[0]
        lo_val = lo @ (5 ** np.arange(_LOW))
        hi_val = hi @ (5 ** np.arange(13 - _LOW))
        self.lo_index = np.full(5**_LOW, -1, dtype=np.int64)
        self.lo_index[lo_val] = np.arange(lo.shape[0]) * hi.shape[0]
        self.hi_index = np.full(5 ** (13 - _LOW), -1, dtype=np.int64)
        self.hi_index[hi_val] = np.arange(hi.shape[0])

    def index(self, counts: npt.NDArray[np.int64]) -> IntArray:
        """Table index of each row of rank counts (shape (N, 13))."""
        lo = counts[:, :_LOW] @ (5 ** np.arange(_LOW))
        hi = counts[:, _LOW:] @ (5 ** np.arange(13 - _LOW))
        return np.asarray(self.lo_index[lo] + self.hi_index[hi], dtype=np.int64)

    def of_words(self, words: IntArray) -> IntArray:
        """Table index of each packed hand word (the sum of its cards' :data:`CARD_WORD`)."""
        lo = words & ((1 << _HI_SHIFT) - 1)
        hi = (words >> _HI_SHIFT) & ((1 << (SUIT_SHIFT - _HI_SHIFT)) - 1)
        return np.asarray(self.lo_index.take(lo) + self.hi_index.take(hi), dtype=np.int64)


def multisets_of(size: int) -> npt.NDArray[np.int64]:
    """Every rank multiset of exactly ``size`` cards (at most 4 of a rank), as count rows."""
    v = _count_vectors(13, size)
    return np.asarray(v[v.sum(axis=1) == size], dtype=np.int64)


#: the packed rank digit of each rank (a card's word without its suit counter)
RANK_WORD = np.array([5**r if r < _LOW else 5 ** (r - _LOW) << _HI_SHIFT for r in range(13)],
                     dtype=np.int64)


@cache
def five_keys() -> tuple[npt.NDArray[np.int64], IntArray]:
    """(every five-card rank multiset as count rows, its non-flush key), the keys laid out as
    :mod:`referee.hands.names` says straight from the counts: the category from the count
    pattern (and, for five distinct ranks, whether they run), the tiebreak the distinct ranks
    by count then rank, both high first (a straight: its top card alone). Vectorised so that
    the exact AA bet needs neither the reference evaluator's Python loop nor a disk cache;
    tests/test_batch_evaluators.py checks every one of the 6,175 against
    :func:`referee.hands.standard.key_from_cards`."""
    five = multisets_of(5)
    ranks = np.arange(13)
    present = five > 0
    # rank order within a hand: bigger groups first, then higher ranks; absent ranks last
    order = np.argsort(np.where(present, five * 16 + ranks, -1), axis=1)[:, ::-1][:, :5]
    top = np.take_along_axis(np.where(present, ranks, 0), order, axis=1)
    tiebreak = (top << np.arange(16, -1, -4)).sum(axis=1)
    most = five.max(axis=1)
    distinct = present.sum(axis=1)
    high = np.where(present, ranks, -1).max(axis=1)
    low = np.where(present, ranks, 99).min(axis=1)
    wheel = (five[:, [12, 0, 1, 2, 3]] == 1).all(axis=1)
    run = (distinct == 5) & ((high - low == 4) | wheel)
    category = np.select(
        [most == 4, (most == 3) & (distinct == 2), run, most == 3, (most == 2) & (distinct == 3),
         most == 2],
        [_CAT["four_of_a_kind"], _CAT["full_house"], _CAT["straight"], _CAT["three_of_a_kind"],
         _CAT["two_pair"], _CAT["one_pair"]], _CAT["high_card"])
    straight_top = np.where(wheel, 3, high)
    keys = np.where(run, straight_top << 16, tiebreak) | category.astype(np.int64) << 20
    return five, np.asarray(keys, dtype=np.int64)


@cache
def _standard_table() -> tuple[Multisets, npt.NDArray[np.int32]]:
    """(multiset index, non-flush best key of every multiset of 5..7 cards; -1 elsewhere)."""
    ms = Multisets(7)
    table = np.full(ms.size, -1, dtype=np.int32)  # keys < 2**24: half the memory of int64
    rows = _count_vectors(13, 7)
    sizes = rows.sum(axis=1)
    five, keys = five_keys()
    table[ms.index(five)] = keys
    for size in (6, 7):
        part = rows[sizes == size]
        words = part @ RANK_WORD
        best = np.full(part.shape[0], -1, dtype=np.int32)
        # the best five of ``size`` cards is the best of its parts one card fewer
        for r in range(13):
            ok = np.flatnonzero(part[:, r])
            best[ok] = np.maximum(best[ok], table[ms.of_words(words[ok] - RANK_WORD[r])])
        table[ms.of_words(words)] = best
    return ms, table


def standard_keys(cards: npt.NDArray[np.integer]) -> IntArray:
    """Best standard key of each row of ``cards`` (shape (N, 5..7), distinct cards 0..51)."""
    cards = np.asarray(cards)
    k = cards.shape[1]
    if not 5 <= k <= 7:
        raise ValueError("standard_keys needs 5 to 7 cards a hand")
    # one byte a card, rows contiguous: the pair views of :func:`pair_parts` need it
    rows: npt.NDArray[np.uint8] = np.ascontiguousarray(cards, dtype=np.uint8)
    out = np.empty(rows.shape[0], dtype=np.int64)
    # blocks small enough to stay in cache: fresh multi-megabyte temporaries cost more in
    # page faults than the arithmetic on them
    for start in range(0, rows.shape[0], _BLOCK):
        out[start:start + _BLOCK] = _standard_block(rows[start:start + _BLOCK])
    return out


_BLOCK = 1 << 16

#: the packed word of two cards at once, indexed by the two card bytes read as one ``uint16``
#: (``a | b << 8`` little-endian; the table is symmetric, so byte order does not matter): half
#: the gathers of one card at a time
PAIR_WORD = np.zeros(1 << 16, dtype=np.int64)
#: the same for the cards' bits in the four per-suit rank masks (:data:`SUIT_BITS`)
PAIR_SUIT_BITS = np.zeros(1 << 16, dtype=np.int64)
for _a in range(52):
    PAIR_WORD[_a | np.arange(52) << 8] = CARD_WORD[_a] + CARD_WORD[:52]
    PAIR_SUIT_BITS[_a | np.arange(52) << 8] = SUIT_BITS[_a] | SUIT_BITS[:52]
del _a
#: suit counters (``word >> 32``) plus 3, masked by :data:`_FMASK` and shifted right by 3,
#: leave one bit 1 << 4s for the flush suit s: the shift to its 16-bit rank mask
LANE = np.zeros(4097, dtype=np.int64)
LANE[[1, 16, 256, 4096]] = [0, 16, 32, 48]


def pair_parts(cards: npt.NDArray[np.uint8]) -> list[UIntArray]:
    """Views of a C-contiguous (N, k) byte array: one ``uint16`` column per pair of
    neighbouring cards (0-1, 2-3, ...), and the last card alone (``uint8``) when k is odd."""
    n, k = cards.shape
    parts: list[UIntArray] = [
        np.ndarray((n,), np.uint16, cards, off, (k,)) for off in range(0, k - 1, 2)]
    if k % 2:
        parts.append(np.ndarray((n,), np.uint8, cards, k - 1, (k,)))
    return parts


def pair_sum(parts: list[UIntArray], pair: IntArray, single: IntArray,
              rows: npt.NDArray[np.intp] | None = None) -> IntArray:
    """Sum over a hand's cards of a per-card word, two cards a gather (``pair`` indexed as
    :data:`PAIR_WORD`, ``single`` for an odd last card); only ``rows`` when given."""
    total: IntArray | None = None
    for part in parts:
        idx = part if rows is None else part[rows]
        got = (pair if part.dtype == np.uint16 else single).take(idx)
        if total is None:
            total = got
        else:
            total += got
    assert total is not None
    return total


#: seven-card rank keys (Kenneth Shackleton's SKPokerEval): the sums of any seven ranks, at
#: most four of each, are distinct and below 2**23, so such a sum indexes a table directly
SEVEN_RANK_KEY = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
_SEVEN_MASK = (1 << 23) - 1
#: a card's seven-card word: its rank key, and its suit counter as in :data:`CARD_WORD`
CARD_WORD7 = np.array([SEVEN_RANK_KEY[c >> 2] + (1 << (SUIT_SHIFT + 4 * (c & 3)))
                       for c in range(52)], dtype=np.int64)
PAIR_WORD7 = np.zeros(1 << 16, dtype=np.int64)  # two cards at once, as PAIR_WORD
for _a in range(52):
    PAIR_WORD7[_a | np.arange(52) << 8] = CARD_WORD7[_a] + CARD_WORD7[:52]
del _a


@cache
def _seven_table() -> tuple[npt.NDArray[np.uint16], IntArray]:
    """(the strength -- index among the 7,462 five-card keys -- of the best non-flush five of
    every seven-card rank multiset, indexed by its rank-key sum, 15.6 MB; those keys)."""
    ms, table = _standard_table()
    keys, _ = five_card_key_counts()
    rows = multisets_of(7)
    sums = rows @ np.array(SEVEN_RANK_KEY, dtype=np.int64)
    assert np.unique(sums).size == rows.shape[0] and sums.max() <= _SEVEN_MASK
    best = table[ms.index(rows)]
    strength = np.searchsorted(keys, best)
    assert (keys[strength] == best).all()
    direct = np.zeros(int(sums.max()) + 1, dtype=np.uint16)
    direct[sums] = strength
    return direct, keys


def _standard_block(cards: npt.NDArray[np.uint8]) -> IntArray:
    parts = pair_parts(cards)
    if cards.shape[1] == 7:
        # seven cards (most of the work): one gather by the rank-key sum, in a table of
        # two-byte strengths that mostly stays in cache, then the key
        direct, keys = _seven_table()
        words = pair_sum(parts, PAIR_WORD7, CARD_WORD7)
        out = keys.take(direct.take(words & _SEVEN_MASK))
    else:
        ms, table = _standard_table()
        words = pair_sum(parts, PAIR_WORD, CARD_WORD)
        out = table.take(ms.of_words(words)).astype(np.int64)
    flush = np.flatnonzero(((words + _FOFF) & _FMASK) != 0)
    if flush.size:
        # in at most 7 one-deck cards only one suit can hold five: its rank mask decides
        bits = pair_sum(parts, PAIR_SUIT_BITS, SUIT_BITS, flush)
        lane = LANE.take(((words[flush] + _FOFF) & _FMASK) >> (SUIT_SHIFT + 3))
        out[flush] = FLUSH_TABLE.take((bits >> lane) & 0x1FFF)
    return out


def five_card_key_counts() -> tuple[IntArray, IntArray]:
    """(sorted distinct best-5 keys of the C(52, 5) one-deck hands, hands with each key)."""
    five, nf_keys = five_keys()
    suits = np.array([comb(4, n) for n in range(5)], dtype=np.int64)
    ways = suits[five].prod(axis=1)
    distinct = (five <= 1).all(axis=1)
    ways[distinct] -= 4  # the four one-suit assignments are flushes, counted below
    keys = [nf_keys]
    counts = [ways]
    masks = (five[distinct] << np.arange(13)).sum(axis=1)
    keys.append(FLUSH_TABLE[masks])
    counts.append(np.full(masks.size, 4, dtype=np.int64))
    k = np.concatenate(keys)
    c = np.concatenate(counts)
    uniq, inverse = np.unique(k, return_inverse=True)
    return uniq, np.bincount(inverse.reshape(-1), weights=c).astype(np.int64)


def combinations_colex(n: int, k: int) -> CardArray:
    """All k-subsets of ``range(n)``, cards ascending in each row, rows in colex order: the
    subsets whose largest card is ``e`` are the k-1-subsets of ``range(e)`` (the first
    C(e, k-1) rows of the smaller table), each with ``e`` appended."""
    table = np.zeros((1, 0), dtype=np.uint8)
    for size in range(1, k + 1):
        parts = [np.hstack([table[:comb(e, size - 1)],
                            np.full((comb(e, size - 1), 1), e, dtype=np.uint8)])
                 for e in range(size - 1, n)]
        table = np.vstack(parts) if parts else np.zeros((0, size), dtype=np.uint8)
    return table


def five_card_hands() -> CardArray:
    """All C(52, 5) hands, cards ascending in each row, rows in colex order."""
    return combinations_colex(52, 5)


def colex_index(cards: npt.NDArray[np.integer]) -> IntArray:
    """Colex rank of each row (cards ascending, any row length): ``sum C(c_j, j + 1)``."""
    cards = np.asarray(cards, dtype=np.int64)
    out = np.zeros(cards.shape[0], dtype=np.int64)
    for j in range(cards.shape[1]):
        out += BINOM[cards[:, j], j + 1]
    return out
