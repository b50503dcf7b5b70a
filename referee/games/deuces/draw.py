"""Exact draw analysis of five-card single-deck draw poker (video poker), optimal hold.

For every one of the 2,598,960 dealt hands and each of its 32 holds, the pay of every
completion is *counted*, not dealt (Wizard of Odds' method). The work splits in two:

**Pay-table independent** (:func:`draw_tables`, computed once and kept on disk):

1. the deuces class of every five-card hand (:func:`referee.games.deuces.batch.deuces_classes`);
2. for every subset ``S`` of 0..4 cards, ``N[S, class]`` = the number of five-card hands that
   contain ``S`` and are of ``class``: the four-card subsets by one ``numpy.bincount`` per
   position pattern over the hands, the smaller ones by summing their one-card-larger
   supersets (``N[S] = sum over x of N[S + x] / (5 - |S|)``: every hand above ``S`` is
   counted once per card it has beyond ``S``);
3. the 134,459 suit classes of dealt hands (relabelling the suits changes no payout): one
   representative each -- the suits ordered by their rank masks, largest first -- generated
   directly from the sorted mask tuples, with the number of hands it stands for.

**Per pay table** (:func:`deuces_wild`, a few numpy passes over the representatives): the
table turns ``N`` into ``P[S]`` = total pay of the hands above ``S``; for a representative
``D`` and a hold ``S``, the completions are the hands that contain ``S`` and none of the
discards ``D \\ S``: by inclusion-exclusion ``sum over S <= U <= D of (-1)^|U \\ S| P[U]``,
for all 32 holds at once a superset Moebius transform (5 vectorised passes). Dividing by
C(47, 5 - |S|) gives each hold's expected pay; the best hold is played. The final-hand
probabilities follow by the same signs applied to ``N`` for the chosen holds only.

Full-pay Deuces Wild gives 100.7620% (Wizard of Odds); tests/test_analysis.py checks it, the
final-hand probabilities and, on sampled hands, that each hand's hold (its representative's,
mapped back through the relabelling) is a best hold of the hand itself worked out directly.
``bench/analysis.py`` times the cold and warm runs against a C reference of the same method.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np
import numpy.typing as npt

from referee.analysis.batch import (
    BINOM,
    CARD_WORD,
    colex_index,
    combinations_colex,
)
from referee.analysis.cache import cache_path as cache_path_of
from referee.analysis.cache import cached
from referee.cards import JOKER, Card
from referee.games.deuces.batch import (
    SUIT_SET,
    deuces_classes,
    deuces_classes_of_words,
    hand_words,
)
from referee.games.deuces.hands import DEUCES

#: full-pay Deuces Wild, "for one" (the stake included): Wizard of Odds' 100.7620% table
FULL_PAY_DEUCES_WILD: dict[str, float] = {
    "natural_royal_flush": 800, "four_deuces": 200, "wild_royal_flush": 25, "five_of_a_kind": 15,
    "straight_flush": 9, "four_of_a_kind": 5, "full_house": 3, "flush": 2, "straight": 2,
    "three_of_a_kind": 1,
}

CLASS_NAMES = DEUCES
_K = len(CLASS_NAMES)
_MASKS = [[p for p in range(5) if m >> p & 1] for m in range(32)]
_SIZE = np.array([len(p) for p in _MASKS])
_DIV = np.array([comb(47, 5 - int(s)) for s in _SIZE], dtype=np.float64)
_REP_CHUNK = 1 << 15
_ROWS = 1 << 16
#: the smallest type that holds N[m] (m = 0..4): at most C(52, 5), C(51, 4), C(50, 3), C(49, 2), 48
_DTYPES = (np.int64, np.int32, np.uint16, np.uint16, np.uint8)
#: the modules whose code decides the cached tables (part of the cache key)
_CODE = ("games/deuces/draw.py", "analysis/batch.py", "games/deuces/batch.py",
         "games/deuces/hands.py", "hands/names.py", "hands/core.py")


@dataclass(frozen=True)
class DrawTables:
    """The pay-table-independent part (module doc): ``counts[m][colex(S), class]`` for every
    subset of ``m`` <= 4 cards; the suit-class representatives (cards ascending, rows in colex
    order of the representative), how many dealt hands each stands for, and its class."""

    counts: tuple[npt.NDArray[np.integer], ...]
    reps: npt.NDArray[np.uint8]
    weight: npt.NDArray[np.int64]
    rep_class: npt.NDArray[np.uint8]

    @cached_property
    def rep_colex(self) -> npt.NDArray[np.int64]:
        """Each representative's colex rank (ascending: the rows are in colex order)."""
        return colex_index(self.reps)

    def sub_index(self, rows: slice) -> npt.NDArray[np.int64]:
        """``[mask, i]``: the colex index (within its size) of the cards ``mask`` holds of
        representative ``i`` (0 for the whole hand, which is looked up by its class)."""
        reps = self.reps[rows].T.astype(np.int64)
        # terms[j][k]: card j's colex term when it is the k-th (from 0) card held
        terms = [[BINOM[:, k + 1].take(reps[j]) for k in range(j + 1)] for j in range(5)]
        out = np.zeros((32, reps.shape[1]), dtype=np.int64)
        for mask, held in enumerate(_MASKS):
            if 0 < len(held) < 5:
                for k, j in enumerate(held):
                    out[mask] += terms[j][k]
        return out


