"""Replay throughput with persistence on (``referee replay --db``) against the same replay
without a database: hands/s of each and their ratio (target: >= 0.5).

The transcript is bench/replay.py's (``generate``: the omaha engine played by a seeded random
player, ``--mix table`` realistic 6-max, ``--mix heavy`` long hands), or with ``--source crash``
the crash test's (tests/crash_transcript.py: also chat, spectators' flying actions, leaks ->
flags and penalties with bank ledger rows, a moderator's !grant), or any ``--transcript FILE``.
All runs go through :func:`referee.adapters.transcript.replay` -- the exact code behind
``referee replay`` -- in this process, writing the JSON Lines to a discarding sink; each database
run starts from a fresh SQLite file (WAL) and includes opening and closing it. ``--db`` is what
``referee replay --db`` does: group commit, REPLAY_GROUP lines per transaction, each line shown
once durable -- the ratio the target is about. ``--db, one commit per line`` is reported beside
it: the live bot's way (a transaction per chat message). Runs alternate and the best of
``--rounds`` is kept for each, so load from other processes on a shared machine skews all alike;
CPU time is reported as well.

    .venv/bin/python bench/replay_db.py [--hands 2000] [--mix table|heavy] [--source replay|crash]
                                        [--rounds 3] [--transcript FILE] [--no-single]
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class _Null(io.TextIOBase):
    def write(self, s: str) -> int:
        return len(s)


def transcript(source: str, hands: int, seed: int, mix: str) -> str:
    if source == "crash":
        sys.path.insert(0, str(ROOT / "tests"))
        from crash_transcript import omaha_transcript

        return omaha_transcript(hands, seed=seed)
    sys.path.insert(0, str(ROOT / "bench"))
    from replay import generate  # bench/replay.py (the no-database benchmark)

    return generate(hands, seed, mix)[0]


def timed_replay(path: Path, db: Path | None, group: int | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process, all threads) of one replay."""
    from referee.adapters.transcript import REPLAY_GROUP, replay

    t0, c0 = time.perf_counter(), time.process_time()
    replay(path, db=db, out=_Null(), group=REPLAY_GROUP if group is None else group)
    return time.perf_counter() - t0, time.process_time() - c0


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mix", choices=("table", "heavy"), default="table")
    ap.add_argument("--source", choices=("replay", "crash"), default="replay")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--transcript", type=Path, default=None,
                    help="replay this file instead of a generated one")
    ap.add_argument("--no-single", action="store_true",
                    help="skip the one-commit-per-line runs")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        if args.transcript is not None:
            path = args.transcript
            text = path.read_text(encoding="utf-8")
        else:
            text = transcript(args.source, args.hands, args.seed, args.mix)
            path = Path(tmp) / "bench.txt"
            path.write_text(text, encoding="utf-8")
        hands = sum(1 for line in text.splitlines() if line.lstrip().startswith("# deal"))
        lines = sum(1 for line in text.splitlines() if line.strip() and not line.startswith("##"))
        timed_replay(path, None)  # warm-up: imports, grammar, caches
        timed_replay(path, Path(tmp) / "warm.db")
        inf = float("inf")
        mem_wall = mem_cpu = db_wall = db_cpu = one_wall = one_cpu = inf
        for r in range(args.rounds):
            w, c = timed_replay(path, None)
            mem_wall, mem_cpu = min(mem_wall, w), min(mem_cpu, c)
            w, c = timed_replay(path, Path(tmp) / f"bench-{r}.db")
            db_wall, db_cpu = min(db_wall, w), min(db_cpu, c)
            if not args.no_single:
                w, c = timed_replay(path, Path(tmp) / f"single-{r}.db", group=1)
                one_wall, one_cpu = min(one_wall, w), min(one_cpu, c)
    result = {
        "hands": float(hands),
        "lines": float(lines),
        "hands_per_s_no_db": round(hands / mem_wall, 1),
        "hands_per_s_db": round(hands / db_wall, 1),
        "ratio": round(mem_wall / db_wall, 2),
        "hands_per_cpu_s_no_db": round(hands / mem_cpu, 1),
        "hands_per_cpu_s_db": round(hands / db_cpu, 1),
        "ratio_cpu": round(mem_cpu / db_cpu, 2),
        "db_us_per_line": round((db_wall - mem_wall) / lines * 1e6),
    }
    if not args.no_single:
        result.update({
            "hands_per_s_single": round(hands / one_wall, 1),
            "ratio_single": round(mem_wall / one_wall, 2),
            "ratio_single_cpu": round(mem_cpu / one_cpu, 2),
            "single_us_per_line": round((one_wall - mem_wall) / lines * 1e6),
        })
    source = args.transcript or f"{args.source} generator" + (
        f", {args.mix} mix" if args.source == "replay" else "")
    print(f"{hands} hands, {lines} lines ({lines / max(hands, 1):.1f} per hand; {source});"
          f" best of {args.rounds}")
    print(f"  no database : {result['hands_per_s_no_db']:8.1f} hands/s wall,"
          f" {result['hands_per_cpu_s_no_db']:8.1f} per CPU second")
    print(f"  --db        : {result['hands_per_s_db']:8.1f} hands/s wall,"
          f" {result['hands_per_cpu_s_db']:8.1f} per CPU second"
          f"  (+{result['db_us_per_line']} us per line)")
    print(f"  ratio       : {result['ratio']:.2f} wall, {result['ratio_cpu']:.2f} CPU"
          "  [target >= 0.5]")
    if not args.no_single:
        print(f"  --db, one commit per line (the bot's way): {result['hands_per_s_single']:.1f}"
              f" hands/s (+{result['single_us_per_line']} us per line), ratio"
              f" {result['ratio_single']:.2f} wall, {result['ratio_single_cpu']:.2f} CPU")
    return result


if __name__ == "__main__":
    main()
