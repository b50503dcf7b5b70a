"""Hands per second: our evaluators against treys, pokerkit, eval7 and phevaluator.

Every library scores the SAME seeded hands in the SAME run; each measurement repeats its pass
until it has used ``--min-time`` seconds of CPU. Times are this process's CPU time
(``time.process_time``), so other load on a shared machine distorts the ratios less. Our
lookup tables fill lazily, so the first (cold) pass is timed and printed separately.
Libraries that are not installed are skipped.

The real limit is the first peer printed: **a C loop over phevaluator's C library**
(``bench/native/phe_loop.c`` linked with the C sources of the phevaluator sdist, built by
``bench/native/cref.py`` with ``cc -O3 -march=native``), timed by its own CPU clock over the same
hands, its rank sum checked against phevaluator's Python package. phevaluator is also measured
from Python, and named so: its C functions (``phevaluator._pheval.evaluate_7cards`` /
``evaluate_omaha_cards``) called in a Python loop, and its Python wrapper (``evaluate_cards`` /
``evaluate_omaha_cards``), which converts every card before calling them.
Our numpy batch evaluators (``standard_keys``, ``omaha_keys``) follow each table over the same
hands in one call; ``bench/analysis.py`` times them on a million.
Run: ``.venv/bin/python bench/evaluators.py [--hands N] [--min-time S]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

from referee.cards import Card, card_str
from referee.games.deuces.hands import deuces_key
from referee.games.seven.hands import seven_key
from referee.hands import best5_key, omaha_key

try:
    from referee.analysis.batch import standard_keys
    from referee.analysis.batch_omaha import omaha_keys
except ImportError:  # numpy (the analysis extra) missing: no batch rows
    pass

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent / "native"))
from cref import c_loop

C_LOOP = "C loop over phevaluator's C library"
MIN_TIME = [1.0]  # --min-time, for the batch rows


def c_reference(mode: str, cards: Sequence[Sequence[int]], min_time: float,
                check: Callable[[], int] | None) -> dict[str, float]:
    """The C loop's rate as a one-entry peer dict (empty without a build); ``check`` gives the
    rank sum phevaluator's Python package finds on the same hands."""
    got = c_loop(mode, cards, min_time)
    if got is None:
        return {}
    if check is not None and check() != got[1]:
        print(f"  C LOOP RANKS DIFFER from phevaluator's Python package ({mode})")
    return {C_LOOP: got[0]}


def _py_sum(name: str, hands: Sequence[Sequence[int]]) -> Callable[[], int] | None:
    """The rank sum of phevaluator's C function ``name`` called from Python over ``hands``."""
    try:
        from phevaluator import _pheval
    except ImportError:
        return None
    f = getattr(_pheval, name)
    return lambda: sum(f(*h) for h in hands)


def rate(fn: Callable[[], Any], n: int, min_time: float) -> float:
    """Hands per second of ``fn`` (one pass over ``n`` hands), repeated for ``min_time``."""
    reps, spent = 0, 0.0
    while spent < min_time:
        t = time.process_time()
        fn()
        spent += time.process_time() - t
        reps += 1
    return n * reps / spent


def report(title: str, ours: float, others: dict[str, float]) -> None:
    print(f"\n{title}")
    print(f"  {'ours':<38} {ours:>12,.0f} hands/s")
    for name, r in others.items():
        ratio = ours / r  # two significant digits below 1 (0.038x, not 0.0x)
        shown = f"{ratio:7.1f}" if ratio >= 1 else f"{ratio:7.2g}"
        print(f"  {name:<38} {r:>12,.0f} hands/s   ours = {shown}x")


def batch_rows(name: str, fn: Callable[[Any], Any], rows: Sequence[Sequence[int]],
               others: dict[str, float]) -> None:
    """Our numpy batch evaluator ``name`` over the same hands in one call (small batches pay
    numpy's per-call costs: ``bench/analysis.py`` times a million), against the C loop."""
    try:
        import numpy as np
    except ImportError:
        return
    arr = np.array(rows, dtype=np.uint8)
    fn(arr)  # builds its tables
    ours = rate(lambda: fn(arr), len(rows), MIN_TIME[0])
    report(f"  the same, numpy batch {name} ({len(rows):,} a call)", ours,
           {k: v for k, v in others.items() if k == C_LOOP})


