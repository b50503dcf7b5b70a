"""The discipline's service-wide state over a long run: flags, penalties and charged hands in
memory, and the snapshot head that pickles them (issue 42's memory horizon).

One omaha table plays ``--hands`` hands of tests/flags_transcript.py (a spectator coaches in
every hand: an interference flag; the moderator confirms and dismisses flags new and old and
asks ``!flags`` / ``!penalties`` between hands), through ``Referee.process`` with a store
(SQLite in memory, as a bot has one). Printed at each tenth: the flags, penalties, charged
keys and bank ledger entries held, the head's pickled size and its CPU time
(``Referee._head``, what the reply that begins a snapshot pickles), the bytes tracemalloc
attributes to allocations made in referee/discipline.py and referee/turn.py (flags, penalty
records, ledger entries) and all Python memory traced.

``--code DIR`` runs another tree's ``referee`` package (e.g. main's, from ``git archive``)
with this tree's generator: the same inputs, side by side.

    .venv/bin/python bench/horizon.py [--hands 3000] [--seed 1] [--code DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--code", default=str(ROOT), help="the tree whose referee package runs")
    args = ap.parse_args()
    sys.path[:0] = [args.code, str(ROOT / "tests")]
    import tracemalloc

    from flags_transcript import flags_transcript

    import referee
    from referee.adapters.transcript import read
    from referee.service import Referee
    from referee.store import Store

    text = flags_transcript(args.hands, seed=args.seed)
    inputs = [line.given for line in read(text, room="transcript")]
    print(f"referee from {Path(referee.__file__).parent.parent}: {args.hands:,} hands, "
          f"{len(inputs):,} inputs")
    tracemalloc.start()
    ref = Referee(persistence=Store(":memory:"))
    every = max(len(inputs) // 10, 1)
    print("  inputs | flags held | penalties held | charged keys | ledger entries | head KB |"
          " head ms CPU | discipline + turn KB | traced MB")
    for n, inp in enumerate(inputs, start=1):
        ref.process(inp)
        if n % every == 0 or n == len(inputs):
            t = time.thread_time()
            head = ref._head()
            spent = (time.thread_time() - t) * 1000
            snap = tracemalloc.take_snapshot()
            held = sum(s.size for s in snap.filter_traces(
                [tracemalloc.Filter(True, "*discipline.py"), tracemalloc.Filter(True, "*turn.py")]
            ).statistics("filename"))
            d = ref.discipline
            print(f"  {n:>7,} | {len(d.flags):>10,} | {len(ref.penalties):>14,} |"
                  f" {len(d.charged):>12,} | {len(ref.bank.ledger):>14,} |"
                  f" {len(head) / 1e3:>7.1f} | {spent:>11.2f} | {held / 1e3:>20,.0f} |"
                  f" {tracemalloc.get_traced_memory()[0] / 1e6:.1f}")
    print(f"  flags raised {ref.discipline.next_id - 1:,}")


if __name__ == "__main__":
    main()
