"""The moderators' console on a large log: how long ``referee console`` takes to serve, and how
long every page a moderator reaches from the front page takes (target: start-up and every page
under 1 s at 50,000 hands).

The log is bench/restart.py's (``referee replay --db`` of bench/replay.py's generator: omaha
tables), brought to this code's schema. Figures, wall and CPU seconds of the process measured:

- **whole chain**: the digest chain checked over every row, as a first start does (nothing
  remembered yet; ``referee check`` always does), in a child process;
- **cold build**: the console database written from the whole log (:func:`referee.console.build`,
  in a child process; what the first start costs);
- **start, log unchanged**: ``referee console --keep FILE`` over a log that has not grown since
  FILE was built and since the chain's head was verified -- the process started until its
  first page answers (interpreter start, imports, the integrity check included);
- **start, log grown**: the same after ``--grow`` more hands were replayed into (a copy of) the
  log: the kept console database served at once, as it was kept; then **caught up**: when the
  rows added have been read behind it (the chain checked from its verified head on, every
  page checked, the build resumed from its kept state in a copy that replaces it) and the
  pages serve them, with every page fetched meanwhile (one every ``PACE`` seconds, its
  notice on the front page polled between them);
- **pages**: each page fetched over HTTP from that server, best of ``--rounds``, the whole body
  (and the server process's CPU time for that fetch), and its first fetch after the start
  (what a moderator's first visit costs: a page's first use of a module or of a cache).

    .venv/bin/python bench/console.py [--hands 50000] [--grow 500] [--rounds 3] [--keep DIR]
        [--again]

``--again`` reuses what an earlier run of the same code kept in DIR (the console database and
the grown log): no whole chain, no cold build, no growing -- the starts, the pages and the
catch-up only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sqlite3
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

from processes import cpu_seconds, free_port  # noqa: E402

BUILD = r"""
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
from pathlib import Path
from referee.console import build
b = build(Path(sys.argv[1]), Path(sys.argv[2]))
print(json.dumps({"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                  "hands": b.hands}))
"""




def _get(url: str) -> float:
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as r:
        r.read()
        if r.status != 200:
            raise RuntimeError(f"{url}: {r.status}")
    return time.perf_counter() - t0


CHAIN = r"""
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
from pathlib import Path
from referee.store.integrity import quick_check_file
quick_check_file(Path(sys.argv[1]), chain=True)
print(json.dumps({"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0}))
"""


def _child(code: str, *args: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    return dict(json.loads(out.stdout))


class Server:
    """``referee console`` over ``db`` with ``--keep console_db``, timed until it answers."""

    def __init__(self, db: Path, console_db: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = console_db.with_suffix(".stderr")
        self.t0 = t0 = time.perf_counter()
        with open(self.log, "w", encoding="utf-8") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "referee.cli", "console", "--db", str(db), "--keep",
                 str(console_db), "--port", str(self.port), "--theory-hands", "0"],
                stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT)
        while True:
            try:
                _get(self.url + "/-/versions.json")
                break
            except OSError:
                if self.proc.poll() is not None:
                    raise SystemExit("the console did not start: "
                                     + self.log.read_text(encoding="utf-8")[-500:]) from None
                time.sleep(0.01)
        self.wall = time.perf_counter() - t0
        self.cpu = cpu_seconds(self.proc.pid)

    def said(self) -> str:
        return self.log.read_text(encoding="utf-8").strip()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait()


def _grow(db: Path, grown: Path, hands: int) -> int:
    """A copy of ``db`` with ``hands`` more hands replayed into it (another table's
    transcript); the inputs added."""
    from replay import generate  # bench/replay.py

    from referee.adapters.transcript import REPLAY_GROUP, replay

    for suffix in ("", "-wal", "-shm", ".head"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(str(grown) + suffix)
    shutil.copy(db, grown)
    with contextlib.suppress(FileNotFoundError):
        shutil.copy(str(db) + ".head", str(grown) + ".head")
    text = generate(hands, 7, "table")[0]
    path = grown.with_suffix(".grow.txt")
    path.write_text(text, encoding="utf-8")
    replay(path, db=grown, out=_Null(), group=REPLAY_GROUP)
    path.unlink()
    conn = sqlite3.connect(grown)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return text.count("\n")


def _last_seq(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT max(seq) FROM inputs").fetchone()[0])
    finally:
        conn.close()


class _Null:
    def write(self, s: str) -> int:
        return len(s)

    def flush(self) -> None:
        pass


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


def _catch_up(server: Server, paths: list[str]) -> tuple[float, float, list[tuple[float, str]]]:
    """Wall seconds from the process's start and its CPU seconds when the console has caught
    up behind the served database (at once for a code that reads the rows before it serves),
    and each page fetched meanwhile (wall seconds, path), the front page between others."""
    from processes import catching_up

    during: list[tuple[float, str]] = []
    i = 0
    while True:
        t0 = time.perf_counter()
        if not catching_up(server.url):
            break
        during.append((time.perf_counter() - t0, "/"))
        path = paths[i % len(paths)]
        i += 1
        during.append((_get(server.url + path), path))
        time.sleep(PACE)
    return time.perf_counter() - server.t0, cpu_seconds(server.proc.pid), during


PACE = 0.2
"""Seconds between two pages fetched while the console catches up (a moderator clicking
about; without a pause the fetches would take the interpreter from the catch-up)."""


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=50_000)
    ap.add_argument("--grow", type=int, default=500, help="hands added for the grown start")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--keep", type=Path, help="keep the databases here (reused when present)")
    ap.add_argument("--again", action="store_true",
                    help="reuse the console database and grown log an earlier run kept in DIR")
    args = ap.parse_args(argv)
    tmp = tempfile.TemporaryDirectory()
    where = args.keep or Path(tmp.name)
    where.mkdir(parents=True, exist_ok=True)
    db = where / f"history-{args.hands}.db"
    if not db.exists():
        from restart import fill  # bench/restart.py

        inputs, secs = fill(db, args.hands)
        print(f"filled {args.hands:,} hands ({inputs:,} inputs) in {secs:.1f} s", flush=True)
    from referee.store import Store

    if not args.again:
        Store(db).close()  # this code's schema (as a bot's start leaves it)
        conn = sqlite3.connect(db)
        conn.execute("DELETE FROM chain_verified")  # a first start: nothing verified yet
        conn.commit()
        conn.close()
    console_db = where / f"console-{args.hands}.db"
    grown_db, grown_console = where / "grown.db", where / "grown-console.db"
    again = args.again and console_db.is_file() and grown_db.is_file()
    cold = {"seconds": 0.0}
    if not again:
        whole = _child(CHAIN, str(db))
        print(f"whole chain checked (first start; referee check): {whole['seconds']:.1f} s "
              f"({whole['cpu']:.1f} s CPU)", flush=True)
        cold = _child(BUILD, str(db), str(console_db))
        print(f"cold build: {int(cold['hands']):,} hands in {cold['seconds']:.1f} s "
              f"({cold['cpu']:.1f} s CPU)", flush=True)
    server = Server(db, console_db)
    times: list[tuple[float, str]] = []
    try:
        print(f"start, log unchanged (kept console database, verified chain): "
              f"{server.wall:.2f} s ({server.cpu:.2f} s CPU) [{server.said().splitlines()[0]}]",
              flush=True)
        warm, warm_cpu = server.wall, server.cpu
        for path in pages(server.url, console_db):
            first = _get(server.url + path)
            best = min([first] + [_get(server.url + path) for _ in range(args.rounds - 1)])
            c0 = cpu_seconds(server.proc.pid)
            _get(server.url + path)
            cpu = cpu_seconds(server.proc.pid) - c0
            times.append((max(best, first), path))
            print(f"  {best * 1000:7.0f} ms ({cpu * 1000:5.0f} ms CPU), first {first * 1000:5.0f}"
                  f" ms  {urllib.parse.unquote(path)}", flush=True)
    finally:
        server.stop()
    if again:
        added = _last_seq(grown_db) - _last_seq(db)
    else:
        added = _grow(db, grown_db, args.grow)
    for suffix in ("", ".resume", ".chain"):
        shutil.copy(str(console_db) + suffix, str(grown_console) + suffix)
    server = Server(grown_db, grown_console)
    try:
        print(f"start, log grown by {args.grow:,} hands ({added:,} inputs): {server.wall:.2f} s "
              f"({server.cpu:.2f} s CPU) [{server.said().splitlines()[0]}]", flush=True)
        grown, grown_cpu = server.wall, server.cpu
        caught, caught_cpu, during = _catch_up(server, pages(server.url, console_db))
        print(f"caught up behind it: {caught:.2f} s after the process started "
              f"({caught_cpu:.2f} s CPU) [{server.said().splitlines()[-1]}]", flush=True)
        if during:
            during.sort()
            print(f"  pages fetched while catching up: {len(during)}, median "
                  f"{during[len(during) // 2][0] * 1000:.0f} ms, slowest "
                  f"{during[-1][0] * 1000:.0f} ms ({urllib.parse.unquote(during[-1][1])})",
                  flush=True)
    finally:
        server.stop()
    slowest = max(times)
    met = slowest[0] < 1 and warm < 1 and grown < 1
    print(f"slowest page (first fetch or best) {slowest[0]:.2f} s "
          f"({urllib.parse.unquote(slowest[1])}); start "
          f"{warm:.2f} s ({warm_cpu:.2f} s CPU), grown {grown:.2f} s ({grown_cpu:.2f} s CPU) "
          f"[target < 1 s each]: {'met' if met else 'NOT met'}")
    tmp.cleanup()
    return {"cold_build": cold["seconds"], "warm_start": warm, "grown_start": grown,
            "slowest_page": slowest[0]}


if __name__ == "__main__":
    main()