@dataclass(frozen=True)
class DrawResult:
    """The exact result: ``ret`` (expected pay per unit stake), ``rows`` (pay-table row ->
    probability after the optimal draw; rows that pay nothing are left out), the optimal hold
    of every suit-class representative (a 5-bit mask over its ascending cards) and the number
    of dealt hands. :meth:`hold_of` maps a representative's hold back to any dealt hand."""

    ret: float
    rows: dict[str, float]
    rep_hold: npt.NDArray[np.uint8]
    hands: int
    tables: DrawTables

    def hold_of(self, cards: Sequence[int]) -> int:
        """The optimal hold of five distinct cards 0..51 as a 5-bit mask over ``cards`` in the
        order given (bit ``i``: keep ``cards[i]``)."""
        masks = [0, 0, 0, 0]
        for c in cards:
            masks[c & 3] |= 1 << (c >> 2)
        order = sorted(range(4), key=lambda s: -masks[s])  # suit -> its canonical position
        new_suit = [0, 0, 0, 0]
        for pos, s in enumerate(order):
            new_suit[s] = pos
        relabelled = [(c >> 2) * 4 + new_suit[c & 3] for c in cards]
        rep = sorted(relabelled)
        colex = sum(comb(c, j + 1) for j, c in enumerate(rep))
        i = int(np.searchsorted(self.tables.rep_colex, colex))
        mask = int(self.rep_hold[i])
        where = {v: p for p, v in enumerate(relabelled)}
        return sum(1 << where[rep[j]] for j in range(5) if mask >> j & 1)


