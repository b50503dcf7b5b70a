"""Exact draw analysis of five-card single-deck draw poker (video poker), optimal hold.

For every one of the 2,598,960 dealt hands and each of its 32 holds, the pay of every
completion is *counted*, not dealt:

1. every five-card hand is evaluated once (:func:`referee.analysis.batch.deuces_keys` -- the
   referee's own deuces evaluator) and given its pay-table row;
2. for every subset ``S`` of 0..4 cards, ``N[S, row]`` = the number of five-card hands that
   contain ``S`` and pay ``row`` (one ``numpy.bincount`` per position pattern: 31 passes over
   the 2.6M hands, indices by the colex rank of ``S``);
3. for a dealt hand ``D`` and a hold ``S``, the completions are the hands that contain ``S``
   and none of the discards ``D \\ S``: by inclusion-exclusion, ``sum over S <= U <= D of
   (-1)^|U \\ S| N[U, row]`` -- for all 32 holds at once this is the superset Moebius transform
   of the 32 values ``N[U]``, U <= D (5 vectorised passes). Dividing by C(47, 5 - |S|) gives the
   probability of each row after the draw; the hold with the highest expected pay is played.

Step 3 runs once per suit-isomorphic class (134,459 representatives, weighted by their size:
relabelling the suits changes no payout); each hand's hold is its representative's, mapped back
through the relabelling. No completion is ever dealt, so the whole analysis is a few numpy
passes over the hands (``bench/analysis.py`` prints its time, ~12 s here). Full-pay Deuces
Wild gives 100.7620% (Wizard of Odds); tests/test_analysis.py checks it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from itertools import combinations, permutations
from math import comb
from pathlib import Path

import numpy as np
import numpy.typing as npt

from referee.analysis.batch import BINOM, colex_index, deuces_keys, five_card_hands
from referee.cards import JOKER, Card
from referee.hands import class_of

#: full-pay Deuces Wild, "for one" (the stake included): Wizard of Odds' 100.7620% table
FULL_PAY_DEUCES_WILD: dict[str, float] = {
    "natural_royal_flush": 800, "four_deuces": 200, "wild_royal_flush": 25, "five_of_a_kind": 15,
    "straight_flush": 9, "four_of_a_kind": 5, "full_house": 3, "flush": 2, "straight": 2,
    "three_of_a_kind": 1,
}

_MASKS = [[p for p in range(5) if m >> p & 1] for m in range(32)]
_SIZE = np.array([len(p) for p in _MASKS])
_CHUNK = 65536


@dataclass(frozen=True)
class DrawResult:
    """The exact result: ``ret`` (expected pay per unit stake), ``rows`` (pay-table row ->
    probability after the optimal draw; rows that pay nothing are left out), ``hold`` (the
    optimal hold of every dealt hand, a 5-bit mask over its ascending cards, indexed by the
    hand's colex rank) and the number of dealt hands."""

    ret: float
    rows: dict[str, float]
    hold: npt.NDArray[np.uint8]
    hands: int


def _row_ids(keys: npt.NDArray[np.int64], names: list[str]) -> npt.NDArray[np.int64]:
    """Column of each hand's paying row (``len(names)`` for a hand that pays nothing)."""
    uniq, inverse = np.unique(keys, return_inverse=True)
    col = {n: i for i, n in enumerate(names)}
    per = np.array([col.get(class_of("deuces", int(k)), len(names)) for k in uniq])
    return per[inverse.reshape(-1)].astype(np.int64)


def suit_classes(hands: npt.NDArray[np.uint8]
                 ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """For each hand (cards ascending), the colex index of its suit-isomorphic representative
    (the smallest over the 24 relabellings of the suits) and where each of the
    representative's cards sits in the hand (``order[i, j]``: the hand's position of the
    representative's ``j``-th card)."""
    h = hands.astype(np.int64)
    ranks, suits = h >> 2, h & 3
    perms = np.array(list(permutations(range(4))), dtype=np.int64)
    best = np.full(h.shape[0], np.iinfo(np.int64).max)
    best_perm = np.zeros(h.shape[0], dtype=np.int64)
    for i, perm in enumerate(perms):
        idx = colex_index(np.sort(ranks * 4 + perm[suits], axis=1))
        better = idx < best
        best[better] = idx[better]
        best_perm[better] = i
    order = np.argsort(ranks * 4 + perms[best_perm[:, None], suits], axis=1, kind="stable")
    return best, order


def _hold_values(d: npt.NDArray[np.int64], cls_d: npt.NDArray[np.int64],
                 counts: list[npt.NDArray[np.int32]], nrows: int) -> npt.NDArray[np.int32]:
    """``v[i, hold, row]``: how many of hand ``d[i]``'s completions after ``hold`` (a 5-bit mask
    over its cards) pay ``row`` (inclusion-exclusion over the discards, module doc)."""
    size = d.shape[0]
    v = np.empty((size, 32, nrows), dtype=np.int32)
    for mask, held in enumerate(_MASKS):
        if len(held) == 5:
            v[:, mask, :] = 0
            v[np.arange(size), mask, cls_d] = 1
        elif held:
            v[:, mask, :] = counts[len(held)][colex_index(d[:, held])]
        else:
            v[:, mask, :] = counts[0][0]
    for b in range(5):  # superset Moebius transform: inclusion-exclusion of the discards
        lo = [m for m in range(32) if not m >> b & 1]
        v[:, lo, :] -= v[:, [m | 1 << b for m in lo], :]
    return v


def deuces_wild(
    table: Mapping[str, float] = FULL_PAY_DEUCES_WILD,
    progress: Callable[[int], None] | None = None,
) -> DrawResult:
    """Exact return of single-deck deuces-wild draw poker with ``table`` (deuces class ->
    pay for one, stake included) under the optimal (return-maximising) hold.

    The holds are worked out once per suit-isomorphic class (134,459 of them: relabelling the
    suits changes no payout) and weighted by the class's size; each hand's hold is its
    class representative's, mapped back through the relabelling."""
    names = [k for k, v in table.items() if v]
    pays = np.array([float(table[k]) for k in names] + [0.0])
    nrows = len(names) + 1
    hands = five_card_hands()
    n = hands.shape[0]
    cls = _row_ids(deuces_keys(hands), names)
    counts = _subset_counts(hands, cls, nrows)
    div = np.array([BINOM[47, 5 - int(s)] for s in _SIZE], dtype=np.float64)
    canon, order = suit_classes(hands)
    reps, inverse, weight = np.unique(canon, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    total = 0.0
    probs = np.zeros(nrows)
    rep_hold = np.zeros(reps.size, dtype=np.int64)
    for start in range(0, reps.size, _CHUNK):
        idx = reps[start:start + _CHUNK]
        w = weight[start:start + _CHUNK].astype(np.float64)
        size = idx.size
        v = _hold_values(hands[idx].astype(np.int64), cls[idx], counts, nrows)
        ev = (v @ pays) / div
        best = ev.argmax(axis=1)
        rep_hold[start:start + size] = best
        total += float((ev[np.arange(size), best] * w).sum())
        probs += (v[np.arange(size), best, :] / div[best][:, None] * w[:, None]).sum(axis=0)
        if progress is not None:
            progress(int(w.sum()))
    # each hand's hold: its representative's, bit j moved to where that card sits in the hand
    mask = rep_hold[inverse]
    hold = np.zeros(n, dtype=np.int64)
    for j in range(5):
        hold |= ((mask >> j) & 1) << order[:, j]
    rows = {name: float(probs[i]) / n for i, name in enumerate(names)}
    return DrawResult(ret=total / n, rows=rows, hold=hold.astype(np.uint8), hands=n)


def _subset_counts(hands: npt.NDArray[np.uint8], cls: npt.NDArray[np.int64], nrows: int
                   ) -> list[npt.NDArray[np.int32]]:
    """``N[m][colex(S), row]`` for every subset ``S`` of ``m`` < 5 cards: the five-card hands
    containing ``S`` that pay ``row``."""
    n = hands.shape[0]
    counts: list[npt.NDArray[np.int32]] = []
    for m in range(5):
        acc = np.zeros(comb(52, m) * nrows, dtype=np.int64)
        for pos in combinations(range(5), m):
            idx = colex_index(hands[:, list(pos)]) if m else np.zeros(n, dtype=np.int64)
            acc += np.bincount(idx * nrows + cls, minlength=acc.size)
        counts.append(acc.reshape(comb(52, m), nrows).astype(np.int32))
    return counts


def cache_dir() -> Path:
    """Where optimal-hold tables are kept between runs (``REFEREE_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/referee``, else ``~/.cache/referee``)."""
    env = os.environ.get("REFEREE_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "referee"


@cache
def exact_result(table: tuple[tuple[str, float], ...]) -> DrawResult:
    """:func:`deuces_wild` of ``table`` (sorted ``(row, pay)`` pairs), once per process."""
    return deuces_wild(dict(table))


def table_key(table: Mapping[str, float]) -> tuple[tuple[str, float], ...]:
    """The cache key of a pay table: its paying rows, sorted."""
    return tuple(sorted((k, float(v)) for k, v in table.items() if v))


@cache
def hold_table(table: tuple[tuple[str, float], ...]) -> npt.NDArray[np.uint8]:
    """The optimal hold of every dealt hand for ``table`` (sorted ``(row, pay)`` pairs):
    computed once (~35 s) and kept on disk, keyed by the table, for later runs."""
    digest = hashlib.sha256(repr(("v2", table)).encode()).hexdigest()[:16]
    path = cache_dir() / f"deuces-holds-{digest}.npy"
    try:
        held = np.load(path)
        if held.shape == (comb(52, 5),) and held.dtype == np.uint8:
            return np.asarray(held, dtype=np.uint8)
    except (OSError, ValueError):
        pass
    result = exact_result(table).hold
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, result)
        tmp.replace(path)
    except OSError:
        pass  # a read-only home: computed again next time
    return result


def optimal_hold(table: Mapping[str, float]) -> Callable[[list[Card]], list[Card]]:
    """A player's draw strategy: the single-deck optimal hold for ``table`` (computed once
    per table, ~35 s, then cached on disk: :func:`hold_table`). Hands from a multi-deck shoe are
    looked up as they are: five distinct cards (the duplicate check leaves no identical cards);
    a joker is looked up as a deuce the hand does not hold (all four held: the joker is kept
    with them); anything else keeps all five."""
    holds = hold_table(table_key(table))

    def choose(cards: list[Card]) -> list[Card]:
        hand = list(cards)
        if JOKER in hand:
            free = [c for c in (0, 1, 2, 3) if c not in hand]
            if not free or hand.count(JOKER) > 1:
                return list(cards)
            hand[hand.index(JOKER)] = Card(free[0])
        if len(hand) != 5 or len(set(hand)) != 5:
            return list(cards)
        order = sorted(range(5), key=lambda i: hand[i])
        asc = np.array([[hand[i] for i in order]], dtype=np.int64)
        mask = int(holds[int(colex_index(asc)[0])])
        return [cards[order[p]] for p in range(5) if mask >> p & 1]

    return choose
