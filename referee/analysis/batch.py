"""Batch (numpy) hand evaluation: the referee's own keys for millions of hands at once.

Nothing here decides what a hand is worth: every lookup table is filled by the referee's own
evaluators (:func:`referee.hands.standard.key_from_cards` for rank multisets, the flush table of
:mod:`referee.hands.standard`, :func:`referee.hands.deuces_key` for deuces hands), so a batch key
is the very key :func:`referee.hands.best5_key` / :func:`referee.hands.deuces_key` return
(tests/test_analysis.py checks that on random hands).

* :func:`standard_keys`: ``holdem_aa`` / ``omaha``-style best 5 of 5..7 distinct cards (one deck):
  the rank multiset (``sum 5**rank``) is looked up by binary search in the table of every
  multiset of that size; a flush (some suit >= 5 times; in 7 one-deck cards a flush rules out
  quads and full houses) by its suit's rank bitmask.
* :func:`deuces_keys`: five-card ``deuces`` hands without a joker, any number of decks: the
  evaluator's own memo key (base-6 digit sum, deuces as digit 0, plus "all naturals suited")
  is computed in bulk and each distinct one evaluated once.
* :func:`five_card_hands`: all C(52, 5) = 2,598,960 hands in colex order (row ``i`` is the hand
  whose :func:`colex_index` is ``i``).
"""

from __future__ import annotations

from functools import cache
from itertools import combinations, combinations_with_replacement
from math import comb

import numpy as np
import numpy.typing as npt

from referee.hands import deuces_key
from referee.hands.standard import _FLUSH, key_from_cards

IntArray = npt.NDArray[np.int64]
CardArray = npt.NDArray[np.uint8]

_POW5 = np.array([5**r for r in range(13)], dtype=np.int64)
_FLUSH_TABLE = np.array(_FLUSH, dtype=np.int64)
# deuces memo key digits (as referee.hands.deuces.DIGIT / SUITSET)
_DIGIT = np.array([1 if c >> 2 == 0 else 6 ** (c >> 2) for c in range(52)], dtype=np.int64)
_SUITSET = np.array([0xF if c >> 2 == 0 else 1 << (c & 3) for c in range(52)], dtype=np.int64)

#: binomial table: _BINOM[n, k] = C(n, k) for n <= 52, k <= 7
BINOM = np.array([[comb(n, k) for k in range(8)] for n in range(53)], dtype=np.int64)


@cache
def _multiset_table(size: int) -> tuple[IntArray, IntArray]:
    """(sorted rank sums, their non-flush keys) for every rank multiset of ``size`` cards with at
    most four of a rank."""
    sums: list[int] = []
    keys: list[int] = []
    for ranks in combinations_with_replacement(range(13), size):
        if any(ranks.count(r) > 4 for r in set(ranks)):
            continue
        # suits rotate along the sorted ranks: copies of a rank get distinct suits and no suit
        # is used 5 times, so the reference evaluator sees the rank-only hand
        cards = [r * 4 + i % 4 for i, r in enumerate(ranks)]
        sums.append(sum(5**r for r in ranks))
        keys.append(key_from_cards(cards))
    order = np.argsort(np.array(sums, dtype=np.int64))
    return np.array(sums, dtype=np.int64)[order], np.array(keys, dtype=np.int64)[order]


def standard_keys(cards: npt.NDArray[np.integer]) -> IntArray:
    """Best standard key of each row of ``cards`` (shape (N, 5..7), distinct cards 0..51)."""
    cards = np.asarray(cards, dtype=np.int64)
    k = cards.shape[1]
    if not 5 <= k <= 7:
        raise ValueError("standard_keys needs 5 to 7 cards a hand")
    ranks = cards >> 2
    suits = cards & 3
    rsum = _POW5[ranks].sum(axis=1)
    table_sums, table_keys = _multiset_table(k)
    pos = np.searchsorted(table_sums, rsum)
    out = table_keys[pos]
    counts = np.stack([(suits == s).sum(axis=1) for s in range(4)], axis=1)
    flush = counts.max(axis=1) >= 5
    if flush.any():
        fc = cards[flush]
        fsuit = counts[flush].argmax(axis=1)
        bits = np.where((fc & 3) == fsuit[:, None], np.int64(1) << (fc >> 2), 0).sum(axis=1)
        out[flush] = _FLUSH_TABLE[bits]
    return np.asarray(out, dtype=np.int64)


def deuces_keys(cards: npt.NDArray[np.integer]) -> IntArray:
    """``deuces_key`` of each row of ``cards`` (shape (N, 5), naturals and deuces, no joker;
    identical cards allowed)."""
    cards = np.asarray(cards, dtype=np.int64)
    if cards.ndim != 2 or cards.shape[1] != 5:
        raise ValueError("deuces_keys needs 5 cards a hand")
    if (cards > 51).any():
        raise ValueError("deuces_keys: no jokers (evaluate those one by one)")
    digit = _DIGIT[cards].sum(axis=1)
    ss = _SUITSET[cards]
    suited = (ss[:, 0] & ss[:, 1] & ss[:, 2] & ss[:, 3] & ss[:, 4]) != 0
    memo = digit << 1 | suited
    uniq, first, inverse = np.unique(memo, return_index=True, return_inverse=True)
    global _DK, _DV
    pos = np.searchsorted(_DK, uniq)
    known = np.zeros(uniq.size, dtype=bool)
    if _DK.size:
        known = (pos < _DK.size) & (_DK[np.minimum(pos, _DK.size - 1)] == uniq)
    if not known.all():
        new = np.flatnonzero(~known)
        vals = np.array([deuces_key([int(c) for c in cards[first[i]]]) for i in new],
                        dtype=np.int64)
        keys = np.concatenate([_DK, uniq[new]])
        order = np.argsort(keys)
        _DK, _DV = keys[order], np.concatenate([_DV, vals])[order]
        pos = np.searchsorted(_DK, uniq)
    return np.asarray(_DV[pos][inverse.reshape(-1)], dtype=np.int64)


# memo key -> deuces key of every hand shape seen so far (sorted keys), as deuces.py's _MEMO
_DK = np.zeros(0, dtype=np.int64)
_DV = np.zeros(0, dtype=np.int64)


def five_card_hands() -> CardArray:
    """All C(52, 5) hands, cards ascending in each row, rows in colex order."""
    n = comb(52, 5)
    arr = np.fromiter(
        (c[::-1] for c in combinations(range(51, -1, -1), 5)),
        dtype=np.dtype((np.uint8, 5)), count=n,
    )
    # combinations of the reversed deck give descending-lexicographic order; reverse it to get
    # colex order of the ascending hands
    return np.array(arr[::-1], dtype=np.uint8)


def colex_index(cards: npt.NDArray[np.integer]) -> IntArray:
    """Colex rank of each row (cards ascending, any row length): ``sum C(c_j, j + 1)``."""
    cards = np.asarray(cards, dtype=np.int64)
    out = np.zeros(cards.shape[0], dtype=np.int64)
    for j in range(cards.shape[1]):
        out += BINOM[cards[:, j], j + 1]
    return out
