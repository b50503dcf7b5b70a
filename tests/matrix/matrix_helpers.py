"""Real-homeserver fixtures: one Synapse per test session on 127.0.0.1, scripted players (nio
clients with end-to-end encryption), and the bot as a separate process (so it can be killed).

Nothing here mocks the homeserver; Synapse keeps its default rate limits and the users a test
registers are exempted through the admin API unless the test asks otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nio
import pytest
from needs import need
from synapse_server import Synapse, User, installed

from referee.adapters.matrix import ENCRYPTION, share_keys
from referee.store.log import register

ROOT = Path(__file__).resolve().parents[2]
ENCRYPTED_DM = ENCRYPTION  # initial state of an end-to-end encrypted room
_counter = itertools.count(1)


@pytest.fixture(scope="session")
def synapse() -> Iterator[Synapse]:
    need(installed(), "Synapse (its own venv, .venv-synapse)", "bash scripts/synapse.sh install")
    server = Synapse()
    try:
        took = server.start()
        print(f"\nsynapse up in {took:.1f}s at {server.url}")
        yield server
    finally:
        server.close()


@dataclass
class Msg:
    room: str
    sender: str
    body: str
    formatted: str | None
    event_id: str
    encrypted: bool
    ts: int
    msgtype: str = ""


@dataclass
class Player:
    """A scripted Matrix user: joins what it is invited to, records every message it sees."""

    hs: Synapse
    user: User
    store: Path
    client: Any = None
    messages: list[Msg] = field(default_factory=list)
    undecrypted: list[Any] = field(default_factory=list)
    since: str | None = None
    task: asyncio.Task[None] | None = None

    @property
    def name(self) -> str:
        return self.user.localpart

    @property
    def user_id(self) -> str:
        return self.user.user_id

    async def start(self) -> None:
        self.store.mkdir(parents=True, exist_ok=True)
        cfg = nio.AsyncClientConfig(encryption_enabled=True, store_sync_tokens=False,
                                    max_timeout_retry_wait_time=2)
        self.client = nio.AsyncClient(self.hs.url, self.user.user_id,
                                      device_id=self.user.device_id,
                                      store_path=str(self.store), config=cfg)
        self.client.restore_login(self.user.user_id, self.user.device_id, self.user.access_token)
        if self.client.should_upload_keys:
            await self.client.keys_upload()
        await self.sync_once(full=True)
        self.task = asyncio.create_task(self._loop())

    async def pause(self) -> None:
        """Stop syncing (a burst then costs the homeserver less); ``resume`` catches up."""
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
            self.task = None

    def resume(self) -> None:
        if self.task is None:
            self.task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        if self.client is not None:
            await self.client.close()

    async def _loop(self) -> None:
        while True:
            try:
                await self.sync_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                await asyncio.sleep(0.5)

    async def sync_once(self, full: bool = False) -> None:
        c = self.client
        r = await c.sync(timeout=2000, since=self.since, full_state=full,
                         sync_filter={"room": {"timeline": {"limit": 200}}})
        if not isinstance(r, nio.SyncResponse):
            await asyncio.sleep(0.5)
            return
        for rid in r.rooms.invite:
            await c.join(rid)
        for rid, info in r.rooms.join.items():
            events = list(info.timeline.events)
            if info.timeline.limited and self.since is not None:
                events = await self._backfill(rid, info.timeline.prev_batch) + events
            for ev in events:
                self._record(rid, ev)
        self.since = r.next_batch
        await share_keys(c)
        # Room keys may arrive after the message they open.
        pending, self.undecrypted = self.undecrypted, []
        for rid, ev in pending:
            try:
                self._record(rid, c.decrypt_event(ev))
            except Exception:
                self.undecrypted.append((rid, ev))

    async def _backfill(self, rid: str, prev_batch: str | None) -> list[Any]:
        got: list[Any] = []
        start = prev_batch
        while start:
            r = await self.client.room_messages(rid, start=start, end=self.since, limit=100)
            if not isinstance(r, nio.RoomMessagesResponse) or not r.chunk:
                break
            got.extend(r.chunk)
            if r.end in (None, start):
                break
            start = r.end
        got.reverse()
        return got

    def _record(self, rid: str, ev: Any) -> None:
        if isinstance(ev, nio.MegolmEvent):
            self.undecrypted.append((rid, ev))
            return
        if isinstance(ev, nio.RoomMessageText | nio.RoomMessageNotice):
            if any(m.event_id == ev.event_id for m in self.messages[-50:]):
                return
            self.messages.append(Msg(rid, ev.sender, ev.body, ev.formatted_body, ev.event_id,
                                     bool(getattr(ev, "decrypted", False)),
                                     ev.server_timestamp,
                                     str((ev.source.get("content") or {}).get("msgtype", ""))))

    async def say(self, room: str, text: str) -> str:
        r = await self.client.room_send(room, "m.room.message", {"msgtype": "m.text", "body": text},
                                        ignore_unverified_devices=True)
        assert isinstance(r, nio.RoomSendResponse), r
        return str(r.event_id)

    def from_user(self, user_id: str, room: str | None = None) -> list[Msg]:
        return [m for m in self.messages
                if m.sender == user_id and (room is None or m.room == room)]

    def private_from(self, bot: str, table_room: str) -> list[Msg]:
        return [m for m in self.messages if m.sender == bot and m.room != table_room]


async def wait_for(pred: Callable[[], Any], timeout: float = 30.0, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what or pred}")
        await asyncio.sleep(0.1)


class BotProcess:
    """``referee matrix`` as a child process (stdout/stderr to a log file)."""

    def __init__(self, hs: Synapse, user: User, db: Path, moderators: list[str],
                 config: dict[str, Any] | None = None) -> None:
        self.hs, self.user, self.db, self.moderators = hs, user, db, moderators
        self.config = config or {}  # more [matrix] settings (a TOML file; flags set the rest)
        self.log = db.with_suffix(".log")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        cmd = [sys.executable, "-m", "referee.cli", "matrix", "--homeserver", self.hs.url,
               "--user-id", self.user.user_id, "--db", str(self.db)]
        for m in self.moderators:
            cmd += ["--moderator", m]
        if self.config:
            path = self.db.with_suffix(".toml")
            path.write_text("[matrix]\n" + "".join(f"{k} = {json.dumps(v)}\n"
                                                    for k, v in self.config.items()))
            cmd += ["--config", str(path)]
        env = dict(os.environ, REFEREE_MATRIX_PASSWORD=self.user.password)
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env,
                                         cwd=ROOT)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    # --- the bot's database, read-only, as a moderator's tools would ------------------------
    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        if not self.db.exists():
            return []
        conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=30)
        try:
            register(conn)
            return list(conn.execute(sql, args))
        except sqlite3.OperationalError:
            return []
        finally:
            conn.close()

    def device_id(self) -> str:
        """The bot's current device (from its saved session)."""
        rows = self._query("SELECT value FROM matrix_kv WHERE key = 'session'")
        return str(json.loads(rows[0][0])["device_id"]) if rows else ""

    def input_ids(self) -> list[str]:
        return [r[0] for r in self._query("SELECT input_id FROM log ORDER BY seq")]

    def inputs(self) -> list[dict[str, Any]]:
        return [json.loads(r[0]) for r in self._query("SELECT input FROM log ORDER BY seq")]

    def events(self) -> list[dict[str, Any]]:
        rows = self._query("SELECT events FROM log ORDER BY seq")
        return [e for r in rows for e in json.loads(r[0])]


