"""deuces hands in bulk (numpy), on :mod:`referee.analysis.batch`'s packed card words and
rank-multiset tables:

* :func:`deuces_classes`: the deuces class (index into ``DEUCES``) of one-deck hands without a
  joker, by rank multiset and "all naturals suited";
* :func:`deuces_keys`: five-card ``deuces`` hands without a joker, any number of decks: the
  evaluator's own memo key computed in bulk and each distinct one evaluated once.

tests/test_analysis.py checks both against the evaluator on every one-deck hand.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from referee.analysis.batch import CARD_WORD, IntArray, Multisets, multisets_of
from referee.games.deuces.hands import DEUCES, deuces_key

# deuces memo key digits (as referee.games.deuces.hands.DIGIT / SUITSET)
_DIGIT = np.array([1 if c >> 2 == 0 else 6 ** (c >> 2) for c in range(52)], dtype=np.int64)
SUIT_SET = np.array([0xF if c >> 2 == 0 else 1 << (c & 3) for c in range(52)], dtype=np.int64)


def _deuces_shape_classes(counts: npt.NDArray[np.int64], suited: npt.NDArray[np.bool_]
                          ) -> npt.NDArray[np.uint8]:
    """Deuces class index (``DEUCES``) of one-deck five-card shapes: rank counts
    (column 0: the deuces) and whether every natural is of one suit (docs/rules.md's rulings,
    as :mod:`referee.games.deuces.hands` applies them; checked against it on every one-deck
    hand)."""
    w = counts[:, 0]
    nat = counts[:, 1:]
    m = nat.max(axis=1)
    k = (nat > 0).sum(axis=1)
    ranks = np.arange(1, 13)
    present = nat > 0
    lo = np.where(present, ranks, 99).min(axis=1)
    hi = np.where(present, ranks, -1).max(axis=1)
    distinct = m <= 1
    wheel = ~(present & ~np.isin(ranks, (1, 2, 3, 12))).any(axis=1)
    straight = distinct & ((hi - lo <= 4) | wheel)
    royal = distinct & (lo >= 8)
    names = DEUCES
    conds = {
        "four_deuces": w == 4,
        "natural_royal_flush": (w == 0) & suited & royal,
        "wild_royal_flush": (w > 0) & suited & royal,
        "five_of_a_kind": m + w >= 5,
        "straight_flush": suited & straight,
        "four_of_a_kind": m + w >= 4,
        "full_house": ((w == 0) & (m == 3) & (k == 2)) | ((w == 1) & (m == 2) & (k == 2)),
        "flush": suited,
        "straight": straight,
        "three_of_a_kind": m + w >= 3,
        "two_pair": (w == 0) & (m == 2) & (k == 3),
        "one_pair": m + w >= 2,
    }
    order = ["four_deuces", "natural_royal_flush", *(n for n in names if n in conds
                                                     and n not in ("four_deuces",
                                                                   "natural_royal_flush"))]
    return np.select([conds[n] for n in order], [names.index(n) for n in order],
                     default=names.index("high_card")).astype(np.uint8)


@cache
def _deuces_table() -> tuple[Multisets, npt.NDArray[np.uint8]]:
    """(multiset index, class of every five-card shape: entry ``2 * index + suited``)."""
    ms = Multisets(5)
    five = multisets_of(5)
    idx = ms.index(five)
    table = np.zeros(2 * ms.size, dtype=np.uint8)
    for flag in (0, 1):
        table[2 * idx + flag] = _deuces_shape_classes(five, np.full(five.shape[0], bool(flag)))
    return ms, table


def hand_words(cards: npt.NDArray[np.integer]) -> tuple[IntArray, IntArray]:
    """(packed word, AND of the deuces suit sets) of each row of ``cards`` (shape (N, k))."""
    cols = np.ascontiguousarray(np.asarray(cards).T)  # one column a card: contiguous gathers
    words = CARD_WORD.take(cols[0])
    suited = SUIT_SET.take(cols[0])
    for j in range(1, cols.shape[0]):
        words += CARD_WORD.take(cols[j])
        suited &= SUIT_SET.take(cols[j])
    return words, suited


def deuces_classes_of_words(words: IntArray, suited: IntArray) -> npt.NDArray[np.uint8]:
    """:func:`deuces_classes` from :func:`hand_words` (sums of five one-deck cards)."""
    ms, table = _deuces_table()
    return np.asarray(table.take(2 * ms.of_words(words) + (suited != 0)), dtype=np.uint8)


def deuces_classes(cards: npt.NDArray[np.integer]) -> npt.NDArray[np.uint8]:
    """Deuces class index (into ``DEUCES``) of each row of ``cards`` (shape (N, 5),
    distinct cards 0..51: one deck, no joker)."""
    cards = np.asarray(cards)
    if cards.ndim != 2 or cards.shape[1] != 5:
        raise ValueError("deuces_classes needs 5 cards a hand")
    return deuces_classes_of_words(*hand_words(cards))


def deuces_keys(cards: npt.NDArray[np.integer]) -> IntArray:
    """``deuces_key`` of each row of ``cards`` (shape (N, 5), naturals and deuces, no joker;
    identical cards allowed)."""
    cards = np.asarray(cards, dtype=np.int64)
    if cards.ndim != 2 or cards.shape[1] != 5:
        raise ValueError("deuces_keys needs 5 cards a hand")
    if (cards > 51).any():
        raise ValueError("deuces_keys: no jokers (evaluate those one by one)")
    digit = _DIGIT[cards].sum(axis=1)
    ss = SUIT_SET[cards]
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
