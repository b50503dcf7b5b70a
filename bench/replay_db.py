"""Replay throughput with persistence on (``referee replay --db``) against the same replay
without a database: hands/s of each and their ratio (issue 6 target: >= 0.5).

Both runs go through :func:`referee.adapters.transcript.replay` -- the exact code behind
``referee replay`` -- in this process (interpreter start-up is not the referee's speed), writing
the JSON Lines to a discarding sink. The database run starts from a fresh SQLite file each time
(WAL, one transaction per transcript line). Runs alternate and the best of ``--rounds`` is kept
for each, so load from other processes on the machine skews both sides alike.

    .venv/bin/python bench/replay_db.py [--hands 200] [--rounds 3] [--transcript FILE]
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class _Null(io.TextIOBase):
    def write(self, s: str) -> int:
        return len(s)


def transcript(hands: int, seed: int) -> str:
    """A long legal omaha transcript (the crash test's generator, which plays the referee)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from crash_transcript import omaha_transcript

    return omaha_transcript(hands, seed=seed)


def timed_replay(path: Path, db: Path | None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process, every thread) of one replay."""
    from referee.adapters.transcript import replay

    t0, c0 = time.perf_counter(), time.process_time()
    replay(path, db=db, out=_Null())
    return time.perf_counter() - t0, time.process_time() - c0


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--transcript", type=Path, default=None,
                    help="replay this file instead of a generated one")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        if args.transcript is not None:
            path = args.transcript
            text = path.read_text(encoding="utf-8")
        else:
            text = transcript(args.hands, args.seed)
            path = Path(tmp) / "bench.txt"
            path.write_text(text, encoding="utf-8")
        hands = sum(1 for line in text.splitlines() if line.lstrip().startswith("# deal"))
        lines = sum(1 for line in text.splitlines() if line.strip() and not line.startswith("##"))
        timed_replay(path, None)  # warm-up: imports, grammar, caches
        inf = float("inf")
        mem_wall = mem_cpu = db_wall = db_cpu = inf
        for r in range(args.rounds):
            w, c = timed_replay(path, None)
            mem_wall, mem_cpu = min(mem_wall, w), min(mem_cpu, c)
            w, c = timed_replay(path, Path(tmp) / f"bench-{r}.db")
            db_wall, db_cpu = min(db_wall, w), min(db_cpu, c)
        result = {
            "hands": hands,
            "lines": lines,
            "hands_per_s_no_db": hands / mem_wall,
            "hands_per_s_db": hands / db_wall,
            "ratio": mem_wall / db_wall,
            "ratio_cpu": mem_cpu / db_cpu,
            "us_per_line_db_overhead": (db_wall - mem_wall) / lines * 1e6,
        }
    print(f"{hands} hands, {lines} lines; best of {args.rounds} (wall clock)")
    print(f"  no database : {result['hands_per_s_no_db']:8.1f} hands/s")
    print(f"  --db        : {result['hands_per_s_db']:8.1f} hands/s"
          f"  (+{result['us_per_line_db_overhead']:.0f} us per line)")
    print(f"  ratio       : {result['ratio']:.2f}  (target >= 0.5);"
          f" by CPU time {result['ratio_cpu']:.2f}")
    return result


if __name__ == "__main__":
    main()
