"""The console's two starts, this checkout against another one, paired in the same run: ``referee
console --keep FILE`` over a log that has not grown since FILE was built, and over the same log
grown by a few hundred hands, each timed from process start to its first answer and to the
moment it has caught up (the build resumed: before the first answer on a code that resumes
before it serves, behind it on one that serves the kept database at once), wall and CPU seconds
(every thread), with the load average beside it.

Each checkout serves its own kept console database (a console database carries its code's
digest: another code's is built afresh, not reused), prepared by ``bench/console.py --keep DIR``
of that checkout; both grown starts read the same grown log (DIR/grown.db of the first). The
order alternates, this checkout first (B A B A ...), so that both meet the same load.

    .venv/bin/python bench/console_starts.py --other /tmp/main-checkout \\
        --dir /tmp/branch-dir --other-dir /tmp/main-dir [--rounds 2] [--hands 50000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from processes import catching_up, cpu_seconds, free_port  # noqa: E402


def start(root: Path, db: Path, keep: Path) -> tuple[float, float, float, float, str]:
    """(wall, CPU) of ``referee console`` of checkout ``root`` until it answers, (wall, CPU)
    until it has caught up behind the database it served (the same for a code that reads the
    log before it serves), and its first line."""
    port = free_port()
    err = keep.with_suffix(".stderr")
    t0 = time.perf_counter()
    with open(err, "w", encoding="utf-8") as f:
        proc = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "console", "--db", str(db), "--keep",
             str(keep), "--port", str(port), "--theory-hands", "0"],
            stdout=subprocess.DEVNULL, stderr=f, cwd=root)
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/-/versions.json",
                                            timeout=60) as r:
                    r.read()
                break
            except OSError:
                if proc.poll() is not None:
                    raise SystemExit(f"{root}: the console did not start: "
                                     + err.read_text(encoding="utf-8")[-500:]) from None
                time.sleep(0.01)
        wall = time.perf_counter() - t0
        cpu = cpu_seconds(proc.pid)
        while catching_up(f"http://127.0.0.1:{port}"):
            time.sleep(0.25)  # a page a quarter second: the polls' own CPU stays small
        caught, caught_cpu = time.perf_counter() - t0, cpu_seconds(proc.pid)
    finally:
        proc.terminate()
        proc.wait()
    said = err.read_text(encoding="utf-8").strip().splitlines()[0]
    return wall, cpu, caught, caught_cpu, said


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--other", type=Path, required=True, help="the other checkout (main)")
    ap.add_argument("--dir", type=Path, required=True, help="this checkout's --keep DIR")
    ap.add_argument("--other-dir", type=Path, required=True, help="the other's --keep DIR")
    ap.add_argument("--hands", type=int, default=50_000)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    sides = [("B", ROOT, args.dir), ("A", args.other.resolve(), args.other_dir)]
    grown_db = args.other_dir / "grown.db"
    print("side  start      wall    CPU   caught up: wall   CPU   load", flush=True)
    for _ in range(args.rounds):
        for name, root, where in sides:
            db = where / f"history-{args.hands}.db"
            console_db = where / f"console-{args.hands}.db"
            wall, cpu, caught, caught_cpu, said = start(root, db, console_db)
            load = os.getloadavg()[0]
            print(f"{name}     unchanged  {wall:5.2f}  {cpu:5.2f}  {caught:15.2f}  "
                  f"{caught_cpu:5.2f}  {load:4.1f}  [{said}]", flush=True)
            grown = where / "pair-console.db"
            for suffix in ("", ".resume", ".chain"):
                shutil.copy(str(console_db) + suffix, str(grown) + suffix)
            wall, cpu, caught, caught_cpu, said = start(root, grown_db, grown)
            load = os.getloadavg()[0]
            print(f"{name}     grown      {wall:5.2f}  {cpu:5.2f}  {caught:15.2f}  "
                  f"{caught_cpu:5.2f}  {load:4.1f}  [{said}]", flush=True)


if __name__ == "__main__":
    main()
