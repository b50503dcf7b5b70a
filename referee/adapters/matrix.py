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
import datetime
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
from referee.adapters.matrix_xsign import (
    CrossSigningError,
    CrossSigningPending,
    ensure_cross_signing,
)
from referee.lang.catalog import CatalogError
from referee.lang.catalog import text as msg
from referee.routing import private_route

log = logging.getLogger("referee.matrix")

SYNC_FILTER: dict[str, Any] = {
    # Synapse's default timeline limit is 10 events per room per sync; a larger one makes gaps
    # rarer (they are still filled, see _backfill).
    "room": {"timeline": {"limit": 100}, "state": {"lazy_load_members": False}},
    "presence": {"not_types": ["*"]},
}
ENCRYPTION = {"type": "m.room.encryption", "state_key": "",
              "content": {"algorithm": "m.megolm.v1.aes-sha2"}}
# A DM's later joiners read nothing sent before they joined (and the bot's checks keep them out).
HISTORY_JOINED = {"type": "m.room.history_visibility", "state_key": "",
                  "content": {"history_visibility": "joined"}}
# Room kinds of matrix_rooms whose messages are private messages to the bot:
#   dm       the partner's private channel (private content is sent only there, after _vouch)
#   dm_left  the partner left it: a new one is made
#   dm_lost  not private (any more): unencrypted, a third member, or not the partner's own;
#            what is typed there is still a private message, nothing private is sent there
DM_KINDS = ("dm", "dm_left", "dm_lost")
# An encrypted message whose room key has not arrived holds its room's later messages back for
# at most this long (the key usually comes in the same or the next sync); then the sender is
# told it could not be read. A withheld key (m.room_key.withheld) ends the wait at once.
KEY_WAIT = 20.0
LATE_KEY_WINDOW = 3600.0  # a key this late still gets the sender a "too late" notice
PLAINTEXT = "referee.plaintext"  # outbox content marker: send unencrypted (a notice, no secret)
JST = datetime.timezone(datetime.timedelta(hours=9))



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
    device_name: str = "referee"
    sync_timeout_ms: int = 30_000
    max_retry_wait: float = 5.0  # cap of the reconnect backoff, seconds
    tick_every: float = TICK_EVERY  # action clock: seconds between timer ticks of one table
    key_wait: float = KEY_WAIT  # seconds an undecryptable message waits for its key

    @property
    def server_name(self) -> str:
        return self.user_id.partition(":")[2]

    @property
    def crypto_dir(self) -> Path:
        return self.store_dir or self.database.with_name(self.database.stem + "-crypto")


_KEYS = {
    "homeserver": str, "user_id": str, "password": str, "access_token": str, "device_id": str,
    "database": str, "store_dir": str, "moderators": list, "device_name": str,
    "sync_timeout_ms": int, "max_retry_wait": float, "tick_every": float, "key_wait": float,
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
        device_name=str(data.get("device_name", "referee")),
        sync_timeout_ms=int(_number(data, "sync_timeout_ms", 30_000)),
        max_retry_wait=_number(data, "max_retry_wait", 5.0),
        tick_every=_number(data, "tick_every", TICK_EVERY),
        key_wait=_number(data, "key_wait", KEY_WAIT),
    )