@dataclass
class Table:
    """A table room with a moderator, players and the bot, everyone joined."""

    hs: Synapse
    bot: BotProcess
    mod: Player
    players: list[Player]
    room: str
    early: list[str] = field(default_factory=list)  # event ids typed before the bot came

    @property
    def everyone(self) -> list[Player]:
        return [self.mod, *self.players]

    def by_name(self, name: str) -> Player:
        return next(p for p in self.everyone if p.name == name)

    def bot_room_messages(self) -> list[Msg]:
        return self.mod.from_user(self.bot.user.user_id, self.room)

    async def say(self, who: Player, text: str) -> str:
        return await who.say(self.room, text)

    async def reply(self, after: int, pattern: str, timeout: float = 30.0) -> Msg:
        """The first bot message in the room, from index ``after``, matching ``pattern``."""
        rx = re.compile(pattern)

        def find() -> Msg | None:
            for m in self.bot_room_messages()[after:]:
                if rx.search(m.body):
                    return m
            return None

        found: Msg = await wait_for(find, timeout, f"bot message /{pattern}/")
        return found

    async def command(self, who: Player, text: str, expect: str, timeout: float = 30.0) -> Msg:
        n = len(self.bot_room_messages())
        await self.say(who, text)
        return await self.reply(n, expect, timeout)

    async def close(self) -> None:
        self.bot.stop()
        for p in self.everyone:
            await p.stop()


