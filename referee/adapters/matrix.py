"""``referee matrix``: the bot on a Matrix homeserver (matrix-nio's AsyncClient).

A thin I/O shell around the service pipeline (:class:`referee.service.Referee`). What it adds is
delivery, and the guarantees the community asked for:

* **Exactly once.** A Matrix event id is the input id: the service saves the input, its events
  and its ledger in one transaction (``referee.store``) and never applies an id twice. The bot's
  replies go through an *outbox* table in the same database file, written before the sync token
  moves on and sent with a transaction id derived from (input, index), so a crash anywhere
  re-sends at most what Synapse then de-duplicates. The sync token is saved only after every
  event of that sync is processed and its replies are in the outbox.
* **Nothing lost.** Syncs use a large timeline; a ``limited`` (gappy) timeline is filled from
  ``/messages`` between ``prev_batch`` and the previous sync token. 429 / M_LIMIT_EXCEEDED is
  retried by nio for as long as it takes (never dropped); a vanished homeserver is retried with
  capped exponential backoff. Events from before the bot joined a room are ignored.
* **Private cards.** Each player gets one direct-message room, created once, end-to-end encrypted,
  stored in the database and in ``m.direct`` (homeservers rate-limit room creation). A private
  message waits in the outbox until the player has joined that room, so their device is given the
  room key with it. The crypto store (olm account, sessions) persists next to the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import signal
import sqlite3
import time
import urllib.parse
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nio  # type: ignore[import-untyped]

from referee.adapters.clock import TICK_EVERY, due_ticks
from referee.adapters.config import ConfigError as ConfigError
from referee.adapters.config import read_settings
from referee.adapters.matrix_render import incoming_text, mxid_of, name_of, render

log = logging.getLogger("referee.matrix")

SYNC_FILTER: dict[str, Any] = {
    # Synapse's default timeline limit is 10 events per room per sync; a larger one makes gaps
    # rarer (they are still filled, see _backfill).
    "room": {"timeline": {"limit": 100}, "state": {"lazy_load_members": False}},
    "presence": {"not_types": ["*"]},
}
ENCRYPTION = {"type": "m.room.encryption", "state_key": "",
              "content": {"algorithm": "m.megolm.v1.aes-sha2"}}



async def share_keys(c: Any) -> None:
    """The end-to-end key traffic nio leaves to its caller after a sync: upload our keys, learn
    and claim the other devices', send the queued to-device messages (room keys among them)."""
    if c.should_upload_keys:
        await c.keys_upload()
    if c.should_query_keys:
        await c.keys_query()
    if c.should_claim_keys:
        await c.keys_claim(c.get_users_for_key_claiming())
    await c.send_to_device_messages()


@dataclass
class MatrixConfig:
    homeserver: str
    user_id: str
    database: Path
    password: str | None = None
    access_token: str | None = None
    device_id: str | None = None
    store_dir: Path | None = None  # crypto store; default: next to the database
    moderators: list[str] = field(default_factory=list)
    backup_dir: Path | None = None  # default: backups/ next to the database
    backup_every: float = 3600.0  # seconds between back-ups; 0: only when a table closes
    backup_keep: int = 24  # back-ups kept
    device_name: str = "referee"
    sync_timeout_ms: int = 30_000
    max_retry_wait: float = 5.0  # cap of the reconnect backoff, seconds
    tick_every: float = TICK_EVERY  # action clock: seconds between timer ticks of one table

    @property
    def server_name(self) -> str:
        return self.user_id.partition(":")[2]

    @property
    def crypto_dir(self) -> Path:
        return self.store_dir or self.database.with_name(self.database.stem + "-crypto")


_KEYS = {
    "homeserver": str, "user_id": str, "password": str, "access_token": str, "device_id": str,
    "backup_dir": str, "backup_every": float, "backup_keep": int,
    "database": str, "store_dir": str, "moderators": list, "device_name": str,
    "sync_timeout_ms": int, "max_retry_wait": float, "tick_every": float,
}


