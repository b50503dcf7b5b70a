"""Omaha (exactly 2 of 4 hole cards + 3 of 5 board cards) in bulk: :func:`omaha_keys`.

The same key as :func:`referee.hands.standard.omaha_key` for every deal, by two small tables
instead of the 60 two-plus-three combinations a deal:

* **without flushes** a deal's best is the best over its six hole pairs of "this pair with the
  best three of this board": :func:`_pair_board_table` holds that for every five-card board rank
  multiset (6,175) and ordered rank pair (169), each entry the best of the board's ten triples
  by the five-card keys of :func:`referee.analysis.batch.five_keys`. 1,043,575 ``int32``
  entries, 4.2 MB;
* **flushes** need three board cards and two hole cards of one suit; five board cards hold
  three of at most one suit, so per deal there is one candidate suit. :func:`_flush_table`
  holds, for every rank mask of 3..5 board cards of a suit (2,288) and rank pair of two more
  cards of that suit, the best straight flush or flush of the pair with three of the mask
  (:data:`referee.hands.standard.FLUSH`); 0 where the pair cannot join. 1.5 MB;
* a deal's key is the larger of the two: a five-card combination that is a flush is scored
  there at its rank-only value (a straight or high card, lower than any flush) and again,
  correctly, as a flush.

Cards are read as in :func:`referee.analysis.batch.standard_keys`: the board's packed words two
cards a gather. Building both tables takes ~0.2 s, once per process.
tests/test_batch_evaluators.py checks the keys against ``omaha_key`` and phevaluator.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from referee.analysis.batch import (
    CARD_WORD,
    FLUSH_TABLE,
    LANE,
    PAIR_SUIT_BITS,
    PAIR_WORD,
    RANK_WORD,
    SUIT_BITS,
    SUIT_SHIFT,
    IntArray,
    Multisets,
    UIntArray,
    five_keys,
    pair_parts,
    pair_sum,
)

_PAIRS = tuple(combinations(range(4), 2))  # the six hole pairs
_TRIPLES = tuple(combinations(range(5), 3))  # the ten board triples
#: board suit counters plus 5 set bit 3 of a counter exactly when that suit holds 3 or more
_OFF3 = 0x5555
_MASK3 = 0x8888
_BLOCK = 1 << 15


@cache
def _board_index() -> tuple[Multisets, npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    """(index of rank multisets of at most 5 cards, the dense number 0..6174 of each
    five-card one (-1 elsewhere), those multisets as sorted rank rows (6175, 5))."""
    five, _ = five_keys()
    ms = Multisets(5)
    dense = np.full(ms.size, -1, dtype=np.int32)
    dense[ms.index(five)] = np.arange(five.shape[0], dtype=np.int32)
    ranks = np.repeat(np.tile(np.arange(13), five.shape[0]), five.reshape(-1)).reshape(-1, 5)
    return ms, dense, ranks


@cache
def _pair_board_table() -> npt.NDArray[np.int32]:
    """Best rank-only key of every (board multiset, ordered hole rank pair), flattened
    ``board * 169 + 13 * a + b`` (module doc); -1 for a pair no deal can hold with that board
    (five of a rank)."""
    five, keys = five_keys()
    ms, _, ranks = _board_index()
    nf5 = np.full(ms.size, -1, dtype=np.int32)
    nf5[ms.index(five)] = keys
    a = np.repeat(np.arange(13), 13)
    b = np.tile(np.arange(13), 13)
    pair_word = RANK_WORD[a] + RANK_WORD[b]
    best = np.full((ranks.shape[0], 169), -1, dtype=np.int32)
    for i, j, k in _TRIPLES:
        tri = ranks[:, [i, j, k]]
        word = (RANK_WORD[tri].sum(axis=1))[:, None] + pair_word[None, :]
        # a pair r, r with a triple r, r, r is five of a rank: its base-5 digit would carry
        # (looked up as the pair alone, then dropped)
        five_of = (a == b)[None, :] & (tri == tri[:, :1]).all(axis=1)[:, None] \
            & (tri[:, :1] == a[None, :])
        word = np.where(five_of, pair_word[None, :], word)
        got = nf5.take(ms.of_words(word.reshape(-1))).reshape(best.shape)
        np.maximum(best, np.where(five_of, -1, got), out=best)
    return best.reshape(-1)


@cache
def _flush_table() -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """(dense number of each 13-bit rank mask of 3..5 ranks, -1 elsewhere; the best flush key
    of every (mask, ordered rank pair) flattened ``mask * 169 + 13 * a + b``, 0 where a rank of
    the pair is in the mask or the pair is a rank twice)."""
    masks = np.array([m for m in range(8192) if 3 <= m.bit_count() <= 5], dtype=np.int64)
    dense = np.full(8192, -1, dtype=np.int32)
    dense[masks] = np.arange(masks.size, dtype=np.int32)
    a = np.repeat(np.arange(13), 13)
    b = np.tile(np.arange(13), 13)
    pair_bits = (1 << a) | (1 << b)
    table = np.zeros((masks.size, 169), dtype=np.int32)
    for n in (3, 4, 5):
        rows = np.flatnonzero([m.bit_count() == n for m in masks.tolist()])
        bits = np.array([[r for r in range(13) if m >> r & 1] for m in masks[rows].tolist()])
        ok = ((masks[rows, None] & pair_bits[None, :]) == 0) & (a != b)[None, :]
        best = np.zeros((rows.size, 169), dtype=np.int32)
        for tri in combinations(range(n), 3):
            tri_bits = (1 << bits[:, list(tri)]).sum(axis=1)
            got = FLUSH_TABLE.take(tri_bits[:, None] | pair_bits[None, :])
            np.maximum(best, got, out=best)
        table[rows] = np.where(ok, best, 0)
    return dense, table.reshape(-1)


def omaha_keys(hole: npt.NDArray[np.integer], board: npt.NDArray[np.integer]) -> IntArray:
    """Best Omaha key of each deal: ``hole`` (N, 4) and ``board`` (N, 5), the nine cards of a
    row distinct (0..51). Equal to :func:`referee.hands.standard.omaha_key` row by row."""
    hole = np.asarray(hole)
    board = np.asarray(board)
    if hole.ndim != 2 or hole.shape[1] != 4 or board.shape != (hole.shape[0], 5):
        raise ValueError("omaha_keys needs (N, 4) hole cards and (N, 5) board cards")
    hole8: npt.NDArray[np.uint8] = np.ascontiguousarray(hole, dtype=np.uint8)
    board8: npt.NDArray[np.uint8] = np.ascontiguousarray(board, dtype=np.uint8)
    out = np.empty(hole8.shape[0], dtype=np.int64)
    for start in range(0, hole8.shape[0], _BLOCK):
        stop = start + _BLOCK
        out[start:stop] = _omaha_block(hole8[start:stop], board8[start:stop])
    return out


def _omaha_block(hole: npt.NDArray[np.uint8], board: npt.NDArray[np.uint8]) -> IntArray:
    ms, dense, _ = _board_index()
    table = _pair_board_table()
    parts = pair_parts(board)
    words = pair_sum(parts, PAIR_WORD, CARD_WORD)
    base = dense.take(ms.of_words(words)).astype(np.int64) * 169
    rank = hole >> 2
    rank13 = rank * np.uint8(13)  # at most 12 * 13 + 12 = 168: bytes suffice
    pair = [rank13[:, i] + rank[:, j] for i, j in _PAIRS]
    out = table.take(base + pair[0]).astype(np.int64)
    for p in pair[1:]:
        np.maximum(out, table.take(base + p), out=out)
    counters = ((words >> SUIT_SHIFT) + _OFF3) & _MASK3
    rows = np.flatnonzero(counters != 0)
    if rows.size:
        _flushes(hole, parts, counters, pair, rows, out)
    return out


def _flushes(hole: npt.NDArray[np.uint8], parts: list[UIntArray],
             counters: IntArray, pair: list[npt.NDArray[np.uint8]], rows: npt.NDArray[np.intp],
             out: IntArray) -> None:
    """Raise ``out`` to the best flush of each of ``rows`` (deals whose board holds three or
    more of a suit) where two hole cards of that suit can make one."""
    lane = LANE.take(counters[rows] >> 3)
    suit = (lane >> 4).astype(np.uint8)
    suited = (hole[rows] & np.uint8(3)) == suit[:, None]
    two = np.flatnonzero(suited.sum(axis=1) >= 2)
    if not two.size:
        return
    rows, lane, suited = rows[two], lane[two], suited[two]
    dense, table = _flush_table()
    bits = pair_sum(parts, PAIR_SUIT_BITS, SUIT_BITS, rows)
    base = dense.take((bits >> lane) & 0x1FFF).astype(np.int64) * 169
    best = np.zeros(rows.size, dtype=np.int64)
    for (i, j), p in zip(_PAIRS, pair, strict=True):
        both = suited[:, i] & suited[:, j]
        got = table.take(base + p[rows])
        np.maximum(best, np.where(both, got, 0), out=best)
    np.maximum(out[rows], best, out=best)
    out[rows] = best
