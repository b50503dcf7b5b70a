"""Reference (slow, general) hand analysis shared by every game's evaluator.

:func:`categories` looks at any number (>= 5) of natural cards -- identical cards allowed, as in
a six-deck shoe -- and reports every five-card category present with its best tiebreak. Each
game then picks the strongest category by its own order. The fast evaluators use it only to
fill their lookup tables and on rare paths, so clarity wins over speed here.
"""

from __future__ import annotations

from collections.abc import Sequence

Tiebreak = tuple[int, ...]


def straight_top(ranks: set[int] | frozenset[int], length: int = 5) -> int:
    """Top rank of the highest run of ``length`` consecutive ranks, -1 if none.

    The ace also plays low: A-2-3-4-5 (top 3, i.e. the 5) and for seven-card runs A-2-…-7.
    """
    for top in range(12, length - 2, -1):
        if all(r in ranks for r in range(top - length + 1, top + 1)):
            return top
    # the wheel: the ace plays below the 2
    top = length - 2
    if 12 in ranks and all(r in ranks for r in range(top + 1)):
        return top
    return -1


def _top(desc: list[int], remove: dict[int, int], k: int) -> Tiebreak:
    """The ``k`` highest ranks of ``desc`` (ranks high to low, repeats kept) after removing
    ``remove[r]`` copies of each rank r."""
    left = dict(remove)
    out: list[int] = []
    for r in desc:
        if left.get(r, 0):
            left[r] -= 1
            continue
        out.append(r)
        if len(out) == k:
            break
    return tuple(out)


def categories(cards: Sequence[int]) -> dict[str, Tiebreak]:
    """Every five-card category present among ``cards`` (>= 5 natural cards) with its best
    tiebreak (a tuple of ranks, compared lexicographically)."""
    counts = [0] * 13
    by_suit: list[list[int]] = [[], [], [], []]
    for c in cards:
        r = c >> 2
        counts[r] += 1
        by_suit[c & 3].append(r)
    desc = [r for r in range(12, -1, -1) for _ in range(counts[r])]
    out: dict[str, Tiebreak] = {}

    for r in range(12, -1, -1):
        if counts[r] >= 5:
            out["five_of_a_kind"] = (r,)
            break

    best_sf = -1
    best_flush: Tiebreak | None = None
    for rs in by_suit:
        if len(rs) >= 5:
            best_sf = max(best_sf, straight_top(set(rs)))
            fl = tuple(sorted(rs, reverse=True)[:5])
            if best_flush is None or fl > best_flush:
                best_flush = fl
    if best_sf == 12:
        out["royal_flush"] = (12,)
    elif best_sf >= 0:
        out["straight_flush"] = (best_sf,)

    for r in range(12, -1, -1):
        if counts[r] >= 4:
            out["four_of_a_kind"] = (r, *_top(desc, {r: 4}, 1))
            break

    trips = [r for r in range(12, -1, -1) if counts[r] >= 3]
    pairs = [r for r in range(12, -1, -1) if counts[r] >= 2]
    if trips:
        t = trips[0]
        others = [p for p in pairs if p != t]
        if others:
            out["full_house"] = (t, others[0])
    if best_flush is not None:
        out["flush"] = best_flush
    st = straight_top(set(desc))
    if st >= 0:
        out["straight"] = (st,)
    if trips:
        t = trips[0]
        out["three_of_a_kind"] = (t, *_top(desc, {t: 3}, 2))
    if len(pairs) >= 2:
        p, q = pairs[0], pairs[1]
        out["two_pair"] = (p, q, *_top(desc, {p: 2, q: 2}, 1))
    if pairs:
        p = pairs[0]
        out["one_pair"] = (p, *_top(desc, {p: 2}, 3))
    out["high_card"] = tuple(desc[:5])
    return out


def best_of(found: dict[str, Tiebreak], order: Sequence[str]) -> tuple[str, Tiebreak]:
    """The strongest of ``found`` by ``order`` (strongest first)."""
    for name in order:
        if name in found:
            return name, found[name]
    raise ValueError("no category found")  # pragma: no cover - high_card is always present