def load_config(path: Path | None, overrides: dict[str, Any]) -> MatrixConfig:
    """TOML file (``[matrix]`` table or top level) overridden by flags; ConfigError if unusable."""
    data = read_settings(path, "matrix", overrides, _KEYS, ("homeserver", "user_id", "database"))
    if not data.get("password") and not data.get("access_token"):
        raise ConfigError("a password or an access_token is required")
    user_id = str(data["user_id"])
    if not user_id.startswith("@") or ":" not in user_id:
        raise ConfigError(f"user_id must look like @bot:example.org, not {user_id!r}")
    return MatrixConfig(
        homeserver=str(data["homeserver"]).rstrip("/"),
        user_id=user_id,
        database=Path(str(data["database"])),
        password=data.get("password"),
        access_token=data.get("access_token"),
        device_id=data.get("device_id"),
        store_dir=Path(str(data["store_dir"])) if data.get("store_dir") else None,
        moderators=[str(m) for m in data.get("moderators", [])],
        backup_dir=Path(str(data["backup_dir"])) if data.get("backup_dir") else None,
        backup_every=float(data.get("backup_every", 3600.0)),
        backup_keep=int(data.get("backup_keep", 24)),
        device_name=str(data.get("device_name", "referee")),
        sync_timeout_ms=int(data.get("sync_timeout_ms", 30_000)),
        max_retry_wait=float(data.get("max_retry_wait", 5.0)),
        tick_every=float(data.get("tick_every", TICK_EVERY)),
    )


# --- the adapter's own tables (same database file as the store, separate connection) ----------

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matrix_kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matrix_rooms (
    room_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,            -- 'room' (processed since our join) or 'dm'
    partner TEXT,                  -- dm: the player's Matrix id
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS matrix_outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    input_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    room_id TEXT NOT NULL,
    content TEXT NOT NULL,
    event_id TEXT,                 -- set once sent
    UNIQUE (input_id, idx)
);
"""


class BotState:
    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(str(path), isolation_level=None, timeout=60)
        self.conn.execute("PRAGMA busy_timeout = 60000")
        self.conn.executescript(_SCHEMA)

    def get(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM matrix_kv WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def put(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO matrix_kv(key, value) VALUES (?, ?)",
                          (key, value))

    def room_kind(self, room_id: str) -> tuple[str, str | None] | None:
        row = self.conn.execute("SELECT kind, partner FROM matrix_rooms WHERE room_id = ?",
                                (room_id,)).fetchone()
        return (str(row[0]), row[1]) if row else None

    def add_room(self, room_id: str, kind: str = "room", partner: str | None = None) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO matrix_rooms(room_id, kind, partner, created)"
            " VALUES (?, ?, ?, ?)", (room_id, kind, partner, time.time()))

    def dm_room(self, user_id: str) -> str | None:
        row = self.conn.execute(
            "SELECT room_id FROM matrix_rooms WHERE kind = 'dm' AND partner = ?"
            " ORDER BY created DESC LIMIT 1", (user_id,)).fetchone()
        return str(row[0]) if row else None

    def dm_map(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for room_id, partner in self.conn.execute(
                "SELECT room_id, partner FROM matrix_rooms WHERE kind = 'dm' ORDER BY created"):
            out.setdefault(str(partner), []).append(str(room_id))
        return out

    def queue(self, input_id: str, rows: list[tuple[str, dict[str, Any]]]) -> None:
        """All replies of one input, in one transaction (INSERT OR IGNORE: idempotent)."""
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.executemany(
                "INSERT OR IGNORE INTO matrix_outbox(input_id, idx, room_id, content)"
                " VALUES (?, ?, ?, ?)",
                [(input_id, i, room, json.dumps(c, ensure_ascii=False))
                 for i, (room, c) in enumerate(rows)])

    def unsent(self) -> list[tuple[int, str, int, str, dict[str, Any]]]:
        rows = self.conn.execute(
            "SELECT seq, input_id, idx, room_id, content FROM matrix_outbox"
            " WHERE event_id IS NULL ORDER BY seq")
        return [(int(s), str(i), int(x), str(r), json.loads(c)) for s, i, x, r, c in rows]

    def sent(self, seq: int, event_id: str) -> None:
        self.conn.execute("UPDATE matrix_outbox SET event_id = ? WHERE seq = ?", (event_id, seq))

    def move_unsent(self, old_room: str, new_room: str) -> None:
        self.conn.execute("UPDATE matrix_outbox SET room_id = ? WHERE room_id = ?"
                          " AND event_id IS NULL", (new_room, old_room))

    def close(self) -> None:
        self.conn.close()


def _txn(input_id: str, idx: int) -> str:
    """Deterministic transaction id: a re-send after a crash is de-duplicated by the server."""
    return "referee-" + hashlib.sha256(f"{input_id}\0{idx}".encode()).hexdigest()[:32]


class _RateLimitCounter(logging.Handler):
    """Counts nio's 429 retries (it logs each one) so tests and operators can see them."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "429" in record.getMessage():
            self.count += 1
            log.info("rate limited by the homeserver (%d so far); retrying", self.count)


