"""Exact draw analysis of five-card single-deck draw poker (video poker), optimal hold.

For every one of the 2,598,960 dealt hands and each of its 32 holds, the pay of every
completion is *counted*, not dealt (Wizard of Odds' method). The work splits in two:

**Pay-table independent** (:func:`draw_tables`, computed once and kept on disk):

1. the deuces class of every five-card hand (:func:`referee.analysis.batch.deuces_classes`);
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

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np
import numpy.typing as npt

from referee.analysis.batch import (
    BINOM,
    colex_index,
    combinations_colex,
    deuces_classes,
    five_card_hands,
)
from referee.cards import JOKER, Card
from referee.hands import CLASSES

#: full-pay Deuces Wild, "for one" (the stake included): Wizard of Odds' 100.7620% table
FULL_PAY_DEUCES_WILD: dict[str, float] = {
    "natural_royal_flush": 800, "four_deuces": 200, "wild_royal_flush": 25, "five_of_a_kind": 15,
    "straight_flush": 9, "four_of_a_kind": 5, "full_house": 3, "flush": 2, "straight": 2,
    "three_of_a_kind": 1,
}

CLASS_NAMES = CLASSES["deuces"]
_K = len(CLASS_NAMES)
_MASKS = [[p for p in range(5) if m >> p & 1] for m in range(32)]
_SIZE = np.array([len(p) for p in _MASKS])
_DIV = np.array([comb(47, 5 - int(s)) for s in _SIZE], dtype=np.float64)
_CHUNK = 1 << 18
_REP_CHUNK = 1 << 15
#: the modules whose code decides the cached tables (part of the cache key)
_CODE = ("analysis/draw.py", "analysis/batch.py", "hands/deuces.py", "hands/names.py",
         "hands/core.py")


@dataclass(frozen=True)
class DrawTables:
    """The pay-table-independent part (module doc): ``counts[m][colex(S), class]`` for every
    subset of ``m`` <= 4 cards; the suit-class representatives (cards ascending, rows in colex
    order of the representative), how many dealt hands each stands for, and its class."""

    counts: tuple[npt.NDArray[np.int64], ...]
    reps: npt.NDArray[np.uint8]
    weight: npt.NDArray[np.int64]
    rep_class: npt.NDArray[np.uint8]

    @property
    def rep_colex(self) -> npt.NDArray[np.int64]:
        return colex_index(self.reps)

    def sub_index(self, rows: slice) -> npt.NDArray[np.int64]:
        """``[i, mask]``: the colex index (within its size) of the cards ``mask`` holds of
        representative ``i`` (0 for the whole hand, which is looked up by its class)."""
        reps = self.reps[rows].astype(np.int64)
        out = np.zeros((reps.shape[0], 32), dtype=np.int64)
        for mask, held in enumerate(_MASKS):
            if 0 < len(held) < 5:
                out[:, mask] = colex_index(reps[:, held])
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


def _subset_counts(hands_t: npt.NDArray[np.uint8], cls: npt.NDArray[np.uint8]
                   ) -> tuple[npt.NDArray[np.int64], ...]:
    """``N[m][colex(S), class]`` for m = 0..4 (module doc, step 2); ``hands_t``: the hands
    one column a card (shape (5, n))."""
    n = hands_t.shape[1]
    acc = np.zeros(comb(52, 4) * _K, dtype=np.int64)
    for start in range(0, n, _CHUNK):
        c = hands_t[:, start:start + _CHUNK].astype(np.int64)
        k = cls[start:start + _CHUNK].astype(np.int64)
        keep = [BINOM[c[j], j + 1] for j in range(5)]  # card j below the dropped one
        shift = [BINOM[c[j], j] for j in range(5)]  # card j above it
        idx = np.concatenate([
            sum((keep[j] for j in range(p)), np.zeros_like(k))
            + sum((shift[j] for j in range(p + 1, 5)), np.zeros_like(k))
            for p in range(5)]) * _K + np.tile(k, 5)
        acc += np.bincount(idx, minlength=acc.size)
    counts = [acc.reshape(-1, _K)]
    for m in range(3, -1, -1):
        upper = counts[0]
        combos = combinations_colex(52, m + 1).astype(np.int64)
        total = np.zeros(comb(52, m) * _K)
        for p in range(m + 1):
            rest = [j for j in range(m + 1) if j != p]
            idx = colex_index(combos[:, rest]) if rest else np.zeros(combos.shape[0], np.int64)
            flat = (idx[:, None] * _K + np.arange(_K)).reshape(-1)
            total += np.bincount(flat, weights=upper.reshape(-1), minlength=total.size)
        counts.insert(0, np.rint(total / (5 - m)).astype(np.int64).reshape(-1, _K))
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
    present = (masks[:, :, None] >> np.arange(13)) & 1  # [row, suit, rank]
    flat = present.transpose(0, 2, 1).reshape(masks.shape[0], 52)  # column = card id
    reps = np.nonzero(flat)[1].reshape(-1, 5).astype(np.uint8)
    order = np.argsort(colex_index(reps))
    return reps[order], weight[order].astype(np.int64)


def _compute_tables() -> DrawTables:
    hands = five_card_hands()
    cls = deuces_classes(hands)
    hands_t = np.ascontiguousarray(hands.T)
    del hands
    counts = _subset_counts(hands_t, cls)
    del hands_t, cls
    reps, weight = _suit_classes()
    return DrawTables(counts=counts, reps=reps, weight=weight, rep_class=deuces_classes(reps))


def cache_dir() -> Path:
    """Where the analysis keeps its pay-table-independent tables between runs
    (``REFEREE_CACHE_DIR``, else ``$XDG_CACHE_HOME/referee``, else ``~/.cache/referee``)."""
    env = os.environ.get("REFEREE_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "referee"


def cache_key() -> str:
    """The code that decides the tables (its source bytes) and the part of the game it reads
    (the deuces classes; single deck, no joker: video poker's deck whatever the shoe)."""
    h = hashlib.sha256(repr(("deuces-draw", CLASS_NAMES, "52 cards, no joker")).encode())
    root = Path(__file__).resolve().parent.parent
    for rel in _CODE:
        h.update((root / rel).read_bytes())
    return h.hexdigest()[:20]


def cache_path() -> Path:
    return cache_dir() / f"deuces-draw-{cache_key()}.npz"


@cache
def draw_tables() -> DrawTables:
    """:class:`DrawTables`, from the disk cache when its key matches, else computed and saved
    (a read-only or missing home only means computing again next time)."""
    path = cache_path()
    try:
        with np.load(path) as z:
            tables = DrawTables(
                counts=tuple(np.asarray(z[f"counts{m}"], dtype=np.int64) for m in range(5)),
                reps=z["reps"], weight=z["weight"], rep_class=z["rep_class"])
        if tables.counts[4].shape == (comb(52, 4), _K) \
                and int(tables.weight.sum()) == comb(52, 5):
            return tables
    except (OSError, ValueError, KeyError):
        pass
    tables = _compute_tables()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
        with tmp.open("wb") as f:
            np.savez(f, reps=tables.reps, weight=tables.weight, rep_class=tables.rep_class,
                     **{f"counts{m}": tables.counts[m].astype(np.int32) for m in range(5)})
        tmp.replace(path)
    except OSError:
        pass
    return tables


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
    pay_of = [t.counts[m] @ pays for m in range(5)]
    n = int(t.weight.sum())
    total = 0.0
    rep_hold = np.zeros(t.reps.shape[0], dtype=np.uint8)
    w_sub = [np.zeros(comb(52, m)) for m in range(5)]
    w_whole = np.zeros(_K)
    for start in range(0, t.reps.shape[0], _REP_CHUNK):
        rows = slice(start, start + _REP_CHUNK)
        sub = t.sub_index(rows)
        cls = t.rep_class[rows].astype(np.int64)
        w = t.weight[rows].astype(np.float64)
        v = np.empty(sub.shape)
        for mask in range(32):
            s = int(_SIZE[mask])
            v[:, mask] = pays[cls] if s == 5 else pay_of[s][sub[:, mask]]
        for b in range(5):  # superset Moebius transform: inclusion-exclusion of the discards
            lo = [m for m in range(32) if not m >> b & 1]
            v[:, lo] -= v[:, [m | 1 << b for m in lo]]
        v /= _DIV
        best = v.argmax(axis=1)
        rep_hold[rows] = best
        total += float((v[np.arange(best.size), best] * w).sum())
        # the chosen holds' completions by class: the same signs over the counts
        for u in range(32):
            sel = np.flatnonzero((u & best) == best)
            if not sel.size:
                continue
            diff = np.array([bin(x).count("1") for x in range(32)])[u ^ best[sel]]
            coef = w[sel] * np.where(diff % 2, -1.0, 1.0) / _DIV[best[sel]]
            s = int(_SIZE[u])
            if s == 5:
                w_whole += np.bincount(cls[sel], weights=coef, minlength=_K)
            else:
                w_sub[s] += np.bincount(sub[sel, u], weights=coef, minlength=w_sub[s].size)
    probs = (w_whole + sum(w_sub[m] @ t.counts[m] for m in range(5))) / n
    if progress is not None:
        progress(n)
    rows_out = {name: float(probs[i]) for i, name in enumerate(CLASS_NAMES) if table.get(name)}
    return DrawResult(ret=total / n, rows=rows_out, rep_hold=rep_hold, hands=n, tables=t)


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