def _subset_counts() -> tuple[npt.NDArray[np.integer], ...]:
    """``N[m][colex(S), class]`` for m = 0..4 (module doc, step 2). The hands are taken by
    their largest card ``e``: those are the four-card subsets of ``range(e)`` (the first
    C(e, 4) rows of the colex table) plus ``e``, so no table of all hands is ever built."""
    four = combinations_colex(52, 4)
    words, suited = hand_words(four)
    # colex index of each four-card row without its card p (a three-card subset)
    drop = [colex_index(four[:, [j for j in range(4) if j != p]]) for p in range(4)]
    acc = np.zeros(comb(52, 4) * _K, dtype=np.int64)  # add.at is fast on int64 only
    for e in range(4, 52):
        n = comb(e, 4)
        k = deuces_classes_of_words(words[:n] + CARD_WORD[e], suited[:n] & SUIT_SET[e])
        np.add.at(acc, np.arange(n) * _K + k, 1)  # without e: the four-card row itself
        for p in range(4):  # without card p: the three others and e
            np.add.at(acc, (drop[p][:n] + n) * _K + k, 1)
    counts: list[npt.NDArray[np.integer]] = [acc.reshape(-1, _K).astype(_DTYPES[4])]
    for m in range(3, -1, -1):
        upper = counts[0]
        combos = four if m == 3 else combinations_colex(52, m + 1)
        total = np.zeros(comb(52, m) * _K, dtype=np.int64)
        classes = np.arange(_K)
        for p in range(m + 1):
            if m == 3:
                idx = drop[p]
            else:
                rest = [j for j in range(m + 1) if j != p]
                idx = colex_index(combos[:, rest]) if rest else np.zeros(combos.shape[0],
                                                                         np.int64)
            for start in range(0, idx.size, _ROWS):
                rows = slice(start, start + _ROWS)
                np.add.at(total, (idx[rows, None] * _K + classes).reshape(-1),
                          upper[rows].astype(np.int64).reshape(-1))
        counts.insert(0, (total // (5 - m)).reshape(-1, _K).astype(_DTYPES[m]))
    return tuple(counts)


def _suit_classes() -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """(representatives, cards ascending, rows in colex order; hands each stands for): every
    tuple of four suit rank masks ``m0 >= m1 >= m2 >= m3`` holding five cards in all."""
    bits = np.arange(1 << 13)
    pop = np.array([bin(int(b)).count("1") for b in bits])
    by_pop = [bits[pop == k] for k in range(6)]
    tuples = []
    for p in ((a, b, c, 5 - a - b - c) for a in range(6) for b in range(6 - a)
              for c in range(6 - a - b)):
        grid = np.stack([g.reshape(-1) for g in np.meshgrid(*(by_pop[k] for k in p),
                                                            indexing="ij")], axis=1)
        ok = (grid[:, 0] >= grid[:, 1]) & (grid[:, 1] >= grid[:, 2]) & (grid[:, 2] >= grid[:, 3])
        tuples.append(grid[ok])
    masks = np.concatenate(tuples)
    equal = sum((masks[:, i] == masks[:, j]).astype(np.int64)
                for i, j in combinations(range(4), 2))
    # pairs of equal masks -> the order of the suits' symmetry group (runs of 2, 2+2, 3)
    sym = np.array([1, 2, 4, 6, 1, 1, 24])[equal]
    weight = 24 // sym
    flat = np.zeros((masks.shape[0], 52), dtype=np.uint8)  # column = card id
    for card in range(52):
        flat[:, card] = (masks[:, card & 3] >> (card >> 2)) & 1
    reps = np.nonzero(flat)[1].reshape(-1, 5).astype(np.uint8)
    order = np.argsort(colex_index(reps))
    return reps[order], weight[order].astype(np.int64)


def _compute_tables() -> DrawTables:
    counts = _subset_counts()
    reps, weight = _suit_classes()
    return DrawTables(counts=counts, reps=reps, weight=weight, rep_class=deuces_classes(reps))


def cache_path() -> Path:
    """The cache file of :class:`DrawTables`: keyed by the code that decides them and the
    part of the game they read (the deuces classes; one 52-card deck without a joker, video
    poker's deck whatever the game's shoe)."""
    return cache_path_of("deuces-draw", _CODE, (CLASS_NAMES, "52 cards, no joker"))


@cache
def draw_tables() -> DrawTables:
    """:class:`DrawTables`, from the disk cache when its key matches, else computed and
    saved (:mod:`referee.analysis.cache`)."""

    def compute() -> dict[str, npt.NDArray[np.generic]]:
        t = _compute_tables()
        out: dict[str, npt.NDArray[np.generic]] = {
            f"counts{m}": t.counts[m] for m in range(5)}
        out.update(reps=t.reps, weight=t.weight, rep_class=t.rep_class)
        return out

    def valid(z: Mapping[str, npt.NDArray[np.generic]]) -> bool:
        return z["counts4"].shape == (comb(52, 4), _K) \
            and int(z["weight"].sum()) == comb(52, 5) and z["reps"].shape[1:] == (5,)

    z = cached(cache_path(), compute, valid)
    return DrawTables(
        counts=tuple(np.asarray(z[f"counts{m}"], dtype=_DTYPES[m]) for m in range(5)),
        reps=np.asarray(z["reps"], dtype=np.uint8),
        weight=np.asarray(z["weight"], dtype=np.int64),
        rep_class=np.asarray(z["rep_class"], dtype=np.uint8))


def deuces_wild(
    table: Mapping[str, float] = FULL_PAY_DEUCES_WILD,
    progress: Callable[[int], None] | None = None,
) -> DrawResult:
    """Exact return of single-deck deuces-wild draw poker with ``table`` (deuces class ->
    pay for one, stake included) under the optimal (return-maximising) hold."""
    unknown = set(table) - set(CLASS_NAMES)
    if unknown:
        raise ValueError(f"not deuces classes: {', '.join(sorted(unknown))}")
    t = draw_tables()
    pays = np.array([float(table.get(k, 0.0)) for k in CLASS_NAMES])
    pay_of = [_blocks_dot(t.counts[m], pays) for m in range(5)]
    n = int(t.weight.sum())
    total = 0.0
    rep_hold = np.zeros(t.reps.shape[0], dtype=np.uint8)
    w_sub = [np.zeros(comb(52, m)) for m in range(5)]
    w_whole = np.zeros(_K)
    by_size = [np.flatnonzero(_SIZE == m) for m in range(6)]
    for start in range(0, t.reps.shape[0], _REP_CHUNK):
        rows = slice(start, start + _REP_CHUNK)
        sub = t.sub_index(rows)  # one row a mask: every pass below reads contiguously
        cls = t.rep_class[rows].astype(np.int64)
        w = t.weight[rows].astype(np.float64)
        size = cls.size
        v = np.empty((32, size))
        for m in range(5):
            v[by_size[m]] = pay_of[m].take(sub[by_size[m]])
        v[31] = pays.take(cls)
        _moebius(v, superset=True)  # inclusion-exclusion of the discards
        v /= _DIV[:, None]
        best = _first_max(v)
        rep_hold[rows] = best
        at = np.arange(size)
        total += float((v[best, at] * w).sum())
        # the chosen holds' completions by class: the same signs over the counts, as the
        # coefficients of every subset U >= hold (the transposed transform of a one-hot)
        coef = np.zeros((32, size))
        coef[best, at] = w / _DIV[best]
        _moebius(coef, superset=False)
        for m in range(5):
            sel = by_size[m]
            w_sub[m] += np.bincount(sub[sel].reshape(-1), weights=coef[sel].reshape(-1),
                                    minlength=w_sub[m].size)
        w_whole += np.bincount(cls, weights=coef[31], minlength=_K)
    probs = (w_whole + sum(_blocks_vdot(w_sub[m], t.counts[m]) for m in range(5))) / n
    if progress is not None:
        progress(n)
    rows_out = {name: float(probs[i]) for i, name in enumerate(CLASS_NAMES) if table.get(name)}
    return DrawResult(ret=total / n, rows=rows_out, rep_hold=rep_hold, hands=n, tables=t)


def _first_max(v: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """``v.argmax(axis=0)`` (the first best row), by 31 contiguous passes: a reduction across
    rows of a (32, n) array is several times slower in numpy."""
    best = np.zeros(v.shape[1], dtype=np.int64)
    top = v[0].copy()
    for m in range(1, v.shape[0]):
        better = v[m] > top
        best[better] = m
        np.maximum(top, v[m], out=top)
    return best


def _blocks_dot(counts: npt.NDArray[np.integer], pays: npt.NDArray[np.float64]
                ) -> npt.NDArray[np.float64]:
    """``counts @ pays`` a block of rows at a time (the small integer counts are widened to
    floats one block at a time, not all at once)."""
    out = np.empty(counts.shape[0])
    for start in range(0, counts.shape[0], _ROWS):
        out[start:start + _ROWS] = counts[start:start + _ROWS] @ pays
    return out


def _blocks_vdot(w: npt.NDArray[np.float64], counts: npt.NDArray[np.integer]
                 ) -> npt.NDArray[np.float64]:
    """``w @ counts`` a block of rows at a time (as :func:`_blocks_dot`)."""
    out = np.zeros(counts.shape[1])
    for start in range(0, counts.shape[0], _ROWS):
        out += w[start:start + _ROWS] @ counts[start:start + _ROWS]
    return out


def _moebius(v: npt.NDArray[np.float64], superset: bool) -> None:
    """In place over the 32 mask rows of ``v``: ``superset``: ``f(S) = sum over U >= S of
    (-1)^|U \\ S| v(U)``; else ``f(U) = sum over S <= U of (-1)^|U \\ S| v(S)``."""
    cube = v.reshape(2, 2, 2, 2, 2, -1)  # axis i holds bit 4 - i of the mask
    for axis in range(5):
        zero = tuple([slice(None)] * axis + [0])
        one = tuple([slice(None)] * axis + [1])
        if superset:
            cube[zero] -= cube[one]
        else:
            cube[one] -= cube[zero]


@cache
def exact_result(table: tuple[tuple[str, float], ...]) -> DrawResult:
    """:func:`deuces_wild` of ``table`` (sorted ``(row, pay)`` pairs), once per process."""
    return deuces_wild(dict(table))


def table_key(table: Mapping[str, float]) -> tuple[tuple[str, float], ...]:
    """The cache key of a pay table: its paying rows, sorted."""
    return tuple(sorted((k, float(v)) for k, v in table.items() if v))


def optimal_hold(table: Mapping[str, float]) -> Callable[[list[Card]], list[Card]]:
    """A player's draw strategy: the single-deck optimal hold for ``table``. Hands from a
    multi-deck shoe are looked up as they are: five distinct cards (the duplicate check leaves
    no identical cards); a joker is looked up as a deuce the hand does not hold (all four
    held: the joker is kept with them); anything else keeps all five."""
    result = exact_result(table_key(table))

    def choose(cards: list[Card]) -> list[Card]:
        hand = list(cards)
        if JOKER in hand:
            free = [c for c in (0, 1, 2, 3) if c not in hand]
            if not free or hand.count(JOKER) > 1:
                return list(cards)
            hand[hand.index(JOKER)] = Card(free[0])
        if len(hand) != 5 or len(set(hand)) != 5:
            return list(cards)
        mask = result.hold_of([int(c) for c in hand])
        return [cards[p] for p in range(5) if mask >> p & 1]

    return choose
