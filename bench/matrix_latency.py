"""Matrix latency: time from a player's message to the referee bot's answer, against a minimal
echo bot on the same homeserver in the same run (target: median ratio <= 1.5).

    .venv/bin/python bench/matrix_latency.py [--rounds 30]

Starts its own Synapse on 127.0.0.1 (``referee.adapters.matrix_synapse``), the referee bot
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

import nio  # noqa: E402

from referee.adapters.matrix import SYNC_FILTER  # noqa: E402
from referee.adapters.matrix_synapse import Synapse  # noqa: E402


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
                        if isinstance(ev, nio.RoomMessageText):
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


async def measure(hs: Synapse, rounds: int, workdir: Path) -> dict[str, Any]:
    bot = hs.register("referee")
    echo = hs.register("echo")
    mod = hs.register("dealer")
    player = hs.register("alice")
    procs: list[subprocess.Popen[bytes]] = []
    env = dict(os.environ, REFEREE_MATRIX_PASSWORD=bot.password)
    log = open(workdir / "bots.log", "ab")
    procs.append(subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "matrix", "--homeserver", hs.url,
         "--user-id", bot.user_id, "--db", str(workdir / "referee.db"),
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--echo", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.echo:
        url, uid, dev, tok = json.loads(args.echo)
        asyncio.run(echo_bot(url, uid, dev, tok))
        return
    with tempfile.TemporaryDirectory() as tmp, Synapse() as hs:
        result = asyncio.run(measure(hs, args.rounds, Path(tmp)))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