def seven_card(hands: Sequence[list[int]], min_time: float) -> None:
    n = len(hands)
    t = time.process_time()
    for h in hands:
        best5_key(h)
    cold = n / (time.process_time() - t)
    ours = rate(lambda: [best5_key(h) for h in hands], n, min_time)
    others: dict[str, float] = {}
    others.update(c_reference("seven", hands, min_time, _py_sum("evaluate_7cards", hands)))
    strs = [[card_str(Card(c)) for c in h] for h in hands]
    try:
        import treys

        ev = treys.Evaluator()
        th = [[treys.Card.new(s) for s in h] for h in strs]
        others["treys Evaluator.evaluate"] = rate(
            lambda: [ev.evaluate(h[:2], h[2:]) for h in th], n, min_time
        )
    except ImportError:
        pass
    try:
        import pokerkit

        ph = [list(pokerkit.Card.parse("".join(h))) for h in strs]
        others["pokerkit StandardHighHand"] = rate(
            lambda: [pokerkit.StandardHighHand.from_game(h[:2], h[2:]) for h in ph], n, min_time
        )
    except ImportError:
        pass
    try:
        import eval7

        eh = [[eval7.Card(s) for s in h] for h in strs]
        others["eval7 (C extension)"] = rate(lambda: [eval7.evaluate(h) for h in eh], n, min_time)
    except ImportError:
        pass
    try:
        from phevaluator import _pheval, evaluate_cards

        c7 = _pheval.evaluate_7cards
        others["phevaluator C function, Python loop"] = rate(lambda: [c7(*h) for h in hands],
                                                            n, min_time)
        others["phevaluator wrapper evaluate_cards"] = rate(
            lambda: [evaluate_cards(*h) for h in hands], n, min_time)
    except ImportError:
        pass
    report(f"7-card hands (best 5 of 7), {n:,} hands; ours cold first pass {cold:,.0f}/s",
           ours, others)
    batch_rows("standard_keys", lambda a: standard_keys(a), hands, others)


def omaha(deals: Sequence[tuple[list[int], list[int]]], min_time: float) -> None:
    n = len(deals)
    t = time.process_time()
    for h, b in deals:
        omaha_key(h, b)
    cold = n / (time.process_time() - t)
    ours = rate(lambda: [omaha_key(h, b) for h, b in deals], n, min_time)
    others: dict[str, float] = {}
    boards_first = [[*b, *h] for h, b in deals]
    others.update(c_reference("omaha", [[*h, *b] for h, b in deals], min_time,
                              _py_sum("evaluate_omaha_cards", boards_first)))
    try:
        import pokerkit

        pd = [(list(pokerkit.Card.parse("".join(card_str(Card(c)) for c in h))),
               list(pokerkit.Card.parse("".join(card_str(Card(c)) for c in b)))) for h, b in deals]
        others["pokerkit OmahaHoldemHand"] = rate(
            lambda: [pokerkit.OmahaHoldemHand.from_game(h, b) for h, b in pd], n, min_time
        )
    except ImportError:
        pass
    try:
        import treys

        ev = treys.Evaluator()
        tc = [treys.Card.new(card_str(Card(c))) for c in range(52)]
        td = [([tc[c] for c in h], [tc[c] for c in b]) for h, b in deals]

        def treys60() -> None:
            for h, b in td:
                min(ev._five([*x, *y]) for x in combinations(h, 2) for y in combinations(b, 3))

        others["treys, 60 five-card lookups"] = rate(treys60, n, min_time)
    except ImportError:
        pass
    try:
        from phevaluator import _pheval, evaluate_omaha_cards

        co = _pheval.evaluate_omaha_cards
        others["phevaluator C function, Python loop"] = rate(
            lambda: [co(*b, *h) for h, b in deals], n, min_time
        )
        others["phevaluator wrapper (Omaha)"] = rate(
            lambda: [evaluate_omaha_cards(*b, *h) for h, b in deals], n, min_time
        )
    except ImportError:
        pass
    report(f"Omaha (exactly 2 of 4 + 3 of 5), {n:,} deals; ours cold first pass {cold:,.0f}/s",
           ours, others)
    batch_rows("omaha_keys", lambda a: omaha_keys(a[:, :4], a[:, 4:]),
               [[*h, *b] for h, b in deals], others)


def house_games(rng: random.Random, n: int, min_time: float) -> None:
    """Our six-deck evaluators alone (no library knows these games)."""
    seven = [[rng.randrange(52) for _ in range(7)] for _ in range(n)]
    deuces = [[rng.randrange(52) for _ in range(5)] for _ in range(n)]
    print("\nHouse games, random six-deck hands without jokers (ours only)")
    for name, fn, hands in (("seven_key (7 cards)", seven_key, seven),
                            ("deuces_key (5 cards)", deuces_key, deuces)):
        t = time.process_time()
        for h in hands:
            fn(h)
        cold = n / (time.process_time() - t)
        warm = rate(lambda fn=fn, hands=hands: [fn(h) for h in hands], n, min_time)
        print(f"  {name:<34} {warm:>12,.0f} hands/s warm, {cold:>10,.0f} hands/s cold first pass")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=5000, help="hands/deals per test (default 5000)")
    ap.add_argument("--min-time", type=float, default=1.0, help="seconds per measurement")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    MIN_TIME[0] = args.min_time
    rng = random.Random(args.seed)
    hands = [rng.sample(range(52), 7) for _ in range(args.hands)]
    seven_card(hands, args.min_time)
    deals = []
    for _ in range(args.hands):
        d = rng.sample(range(52), 9)
        deals.append((d[:4], d[4:]))
    omaha(deals, args.min_time)
    house_games(rng, args.hands, args.min_time)


if __name__ == "__main__":
    main()