class MatrixBot:
    """One bot account: sync loop → service pipeline → outbox → homeserver."""

    def __init__(self, config: MatrixConfig, referee: Any = None, store: Any = None) -> None:
        self.config = config
        self.server = config.server_name
        config.database.parent.mkdir(parents=True, exist_ok=True)
        if store is None:
            from referee.store import Store

            store = Store(config.database)
        self.store = store
        if referee is None:
            from referee.service import Referee

            referee = Referee(moderators=[name_of(m, self.server) for m in config.moderators])
            referee.rebuild(store.inputs())  # tables resume where the last run left them
            referee.persistence = store
        self.referee = referee
        self.state = BotState(config.database)
        from referee.store.integrity import Backups

        try:
            self.backups = Backups(config.database, config.backup_dir, config.backup_every,
                                   config.backup_keep)
        except ValueError as e:
            raise ConfigError(str(e)) from None
        self._open_tables = set(self.referee.tables)
        self.client: Any = None
        self.stopping = asyncio.Event()
        self.synced = 0  # number of completed sync batches (tests wait on it)
        self._ticked: dict[str, float] = {}  # room -> wall time of its last clock tick
        self._flushing = asyncio.Lock()  # the sync loop and the clock both flush the outbox
        self.rate_limits = _RateLimitCounter()
        logging.getLogger("nio").addHandler(self.rate_limits)

    # --- login and crypto ------------------------------------------------------------------
    async def _login(self) -> None:
        cfg = self.config
        cfg.crypto_dir.mkdir(parents=True, exist_ok=True)
        client_config = nio.AsyncClientConfig(
            encryption_enabled=True, store_sync_tokens=False,
            max_timeout_retry_wait_time=cfg.max_retry_wait, request_timeout=60,
        )
        client = nio.AsyncClient(cfg.homeserver, cfg.user_id, store_path=str(cfg.crypto_dir),
                             config=client_config)
        self.client = client
        token, device = cfg.access_token, cfg.device_id
        if token and not device:
            # Ask who we are: the crypto store is per device.
            client.access_token = token
            whoami = await client.whoami()
            device = getattr(whoami, "device_id", None)
        if not token:
            saved = self.state.get("session")
            if saved:
                s = json.loads(saved)
                if s.get("user_id") == cfg.user_id:
                    token, device = s["access_token"], s["device_id"]
        if token and device:
            client.restore_login(cfg.user_id, device, token)
        else:
            resp = await client.login(password=cfg.password, device_name=cfg.device_name)
            if not isinstance(resp, nio.LoginResponse):
                raise ConfigError(f"login failed: {resp}")
            self.state.put("session", json.dumps({
                "user_id": cfg.user_id, "access_token": resp.access_token,
                "device_id": resp.device_id}))
        log.info("logged in as %s, device %s", client.user_id, client.device_id)
        if client.should_upload_keys:
            await client.keys_upload()

    async def _crypto_housekeeping(self) -> None:
        if self.client.olm is None:
            return
        with contextlib.suppress(Exception):
            await share_keys(self.client)

    # --- the loop ---------------------------------------------------------------------------
    async def run(self) -> None:
        await self._login()
        await self.flush()  # replies a previous run queued but did not send
        clock = asyncio.create_task(self._clock())
        try:
            await self._sync_loop()
        finally:
            clock.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await clock

    # --- the action clock -------------------------------------------------------------------
    async def clock_tick(self, now: float) -> list[str]:
        """Tick the tables that wait on someone (see referee.adapters.clock) and queue what it
        says in the outbox (the caller flushes); the rooms ticked. Not before the first sync:
        messages sent while the bot was down come first, or a player who did act in time would
        be timed out."""
        if self.synced == 0:
            return []
        due = due_ticks(self.referee, now, self._ticked, self.config.tick_every)
        for room in due:
            self._ticked[room] = now
            input_id = f"tick:{uuid.uuid4().hex}"
            out = self.referee.process(
                {"kind": "tick", "id": input_id, "room": room, "time": now})
            if out is not None:
                await self._queue(input_id, room, room, "", [e.to_json() for e in out.events])
        return due

    async def _clock(self) -> None:
        while not self.stopping.is_set():
            try:
                if await self.clock_tick(time.time()):
                    await self.flush()
            except asyncio.CancelledError:
                raise
            except Exception:  # a bug in one tick must not stop the clock of every table
                log.exception("clock tick failed")
            await self._backup_if_due()
            await self._sleep(1.0)

    async def _backup_if_due(self) -> None:
        """Back the database up when a table has closed (!close) and every backup_every s."""
        tables = set(self.referee.tables)
        closed = self._open_tables - tables
        self._open_tables = tables
        if not closed and not self.backups.due():
            return
        try:
            made = await asyncio.to_thread(self.backups.run)
        except Exception as e:  # a failed back-up must not stop the tables; it is logged
            log.error("back-up failed: %s", e)
            return
        log.info("back-up (%s): %s", "!close" if closed else "interval", made)

    async def _sync_loop(self) -> None:
        since = self.state.get("next_batch")
        first = True
        backoff = 0.5
        while not self.stopping.is_set():
            try:
                resp = await self.client.sync(
                    timeout=self.config.sync_timeout_ms, sync_filter=SYNC_FILTER, since=since,
                    # After a restart nio knows no room: get the full state once.
                    full_state=first,
                )
            except asyncio.CancelledError:
                raise
            except Exception as e:  # nio retries connection errors itself; this is a backstop
                log.warning("sync failed: %r; retrying in %.1fs", e, backoff)
                await self._sleep(backoff)
                backoff = min(backoff * 2, self.config.max_retry_wait)
                continue
            if not isinstance(resp, nio.SyncResponse):
                log.warning("sync error: %s; retrying in %.1fs", resp, backoff)
                await self._sleep(backoff)
                backoff = min(backoff * 2, self.config.max_retry_wait)
                continue
            backoff = 0.5
            await self._handle_sync(resp, since)
            since = resp.next_batch
            self.state.put("next_batch", since)  # only now: every event of it is processed
            first = False
            self.synced += 1
            await self._crypto_housekeeping()
            await self.flush()

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), seconds)

    async def close(self) -> None:
        logging.getLogger("nio").removeHandler(self.rate_limits)
        if self.client is not None:
            await self.client.close()
        self.state.close()
        with contextlib.suppress(Exception):
            self.store.close()

    # --- one sync ---------------------------------------------------------------------------
    async def _handle_sync(self, resp: Any, since: str | None) -> None:
        me = self.config.user_id
        for room_id, info in resp.rooms.invite.items():
            await self._on_invite(room_id, info)
        for room_id, info in resp.rooms.join.items():
            known = self.state.room_kind(room_id) is not None
            events = list(info.timeline.events)
            if since is None and not known:
                # First run ever: everything so far is history from before the bot.
                self.state.add_room(room_id)
                continue
            if not known:
                events, found = _after_own_join(events, me)
                if not found and info.timeline.limited:
                    events = await self._backfill(room_id, info.timeline.prev_batch, None) + \
                        list(info.timeline.events)
                    events, found = _after_own_join(events, me)
                self.state.add_room(room_id)
            elif info.timeline.limited and since is not None:
                events = await self._backfill(room_id, info.timeline.prev_batch, since) + events
            for ev in events:
                await self._on_event(room_id, ev)
        for room_id in resp.rooms.leave:
            kind = self.state.room_kind(room_id)
            if kind is not None and kind[0] == "dm":
                log.info("DM room %s was left; a new one will be made when needed", room_id)

    async def _backfill(self, room_id: str, prev_batch: str | None,
                        since: str | None) -> list[Any]:
        """The events a gappy sync left out, oldest first (``/messages`` backwards)."""
        if not prev_batch:
            return []
        me = self.config.user_id
        got: list[Any] = []
        start: str | None = prev_batch
        while start:
            r = await self.client.room_messages(room_id, start=start, end=since, limit=100)
            if not isinstance(r, nio.RoomMessagesResponse):
                log.warning("backfill of %s failed: %s; retrying", room_id, r)
                await self._sleep(1.0)
                continue
            got.extend(r.chunk)
            if since is None and any(_is_own_join(e, me) for e in r.chunk):
                break
            if not r.chunk or r.end in (None, start):
                break
            start = r.end
        got.reverse()
        log.info("gappy sync in %s: fetched %d missing events", room_id, len(got))
        return got

    async def _on_invite(self, room_id: str, info: Any) -> None:
        me = self.config.user_id
        inviter: str | None = None
        direct = False
        for ev in getattr(info, "invite_state", []):
            if isinstance(ev, nio.InviteMemberEvent) and ev.state_key == me:
                inviter = ev.sender
                direct = bool(ev.content.get("is_direct"))
        r = await self.client.join(room_id)
        if not isinstance(r, nio.JoinResponse):
            log.warning("could not join %s: %s", room_id, r)
            return
        if direct and inviter and self.state.dm_room(inviter) is None:
            self.state.add_room(room_id, "dm", inviter)
            await self._publish_direct()
        log.info("joined %s (invited by %s%s)", room_id, inviter, ", direct" if direct else "")

    # --- one event --------------------------------------------------------------------------
    async def _on_event(self, room_id: str, ev: Any) -> None:
        if isinstance(ev, nio.MegolmEvent):
            try:
                ev = self.client.decrypt_event(ev)
            except Exception:
                log.warning("cannot decrypt %s in %s", ev.event_id, room_id)
                return
        if not isinstance(ev, nio.RoomMessageText) or ev.sender == self.config.user_id:
            return
        relates = (ev.source.get("content") or {}).get("m.relates_to") or {}
        if relates.get("rel_type") == "m.replace":
            return  # an edit: the original was the declaration; editing it changes nothing
        kind = self.state.room_kind(room_id)
        dm = kind is not None and kind[0] == "dm"
        sender = name_of(ev.sender, self.server)
        table_room = room_id
        if dm:
            # A private message concerns the table where the player sits.
            for rid in list(self.referee.tables):
                if sender in self.referee.seated_names(rid):
                    table_room = rid
                    break
        text = incoming_text(_strip_reply_fallback(ev.body),
                             getattr(ev, "formatted_body", None), self.server)
        inp = {
            "kind": "message", "id": ev.event_id, "room": table_room, "sender": sender,
            "text": text, "time": ev.server_timestamp / 1000.0, "dm": dm,
        }
        out = self.referee.process(inp)
        if out is not None:
            events = [e.to_json() for e in out.events]
        else:
            events = self._stored_events(ev.event_id)
        await self._queue(ev.event_id, room_id if dm else table_room, table_room, sender, events)

    def _stored_events(self, input_id: str) -> list[dict[str, Any]]:
        """An input processed before a crash: its replies may not all be in the outbox yet."""
        conn = getattr(self.store, "conn", None)
        if conn is None:
            return []
        row = conn.execute("SELECT events FROM inputs WHERE input_id = ?", (input_id,)).fetchone()
        return list(json.loads(row[0])) if row else []

    async def _queue(self, input_id: str, reply_room: str, table_room: str, sender: str,
                     events: Iterable[dict[str, Any]]) -> None:
        mention = set(self.referee.seated_names(table_room)) | {sender}
        rows: list[tuple[str, dict[str, Any]]] = []
        for e in events:
            if e.get("event") != "say":
                continue
            to, text = str(e.get("to", "room")), str(e.get("text", ""))
            if to == "room":
                rows.append((reply_room, render(text, self.server, mention)))
            else:
                room = await self.dm_room(mxid_of(to, self.server))
                rows.append((room, render(text, self.server, ())))
        if rows:
            self.state.queue(input_id, rows)

    # --- direct messages --------------------------------------------------------------------
    async def dm_room(self, user_id: str) -> str:
        """The player's private room, created (encrypted) on first use and then reused."""
        existing = self.state.dm_room(user_id)
        if existing is not None:
            return existing
        while True:
            r = await self.client.room_create(
                is_direct=True, invite=[user_id], preset=nio.RoomPreset.trusted_private_chat,
                initial_state=[ENCRYPTION], name="referee",
            )
            if isinstance(r, nio.RoomCreateResponse):
                break
            log.warning("could not create a DM room for %s: %s; retrying", user_id, r)
            await self._sleep(2.0)
        self.state.add_room(r.room_id, "dm", user_id)
        await self._publish_direct()
        log.info("created DM room %s for %s", r.room_id, user_id)
        return str(r.room_id)

    async def _publish_direct(self) -> None:
        """``m.direct`` account data, so clients show the rooms as DMs (and a re-login finds
        them)."""
        path = ("/_matrix/client/v3/user/" + urllib.parse.quote(self.config.user_id)
                + "/account_data/m.direct")
        with contextlib.suppress(Exception):
            await self.client.send(
                "PUT", path, json.dumps(self.state.dm_map()),
                headers={"Authorization": f"Bearer {self.client.access_token}",
                         "Content-Type": "application/json"})

    async def _replace_if_left(self, room_id: str) -> str:
        """A player who left (or refused) their DM room gets a new one; what waited for the old
        room moves there, in order."""
        kind = self.state.room_kind(room_id)
        if kind is None or kind[0] not in ("dm", "dm_left") or not kind[1]:
            return room_id
        partner = kind[1]
        if kind[0] == "dm":
            room = self.client.rooms.get(room_id)
            if room is None or partner in room.users:
                return room_id
            log.info("%s left DM room %s; making a new one", partner, room_id)
            self.state.add_room(room_id, "dm_left", partner)
        new = await self.dm_room(partner)
        if new != room_id:
            self.state.move_unsent(room_id, new)
        return new

    def _ready(self, room_id: str) -> bool:
        room = self.client.rooms.get(room_id)
        if room is None:
            return False
        kind = self.state.room_kind(room_id)
        if kind is not None and kind[0] == "dm" and kind[1]:
            partner = kind[1]
            # Encrypted: the key goes to joined members' devices, so wait for the join.
            return partner in room.users and partner not in room.invited_users
        return True

    async def flush(self) -> None:
        """Send what the outbox holds, in order per room; a room not ready yet holds back only
        its own messages."""
        async with self._flushing:
            await self._flush()

    async def _flush(self) -> None:
        blocked: set[str] = set()
        for seq, input_id, idx, room_id, content in self.state.unsent():
            if room_id in blocked:
                continue
            room_id = await self._replace_if_left(room_id)
            if not self._ready(room_id):
                blocked.add(room_id)
                continue
            try:
                r = await self.client.room_send(
                    room_id, "m.room.message", content, tx_id=_txn(input_id, idx),
                    ignore_unverified_devices=True)
            except Exception as e:
                log.warning("send to %s failed: %r; will retry", room_id, e)
                blocked.add(room_id)
                continue
            if isinstance(r, nio.RoomSendResponse):
                self.state.sent(seq, r.event_id)
            else:
                log.warning("send to %s refused: %s; will retry", room_id, r)
                blocked.add(room_id)


