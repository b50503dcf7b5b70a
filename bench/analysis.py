"""``referee analyze``'s machinery: the numpy batch evaluator against peers, and the exact
full-pay Deuces Wild analysis.

* 7-card and 5-card hands per second of :func:`referee.analysis.batch.standard_keys` against
  treys, eval7 and phevaluator (C) scoring the SAME seeded hands in the SAME run, and against our
  own one-hand-at-a-time ``best5_key``; the batch's tables are filled on first use, so that
  cold pass is printed separately. Libraries that are not installed are skipped.
* 5-card deuces hands: :func:`~referee.analysis.batch.deuces_keys` against ``deuces_key``.
* The exact optimal-hold analysis of full-pay Deuces Wild (2,598,960 hands x 32 holds, every
  completion counted): wall and CPU time, and the return (100.7620%).

Times are CPU time of this process (``time.process_time``) unless marked wall.
Run: ``.venv/bin/python bench/analysis.py [--hands N] [--min-time S] [--no-exact]``.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from referee.analysis.batch import deuces_keys, standard_keys
from referee.analysis.draw import deuces_wild
from referee.cards import Card, card_str
from referee.hands import best5_key, deuces_key


def rate(fn: Callable[[], Any], n: int, min_time: float) -> float:
    reps, spent = 0, 0.0
    while spent < min_time:
        t = time.process_time()
        fn()
        spent += time.process_time() - t
        reps += 1
    return n * reps / spent


def report(title: str, ours: float, others: dict[str, float]) -> None:
    print(f"\n{title}")
    print(f"  {'ours (numpy batch)':<36} {ours:>14,.0f} hands/s")
    for name, r in others.items():
        print(f"  {name:<36} {r:>14,.0f} hands/s   ours = {ours / r:8.1f}x")


def standard(size: int, n: int, min_time: float) -> None:
    rng = random.Random(size)
    hands = [rng.sample(range(52), size) for _ in range(n)]
    arr = np.array(hands, dtype=np.int64)
    t = time.process_time()
    standard_keys(arr)
    cold = n / (time.process_time() - t)
    ours = rate(lambda: standard_keys(arr), n, min_time)
    small = hands[: max(n // 10, 1000)]
    others: dict[str, float] = {
        "best5_key (ours, one at a time)": rate(lambda: [best5_key(h) for h in small],
                                                len(small), min_time),
    }
    strs = [[card_str(Card(c)) for c in h] for h in small]
    try:
        import treys

        ev = treys.Evaluator()
        th = [[treys.Card.new(s) for s in h] for h in strs]
        others["treys Evaluator.evaluate"] = rate(
            lambda: [ev.evaluate(h[:2], h[2:]) for h in th], len(small), min_time)
    except ImportError:
        pass
    try:
        import eval7

        eh = [[eval7.Card(s) for s in h] for h in strs]
        others["eval7 (C extension)"] = rate(lambda: [eval7.evaluate(h) for h in eh],
                                             len(small), min_time)
    except ImportError:
        pass
    try:
        import phevaluator

        ph = phevaluator.evaluate_cards
        others["phevaluator evaluate_cards (C)"] = rate(lambda: [ph(*h) for h in small],
                                                        len(small), min_time)
    except ImportError:
        pass
    report(f"{size}-card hands, {n:,} a batch; ours cold first pass {cold:,.0f}/s", ours,
           others)


def deuces(n: int, min_time: float) -> None:
    rng = random.Random(3)
    shoe = list(range(52)) * 6
    hands = [rng.sample(shoe, 5) for _ in range(n)]
    arr = np.array(hands, dtype=np.int64)
    t = time.process_time()
    deuces_keys(arr)  # fills the shapes' table (the evaluator's own memo, cold)
    cold = n / (time.process_time() - t)
    ours = rate(lambda: deuces_keys(arr), n, min_time)
    small = [[Card(c) for c in h] for h in hands[: max(n // 10, 1000)]]
    scalar = rate(lambda: [deuces_key(h) for h in small], len(small), min_time)
    report(f"deuces 5-card hands (6 decks), {n:,} a batch; ours cold first pass {cold:,.0f}/s",
           ours,
           {"deuces_key (ours, one at a time)": scalar})


def exact() -> None:
    t, c = time.perf_counter(), time.process_time()
    res = deuces_wild()
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    print("\nfull-pay Deuces Wild, exact optimal hold (2,598,960 hands x 32 holds)")
    print(f"  return {res.ret * 100:.4f}% (Wizard of Odds 100.7620%)  "
          f"wall {wall:.1f} s  cpu {cpu:.1f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--min-time", type=float, default=2.0)
    ap.add_argument("--no-exact", action="store_true")
    args = ap.parse_args()
    standard(7, args.hands, args.min_time)
    standard(5, args.hands, args.min_time)
    deuces(args.hands, args.min_time)
    if not args.no_exact:
        exact()


if __name__ == "__main__":
    main()
