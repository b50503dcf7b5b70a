"""Matrix latency: time from a player's message to the referee bot's answer, against a minimal
echo bot on the same homeserver in the same run (target: median ratio <= 1.5).

    .venv/bin/python bench/matrix_latency.py [--rounds 30]
    .venv/bin/python bench/matrix_latency.py --history 50000 [--keep DIR]
    .venv/bin/python bench/matrix_latency.py --rooms 10

``--history N``: the referee bot runs twice in the same Synapse run, on an empty database and on
one holding N earlier omaha hands (filled by ``referee replay --db``, plus the ~18 delivered
outbox rows per hand an old bot would have kept); it prints both medians and their ratio
(target <= 1.2). ``--rooms K``: the bot's CPU time per answered message with K tables active at
once (K players, each in their own room, sending together) against one room (target <= 1.2).

Starts its own Synapse on 127.0.0.1 (``tests/matrix/synapse_server.py``), the referee bot
(``referee matrix``, a separate process) and an echo bot (this file with ``--echo``, also a
separate process, same nio sync settings). One scripted player alternates: ``!bank`` in the
table room (the referee reads it, saves it in its database, answers), then a line in the echo
room. Each sample is the wall time from the send call to the answer arriving in the player's sync.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "matrix"))  # the test homeserver harness

import nio  # noqa: E402
from synapse_server import Synapse  # noqa: E402

from referee.adapters.matrix import SYNC_FILTER  # noqa: E402


async def echo_bot(url: str, user_id: str, device: str, token: str) -> None:
    """Echo every text message, with the same sync loop shape as the referee bot."""
    c = nio.AsyncClient(url, user_id, device_id=device)
    c.restore_login(user_id, device, token)
    since = None
    first = True
    while True:
        r = await c.sync(timeout=30_000, since=since, sync_filter=SYNC_FILTER, full_state=first)
        if not isinstance(r, nio.SyncResponse):
            await asyncio.sleep(0.5)
            continue
        for rid in r.rooms.invite:
            await c.join(rid)
        if not first:
            for rid, info in r.rooms.join.items():
                for ev in info.timeline.events:
                    if isinstance(ev, nio.RoomMessageText) and ev.sender != user_id:
                        await c.room_send(rid, "m.room.message",
                                          {"msgtype": "m.text", "body": "echo: " + ev.body})
        since = r.next_batch
        first = False


class Listener:
    def __init__(self, client: Any) -> None:
        self.c = client
        self.since: str | None = None
        self.seen: list[tuple[float, str, str, str]] = []  # (time, room, sender, body)

    async def loop(self) -> None:
        while True:
            r = await self.c.sync(timeout=30_000, since=self.since,
                                  sync_filter={"room": {"timeline": {"limit": 100}}})
            now = time.perf_counter()
            if isinstance(r, nio.SyncResponse):
                for rid in r.rooms.invite:
                    await self.c.join(rid)
                for rid, info in r.rooms.join.items():
                    for ev in info.timeline.events:
                        if isinstance(ev, nio.RoomMessageText | nio.RoomMessageNotice):
                            self.seen.append((now, rid, ev.sender, ev.body))
                self.since = r.next_batch

    async def answer(self, room: str, sender: str, after: int, timeout: float = 60) -> float:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            for t, rid, who, _ in self.seen[after:]:
                if rid == room and who == sender:
                    return t
            await asyncio.sleep(0.002)
        raise TimeoutError(f"no answer from {sender} in {room}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(hs: Synapse, rounds: int, workdir: Path, tag: str = "",
                  db: Path | None = None) -> dict[str, Any]:
    bot = hs.register("referee" + tag)
    echo = hs.register("echo" + tag)
    mod = hs.register("dealer" + tag)
    player = hs.register("alice" + tag)
    procs: list[subprocess.Popen[bytes]] = []
    env = dict(os.environ, REFEREE_MATRIX_PASSWORD=bot.password)
    log = open(workdir / "bots.log", "ab")
    procs.append(subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "matrix", "--homeserver", hs.url,
         "--user-id", bot.user_id, "--db", str(db or workdir / f"referee{tag}.db"),
         "--moderator", mod.user_id], cwd=ROOT, env=env, stdout=log, stderr=log))
    procs.append(subprocess.Popen(
        [sys.executable, __file__, "--echo", json.dumps(
            [hs.url, echo.user_id, echo.device_id, echo.access_token])],
        cwd=ROOT, stdout=log, stderr=log))
    c = nio.AsyncClient(hs.url, player.user_id, device_id=player.device_id)
    c.restore_login(player.user_id, player.device_id, player.access_token)
    listener = Listener(c)
    task = asyncio.create_task(listener.loop())
    try:
        table = (await c.room_create(name="table", invite=[bot.user_id])).room_id
        echo_room = (await c.room_create(name="echo", invite=[echo.user_id])).room_id

        async def ping(room: str, text: str, who: str) -> float:
            n = len(listener.seen)
            t0 = time.perf_counter()
            await c.room_send(room, "m.room.message", {"msgtype": "m.text", "body": text})
            return await listener.answer(room, who, n) - t0

        # Warm up: both bots joined and answering.
        for _ in range(60):
            try:
                await ping(table, "!bank", bot.user_id)
                await ping(echo_room, "hello", echo.user_id)
                break
            except TimeoutError:
                continue
        ref: list[float] = []
        ech: list[float] = []
        for i in range(rounds):
            ref.append(await ping(table, "!bank", bot.user_id))
            ech.append(await ping(echo_room, f"ping {i}", echo.user_id))
        out = {
            "rounds": rounds,
            "referee_median_ms": round(statistics.median(ref) * 1000, 1),
            "echo_median_ms": round(statistics.median(ech) * 1000, 1),
            "referee_p90_ms": round(sorted(ref)[int(0.9 * (rounds - 1))] * 1000, 1),
            "echo_p90_ms": round(sorted(ech)[int(0.9 * (rounds - 1))] * 1000, 1),
        }
        out["median_ratio"] = round(out["referee_median_ms"] / out["echo_median_ms"], 2)
        out["target_met"] = out["median_ratio"] <= 1.5
        return out
    finally:
        task.cancel()
        await c.close()
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
        log.close()


async def rooms_cpu(hs: Synapse, rooms: int, rounds: int, workdir: Path,
                    tag: str) -> float:
    """The bot's CPU seconds per answered ``!bank`` with ``rooms`` players, each in their own
    room, sending at once, ``rounds`` times."""
    bot = hs.register("referee" + tag)
    env = dict(os.environ, REFEREE_MATRIX_PASSWORD=bot.password)
    log = open(workdir / "bots.log", "ab")
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "matrix", "--homeserver", hs.url,
         "--user-id", bot.user_id, "--db", str(workdir / f"referee{tag}.db")],
        cwd=ROOT, env=env, stdout=log, stderr=log)
    clients: list[tuple[Any, Listener, str, asyncio.Task[None]]] = []
    try:
        for k in range(rooms):
            p = hs.register(f"p{k}{tag}")
            c = nio.AsyncClient(hs.url, p.user_id, device_id=p.device_id)
            c.restore_login(p.user_id, p.device_id, p.access_token)
            listener = Listener(c)
            task = asyncio.create_task(listener.loop())
            room = (await c.room_create(name=f"table {k}", invite=[bot.user_id])).room_id
            clients.append((c, listener, room, task))

        async def ping(c: Any, listener: Listener, room: str) -> None:
            n = len(listener.seen)
            await c.room_send(room, "m.room.message", {"msgtype": "m.text", "body": "!bank"})
            await listener.answer(room, bot.user_id, n)

        for _ in range(60):  # warm up: the bot has joined every room and answers
            try:
                await asyncio.gather(*(ping(c, li, r) for c, li, r, _ in clients))
                break
            except TimeoutError:
                continue
        before = cpu_seconds(proc.pid)
        for _ in range(rounds):
            await asyncio.gather(*(ping(c, li, r) for c, li, r, _ in clients))
        return (cpu_seconds(proc.pid) - before) / (rounds * rooms)
    finally:
        for c, _, _, task in clients:
            task.cancel()
            await c.close()
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def history_db(hands: int, where: Path) -> Path:
    """A referee database with ``hands`` omaha hands and the delivered outbox rows a bot that
    never pruned its outbox would have kept for them (~18 a hand)."""
    import sqlite3

    sys.path.insert(0, str(ROOT / "bench"))
    from restart import fill  # bench/restart.py

    db = where / f"history-{hands}.db"
    if not db.exists():
        fill(db, hands)
        from referee.adapters.matrix_state import SCHEMA

        conn = sqlite3.connect(db)
        conn.executescript(SCHEMA)
        conn.executemany(
            "INSERT INTO matrix_outbox(input_id, idx, room_id, content, event_id)"
            " VALUES (?, ?, '!old:localhost', '{}', ?)",
            ((f"old{i // 18}", i % 18, f"$e{i}") for i in range(hands * 18)))
        conn.commit()
        conn.close()
    return db


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--history", type=int, default=0, help="hands of history for the 2nd run")
    ap.add_argument("--rooms", type=int, default=0, help="tables at once for the CPU figure")
    ap.add_argument("--keep", type=Path, help="keep the history database here (reused)")
    ap.add_argument("--echo", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.echo:
        url, uid, dev, tok = json.loads(args.echo)
        asyncio.run(echo_bot(url, uid, dev, tok))
        return
    with tempfile.TemporaryDirectory() as tmp, Synapse() as hs:
        work = Path(tmp)
        if args.rooms:
            one = asyncio.run(rooms_cpu(hs, 1, args.rounds, work, "r1"))
            many = asyncio.run(rooms_cpu(hs, args.rooms, args.rounds, work, f"r{args.rooms}"))
            result: dict[str, Any] = {
                "cpu_ms_per_message_1_room": round(one * 1000, 2),
                f"cpu_ms_per_message_{args.rooms}_rooms": round(many * 1000, 2),
                "ratio": round(many / one, 2), "target_met": many / one <= 1.2,
            }
        elif args.history:
            keep = args.keep or work
            keep.mkdir(parents=True, exist_ok=True)
            db = history_db(args.history, keep)
            copy = work / "history-copy.db"
            import shutil

            shutil.copyfile(db, copy)
            empty = asyncio.run(measure(hs, args.rounds, work, "e"))
            full = asyncio.run(measure(hs, args.rounds, work, "h", db=copy))
            result = {"empty": empty, f"history_{args.history}_hands": full,
                      "ratio": round(full["referee_median_ms"] / empty["referee_median_ms"], 2)}
            result["target_met"] = result["ratio"] <= 1.2
        else:
            result = asyncio.run(measure(hs, args.rounds, work))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