TableFactory = Callable[..., Awaitable[Table]]


@pytest.fixture
def make_table(synapse: Synapse, tmp_path: Path,
               request: pytest.FixtureRequest) -> Iterator[TableFactory]:
    """``await make_table(["alice", "bob"])`` → a joined Table with the bot running. When the
    test fails, the tail of each bot's log is attached to its report (``conftest.py``): a CI
    failure on the real server explains itself."""
    made: list[Table] = []
    bots: list[BotProcess] = []
    request.node.referee_bots = bots

    async def make(names: list[str], bot_exempt: bool = True,
                   before_bot: tuple[str, ...] = (),
                   bot_config: dict[str, Any] | None = None) -> Table:
        """``before_bot``: messages the moderator types before the bot is invited;
        ``bot_config``: more settings of the bot (``{"key_wait": 4}``)."""
        tag = f"{os.getpid() % 1000}x{next(_counter)}"
        bot_user = synapse.register(f"referee{tag}", exempt=bot_exempt)
        mod = Player(synapse, synapse.register(f"dealer{tag}"), tmp_path / f"dealer{tag}")
        players = [Player(synapse, synapse.register(f"{n}{tag}"), tmp_path / f"{n}{tag}")
                   for n in names]
        bot = BotProcess(synapse, bot_user, tmp_path / f"bot{tag}.db", [mod.user_id],
                         bot_config)
        bots.append(bot)
        bot.start()
        for p in [mod, *players]:
            await p.start()
        r = await mod.client.room_create(name="table", invite=[p.user_id for p in players])
        assert isinstance(r, nio.RoomCreateResponse), r
        room = r.room_id
        early = [await mod.say(room, text) for text in before_bot]
        await mod.client.room_invite(room, bot_user.user_id)

        def all_joined() -> bool:
            rm = mod.client.rooms.get(room)
            if rm is None:
                return False
            ids = [bot_user.user_id] + [p.user_id for p in players]
            return all(i in rm.users and i not in rm.invited_users for i in ids)

        await wait_for(all_joined, 60, "everyone joined the table room")
        t = Table(synapse, bot, mod, players, room, early)
        made.append(t)
        return t

    yield make
    for b in bots:
        b.stop()


def run(coro: Awaitable[Any], timeout: float = 240.0) -> Any:
    async def main() -> Any:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(main())


# --- cards as the bot writes them --------------------------------------------------------------
_PRETTY = re.compile(r"(10|[2-9JQKA])([♠♥♦♣])")
_SUIT = {"♠": "s", "♥": "h", "♦": "d", "♣": "c"}


def cards_in(text: str) -> list[str]:
    """``A♠ 10♦`` → ``["As", "Td"]``."""
    return [("T" if r == "10" else r) + _SUIT[s] for r, s in _PRETTY.findall(text)]


# --- driving and checking a hand ----------------------------------------------------------
_TURN = re.compile(r"(\S+?) ?さんの番です（(.*)）")
_SHOWDOWN = re.compile(r"(\S+?) ?さん、オープンかマック")
_SEAT = re.compile(r"(\S+?) ?さんが ?(\d+)番席に着席しました（(?:チップ ?)?([\d,]+)）")


def hand_end(t: Table, hand: int = 1) -> dict[str, Any] | None:
    for e in t.bot.events():
        if e.get("event") == "hand_end" and e.get("hand") == hand:
            return e
    return None


async def drive_omaha(t: Table, sent: list[tuple[str, str]], start: int = 0) -> None:
    """Answer the bot's prompts (from message ``start`` on) until the hand ends: check when
    possible, else call; open at showdown."""
    seen = start
    while hand_end(t) is None:
        msgs = t.bot_room_messages()
        if seen >= len(msgs):
            await wait_for(lambda n=seen: len(t.bot_room_messages()) > n
                           or hand_end(t) is not None, 30, "the bot's next prompt")
            continue
        m = msgs[seen]
        seen += 1
        turn, show = _TURN.search(m.body), _SHOWDOWN.search(m.body)
        if turn:
            who, options = t.by_name(turn.group(1)), turn.group(2)
            text = "チェック" if "チェック" in options else "コール"
        elif show:
            who, text = t.by_name(show.group(1)), "オープン"
        else:
            continue
        await t.say(who, text)
        sent.append((who.name, text))