def _number(data: dict[str, Any], key: str, default: float) -> float:
    """A non-negative number setting; ConfigError (one line) otherwise."""
    value = data.get(key, default)
    try:
        if isinstance(value, bool):
            raise ValueError
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{key} must be a number, not {value!r}") from None
    if not number >= 0:
        raise ConfigError(f"{key} must not be negative (or NaN): {value!r}")
    return number


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
-- What the flush reads (issue 21): the unsent rows only, whatever the outbox ever held.
CREATE INDEX IF NOT EXISTS matrix_outbox_unsent ON matrix_outbox(seq) WHERE event_id IS NULL;
-- Events held back because one before them in the same room cannot be decrypted yet (its key
-- has not arrived): processed in order once it can, or once it is given up on.
CREATE TABLE IF NOT EXISTS matrix_held (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    room_id TEXT NOT NULL,
    event_id TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL,
    held_at REAL NOT NULL
);
-- Encrypted messages given up on (the sender was told); a key arriving later only gets the
-- sender a refusal, never a late, out-of-turn processing.
CREATE TABLE IF NOT EXISTS matrix_unreadable (
    event_id TEXT PRIMARY KEY,
    room_id TEXT NOT NULL,
    source TEXT NOT NULL,
    at REAL NOT NULL
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

    def prune_sent(self) -> int:
        """Forget the replies already delivered (issue 21: the outbox must not grow with every
        reply ever sent). Called once a sync batch is complete: its inputs and every earlier
        one will never be delivered again, so nothing can re-queue a pruned reply."""
        return self.conn.execute("DELETE FROM matrix_outbox WHERE event_id IS NOT NULL").rowcount

    def move_unsent(self, old_room: str, new_room: str) -> None:
        self.conn.execute("UPDATE matrix_outbox SET room_id = ? WHERE room_id = ?"
                          " AND event_id IS NULL", (new_room, old_room))

    # --- held (undecryptable-yet) events -----------------------------------------------------
    def hold(self, room_id: str, event_id: str, source: dict[str, Any], now: float) -> None:
        self.conn.execute(
            "INSERT OR IGNORE INTO matrix_held(room_id, event_id, source, held_at)"
            " VALUES (?, ?, ?, ?)", (room_id, event_id, json.dumps(source), now))

    def has_held(self, room_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM matrix_held WHERE room_id = ? LIMIT 1",
                                 (room_id,)).fetchone() is not None

    def held(self) -> list[tuple[str, str, dict[str, Any], float]]:
        """(room, event id, event, held since), oldest first."""
        rows = self.conn.execute(
            "SELECT room_id, event_id, source, held_at FROM matrix_held ORDER BY seq")
        return [(str(r), str(e), json.loads(s), float(t)) for r, e, s, t in rows]

    def unhold(self, event_id: str) -> None:
        self.conn.execute("DELETE FROM matrix_held WHERE event_id = ?", (event_id,))

    def give_up(self, room_id: str, event_id: str, source: dict[str, Any], now: float) -> None:
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute("INSERT OR IGNORE INTO matrix_unreadable VALUES (?, ?, ?, ?)",
                              (event_id, room_id, json.dumps(source), now))
            self.conn.execute("DELETE FROM matrix_held WHERE event_id = ?", (event_id,))

    def unreadable(self, since: float) -> list[tuple[str, str, dict[str, Any]]]:
        rows = self.conn.execute(
            "SELECT room_id, event_id, source FROM matrix_unreadable WHERE at >= ?", (since,))
        return [(str(r), str(e), json.loads(s)) for r, e, s in rows]

    def forget_unreadable(self, event_id: str) -> None:
        self.conn.execute("DELETE FROM matrix_unreadable WHERE event_id = ?", (event_id,))

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
            from referee.adapters import resume

            for warning in resume(referee, store):  # tables go on where the last run left them
                log.warning("%s", warning)
        self.referee = referee
        self.state = BotState(config.database)
        self.client: Any = None
        self.stopping = asyncio.Event()
        self.synced = 0  # number of completed sync batches (tests wait on it)
        self.cross_signed = False
        self._withheld: dict[str, str] = {}  # megolm session id -> withheld code
        self._draining = asyncio.Lock()
        self._xsign_error = ""
        self._xsign_next = 0.0  # monotonic time of the next cross-signing attempt
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
        await self._cross_sign()

    async def _cross_sign(self) -> None:
        """The account's cross-signing identity, and this device signed by it (see
        matrix_xsign); retried after each sync until it is done, never fatal."""
        if self.cross_signed or self.client.olm is None or time.monotonic() < self._xsign_next:
            return
        try:
            r = await ensure_cross_signing(self.client, self.config.user_id,
                                           str(self.client.device_id), self.config.crypto_dir,
                                           self.config.password)
        except Exception as e:  # refused, or the homeserver away: try again after a sync
            refused = isinstance(e, CrossSigningError) and not isinstance(e, CrossSigningPending)
            why = str(e) if refused else repr(e)
            if why != self._xsign_error:  # said once, not after every sync
                log.warning("cross-signing: %s (will retry)", why)
                self._xsign_error = why
            # A refusal is asked again every ten minutes; a homeserver away, after a sync.
            self._xsign_next = time.monotonic() + (600.0 if refused else 0.0)
            return
        self.cross_signed = True
        log.info("cross-signing identity %s: %s, device %s", r.master,
                 "uploaded" if r.uploaded else "already on the server",
                 "signed now" if r.signed_device else "already signed")

    async def _crypto_housekeeping(self) -> None:
        if self.client.olm is None:
            return
        with contextlib.suppress(Exception):
            await share_keys(self.client)
        await self._cross_sign()

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
        # A room holding an undecryptable message waits for it: a tick now could time out a
        # player whose action is in it (judged with its own time once readable).
        due = [r for r in due_ticks(self.referee, now, self._ticked, self.config.tick_every)
               if not self.state.has_held(r)]
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
                drained = self.synced > 0 and await self.drain_held(time.time())
                if await self.clock_tick(time.time()) or drained:
                    await self.flush()
            except asyncio.CancelledError:
                raise
            except Exception:  # a bug in one tick must not stop the clock of every table
                log.exception("clock tick failed")
            await self._sleep(1.0)

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
            self.state.prune_sent()
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
        self._note_withheld(resp)
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
        await self.drain_held(time.time())  # keys this sync brought

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
        if direct and inviter:
            # A player's own DM invite is a candidate private channel: nothing private goes
            # there unless, checked before every private send (_vouch), it is encrypted and
            # holds only the bot and that player. (nio keeps no m.room.encryption of an
            # invite's stripped state, so the check cannot be made earlier.)
            if self.state.dm_room(inviter) is None:
                self.state.add_room(room_id, "dm", inviter)
                await self._publish_direct()
            else:
                self.state.add_room(room_id, "dm_lost", inviter)
        log.info("joined %s (invited by %s%s)", room_id, inviter, ", direct" if direct else "")

    # --- one event --------------------------------------------------------------------------
    async def _on_event(self, room_id: str, ev: Any) -> None:
        """One timeline event, in order. An encrypted one that cannot be decrypted yet is kept
        (with every later message of its room behind it) until its key comes: never dropped."""
        if not isinstance(ev, nio.RoomMessageText | nio.MegolmEvent) \
                or ev.sender == self.config.user_id:
            return
        if self.state.has_held(room_id):
            self.state.hold(room_id, ev.event_id, ev.source, time.time())
            return
        if isinstance(ev, nio.MegolmEvent):
            dec = self._decrypt(room_id, ev)
            if dec is None:
                log.warning("cannot decrypt %s in %s from %s yet (session %s); holding it",
                            ev.event_id, room_id, ev.sender, ev.session_id)
                self.state.hold(room_id, ev.event_id, ev.source, time.time())
                await self._request_key(ev)
                return
            ev = dec
        if isinstance(ev, nio.RoomMessageText):  # (decrypted, it may be a notice, a reaction…)
            await self._on_message(room_id, ev)

    def _decrypt(self, room_id: str, ev: Any) -> Any:
        """The decrypted event, or None while its room key is missing (checked first: nio
        logs a warning for every failed attempt, and held events are retried often)."""
        ev.room_id = room_id
        store = getattr(self.client.olm, "inbound_group_store", None)
        with contextlib.suppress(Exception):
            if store is not None and not store.get(room_id, ev.sender_key, ev.session_id):
                return None
        try:
            return self.client.decrypt_event(ev)
        except Exception:
            return None

    async def _request_key(self, ev: Any) -> None:
        """Ask the sender's device for the missing room key (clients that share keys only with
        devices they trust may answer with m.room_key.withheld instead)."""
        with contextlib.suppress(Exception):
            await self.client.to_device(
                ev.as_key_request(ev.sender, self.client.device_id, device_id=ev.device_id))

    def _note_withheld(self, resp: Any) -> None:
        for ev in getattr(resp, "to_device_events", []):
            src = getattr(ev, "source", {}) or {}
            if src.get("type") in ("m.room_key.withheld", "org.matrix.room_key.withheld"):
                c = src.get("content") or {}
                if c.get("session_id"):
                    self._withheld[str(c["session_id"])] = str(c.get("code", ""))
                    log.info("room key withheld by %s (%s): session %s", src.get("sender"),
                             c.get("code"), c.get("session_id"))

    async def drain_held(self, now: float) -> bool:
        """Held events, in order per room: a decryptable one is processed (with its own time),
        one whose key was withheld or did not come within key_wait is given up on (the sender
        is told), and a room waits behind an event still within its wait. The sync loop and the
        clock both call it; one at a time, so replies stay in order."""
        async with self._draining:
            return await self._drain_held(now)

    async def _drain_held(self, now: float) -> bool:
        waiting: set[str] = set()
        held = self.state.held()
        changed = False
        for room_id, event_id, source, held_at in held:
            if room_id in waiting:
                continue
            ev = nio.Event.parse_event(source)
            if isinstance(ev, nio.MegolmEvent):
                dec = self._decrypt(room_id, ev)
                if dec is None:
                    code = self._withheld.get(ev.session_id)
                    if code is None and now - held_at < self.config.key_wait:
                        waiting.add(room_id)
                        continue
                    await self._unreadable(room_id, ev, code)
                    changed = True
                    continue
                ev = dec
            if isinstance(ev, nio.RoomMessageText):
                await self._on_message(room_id, ev)
            self.state.unhold(event_id)
            changed = True
        for room_id, event_id, source in self.state.unreadable(now - LATE_KEY_WINDOW):
            ev = nio.Event.parse_event(source)
            if isinstance(ev, nio.MegolmEvent) and self._decrypt(room_id, ev) is not None:
                log.info("the key of %s came after it was given up on", event_id)
                self._notice(f"late:{event_id}", room_id, ev, "undecryptable_late", "")
                self.state.forget_unreadable(event_id)
                changed = True
        return changed

    async def _unreadable(self, room_id: str, ev: Any, code: str | None) -> None:
        why = code or "timeout"
        log.warning("giving up on %s in %s from %s: %s", ev.event_id, room_id, ev.sender, why)
        key = f"undecryptable_reason_{why.removeprefix('m.').replace('.', '_')}"
        try:
            reason = msg(key)
        except CatalogError:
            reason = msg("undecryptable_reason_other", code=why)
        self._notice(f"unreadable:{ev.event_id}", room_id, ev,
                     "undecryptable_withheld" if code else "undecryptable_gave_up", reason)
        self.state.give_up(room_id, ev.event_id, ev.source, time.time())

    def _notice(self, input_id: str, room_id: str, ev: Any, key: str, reason: str) -> None:
        """A plaintext m.notice to the sender in the room they typed in (it tells nothing
        private, and a client that cannot read the bot's encrypted messages still shows it)."""
        sender = name_of(ev.sender, self.server)
        when = datetime.datetime.fromtimestamp(ev.server_timestamp / 1000, JST)
        body = msg(key, sender=sender, when=when.strftime("%H:%M:%S"), reason=reason)
        content = render(body, self.server, {sender})
        content["msgtype"] = "m.notice"
        content[PLAINTEXT] = True
        self.state.queue(input_id, [(room_id, content)])

    async def _on_message(self, room_id: str, ev: Any) -> None:
        relates = (ev.source.get("content") or {}).get("m.relates_to") or {}
        if relates.get("rel_type") == "m.replace":
            # an edit: the original was the declaration; editing it changes nothing -- but the
            # player is told so, in the room they edited in
            sender = name_of(ev.sender, self.server)
            self.state.queue(f"edit:{ev.event_id}", [
                (room_id, render(msg("edit_ignored", player=sender), self.server, {sender}))])
            return
        kind = self.state.room_kind(room_id)
        dm = kind is not None and kind[0] in DM_KINDS
        sender = name_of(ev.sender, self.server)
        text = incoming_text(_strip_reply_fallback(ev.body),
                             getattr(ev, "formatted_body", None), self.server)
        table_room: str | None = room_id
        if dm:
            # A private message concerns the table it names or where the sender sits (one rule
            # for every adapter: referee.routing); its announcements go to that table's room.
            route = private_route(self.referee, sender, text, self._table_names())
            table_room, text = route.room, route.text
        inp = {
            "kind": "message", "id": ev.event_id, "room": table_room or room_id,
            "sender": sender, "text": text, "time": ev.server_timestamp / 1000.0, "dm": dm,
        }
        out = self.referee.process(inp)
        if out is not None:
            events = [e.to_json() for e in out.events]
        else:
            events = self._stored_events(ev.event_id)
        # No table for a private message: what the service says "to the room" goes back to the
        # sender, privately (never into the room it came from: that room may not be private).
        await self._queue(ev.event_id, table_room, table_room or room_id, sender, events)

    def _table_names(self) -> dict[str, str]:
        """What a player may type in a DM to name a table: its room's aliases (and id)."""
        names: dict[str, str] = {}
        for rid in list(self.referee.tables):
            room = self.client.rooms.get(rid) if self.client is not None else None
            if room is None:
                continue
            aliases = [getattr(room, "canonical_alias", None)]
            aliases += list(getattr(room, "alt_aliases", None) or [])
            for alias in aliases:
                if alias:
                    names[str(alias)] = rid
        return names

    def _table_label(self, player: str, table_room: str) -> str:
        """「【room name】」 before a private message for a player seated at several tables, so
        two tables' cards are never mixed up; "" otherwise."""
        tables = [r for r, t in self.referee.tables.items() if t.engine.is_seated(player)]
        if len(tables) < 2 or table_room not in self.referee.tables:
            return ""
        room = self.client.rooms.get(table_room) if self.client is not None else None
        name = getattr(room, "display_name", None) or table_room
        return msg("private_table_label", table=name)

    def _stored_events(self, input_id: str) -> list[dict[str, Any]]:
        """An input processed before a crash: its replies may not all be in the outbox yet."""
        conn = getattr(self.store, "conn", None)
        if conn is None:
            return []
        row = conn.execute("SELECT events FROM inputs WHERE input_id = ?", (input_id,)).fetchone()
        return list(json.loads(row[0])) if row else []

    async def _queue(self, input_id: str, reply_room: str | None, table_room: str, sender: str,
                     events: Iterable[dict[str, Any]]) -> None:
        """``reply_room``: where what is said "to the room" goes; None: to ``sender``
        privately."""
        mention = set(self.referee.seated_names(table_room)) | {sender}
        rows: list[tuple[str, dict[str, Any]]] = []
        for e in events:
            if e.get("event") != "say":
                continue
            to, text = str(e.get("to", "room")), str(e.get("text", ""))
            if to == "room" and reply_room is None:
                to = sender
            if to == "room" and reply_room is not None:
                rows.append((reply_room, render(text, self.server, mention)))
            else:
                room = await self.dm_room(mxid_of(to, self.server))
                rows.append((room, render(self._table_label(to, table_room) + text,
                                          self.server, ())))
        if rows:
            self.state.queue(input_id, rows)

    # --- direct messages --------------------------------------------------------------------
    async def dm_room(self, user_id: str) -> str:
        """The player's private room, created (encrypted) on first use and then reused."""
        existing = self.state.dm_room(user_id)
        if existing is not None:
            return existing
        while True:
            # private_chat (not trusted_private_chat): the player is not an admin of the room,
            # and inviting needs the bot's power level, so nobody is let in by the homeserver.
            r = await self.client.room_create(
                is_direct=True, invite=[user_id], preset=nio.RoomPreset.private_chat,
                initial_state=[ENCRYPTION, HISTORY_JOINED], name="referee",
                power_level_override={"invite": 100},
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

    def _vouch(self, room_id: str, partner: str) -> str | None:
        """Why ``room_id`` is no private channel for ``partner`` (None: it is, as far as the
        bot's view of the room goes): encrypted, and its members -- joined or invited -- exactly
        the bot and the partner, in a room nobody joins uninvited."""
        room = self.client.rooms.get(room_id)
        if room is None:
            return None  # not synced yet: _ready holds its messages back
        if not room.encrypted:
            return "not encrypted"
        members = set(room.users) | set(room.invited_users)
        if members != {self.config.user_id, partner}:
            if partner not in members:
                return "left"
            return "members: " + ", ".join(sorted(members - {self.config.user_id}))
        if room.join_rule not in ("invite", "knock"):
            return f"join rule {room.join_rule}"
        return None

    async def _replace_if_left(self, room_id: str) -> str:
        """Checked before every send to a DM: a player's private room that is no longer private
        (they left or refused it, someone else was invited, it is not encrypted) is given up,
        and the player gets a new one; what waited for the old room moves there, in order."""
        kind = self.state.room_kind(room_id)
        if kind is None or kind[0] not in DM_KINDS or not kind[1]:
            return room_id
        partner = kind[1]
        if kind[0] == "dm":
            why = self._vouch(room_id, partner)
            if why is None:
                return room_id
            log.warning("DM room %s of %s is no private channel (%s); making a new one",
                        room_id, partner, why)
            self.state.add_room(room_id, "dm_left" if why == "left" else "dm_lost", partner)
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
        """Each room's messages in order, the rooms side by side: a slow or rate-limited room
        (a DM waiting out a 429) never delays another table's replies (issue 21)."""
        by_room: dict[str, list[tuple[int, str, int, dict[str, Any]]]] = {}
        for seq, input_id, idx, room_id, content in self.state.unsent():
            by_room.setdefault(room_id, []).append((seq, input_id, idx, content))
        await asyncio.gather(*(self._flush_room(r, rows) for r, rows in by_room.items()))

    async def _flush_room(self, room_id: str,
                          rows: list[tuple[int, str, int, dict[str, Any]]]) -> None:
        """One room's unsent messages, in order, up to the first that cannot go yet."""
        for seq, input_id, idx, content in rows:
            if content.pop(PLAINTEXT, False):
                sent = await self._send_plain(room_id, content, _txn(input_id, idx))
                if sent is None:
                    return
                self.state.sent(seq, sent)
                continue
            target = await self._replace_if_left(room_id)
            if not self._ready(target):
                return
            try:
                r = await self.client.room_send(
                    target, "m.room.message", content, tx_id=_txn(input_id, idx),
                    ignore_unverified_devices=True)
            except Exception as e:
                log.warning("send to %s failed: %r; will retry", target, e)
                return
            if isinstance(r, nio.RoomSendResponse):
                self.state.sent(seq, r.event_id)
            else:
                log.warning("send to %s refused: %s; will retry", target, r)
                return


    async def _send_plain(self, room_id: str, content: dict[str, Any], txn: str) -> str | None:
        """An unencrypted message, even in an encrypted room (nio would encrypt it); its event
        id, or None (retried later)."""
        path = (f"/_matrix/client/v3/rooms/{urllib.parse.quote(room_id)}/send/m.room.message/"
                + txn)
        try:
            resp = await self.client.send(
                "PUT", path, json.dumps(content),
                headers={"Authorization": f"Bearer {self.client.access_token}",
                         "Content-Type": "application/json"})
            data = await resp.json(content_type=None)
        except Exception as e:
            log.warning("plaintext send to %s failed: %r; will retry", room_id, e)
            return None
        if resp.status != 200 or not isinstance(data, dict) or "event_id" not in data:
            log.warning("plaintext send to %s refused: %s %s; will retry", room_id,
                        resp.status, data)
            return None
        return str(data["event_id"])


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
