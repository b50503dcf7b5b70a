"""``referee analyze``'s machinery against the real limit, a C loop, ratios in one run.

The C references are built by the bench (``bench/native/cref.py``: phevaluator's C library from
its sdist and ``bench/native/phe_loop.c``, ``bench/native/deuces_wild_ref.c``, all with ``cc -O3
-march=native``, cached in ``~/.cache/referee-bench``) and time themselves with their own CPU
clock, so their start-up is not counted; ours are timed the same way (the compute alone, in a
fresh process after its imports), and the start-up of each process is printed separately.

1. **Batch 7-card evaluation**: :func:`referee.analysis.batch.standard_keys` (numpy, packed
   counters; its tables filled before timing, the cold first pass printed apart) against, on
   the SAME seeded hands in the SAME run: **the C loop over phevaluator's C library**
   (``evaluate_7cards`` over every hand, in C); the phevaluator **C function**
   ``phevaluator._pheval.evaluate_7cards`` called in a Python loop (``[f(*h) for h in
   hands]``, "the phevaluator C loop"); phevaluator's Python wrapper ``evaluate_cards`` (which
   converts every card before calling that function); eval7's C ``evaluate`` on its Card
   objects; treys; and our one-hand-at-a-time ``best5_key``. Rates are hands per CPU second of
   this process (``time.process_time``).
1b. **Batch Omaha evaluation**: :func:`referee.analysis.batch_omaha.omaha_keys` (exactly 2 of
   4 hole + 3 of 5 board) against the C loop over phevaluator's ``evaluate_plo4_cards`` on the
   SAME seeded deals, beside phevaluator's C function in a Python loop and our
   ``omaha_key`` one deal at a time.
2. **Exact holdem_aa AA bet**: the compute of ``analyze(definition("holdem_aa"), ["aa"])``
   in a fresh process (CPU seconds of the call alone, after the imports, the definition and
   the game's analysis module -- ``analysis_of(game)`` -- which are start-up and printed as
   such: on an empty ``REFEREE_CACHE_DIR``, then
   the same call again in that process, then a new process on the filled cache) against ``phe_loop
   aa`` (every one of the 2,598,960 five-card hands through phevaluator's C ``evaluate_5cards``,
   counted by rank, in C). Then whole processes, start-up included, as before: the command
   ``referee analyze holdem_aa --bet aa --json`` (cold cache, warm, and a warm ``--set``
   what-if) against ``bench/native/aa_phevaluator.py`` (a Python loop calling the same C
   function): CPU time (user + sys), wall time and peak RSS of each process.
3. **Exact full-pay Deuces Wild**: the compute of ``analyze(definition("deuces"),
   ["video_poker"])`` timed as in 2, against ``deuces_wild_ref classes`` (the counting method of
   the public Zig program panda-probs, written in C: class-frequency vectors, one thread, one
   hand of each of the 134,459 suit classes weighted by its size), and beside it the same
   program over every dealt hand as panda-probs does; then the whole processes as before.

Libraries that are not installed, or no C compiler, skip their lines. phevaluator, eval7 and
treys are bench/test-only (the ``test`` extra), never runtime dependencies.
Run: ``.venv/bin/python bench/analysis.py [--hands N] [--min-time S] [--no-exact]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from referee.analysis.batch import standard_keys
from referee.analysis.batch_omaha import omaha_keys
from referee.cards import Card, card_str
from referee.definitions import load
from referee.games.deuces.batch import deuces_keys
from referee.games.deuces.hands import deuces_key
from referee.hands import best5_key, omaha_key

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "native"))
from cref import c_loop, deuces_ref, phe_loop  # noqa: E402


def rate(fn: Callable[[], Any], n: int, min_time: float) -> float:
    reps, spent = 0, 0.0
    while spent < min_time:
        t = time.process_time()
        fn()
        spent += time.process_time() - t
        reps += 1
    return n * reps / spent


def report(title: str, ours: float, others: dict[str, float],
           label: str = "ours: standard_keys (numpy batch)") -> None:
    print(f"\n{title}")
    print(f"  {label:<52} {ours:>13,.0f} hands/s")
    for name, r in others.items():
        print(f"  {name:<52} {r:>13,.0f} hands/s   ours = {ours / r:6.2f}x")


def _against_c(warm: Callable[[], object], batch: Callable[[], object], kind: str,
               hands: list[list[int]], min_time: float) -> tuple[float, float, dict[str, float]]:
    """The CPU time of the first (table-filling) call, our batch rate, and the C loop's rate
    over the same hands (the peers' dict, to which the other peers are added)."""
    t = time.process_time()
    warm()
    fill = time.process_time() - t
    ours = rate(batch, len(hands), min_time)
    others: dict[str, float] = {}
    got = c_loop(kind, hands, min_time)
    if got is not None:
        others["C loop over phevaluator's C library (-O3)"] = got[0]
    return fill, ours, others


def seven_card(n: int, min_time: float) -> None:
    rng = random.Random(7)
    hands = [rng.sample(range(52), 7) for _ in range(n)]
    arr = np.array(hands, dtype=np.uint8)
    # (the first call fills the multiset tables, once per process)
    fill, ours, others = _against_c(lambda: standard_keys(arr[:1000]),
                                    lambda: standard_keys(arr), "seven", hands, min_time)
    small = hands[: max(n // 10, 1000)]
    try:
        from phevaluator import _pheval, evaluate_cards

        f = _pheval.evaluate_7cards
        others["phevaluator C evaluate_7cards, Python loop"] = rate(
            lambda: [f(*h) for h in small], len(small), min_time)
        others["phevaluator Python wrapper evaluate_cards"] = rate(
            lambda: [evaluate_cards(*h) for h in small], len(small), min_time)
    except ImportError:
        pass
    strs = [[card_str(Card(c)) for c in h] for h in small]
    try:
        import eval7

        eh = [[eval7.Card(s) for s in h] for h in strs]
        others["eval7 C evaluate (Card objects), Python loop"] = rate(
            lambda: [eval7.evaluate(h) for h in eh], len(small), min_time)
    except ImportError:
        pass
    try:
        import treys

        ev = treys.Evaluator()
        th = [[treys.Card.new(s) for s in h] for h in strs]
        others["treys Evaluator.evaluate"] = rate(
            lambda: [ev.evaluate(h[:2], h[2:]) for h in th], len(small), min_time)
    except ImportError:
        pass
    others["ours: best5_key, one hand at a time"] = rate(
        lambda: [best5_key(h) for h in small], len(small), min_time)
    report(f"7-card hands (best 5 of 7), {n:,} a batch; ours' tables filled in {fill:.2f} s",
           ours, others)


def omaha_batch(n: int, min_time: float) -> None:
    """:func:`referee.analysis.batch_omaha.omaha_keys` against the C loop over phevaluator's
    ``evaluate_plo4_cards`` on the same seeded deals (4 hole + 5 board)."""
    rng = random.Random(9)
    deals = [rng.sample(range(52), 9) for _ in range(n)]
    arr = np.array(deals, dtype=np.uint8)
    hole, board = arr[:, :4], arr[:, 4:]
    # (the first call builds the two tables, once per process)
    fill, ours, others = _against_c(lambda: omaha_keys(hole[:1000], board[:1000]),
                                    lambda: omaha_keys(hole, board), "omaha", deals, min_time)
    small = deals[: max(n // 20, 1000)]
    try:
        from phevaluator import _pheval

        f = _pheval.evaluate_omaha_cards
        others["phevaluator C evaluate_omaha_cards, Python loop"] = rate(
            lambda: [f(*d[4:], *d[:4]) for d in small], len(small), min_time)
    except ImportError:
        pass
    others["ours: omaha_key, one deal at a time"] = rate(
        lambda: [omaha_key(d[:4], d[4:]) for d in small], len(small), min_time)
    report(f"Omaha deals (exactly 2 of 4 + 3 of 5), {n:,} a batch; ours' tables built in "
           f"{fill:.2f} s", ours, others, "ours: omaha_keys (numpy batch)")


def deuces_batch(n: int, min_time: float) -> None:
    rng = random.Random(3)
    shoe = list(range(52)) * 6
    arr = np.array([rng.sample(shoe, 5) for _ in range(n)], dtype=np.int64)
    deuces_keys(arr)  # fills the shapes' memo (the evaluator's own, cold)
    ours = rate(lambda: deuces_keys(arr), n, min_time)
    small = [[Card(int(c)) for c in h] for h in arr[: max(n // 10, 1000)]]
    scalar = rate(lambda: [deuces_key(h) for h in small], len(small), min_time)
    print(f"\ndeuces 5-card hands (6 decks), {n:,} a batch")
    print(f"  {'ours: deuces_keys (numpy batch)':<52} {ours:>13,.0f} hands/s")
    print(f"  {'ours: deuces_key, one hand at a time':<52} {scalar:>13,.0f} hands/s   "
          f"ours = {ours / scalar:6.2f}x")


# Peak RSS is read by a small launcher process: a child forked from this (large) bench process
# would report this process's size as its own peak (Linux carries the forked image's high-water
# mark through exec).
_LAUNCHER = """
import json, os, sys, time
argv = json.loads(sys.argv[1])
t = time.perf_counter()
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.dup2(w, 1)
    os.execvp(argv[0], argv)
os.close(w)
out = b""
while chunk := os.read(r, 65536):
    out += chunk
_, status, ru = os.wait4(pid, 0)
print(json.dumps({"out": out.decode(), "code": os.waitstatus_to_exitcode(status),
                  "wall": time.perf_counter() - t, "cpu": ru.ru_utime + ru.ru_stime,
                  "mb": ru.ru_maxrss / 1024}))
"""


class Run:
    """One process: its output, CPU seconds (user + sys), wall seconds and peak RSS (MB)."""

    def __init__(self, argv: Sequence[str], env: dict[str, str] | None = None) -> None:
        done = subprocess.run([sys.executable, "-c", _LAUNCHER, json.dumps(list(argv))],
                              capture_output=True, text=True, env=env, cwd=ROOT, check=True)
        got = json.loads(done.stdout)
        if got["code"]:
            raise SystemExit(f"{' '.join(argv)}: exit {got['code']}")
        self.out: str = got["out"]
        self.wall: float = got["wall"]
        self.cpu: float = got["cpu"]
        self.mb: float = got["mb"]

    def line(self, name: str, ref: Run | None = None) -> str:
        ratio = f"   cpu {self.cpu / ref.cpu:5.2f}x, wall {self.wall / ref.wall:5.2f}x the ref" \
            if ref is not None else ""
        return (f"  {name:<50} cpu {self.cpu:6.2f} s  wall {self.wall:6.2f} s  "
                f"peak {self.mb:6.1f} MB{ratio}")


# The compute alone, in a fresh process: imports first (start-up), then the analysis on an
# empty or filled cache, then the same call again in the same process.
_COMPUTE = """
import json, os, sys, time
t = time.process_time()
from referee.analysis import analysis_of, analyze
from referee.analysis.tables import definition
d = definition(sys.argv[1])
analysis_of(sys.argv[1])  # imports the game's analysis module (and engine): start-up too
start = time.process_time() - t
times = []
for _ in range(2):
    t = time.process_time()
    ret = analyze(d, [sys.argv[2]]).bets[0].ret
    times.append(time.process_time() - t)
print(json.dumps({"start": start, "first": times[0], "again": times[1], "return": ret}))
"""


def compute(game: str, bet: str, cache: str) -> tuple[dict[str, float], Run]:
    """The compute times of ``game``'s ``bet`` (see :data:`_COMPUTE`) and the process."""
    run = Run([sys.executable, "-c", _COMPUTE, game, bet],
              env=dict(os.environ, REFEREE_CACHE_DIR=cache))
    return json.loads(run.out), run


def compute_lines(game: str, bet: str, ref_s: float, ref_name: str) -> float:
    """Prints ours' compute (cold, again, warm disk cache) against ``ref_s`` C CPU seconds."""
    print(f"  {ref_name:<58} {ref_s:7.3f} s CPU (compute alone)")
    with tempfile.TemporaryDirectory() as tmp:
        cold, run = compute(game, bet, tmp)
        warm, _ = compute(game, bet, tmp)
    for name, sec in ((f"ours: analyze({game}, {bet}) compute, empty cache", cold["first"]),
                      ("ours: the same call again in that process (memoised)", cold["again"]),
                      ("ours: a new process, cache filled", warm["first"])):
        print(f"  {name:<58} {sec:7.3f} s CPU   ours = {sec / ref_s:6.2f}x the C time")
    print(f"  {'ours: start-up of that process (imports, definition, hooks)':<58} "
          f"{cold['start']:7.3f} s CPU; whole process peak RSS {run.mb:.1f} MB")
    return float(cold["return"])


def _referee(*args: str, env: dict[str, str] | None = None) -> Run:
    return Run([sys.executable, "-m", "referee.cli", "analyze", *args], env=env)


def _return(run: Run) -> float:
    return float(json.loads(run.out)["bets"][0]["return"])


def exact_aa() -> None:
    print("\nexact holdem_aa AA bet (2,598,960 hole + flop hands)")
    rules = load("holdem_aa").holdem_aa
    assert rules is not None
    exe = phe_loop()
    if exe is not None:
        got = json.loads(subprocess.run([str(exe), "aa"], capture_output=True, text=True,
                                        check=True).stdout)
        counts = got["counts"]
        bands = [("royal_flush", 1, 1), ("straight_flush", 2, 10), ("four_of_a_kind", 11, 166),
                 ("full_house", 167, 322), ("flush", 323, 1599), ("straight", 1600, 1609),
                 ("three_of_a_kind", 1610, 2467), ("two_pair", 2468, 3325),
                 ("pair_of_aces", 3326, 3545)]
        c_ret = sum(float(rules.aa_table[r]) * sum(counts[lo:hi + 1])
                    for r, lo, hi in bands) / sum(counts)
        ours_ret = compute_lines("holdem_aa", "aa", got["seconds"],
                                 "C loop over phevaluator's C evaluate_5cards (-O3)")
        print(f"  return {ours_ret * 100:.4f}% (C loop {c_ret * 100:.4f}%)"
              + ("" if abs(ours_ret - c_ret) < 1e-12 else "  RETURNS DIFFER"))
    print("  whole processes, start-up included:")
    ref = None
    try:
        import phevaluator  # noqa: F401

        ref = Run([sys.executable, str(HERE / "native" / "aa_phevaluator.py"),
                   json.dumps({k: float(v) for k, v in rules.aa_table.items()})])
    except ImportError:
        print("  (phevaluator not installed: no reference)")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, REFEREE_CACHE_DIR=tmp)
        cold = _referee("holdem_aa", "--bet", "aa", "--json", env=env)
        warm = _referee("holdem_aa", "--bet", "aa", "--json", env=env)
        what_if = _referee("holdem_aa", "--bet", "aa", "--json",
                           "--set", "aa_table.royal_flush=301", env=env)
    if ref is not None:
        print(ref.line("ref: Python loop over phevaluator C evaluate_5cards"))
        if abs(json.loads(ref.out)["return"] - _return(cold)) > 1e-12:
            print("  RETURNS DIFFER")
    print(cold.line("ours: analyze holdem_aa --bet aa, cold cache", ref))
    print(warm.line("ours: the same, warm cache", ref))
    print(what_if.line("ours: warm, --set aa_table.royal_flush=301", ref))
    print(f"  return {_return(cold) * 100:.4f}%; with royal_flush=301: "
          f"{_return(what_if) * 100:.4f}%")


def exact_deuces() -> None:
    print("\nexact full-pay Deuces Wild, optimal hold (2,598,960 hands x 32 holds)")
    ref = None
    exe = deuces_ref()
    if exe is not None:
        def c_time(*args: str) -> tuple[float, float]:
            out = dict(line.split() for line in subprocess.run(
                [str(exe), *args], capture_output=True, text=True, check=True).stdout.splitlines())
            return float(out["cpu_seconds"]), float(out["return"].rstrip("%")) / 100
        classes_s, c_ret = c_time("classes")
        every_s, _ = c_time()
        print(f"  {'C over every dealt hand (panda-probs, no suit classes)':<58} "
              f"{every_s:7.3f} s CPU (compute alone)")
        ours_ret = compute_lines("deuces", "video_poker", classes_s,
                                 "C over the 134,459 suit classes (-O3)")
        print(f"  return {ours_ret * 100:.4f}% (C {c_ret * 100:.4f}%)"
              + ("" if abs(ours_ret - c_ret) < 1e-8 else "  RETURNS DIFFER"))
    print("  whole processes, start-up included:")
    with tempfile.TemporaryDirectory() as tmp:
        if exe is not None:
            ref = Run([str(exe)])
            print(ref.line("ref: C, panda-probs' method (cc -O3 -march=native)"))
        else:
            print("  (no C compiler: no reference)")
        env = dict(os.environ, REFEREE_CACHE_DIR=str(Path(tmp) / "cache"))
        cold = _referee("deuces", "--bet", "video_poker", "--json", env=env)
        print(cold.line("ours: analyze deuces --bet video_poker, cold cache", ref))
        warm = _referee("deuces", "--bet", "video_poker", "--json", env=env)
        print(warm.line("ours: the same, warm cache", ref))
        what_if = _referee("deuces", "--bet", "video_poker", "--json",
                           "--set", "player_table.flush=3", env=env)
        print(what_if.line("ours: warm, --set player_table.flush=3", ref))
        if ref is not None:
            ref_ret = float(ref.out.split()[1].rstrip("%")) / 100
            print(f"  return {_return(cold) * 100:.4f}% (ref {ref_ret * 100:.4f}%); "
                  f"with flush=3: {_return(what_if) * 100:.4f}%")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--min-time", type=float, default=1.0)
    ap.add_argument("--no-exact", action="store_true")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    seven_card(args.hands, args.min_time)
    omaha_batch(args.hands, args.min_time)
    deuces_batch(args.hands // 4, args.min_time)
    if not args.no_exact:
        exact_aa()
        exact_deuces()


if __name__ == "__main__":
    main()
