"""Omaha (exactly 2 of 4 hole cards + 3 of 5 board cards) in bulk: :func:`omaha_keys`.

The same key as :func:`referee.hands.standard.omaha_key` for every deal, by two small tables
instead of the 60 two-plus-three combinations a deal. Both hold strengths -- a key's index
among the 7,462 five-card keys, two bytes -- so that a maximum over them is a maximum over keys
and the tables stay in cache:

* **without flushes** a deal's best is the best over its six hole pairs of "this pair with the
  best three of this board": the table holds that for every five-card board rank multiset
  (6,175) and ordered rank pair (169), from the five-card keys of
  :func:`referee.analysis.batch.five_keys` (1,043,575 entries, 2.1 MB);
* **flushes** need three board cards and two hole cards of one suit; five board cards hold
  three of at most one suit, so a deal has one candidate suit, found from the board's suit
  counters. The table holds the best straight flush or flush
  (:data:`referee.hands.standard.FLUSH`) of every pair of that suit's rank masks: board (3..5
  ranks, 2,288) by hole (2..4 ranks, 1,079), plus an empty row and column that masks with too
  few ranks read (2,472,120 entries, 4.9 MB). Every deal reads it: no per-row selection;
* a deal's key is the larger of the two: a five-card combination that is a flush is scored
  in the first at its rank-only value (a straight or high card, weaker than any flush) and
  again, correctly, in the second.

Cards are read as in :func:`referee.analysis.batch.standard_keys`, two a gather. The tables are
cheap enough to build once per process (nothing on disk).
tests/test_batch_evaluators.py checks the keys against ``omaha_key`` and phevaluator.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations
from typing import NamedTuple

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
    five_card_key_counts,
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


class _Tables(NamedTuple):
    """What :func:`omaha_keys` reads (module doc); ``nf`` and ``flush`` hold strengths (the
    index of a key among the 7,462 five-card keys, ``keys``), two bytes an entry."""

    ms: Multisets  # rank multisets of at most 5 cards
    board_base: IntArray  # multiset index -> 169 * its dense number (five-card ones)
    nf: npt.NDArray[np.uint16]  # board * 169 + 13 * a + b -> strength without flushes
    flush_board: IntArray  # board suit rank mask -> its row in ``flush`` (3..5 ranks; else none)
    flush_hole: IntArray  # hole suit rank mask -> its column (2..4 ranks; else none)
    flush: npt.NDArray[np.uint16]  # best flush strength; 0 where there is none
    keys: IntArray  # strength -> key


@cache
def _tables() -> _Tables:
    keys, _ = five_card_key_counts()
    five, nf5_keys = five_keys()
    ms = Multisets(5)
    board_base = np.zeros(ms.size, dtype=np.int64)
    board_base[ms.index(five)] = np.arange(five.shape[0]) * 169
    nf = _pair_board_table(five, np.searchsorted(keys, nf5_keys).astype(np.uint16))
    fb, fh, fl = _flush_table(_strength(keys, FLUSH_TABLE))
    return _Tables(ms, board_base, nf, fb, fh, fl, keys)


def _strength(keys: IntArray, table: IntArray) -> npt.NDArray[np.uint16]:
    """``table``'s keys as strengths; 0 (no flush) stays 0, the weakest, which never raises
    a maximum."""
    got = np.searchsorted(keys, table)
    real = table > 0
    assert (keys[got[real]] == table[real]).all()
    return np.where(real, got, 0).astype(np.uint16)


def _pair_board_table(five: npt.NDArray[np.int64], strength: npt.NDArray[np.uint16]
                      ) -> npt.NDArray[np.uint16]:
    """Best rank-only strength of every (board multiset, ordered hole rank pair), flattened
    ``board * 169 + 13 * a + b`` (module doc), from ``strength``, that of each five-card
    multiset (rows of ``five``): first every (rank triple, pair), then each board's best
    over its ten triples. 0 for a pair no deal can hold with that board (five of a rank)."""
    ms = Multisets(5)
    by_word = np.zeros(ms.size, dtype=np.uint16)
    by_word[ms.index(five)] = strength
    triples = np.array([t for t in combinations(range(15), 3)])  # 0..12 with repeats, sorted
    triples = triples - np.arange(3)  # (i, j + 1, k + 2) -> i <= j <= k: 455 multisets
    tri_word = RANK_WORD[triples].sum(axis=1)
    a = np.repeat(np.arange(13), 13)
    b = np.tile(np.arange(13), 13)
    # five of a rank (a pair r, r with a triple r, r, r): its base-5 digit would carry, so it
    # is looked up as the pair alone and dropped
    five_of = (triples[:, :1] == triples).all(axis=1)[:, None] \
        & ((a == b)[None, :] & (triples[:, :1] == a[None, :]))
    word = np.where(five_of, 0, tri_word[:, None]) + (RANK_WORD[a] + RANK_WORD[b])[None, :]
    with_pair = np.where(five_of, 0, by_word.take(ms.of_words(word.reshape(-1))).reshape(
        word.shape)).astype(np.uint16).reshape(-1)
    # each board's ten triples as multiset numbers (colex of the sorted ranks with repeats)
    ranks = np.repeat(np.tile(np.arange(13), five.shape[0]), five.reshape(-1)).reshape(-1, 5)
    number = np.zeros((15, 15, 15), dtype=np.int64)
    number[tuple((triples + np.arange(3)).T)] = np.arange(triples.shape[0])
    best = np.zeros((five.shape[0], 169), dtype=np.uint16)
    for i, j, k in _TRIPLES:
        tri = number[ranks[:, i], ranks[:, j] + 1, ranks[:, k] + 2] * 169
        np.maximum(best, with_pair.take(tri[:, None] + np.arange(169)[None, :]), out=best)
    return best.reshape(-1)


def _masks(low: int, high: int) -> npt.NDArray[np.int64]:
    return np.array([m for m in range(8192) if low <= m.bit_count() <= high], dtype=np.int64)


def _flush_table(flush: npt.NDArray[np.uint16]
                 ) -> tuple[IntArray, IntArray, npt.NDArray[np.uint16]]:
    """(row offset of each board suit mask, column of each hole suit mask, the best flush
    strength (``flush``: that of each rank mask of five) of every (board mask of 3..5 ranks,
    hole mask of 2..4 ranks) flattened; 0 where none: the last row and column, for masks with
    too few ranks, and masks sharing a rank)."""
    boards, holes = _masks(3, 5), _masks(2, 4)
    width = holes.size + 1
    flush_board = np.full(8192, boards.size * width, dtype=np.int64)
    flush_board[boards] = np.arange(boards.size) * width
    flush_hole = np.full(8192, holes.size, dtype=np.int64)
    flush_hole[holes] = np.arange(holes.size)
    # first the best flush of each board mask with each ordered rank pair (column 169: none)
    a = np.repeat(np.arange(13), 13)
    b = np.tile(np.arange(13), 13)
    pair_bits = (1 << a) | (1 << b)
    by_pair = np.zeros((boards.size + 1, 170), dtype=np.uint16)
    for n in (3, 4, 5):
        rows = np.flatnonzero([m.bit_count() == n for m in boards.tolist()])
        bits = np.array([[r for r in range(13) if m >> r & 1] for m in boards[rows].tolist()])
        ok = ((boards[rows, None] & pair_bits[None, :]) == 0) & (a != b)[None, :]
        best = np.zeros((rows.size, 169), dtype=np.uint16)
        for tri in combinations(range(n), 3):
            tri_bits = (1 << bits[:, list(tri)]).sum(axis=1)
            got = flush.take(tri_bits[:, None] | pair_bits[None, :])
            np.maximum(best, got, out=best)
        by_pair[rows, :169] = np.where(ok, best, 0)
    # then each hole mask's best pair (up to six; padded with column 169)
    pairs = np.full((holes.size, 6), 169, dtype=np.int64)
    for h, m in enumerate(holes.tolist()):
        ranks = [r for r in range(13) if m >> r & 1]
        for p, (x, y) in enumerate(combinations(ranks, 2)):
            pairs[h, p] = 13 * x + y
    table = np.zeros((boards.size + 1, width), dtype=np.uint16)
    for p in range(6):
        np.maximum(table[:, :-1], by_pair[:, pairs[:, p]], out=table[:, :-1])
    return flush_board, flush_hole, table.reshape(-1)


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
    t = _tables()
    parts = pair_parts(board)
    words = pair_sum(parts, PAIR_WORD, CARD_WORD)
    base = t.board_base.take(t.ms.of_words(words))
    rank = hole >> 2
    rank13 = rank * np.uint8(13)  # at most 12 * 13 + 12 = 168: bytes suffice
    best = t.nf.take(base + (rank13[:, 0] + rank[:, 1]))
    for i, j in _PAIRS[1:]:
        np.maximum(best, t.nf.take(base + (rank13[:, i] + rank[:, j])), out=best)
    # the suit with three or more board cards (lane 0 when none: then the board's mask has
    # too few ranks and reads the table's empty row)
    lane = LANE.take((((words >> SUIT_SHIFT) + _OFF3) & _MASK3) >> 3)
    board_mask = (pair_sum(parts, PAIR_SUIT_BITS, SUIT_BITS) >> lane) & 0x1FFF
    hole_mask = (pair_sum(pair_parts(hole), PAIR_SUIT_BITS, SUIT_BITS) >> lane) & 0x1FFF
    flush = t.flush.take(t.flush_board.take(board_mask) + t.flush_hole.take(hole_mask))
    np.maximum(best, flush, out=best)
    return t.keys.take(best)