def _strip_reply_fallback(body: str) -> str:
    """A reply's body starts with the quoted original ("> <@a:hs> ..." lines, a blank line)."""
    if not body.startswith("> "):
        return body
    lines = body.split("\n")
    i = 0
    while i < len(lines) and lines[i].startswith(">"):
        i += 1
    if i < len(lines) and lines[i] == "":
        return "\n".join(lines[i + 1:])
    return body


def _is_own_join(ev: Any, me: str) -> bool:
    return (getattr(ev, "state_key", None) == me
            and getattr(ev, "membership", None) == "join"
            and getattr(ev, "prev_membership", None) != "join")


def _after_own_join(events: list[Any], me: str) -> tuple[list[Any], bool]:
    """The events after the bot's own join (history before it is not the bot's business)."""
    for i in range(len(events) - 1, -1, -1):
        if _is_own_join(events[i], me):
            return events[i + 1:], True
    return [], False


async def serve(config: MatrixConfig) -> None:
    bot = MatrixBot(config)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, bot.stopping.set)
    task = asyncio.create_task(bot.run())
    stop = asyncio.create_task(bot.stopping.wait())
    try:
        done, _ = await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            task.result()
    finally:
        task.cancel()
        stop.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        await bot.close()


def run(config: MatrixConfig) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("nio").setLevel(logging.WARNING)
    asyncio.run(serve(config))