def _deal_line(hands: dict[str, list[str]], **extra: list[str]) -> str:
    parts = [f"{k}={' '.join(v)}" for k, v in hands.items()]
    parts += [f"{k}={' '.join(v)}" for k, v in extra.items() if v]
    return "# deal: " + " | ".join(parts)


def replay_stacks(transcript: str, tmp: Path) -> dict[str, int]:
    path = tmp / "replay.txt"
    path.write_text(transcript, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "referee.cli", "replay", str(path)],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    ends = [json.loads(line) for line in out.stdout.splitlines()
            if json.loads(line).get("event") == "hand_end"]
    assert ends, out.stdout
    return {k: int(v) for k, v in ends[-1]["stacks"].items()}


def check_private_cards(t: Table, game_cards: int) -> dict[str, list[str]]:
    """Every player got exactly their own cards, encrypted; returns them as each one saw them."""
    deal = next(i["deal"] for i in t.bot.inputs() if i.get("deal"))
    seen: dict[str, list[str]] = {}
    for p in t.players:
        dms = [m for m in p.private_from(t.bot.user.user_id, t.room) if cards_in(m.body)]
        assert dms, f"{p.name} got no private cards"
        for m in dms:
            assert m.encrypted, "hole cards must travel in an encrypted room"
            assert t.mod.client.rooms.get(m.room) is None, "the moderator is not in that DM"
        mine = cards_in(dms[0].body)
        assert len(mine) == game_cards
        assert mine == deal["hands"][p.name]
        # Nobody else's cards in anyone's private messages.
        for other in t.players:
            if other is not p:
                assert not set(deal["hands"][other.name]) & set(
                    c for m in dms for c in cards_in(m.body))
        room = p.client.rooms[dms[0].room]
        assert room.encrypted
        seen[p.name] = mine
    return seen


def check_room_hides(t: Table, hole: dict[str, list[str]], reveal: str) -> None:
    """No hole card in the room before the first message that legitimately reveals cards."""
    for m in t.bot_room_messages():
        if re.search(reveal, m.body):
            break
        for name, cards in hole.items():
            assert not set(cards_in(m.body)) & set(cards), (name, m.body)
    # ... and none of the players' private messages were sent to the room.
    assert all(p.messages for p in t.players)




async def open_omaha(t: Table) -> None:
    """Bank points, an omaha table, everyone seated (no hand dealt yet)."""
    for p in t.players:
        await t.command(t.mod, f"!grant @{p.name} 2000", "残高")
    await t.command(t.mod, "!open omaha level=1", "テーブルを開きました")
    for p in t.players:
        await t.command(p, "!sit", "着席")


async def omaha_replay_matches(t: Table, sent: list[tuple[str, str]], tmp: Path
                               ) -> dict[str, int]:
    """The hand as the players saw it (their private cards, the board, the actions they typed),
    replayed from a transcript, ends with the stacks the bot recorded (returned)."""
    end = hand_end(t)
    assert end is not None
    await await_private_cards(t)
    hole = check_private_cards(t, 4)
    check_room_hides(t, hole, r"オープン: ")
    river = await t.reply(0, "^リバー")
    board = cards_in(river.body)
    lines = ["# table: omaha level=1", f"# moderator: {t.mod.name}"]
    for m in t.bot_room_messages():
        s = _SEAT.search(m.body)
        if s:
            lines.append(f"# seat {s.group(2)}: {s.group(1)} {s.group(3).replace(',', '')}")
    lines.append("# button: 1")
    lines.append(_deal_line(hole, board=board))
    lines += [f"{who}: {text}" for who, text in sent]
    stacks = replay_stacks("\n".join(lines) + "\n", tmp)
    assert stacks == {k: int(v) for k, v in end["stacks"].items()}
    return stacks


async def await_private_cards(t: Table) -> None:
    await wait_for(lambda: all(
        any(cards_in(m.body) for m in p.private_from(t.bot.user.user_id, t.room))
        for p in t.players), 60, "private cards")
