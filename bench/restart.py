"""Start-up time and peak memory of a restart against the history behind it (target:
start-up at 50k hands within 1.5x of start-up at 1k, peak RSS within 1.5x).

For each history size a database is filled by ``referee replay --db`` (bench/replay.py's
generator: omaha tables, the table mix) and then a fresh process does what every bot does when
it starts: open the store and :func:`referee.adapters.resume` -- from the newest snapshot, the
inputs after it streamed from SQLite. The same process is also run with the snapshot ignored
(``--full``: every input re-run, streamed), the peer that shows what the snapshot saves; the old
way (all inputs loaded as a list, ids collected) is reported as well.

Times are the child's own (imports included, interpreter start excluded), best of ``--rounds``;
RSS is the child's peak (``VmHWM``; ``ru_maxrss`` would include the parent's peak at the fork).

    .venv/bin/python bench/restart.py [--sizes 1000,10000,50000] [--rounds 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import io
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from referee.adapters import resume
from referee.service import Referee
from referee.store import Store
mode, db = sys.argv[1], sys.argv[2]
store = Store(db, check="background")  # as the bots open it: the integrity check runs beside
ref = Referee()
if mode == "snapshot":
    warnings = resume(ref, store)
elif mode == "full":  # every input re-run, streamed, ids not collected (no snapshot)
    ref.persistence = store
    ref.rebuild(store.stream_inputs())
    warnings = []
else:  # "old": what a start did before snapshots: every input as a list, ids collected
    ref.rebuild(store.inputs())
    warnings = []
seconds = time.perf_counter() - t0
hands = sum(t.engine.hand_no for t in ref.tables.values())
# VmHWM (peak RSS since exec): getrusage's ru_maxrss would also count the parent's peak at fork
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM"))
print(json.dumps({"seconds": seconds, "rss_mb": peak / 1024, "hands": hands, "warnings": warnings}))
"""


class _Null(io.TextIOBase):
    def write(self, s: str) -> int:
        return len(s)


def fill(db: Path, hands: int, seed: int = 1) -> tuple[int, float]:
    """A database with ``hands`` omaha hands replayed into it; (inputs, seconds to fill)."""
    from replay import generate  # bench/replay.py

    from referee.adapters.transcript import REPLAY_GROUP, replay

    text = generate(hands, seed, "table")[0]
    path = db.with_suffix(".txt")
    path.write_text(text, encoding="utf-8")
    t0 = time.perf_counter()
    replay(path, db=db, out=_Null(), group=REPLAY_GROUP)
    path.unlink()
    # the start-ups below measure a database at rest: its WAL copied back, as a bot leaves it
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return text.count("\n"), time.perf_counter() - t0


def start(mode: str, db: Path, rounds: int) -> dict[str, float]:
    best: dict[str, float] | None = None
    for _ in range(rounds):
        out = subprocess.run([sys.executable, "-c", CHILD, mode, str(db)], capture_output=True,
                             text=True, cwd=ROOT, check=True)
        got = json.loads(out.stdout)
        if got["warnings"]:
            print(f"  warnings: {got['warnings']}", file=sys.stderr)
        if best is None or got["seconds"] < best["seconds"]:
            best = got
    assert best is not None
    return best


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--keep", type=Path, help="keep the databases here (reused when present)")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",")]
    tmp = tempfile.TemporaryDirectory()
    where = args.keep or Path(tmp.name)
    where.mkdir(parents=True, exist_ok=True)
    rows = []
    for hands in sizes:
        db = where / f"history-{hands}.db"
        if not db.exists():
            inputs, secs = fill(db, hands)
            print(f"filled {hands:,} hands ({inputs:,} inputs) in {secs:.1f} s, "
                  f"{db.stat().st_size / 2**20:.0f} MB", flush=True)
        # a start of its own first: a database kept from another version of the code has a
        # snapshot this version cannot use (resume then re-runs everything and saves a new one)
        start("snapshot", db, 1)
        snap = start("snapshot", db, args.rounds)
        full = start("full", db, 1)
        old = start("old", db, 1) if hands <= 10_000 else None
        rows.append((hands, snap, full, old))
        print(f"{hands:>7,} hands: start-up {snap['seconds']:6.2f} s, peak RSS "
              f"{snap['rss_mb']:5.0f} MB   | without the snapshot {full['seconds']:6.2f} s, "
              f"{full['rss_mb']:5.0f} MB"
              + (f"   | before snapshots {old['seconds']:6.2f} s, {old['rss_mb']:5.0f} MB"
                 if old else ""), flush=True)
    first, last = rows[0], rows[-1]
    t_ratio = last[1]["seconds"] / first[1]["seconds"]
    m_ratio = last[1]["rss_mb"] / first[1]["rss_mb"]
    print(f"growth {first[0]:,} -> {last[0]:,} hands: start-up x{t_ratio:.2f}, RSS x{m_ratio:.2f}"
          f"  [target <= 1.5 each]: {'met' if t_ratio <= 1.5 and m_ratio <= 1.5 else 'NOT met'}")
    tmp.cleanup()
    return {"time_growth": t_ratio, "rss_growth": m_ratio}


if __name__ == "__main__":
    main()
