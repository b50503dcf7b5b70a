"""Element-like test players: ``tests/matrix/js/player.mjs`` (matrix-js-sdk with its Rust crypto,
installed by ``scripts/setup.sh --test`` from the committed package-lock.json) as a child
process, driven over stdin/stdout from the asyncio tests."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from matrix_helpers import wait_for
from synapse_server import Synapse, User

JS_DIR = Path(__file__).resolve().parent / "js"


def js_ready(where: Path = JS_DIR) -> str | None:
    """Why the js players cannot run here (None: they can)."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not (where / "node_modules" / "matrix-js-sdk").is_dir():
        return f"{where} has no node_modules/matrix-js-sdk (run scripts/setup.sh --test)"
    return None


NEWEST_DIR = JS_DIR.parent / "js-newest"


def newest_js() -> Path | None:
    """A second matrix-js-sdk install to test against (the newest release, which wants a newer
    Node than the pinned one): the directory named by REFEREE_JS_NEWEST, else
    tests/matrix/js-newest (``scripts/setup.sh --test`` installs it with its own Node), holding a
    node_modules/matrix-js-sdk; None when there is none."""
    where = os.environ.get("REFEREE_JS_NEWEST")
    if where:
        return Path(where)
    return NEWEST_DIR if (NEWEST_DIR / "node_modules" / "matrix-js-sdk").is_dir() else None


def node_for(where: Path) -> str:
    """The Node that runs the players of the install ``where``: its own (npm's node package),
    when it brings one, else the machine's."""
    own = where / "node_modules" / ".bin" / "node"
    return str(own) if own.exists() else "node"


def sdk_version(where: Path = JS_DIR) -> str:
    pkg = where / "node_modules" / "matrix-js-sdk" / "package.json"
    return str(json.loads(pkg.read_text()).get("version", "?"))


@dataclass
class JsMsg:
    room: str
    sender: str
    event_id: str
    body: str
    msgtype: str
    encrypted: bool
    failure: str | None


@dataclass
class JsPlayer:
    hs: Synapse
    user: User
    isolation: str = "all"  # "all" (Element's default) or "signed" (exclude insecure devices)
    xsign: bool = False  # bootstrap the player's own cross-signing identity (Element does)
    js_dir: Path | None = None  # another matrix-js-sdk install (its node_modules) to run on
    log: Path | None = None
    proc: asyncio.subprocess.Process | None = None
    device_id: str = ""
    messages: list[JsMsg] = field(default_factory=list)
    _replies: dict[int, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _reader: asyncio.Task[None] | None = None
    _ready: asyncio.Future[dict[str, Any]] | None = None

    @property
    def name(self) -> str:
        return self.user.localpart

    @property
    def user_id(self) -> str:
        return self.user.user_id

    async def start(self, timeout: float = 90.0) -> None:
        cfg = {"baseUrl": self.hs.url, "user": self.user.localpart,
               "password": self.user.password, "isolation": self.isolation,
               "xsign": self.xsign}
        where = JS_DIR
        if self.js_dir is not None:  # the same player, resolving matrix-js-sdk from there
            where = self.js_dir
            shutil.copy(JS_DIR / "player.mjs", where / "player.mjs")
        err = open(self.log, "ab") if self.log else asyncio.subprocess.DEVNULL
        try:
            self.proc = await asyncio.create_subprocess_exec(
                node_for(where), str(where / "player.mjs"), json.dumps(cfg), cwd=where,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=err,
                env=dict(os.environ), limit=1 << 22)
        finally:
            if not isinstance(err, int):
                err.close()
        self._ready = asyncio.get_running_loop().create_future()
        self._reader = asyncio.create_task(self._read())
        ready = await asyncio.wait_for(self._ready, timeout)
        self.device_id = str(ready["deviceId"])

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                break
            text = line.decode(errors="replace")
            if not text.startswith("@@ "):
                continue
            obj = json.loads(text[3:])
            kind = obj.get("ev")
            if kind == "ready" and self._ready is not None and not self._ready.done():
                self._ready.set_result(obj)
            elif kind == "msg":
                m = JsMsg(obj["room"], obj["sender"], obj["eventId"], obj["body"],
                          obj["msgtype"], bool(obj["encrypted"]), obj["failure"])
                # A later successful decryption replaces the failure reported first.
                self.messages = [x for x in self.messages if x.event_id != m.event_id]
                self.messages.append(m)
            elif kind == "reply":
                fut = self._replies.pop(int(obj["id"]), None)
                if fut is not None and not fut.done():
                    fut.set_result(obj)
        for fut in self._replies.values():
            if not fut.done():
                fut.set_exception(RuntimeError(f"{self.name}: the js player exited"))
        if self._ready is not None and not self._ready.done():
            self._ready.set_exception(RuntimeError(f"{self.name}: the js player exited"))

    async def call(self, cmd: str, timeout: float = 60.0, **args: Any) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdin is not None
        n = next(self._ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[n] = fut
        self.proc.stdin.write((json.dumps({"id": n, "cmd": cmd, **args}) + "\n").encode())
        await self.proc.stdin.drain()
        r = await asyncio.wait_for(fut, timeout)
        if not r.get("ok"):
            raise AssertionError(f"{self.name}: {cmd} failed: {r.get('error')}")
        return r

    async def say(self, room: str, text: str) -> str:
        return str((await self.call("say", room=room, text=text))["eventId"])

    async def wait_joined(self, room: str, timeout: float = 60.0) -> None:
        """Joined: the homeserver lists this player among the room's joined members."""
        def joined() -> bool:
            try:
                r = self.hs.request("GET", f"/_matrix/client/v3/rooms/{room}/joined_members",
                                    token=self.user.access_token)
            except Exception:
                return False
            return self.user_id in r.get("joined", {})

        await wait_for(joined, timeout, f"{self.name} joined {room}")

    def from_user(self, user_id: str, room: str | None = None) -> list[JsMsg]:
        return [m for m in self.messages
                if m.sender == user_id and (room is None or m.room == room)]

    async def stop(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(Exception):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            await self.proc.wait()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
