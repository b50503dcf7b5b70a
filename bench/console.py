"""The moderators' console on a large log: how long ``referee console`` takes to serve, and how
long every page a moderator reaches from the front page takes (target: start-up and every page
under 1 s at 50,000 hands).

The log is bench/restart.py's (``referee replay --db`` of bench/replay.py's generator: omaha
tables). Three figures:

- **cold build**: the console database written from the whole log (:func:`referee.console.build`,
  in a child process; what the first start, or a start over a log that has grown, costs);
- **warm start**: ``referee console --keep FILE`` over a log that has not grown since FILE was
  built -- the process started until its first page answers (interpreter start and imports
  included);
- **pages**: each page fetched over HTTP from that server, best of ``--rounds``, the whole body.

    .venv/bin/python bench/console.py [--hands 50000] [--rounds 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

BUILD = r"""
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
from pathlib import Path
from referee.console import build
b = build(Path(sys.argv[1]), Path(sys.argv[2]))
print(json.dumps({"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                  "hands": b.hands}))
"""


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> float:
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as r:
        r.read()
        if r.status != 200:
            raise RuntimeError(f"{url}: {r.status}")
    return time.perf_counter() - t0


def pages(url: str, console_db: Path) -> list[str]:
    """Every kind of page a moderator reaches from the front page, on this database."""
    import sqlite3

    conn = sqlite3.connect(console_db)
    (last,) = conn.execute("SELECT max(番号) FROM hands").fetchone()
    (player,) = conn.execute("SELECT プレイヤー FROM bank ORDER BY 残高 DESC LIMIT 1").fetchone()
    conn.close()
    q = urllib.parse.quote
    return [
        "/", "/referee", "/referee/bank_ranking", "/referee/economy",
        f"/referee/player_balance?player={q(player)}",
        f"/referee/player_history?player={q(player)}",
        "/referee/bank", f"/referee/bank/{q(player)}", "/referee/ledger",
        f"/referee/ledger?_facet={q('理由')}", "/referee/penalties", "/referee/monthly_penalties",
        "/referee/flags", "/referee/open_flags", "/referee/hands",
        f"/referee/hands?_facet={q('テーブル')}&_facet={q('ゲーム')}",
        f"/referee/hands?_sort={q('レイク')}", "/referee/hands/1", f"/referee/hands/{last}",
        f"/referee/hand_log?{q('ハンド')}={last}", "/referee/books", "/referee/tables",
        "/referee/ranks",
    ]


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=50_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--keep", type=Path, help="keep the databases here (reused when present)")
    args = ap.parse_args(argv)
    tmp = tempfile.TemporaryDirectory()
    where = args.keep or Path(tmp.name)
    where.mkdir(parents=True, exist_ok=True)
    db = where / f"history-{args.hands}.db"
    if not db.exists():
        from restart import fill  # bench/restart.py

        inputs, secs = fill(db, args.hands)
        print(f"filled {args.hands:,} hands ({inputs:,} inputs) in {secs:.1f} s", flush=True)
    console_db = where / f"console-{args.hands}.db"
    out = subprocess.run([sys.executable, "-c", BUILD, str(db), str(console_db)],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    cold = json.loads(out.stdout)
    print(f"cold build: {cold['hands']:,} hands in {cold['seconds']:.1f} s "
          f"({cold['cpu']:.1f} s CPU)", flush=True)
    port = _port()
    url = f"http://127.0.0.1:{port}"
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "console", "--db", str(db), "--keep",
         str(console_db), "--port", str(port), "--theory-hands", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    try:
        while True:
            try:
                _get(url + "/-/versions.json")
                break
            except OSError:
                if proc.poll() is not None:
                    raise SystemExit("the console did not start") from None
                time.sleep(0.02)
        warm = time.perf_counter() - t0
        print(f"warm start (kept console database): {warm:.2f} s", flush=True)
        times: list[tuple[float, str]] = []
        for path in pages(url, console_db):
            best = min(_get(url + path) for _ in range(args.rounds))
            times.append((best, path))
            print(f"  {best * 1000:7.0f} ms  {urllib.parse.unquote(path)}", flush=True)
    finally:
        proc.terminate()
        proc.wait()
    slowest = max(times)
    print(f"slowest page {slowest[0]:.2f} s ({urllib.parse.unquote(slowest[1])}); warm start "
          f"{warm:.2f} s [target < 1 s each]: "
          f"{'met' if slowest[0] < 1 and warm < 1 else 'NOT met'}")
    tmp.cleanup()
    return {"cold_build": cold["seconds"], "warm_start": warm, "slowest_page": slowest[0]}


if __name__ == "__main__":
    main()
