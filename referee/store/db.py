"""The SQLite store behind the referee service (implements ``Persistence`` and ``StoredState``).

One file, WAL mode. ``synchronous=NORMAL``: in WAL mode a commit is then durable against a crash
of the process (SIGKILL, an exception, OOM) -- the WAL is in the OS page cache and is recovered on
the next open -- and the database is never corrupted; only a power loss or OS crash can drop the
last few commits. That loss is harmless here: those messages' effects are lost *together* with
their processed ids (one transaction each), so they are simply processed again, never twice.
FULL would fsync every chat message (~14 ms each on the development VM) for no gain in
correctness.

One save path (:meth:`Store.save`): :func:`_prepare` checks and serialises the outcome before
anything is written (events of projected kinds validated as their typed classes); the one writer
(:meth:`Store._write`) puts its input row (with its events) and its ledger rows into the open
transaction, begun with ``BEGIN IMMEDIATE`` if none is; :meth:`Store._commit` then adds the
snapshot and the derived tables when due and commits. Plain ``sqlite3`` with parameterised
statements (cached by the driver); sqlite-utils handles opening, migrations, introspection and
the moderator queries.

Group commit (``group=N``, for ``referee replay --db`` only) is a wrapper around the same
writer, not a second one: it keeps the transaction open for N saves and defers its COMMIT (and
the snapshot) to the group's end. Each input is still all-or-nothing -- its row, events and
ledger go into the same transaction, never split across two -- and is durable before its events
are shown (the replay prints a group's lines after its commit). A crash loses at most the open
group, whose lines were never shown and are processed again on the next run, so the end state is
the same. The live bot commits every chat message (``group=1``): its replies go out right after.
"""

from __future__ import annotations

import contextlib
import json
import logging
import pickle
import sqlite3
import threading
import time
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import sqlite_utils
from pydantic_core import PydanticSerializationError, to_json

from referee.events import Event, fact_json
from referee.events import event_json as event_json
from referee.outcome import LedgerEntry, Outcome
from referee.store.chain import head as chain_head
from referee.store.chain import link as chain_link
from referee.store.chain import write_head
from referee.store.connection import Checkpointer, connect
from referee.store.integrity import (
    BackgroundCheck,
    CorruptDatabase,
    UnwritableDatabase,
    quick_check,
)
from referee.store.log import register, split_id
from referee.store.schema import (
    PROJECTED_KINDS,
    Projected,
    StoreError,
    Typed,
    migrate,
    project_pending,
    projected_event,
)

if TYPE_CHECKING:
    from referee.store.identity import Identities

log = logging.getLogger("referee.store")


def _put_parts(conn: sqlite3.Connection, seq: int, version: str, parts: dict[str, bytes]) -> None:
    """Rooms' snapshot parts as they were right after input ``seq`` (inside the caller's
    transaction); read only once a head at or after ``seq`` is written."""
    conn.executemany(
        "INSERT OR REPLACE INTO snapshot_parts(room, seq, version, state) VALUES (?, ?, ?, ?)",
        [(room, seq, version, part) for room, part in parts.items()],
    )


def _put_snapshot(conn: sqlite3.Connection, seq: int, version: str, state: bytes) -> None:
    """Replace the snapshot's head (inside the caller's transaction): only the newest is kept.
    The parts it makes superseded are deleted later, a few per save (``Store._prune``)."""
    conn.execute(
        "INSERT OR REPLACE INTO snapshots(id, seq, version, state, saved_at)"
        " VALUES (1, ?, ?, ?, ?)",
        (seq, version, state, time.time()),
    )


def _prune_all(conn: sqlite3.Connection, seq: int, version: str) -> None:
    """Delete every part the head at ``seq`` does not read: each room's older ones, and other
    versions'. Tens of ms over a thousand rooms: at start-up and close only."""
    conn.execute(
        "DELETE FROM snapshot_parts WHERE seq <= :h AND (version != :v OR seq < ("
        " SELECT max(q.seq) FROM snapshot_parts q WHERE q.room = snapshot_parts.room"
        " AND q.seq <= :h AND q.version = :v))",
        {"h": seq, "v": version},
    )


def _put_hands(conn: sqlite3.Connection, hands: Iterable[tuple[str, int, bytes]]) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO snapshot_hands(room, key, state) VALUES (?, ?, ?)", hands)


def _put_bundle(conn: sqlite3.Connection, seq: int, version: str, state: bytes) -> None:
    """A snapshot the service took at once (``Referee.snapshot``): its head, parts and their
    hands at ``seq``; a whole one first drops every part and hand held."""
    head, parts, hands, whole = _unbundle(state)
    if whole:
        conn.execute("DELETE FROM snapshot_parts")
        conn.execute("DELETE FROM snapshot_hands")
    _put_hands(conn, ((room, key, blob) for room, blobs in hands.items()
                      for key, blob in blobs.items()))
    _put_parts(conn, seq, version, parts)
    _put_snapshot(conn, seq, version, head)
    if not whole:
        _prune_all(conn, seq, version)
        conn.executemany("DELETE FROM snapshot_hands WHERE room = ? AND key = ?",
                         _dropped(state))


def _dropped(state: bytes) -> list[tuple[str, int]]:
    """The hands' keys a closing snapshot no longer names (its parts are newer)."""
    return [(str(r), int(k)) for r, k in pickle.loads(state).get("dropped", [])]


def _unbundle(
    state: bytes,
) -> tuple[bytes, dict[str, bytes], dict[str, dict[int, bytes]], bool]:
    """A service snapshot's (head, {room: part}, {room: {key: hand}}, whole) --
    ``Referee.snapshot``'s bytes."""
    try:
        bundle = pickle.loads(state)
        head, parts, whole = bundle["head"], dict(bundle["parts"]), bool(bundle["whole"])
        hands = {str(r): {int(k): bytes(b) for k, b in h.items()}
                 for r, h in bundle["hands"].items()}
    except Exception as e:  # the service's own bytes: anything else is a caller's mistake
        raise StoreError(f"not a service snapshot ({type(e).__name__}: {e})") from None
    return bytes(head), {str(k): bytes(v) for k, v in parts.items()}, hands, whole


def _prepare(outcome: Outcome) -> tuple[list[str], Typed | None, str]:
    """Everything :meth:`Store.save` writes, checked before anything is: each event's JSON
    (:func:`event_json`, serialised once and reused by callers), its events of projected kinds
    as their typed classes validated from that very JSON, and the input's JSON. StoreError
    (one line) for an outcome that cannot be stored."""
    events = outcome.events
    ledger = outcome.ledger
    if ledger:
        n = len(events)
        for entry in ledger:
            if type(entry.delta) is not int:
                raise StoreError(f"ledger delta must be an int chip count: {entry!r}")
            if entry.event_index is not None and not 0 <= entry.event_index < n:
                raise StoreError(f"ledger entry points at no event: {entry!r}")
    parts = [fact_json(e) for e in events]
    projected: Typed | None = None
    for i, e in enumerate(events):
        kind = e.event
        if kind in PROJECTED_KINDS:
            try:
                typed = projected_event(kind, parts[i])  # exactly what the log holds
            except ValueError as why:
                raise StoreError(f"cannot save input {outcome.input_id!r}: {why}") from None
            if projected is None:
                projected = []
            projected.append((i, typed))
    try:
        input_json = to_json(outcome.record).decode()  # pydantic-core: 4x json.dumps
    except PydanticSerializationError as e:
        raise StoreError(f"input {outcome.input_id!r} is not JSON: {e}") from None
    return parts, projected, input_json


def _take(snapshot: Callable[[], tuple[str, bytes]] | None) -> tuple[str, bytes] | None:
    """Take a snapshot before the transaction; one that fails is skipped (with a warning), never
    the inputs: the next hand's end takes another, and a restart re-runs a little more."""
    if snapshot is None:
        return None
    try:
        return snapshot()
    except Exception as e:  # whatever the state held, the inputs must be saved
        log.warning("snapshot skipped: %s: %s", type(e).__name__, e)
        return None


class AlreadyProcessed(StoreError):
    """``save`` of an input id that is already in the database; nothing was written."""


CHECKPOINT_EVERY = 500  # commits between checkpoints (~1-2 WAL pages per single save)
CHECKPOINT_SAVES = 2000  # ... or saves, whichever comes first (group commit: ~0.2 pages each)
PROJECT_EVERY = 1000  # saves between catch-ups of the derived tables (also on read and close)
# Inputs saved between two snapshots at least: a snapshot due at a hand's end waits until this
# many inputs passed since the last one (or until the store closes). A restart then re-runs at
# most about this many inputs (a fraction of a second), while a long replay pickles the tables
# a few dozen times instead of at every hand.
SNAPSHOT_SPACING = 1000
# ... and this many per table the service runs, when that is more: with many tables nearly every
# one changes between two snapshots, so a snapshot pickles them all whatever the spacing, and
# the spacing sets how often (at 1,000 tables a room pickle every 3 inputs instead of every
# one). A restart re-runs up to this many inputs per table after the snapshot (bench/scale.py:
# ~0.4 ms CPU an input at 1,000 tables, so about a second there).
SPACING_PER_TABLE = 3
PRUNE_PER_SAVE = 8  # superseded snapshot parts deleted with each save


class Store:
    """The referee's database. Open it once per process; one writer at a time (BEGIN IMMEDIATE
    makes a second writer wait, never interleave).

    ``exclusive``: see :func:`connect`. ``group``: inputs per commit (group commit, see above);
    it needs ``exclusive``: the open transaction holds the write lock from a group's first save
    to its commit, the service's work in between included, and :meth:`expect` answers "was it
    processed?" from memory. Reads through this class commit the open group first.

    ``check``: the integrity check of an existing file at open (``PRAGMA quick_check``, a read
    of every page; :mod:`referee.store.integrity`): ``"sync"`` (the commands) raises
    CorruptDatabase here; ``"background"`` (the bots) runs it on its own thread beside the
    resume and :meth:`verify` waits for it -- and refuses a file it cannot write at once
    (UnwritableDatabase, :meth:`writable`); ``"off"`` skips it."""

    def __init__(
        self,
        path: str | Path,
        *,
        create: bool = True,
        exclusive: bool = False,
        group: int = 1,
        check: str = "sync",
    ) -> None:
        if group < 1:
            raise ValueError(f"group must be at least 1, not {group}")
        if group > 1 and not exclusive:
            raise ValueError("group commit needs exclusive=True")
        if check not in ("sync", "background", "off"):
            raise ValueError(f"check must be sync, background or off, not {check!r}")
        self.path = str(path)
        self.exclusive = exclusive and self.path != ":memory:"
        self.group = group
        self.conn = connect(path, create=create, exclusive=exclusive)
        self.db = sqlite_utils.Database(self.conn, execute_plugins=False)
        try:
            self._check: BackgroundCheck | None = None
            if self.path != ":memory:" and check == "sync":
                # A damaged page anywhere is found now, before any command reads a record:
                # one line naming the file and the remedy, never a traceback half-way.
                quick_check(self.conn, path)
            elif self.path != ":memory:" and check == "background":
                # the bots: the same check while they resume; verify() before going online
                self._check = BackgroundCheck(path)
            self.version = migrate(self.db)
            # the compact rows' names, codecs and decoding SQL functions (the log view)
            self.log = register(self.conn)
        except CorruptDatabase:
            self.conn.close()
            raise
        except sqlite3.DatabaseError as e:
            self.conn.close()
            raise CorruptDatabase(path, str(e)) from None
        except StoreError as e:
            self.conn.close()
            raise StoreError(f"{path}: {e}") from None
        self._lock = threading.Lock()
        # Processed ids are looked up in the database (a unique index, migration 5), not held
        # in memory: memory must not grow with every input ever saved. The inputs of the open
        # transaction (group commit) are here as well, to be forgotten if it fails.
        self._batch_ids: set[str] = set()
        # Ids known not to be saved yet (expect(), sole writer): counters of each id prefix,
        # sorted, with a mark each once saved; other ids as they are.
        self._fresh: dict[str, tuple[array[int], bytearray]] = {}
        self._fresh_text: set[str] = set()
        self._last_expected: tuple[str | None, int, bytearray | None] = (None, 0, None)
        self._known_seq = 0
        self._refresh_seq()
        # A snapshot is due when the open transaction commits (a hand ended in it), once
        # SNAPSHOT_SPACING inputs were saved since the newest one (``_snap_seq``).
        self._snapshot: Callable[[], tuple[str, bytes]] | None = None
        row = self.conn.execute("SELECT seq FROM snapshots WHERE id = 1").fetchone()
        self._snap_seq = int(row[0]) if row else 0
        self._head_seq = 0  # a head written in the open transaction (its seq)
        # The rooms whose parts the snapshot being taken wrote (at ``_parts_seq``); once its
        # head is committed, their older parts are superseded: deleted PRUNE_PER_SAVE a save
        # (a thousand at once is ~20 ms of SQLite freeing their pages).
        self._parts_seq = 0
        self._parts_rooms: list[str] = []
        self._prune: list[tuple[str, int]] = []
        # Checkpoints (copying the WAL back into the database, with an fsync of each) would
        # otherwise run inside every ~1000th commit and stall that chat message for tens of ms;
        # a background thread with its own connection does them instead (the GIL is released
        # while SQLite works, and a checkpoint never blocks our writes).
        self._checkpointer: Checkpointer | None = None
        self._saves = 0
        self._saves_since_checkpoint = 0
        self._commits_since_checkpoint = 0
        # The inputs written in the open transaction (group commit: until the group is full)
        # and the last seq before them (to forget them if it fails).
        self._batch: list[str] = []
        self._batch_base = 0
        self._chain = b""  # the newest row's digest chain, read when a transaction begins
        self._project_due = False
        # The events of the last save, each as JSON (:func:`event_json`): a caller that prints
        # them (``referee replay``) reuses the text instead of serialising them again.
        self.last_events: list[Event] | None = None
        self.last_json: list[str] = []
        # What our saves since the last projection will project: the first and last seq saved
        # (None: none yet, or not one run of consecutive seqs) and the inputs among them with
        # projected events -- so project() need not read them back from the log.
        self._pend_first: int | None = None
        self._pend_last = 0
        self._pend: Projected = []
        self._pend_ok = True
        if self.path != ":memory:":
            self.conn.execute("PRAGMA wal_autocheckpoint = 0")
        if check == "background":
            # the bots: never online on a file they cannot write (every message would fail),
            # found before their resume writes anything
            try:
                self.writable()
            except UnwritableDatabase:
                self.conn.close()
                raise

    # --- lifecycle -------------------------------------------------------------------------
    def verify(self) -> None:
        """Wait for the integrity check started at open (``check="background"``); raise
        CorruptDatabase if the file is damaged. A no-op for the other modes."""
        if self._check is not None:
            self._check.result()

    def writable(self) -> None:
        """Raise UnwritableDatabase unless this connection can write the file. SQLite opens a
        file it may not write (an immutable file, a read-only mount or medium) read-only
        without a word and fails only at the first write: here that write is one that
        changes nothing, rolled back."""
        if self.path == ":memory:":
            return
        with self._lock:
            if self.conn.in_transaction:  # a group is open: the file was written already
                return
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                try:
                    self.conn.execute("DELETE FROM schema_version WHERE 0")
                finally:
                    self.conn.execute("ROLLBACK")
            except sqlite3.Error as e:
                raise UnwritableDatabase(self.path, str(e)) from None

    def close(self) -> None:
        """Commit what is pending (group commit), project, close. A failed final commit is
        raised (StoreError) after the connection is closed."""
        failed: StoreError | None = None
        try:
            self._final_commit()
        except StoreError as e:
            failed = e
        if failed is None:
            try:
                self.project()
            except (sqlite3.Error, StoreError):
                pass  # the next open or query projects them
        if self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
        self.conn.close()  # the last connection to close checkpoints and removes the WAL
        if failed is not None:
            raise failed

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # --- Persistence ---------------------------------------------------------------------
    def _refresh_seq(self) -> None:
        """The last seq saved (by us or another writer), read at open and before a snapshot."""
        self._known_seq = self.conn.execute("SELECT max(seq) FROM inputs").fetchone()[0] or 0

    def _seq_of(self, input_id: str) -> int | None:
        key = self.log.key(input_id)
        if key is None:
            return None  # no row has its prefix
        row = self.conn.execute(
            "SELECT seq FROM inputs WHERE id_prefix = ? AND id_rest = ?", key).fetchone()
        return None if row is None else int(row[0])

    def _saved_before(self, input_id: str) -> bool:
        return self._seq_of(input_id) is not None

    def is_processed(self, input_id: str) -> bool:
        """Whether ``input_id`` was saved (one lookup in the unique index, or the open group)."""
        if input_id in self._batch_ids:
            return True
        if self._fresh or self._fresh_text:
            i, done = self._expected(input_id)
            if done is not None and not done[i]:
                return False
            if input_id in self._fresh_text:
                return False
        return self._saved_before(input_id)

    def _expected(self, input_id: str) -> tuple[int, bytearray | None]:
        """Where ``input_id`` is among the expected counters: (index, marks), or (0, None).
        The last answer is kept: a line is asked about, then saved."""
        last = self._last_expected
        if last[0] == input_id:
            return last[1], last[2]
        prefix, rest = split_id(input_id)
        entry = self._fresh.get(prefix) if isinstance(rest, int) else None
        found: tuple[int, bytearray | None] = (0, None)
        if entry is not None:
            counters, done = entry
            i = bisect_left(counters, rest)
            if i < len(counters) and counters[i] == rest:
                found = (i, done)
        self._last_expected = (input_id, *found)
        return found

    def expect(self, input_ids: Iterable[str]) -> None:
        """A sole writer (``exclusive``) about to save these inputs learns, in a few queries,
        which of them are new: :meth:`is_processed` then answers those from memory (a replay's
        lines). Ids that share a prefix and end in a counter (a transcript's) are kept as one
        array of counters, 8 bytes each, not one string each."""
        if not self.exclusive:
            raise StoreError("expect() needs a sole writer (exclusive=True)")
        counters: dict[str, array[int]] = {}
        texts: set[str] = set()
        chunk: list[str] = []

        prefix_ids: dict[str, int | None] = {}  # None: no row has it (a new run's ids)

        def settle() -> None:
            keys: list[tuple[int, int | str] | None] = []
            splits: list[tuple[str, int | str]] = []
            by_key: dict[int, list[int | str]] = {}
            for input_id in chunk:
                prefix, rest = split_id(input_id)
                splits.append((prefix, rest))
                if prefix not in prefix_ids:
                    found = self.log.key(input_id)
                    prefix_ids[prefix] = None if found is None else found[0]
                pid = prefix_ids[prefix]
                keys.append(None if pid is None else (pid, rest))
                if pid is not None:
                    by_key.setdefault(pid, []).append(rest)
            saved: set[tuple[int, int | str]] = set()
            for pid, rests in by_key.items():
                marks = ",".join("?" * len(rests))
                saved.update((pid, r[0]) for r in self.conn.execute(
                    f"SELECT id_rest FROM inputs WHERE id_prefix = ? AND id_rest IN ({marks})",
                    (pid, *rests)))
            for input_id, key, (prefix, rest) in zip(chunk, keys, splits, strict=True):
                if (key is not None and key in saved) or input_id in self._batch_ids:
                    continue
                if isinstance(rest, int):
                    counters.setdefault(prefix, array("q")).append(rest)
                else:
                    texts.add(input_id)
            chunk.clear()

        for input_id in input_ids:
            chunk.append(input_id)
            if len(chunk) >= 500:
                settle()
        settle()
        fresh: dict[str, tuple[array[int], bytearray]] = {}
        for prefix, arr in counters.items():
            if any(arr[k] > arr[k + 1] for k in range(len(arr) - 1)):
                arr = array("q", sorted(arr))
            fresh[prefix] = (arr, bytearray(len(arr)))
        self._fresh, self._fresh_text = fresh, texts
        self._last_expected = (None, 0, None)

    def save(self, outcome: Outcome) -> None:
        """Write the input, its events and its ledger (moving the bank) in one transaction, or
        with group commit in the group's (:meth:`_write`, then :meth:`_commit` when the
        transaction is full). Derived tables follow in batches (:meth:`project`).

        Raises :class:`AlreadyProcessed` (and writes nothing) for an input id already saved,
        StoreError for an outcome that cannot be stored (validated before anything is written).
        """
        parts, projected, input_json = _prepare(outcome)
        input_id = outcome.input_id
        with self._lock:
            # An open group is never rolled back for a duplicate: refused before writing. With
            # no open transaction the unique index refuses it (anyone's, see _write).
            if self._batch and self.is_processed(input_id):
                raise AlreadyProcessed(f"input {input_id!r} was already processed")
            self._write(input_id, outcome.room, input_json, "[" + ",".join(parts) + "]",
                        outcome.ledger, projected)
            if (outcome.snapshot_parts is not None or outcome.snapshot_head is not None
                    or outcome.snapshot_hands):
                self._write_snapshot(outcome)
            if outcome.snapshot is not None:
                self._snapshot = outcome.snapshot  # taken if the store closes before the next
            if len(self._batch) >= self.group:
                self._commit()
            self.last_events, self.last_json = outcome.events, parts

    def _write(
        self,
        input_id: str,
        room: str,
        input_json: str,
        events_json: str,
        ledger: list[LedgerEntry],
        projected: Typed | None,
    ) -> None:
        """The one writer of a saved outcome: its input row (with its events) and its ledger
        rows, in the open transaction -- begun here if none is (``BEGIN IMMEDIATE``: the write
        lock, so nothing can race). The row takes the next rowid, which is its seq. A failure
        rolls the whole transaction back and forgets its inputs (:meth:`_abort`)."""
        conn = self.conn
        try:
            if not self._batch:
                self._batch_base = self._known_seq
                conn.execute("BEGIN IMMEDIATE")
                self._chain = chain_head(conn)  # under the write lock: nobody appends now
            input_b, events_b = input_json.encode(), events_json.encode()
            linked = chain_link(self._chain, input_id, room, input_b, events_b)
            log = self.log
            key = log.key(input_id, create=True)
            assert key is not None
            codec = log.writing_codec(self._known_seq + 1)
            cur = conn.execute(
                "INSERT INTO inputs(room_id, id_prefix, id_rest, codec, body, processed_at,"
                " chain) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (log.room_id(room, create=True), *key, codec,
                 log.encode(codec, input_b, events_b), time.time(), linked),
            )
            self._chain = linked
            seq = cur.lastrowid
            assert seq is not None
            if ledger:
                conn.executemany(
                    "INSERT INTO ledger(player, delta, reason, input_seq, event_idx)"
                    " VALUES (?, ?, ?, ?, ?)",
                    [(e.player, e.delta, e.reason, seq, e.event_index) for e in ledger],
                )
            if self._prune:
                rows, self._prune = self._prune[:PRUNE_PER_SAVE], self._prune[PRUNE_PER_SAVE:]
                conn.executemany("DELETE FROM snapshot_parts WHERE room = ? AND seq < ?", rows)
        except BaseException as e:
            n = len(self._batch)
            self._abort()
            if isinstance(e, sqlite3.IntegrityError) and self._duplicate(input_id):
                raise AlreadyProcessed(f"input {input_id!r} was already processed") from None
            if isinstance(e, sqlite3.Error | KeyError | TypeError | ValueError):
                also = f" (and the {n} before it in its group)" if n else ""
                raise StoreError(f"cannot save input {input_id!r}{also}: {e!r}") from e
            raise
        self._batch.append(input_id)
        self._batch_ids.add(input_id)
        self._saved(input_id, seq, room, projected)

    def _write_snapshot(self, outcome: Outcome) -> None:
        """The snapshot parts and head an outcome carries, into the open transaction (never
        older than the newest head: a whole snapshot written since supersedes them)."""
        try:
            if outcome.snapshot_hands:
                _put_hands(self.conn, outcome.snapshot_hands)
            parts = outcome.snapshot_parts
            if parts is not None and parts[0] > self._snap_seq:
                _put_parts(self.conn, *parts)
                if parts[0] != self._parts_seq:  # another snapshot's (one was abandoned)
                    self._parts_seq, self._parts_rooms = parts[0], []
                self._parts_rooms.extend(parts[2])
            head = outcome.snapshot_head
            if head is not None and head[0] > self._snap_seq:
                _put_snapshot(self.conn, *head)
                self._head_seq = head[0]
                if outcome.snapshot_drop:
                    self.conn.executemany(
                        "DELETE FROM snapshot_hands WHERE room = ? AND key = ?",
                        outcome.snapshot_drop)
        except sqlite3.Error as e:
            n = len(self._batch)
            self._abort()
            raise StoreError(f"cannot save input {outcome.input_id!r}"
                             f"{f' (and the {n - 1} before it in its group)' if n > 1 else ''}"
                             f" with its snapshot: {e!r}") from e

    def snapshot_due(self, tables: int = 0) -> int | None:
        """The seq a snapshot should now be taken after (the last input saved), when
        SNAPSHOT_SPACING inputs, or SPACING_PER_TABLE for each of the service's ``tables``,
        were saved since the newest one; None otherwise."""
        spacing = max(SNAPSHOT_SPACING, SPACING_PER_TABLE * tables)
        if self._known_seq - max(self._snap_seq, self._head_seq) >= spacing:
            return self._known_seq
        return None

    def _duplicate(self, input_id: str) -> bool:
        """After a refused insert: was it refused because another writer saved the id?"""
        try:
            return self._saved_before(input_id)
        except sqlite3.Error:
            return False  # the original error says more

    def _abort(self) -> None:
        """The open transaction failed: roll it back; its inputs are unprocessed again."""
        conn = self.conn
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        finally:
            self._batch_ids.clear()
            self.log.forget()  # names and codecs added in it are gone
            self._snapshot = None
            self._head_seq = 0
            self._known_seq = self._batch_base
            self._batch.clear()
            self._project_due = False
            self._pend_ok = False  # the derived tables lost what was projected inside it

    def _settle(self) -> None:
        """Before reading: commit what group commit holds, so reads see every save."""
        if self._batch:
            self.commit()

    @property
    def pending(self) -> int:
        """Inputs saved but not durable yet (group commit): 0 right after each commit."""
        return len(self._batch)

    def commit(self) -> None:
        """Make every saved input durable now (group commit; a no-op otherwise)."""
        with self._lock:
            self._commit()

    def _final_commit(self) -> None:
        """The last commit before closing: with the snapshot that waited for its spacing, so
        the next start re-runs nothing that this run already saw."""
        with self._lock:
            self._commit(final=True)

    def _commit(self, final: bool = False) -> None:
        """Commit the open transaction (its inputs, :meth:`_write`), with the snapshot when one
        is due and spaced (or ``final``) -- taken now, the state after its last input, and
        recorded at that seq -- and the derived tables when due."""
        if not self._batch:
            if (final and self._snapshot is not None  # inputs since the newest, committed
                    and self._known_seq > self._snap_seq):
                self._snapshot_now()
            return
        conn = self.conn
        n = len(self._batch)
        first = self._batch[0]
        # The service takes its snapshots itself, a few rooms per input (save); a closing
        # store adds the last one, of the rooms changed since.
        spaced = final and self._known_seq > max(self._snap_seq, self._head_seq)
        snap = _take(self._snapshot) if spaced else None
        try:
            if snap is not None:
                _put_bundle(conn, self._known_seq, *snap)
            if self._project_due:
                self._project_due = False
                self._project()  # in this transaction
            conn.execute("COMMIT")
        except BaseException as e:
            self._abort()
            if isinstance(e, sqlite3.Error | StoreError | KeyError | TypeError | ValueError):
                what = f"the last {n} inputs" if n > 1 else f"input {first!r}"
                raise StoreError(f"cannot save {what}: {e!r}") from e
            raise
        self._batch.clear()
        self._batch_ids.clear()
        if self.path != ":memory:":
            with contextlib.suppress(OSError):  # evidence, not the record: never fails a save
                write_head(self.path, self._known_seq, self._chain)
        if self._head_seq:
            self._snap_seq, self._head_seq = self._head_seq, 0
            if self._parts_seq == self._snap_seq:
                self._prune.extend((room, self._parts_seq) for room in self._parts_rooms)
            self._parts_seq, self._parts_rooms = 0, []
        if snap is not None:
            self._snap_seq = self._known_seq
            self._snapshot = None
        elif spaced:
            self._snapshot = None  # due but failed to be taken (warned): the next hand's end
        self._checkpoint_due()

    def _saved(self, input_id: str, seq: int, room: str, projected: Typed | None) -> None:
        if self._fresh or self._fresh_text:
            i, done = self._expected(input_id)
            if done is not None:
                done[i] = 1
            self._fresh_text.discard(input_id)
        self._known_seq = seq
        if self._pend_first is None:
            self._pend_first = seq
        elif seq != self._pend_last + 1:
            self._pend_ok = False  # another writer's inputs in between: read the log
        self._pend_last = seq
        if projected is not None and self._pend_ok:
            self._pend.append((seq, room, projected))
        self._saves += 1
        self._saves_since_checkpoint += 1
        if self._saves % PROJECT_EVERY == 0:
            self._project_due = True  # by the commit of this transaction

    def _checkpoint_due(self) -> None:
        """After a commit: copy the WAL back into the database every CHECKPOINT_EVERY commits
        (or CHECKPOINT_SAVES saves), so that it does not grow without end."""
        self._commits_since_checkpoint += 1
        if self.path == ":memory:" or (
            self._commits_since_checkpoint < CHECKPOINT_EVERY
            and self._saves_since_checkpoint < CHECKPOINT_SAVES
        ):
            return
        self._commits_since_checkpoint = self._saves_since_checkpoint = 0
        if self.exclusive:  # no other connection may touch the file: checkpoint here
            try:
                self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            except sqlite3.Error:
                pass  # best effort: the next one (or closing) checkpoints again
            return
        if self._checkpointer is None:
            self._checkpointer = Checkpointer(self.path)
        self._checkpointer.request()

    def inputs(self, room: str | None = None) -> list[dict[str, Any]]:
        """Every saved input (of ``room``, or all), in the order saved."""
        self._settle()
        if room is None:
            rows = self.conn.execute("SELECT input FROM log ORDER BY seq")
        else:
            rid = self.log.room_id(room)
            if rid is None:
                return []
            rows = self.conn.execute(
                "SELECT referee_input(codec, body) FROM inputs WHERE room_id = ? ORDER BY seq",
                (rid,))
        return [json.loads(r[0]) for r in rows]

    def stream_inputs(self, after: int = 0) -> Iterator[dict[str, Any]]:
        """The inputs saved after seq ``after``, in order, read as they are consumed (a restart
        must not hold a whole history in memory). For re-running them, not for saving while
        iterating: the rows are read in pages by seq, each page a query of its own."""
        self._settle()
        last = after
        while True:
            rows = self.conn.execute(
                "SELECT seq, input FROM log WHERE seq > ? ORDER BY seq LIMIT 512", (last,)
            ).fetchall()
            if not rows:
                return
            for seq, text in rows:
                last = seq
                yield json.loads(text)

    # --- snapshots (restart without re-running all history) ---------------------------------------
    def latest_snapshot(self) -> tuple[int, str, bytes] | None:
        """(seq, version, state) of the newest snapshot: the service's state right after input
        ``seq`` was processed; None when there is none."""
        self._settle()
        row = self.conn.execute(
            "SELECT seq, version, state FROM snapshots WHERE id = 1"
        ).fetchone()
        if row is None:
            return None
        seq, version = int(row[0]), str(row[1])
        parts: dict[str, bytes] = {}
        mixed = False
        for room, part_version, part in self.conn.execute(
            "SELECT p.room, p.version, p.state FROM snapshot_parts p WHERE p.seq = ("
            " SELECT max(q.seq) FROM snapshot_parts q WHERE q.room = p.room AND q.seq <= ?)",
            (seq,),
        ):
            mixed = mixed or part_version != version
            parts[str(room)] = bytes(part)
        hands: dict[str, dict[int, bytes]] = {}
        for room, key, blob in self.conn.execute("SELECT room, key, state FROM snapshot_hands"):
            hands.setdefault(str(room), {})[int(key)] = bytes(blob)
        bundle = pickle.dumps({"head": bytes(row[2]), "parts": parts, "hands": hands,
                               "whole": True}, protocol=pickle.HIGHEST_PROTOCOL)
        # a room whose newest part another version took: not a state this code can go on from
        return seq, f"{version} (rooms of other versions)" if mixed else version, bundle

    def put_snapshot(self, version: str, state: bytes) -> int:
        """Save ``state`` as the snapshot after the last input saved (at start-up, after a
        full re-run). Returns that seq."""
        with self._lock:
            self._commit()
            self._snapshot = None  # this one is newer than any that waited
            return self._put_now(version, state)

    def _snapshot_now(self) -> None:
        """Take the snapshot that waited for its spacing, on its own (its inputs are
        committed); a failure to take it is skipped with a warning, as at a commit."""
        snap = _take(self._snapshot)
        self._snapshot = None
        if snap is not None:
            self._put_now(*snap)

    def _put_now(self, version: str, state: bytes) -> int:
        self._refresh_seq()
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            _put_bundle(conn, self._known_seq, version, state)
            conn.execute("COMMIT")
        except BaseException as e:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(e, sqlite3.Error):
                raise StoreError(f"cannot save a snapshot: {e!r}") from e
            raise
        self._snap_seq = self._known_seq
        return self._known_seq

    def input_ids(self) -> list[str]:
        self._settle()
        return [r[0] for r in self.conn.execute("SELECT input_id FROM log ORDER BY seq")]

    def project(self) -> int:
        """Bring penalties, flags, hands, ranks and the bonus area up to date with the log.

        They are a cache of the event log, projected in batches (every ``PROJECT_EVERY`` saves,
        on close, and before any read through this class) rather than inside each message's
        transaction: that keeps a chat message to one row written. Returns inputs projected."""
        self._settle()
        return self._project()

    def _project(self) -> int:
        known = None
        if self._pend_first is not None and self._pend_ok:
            known = (self._pend_first, self._pend_last, self._pend)
        try:
            n = project_pending(self.conn, known)
        except (KeyError, TypeError, ValueError) as e:
            raise StoreError(f"cannot project the event log: {e!r}") from e
        self._pend_first, self._pend, self._pend_ok = None, [], True
        return n

    # --- StoredState ---------------------------------------------------------------------
    def balances(self) -> dict[str, int]:
        self._settle()
        return {p: b for p, b in self.conn.execute("SELECT player, balance FROM bank")}

    def balance(self, player: str) -> int:
        self._settle()
        row = self.conn.execute("SELECT balance FROM bank WHERE player = ?", (player,)).fetchone()
        return int(row[0]) if row else 0

    def rank_marks(self) -> dict[str, str]:
        self.project()
        return {p: m for p, m in self.conn.execute("SELECT player, mark FROM ranks")}

    def bonus_area(self, room: str | None = None) -> tuple[list[str], list[int]] | None:
        self.project()
        if room is None:
            row = self.conn.execute(
                "SELECT cards, markers FROM bonus_area"
                " ORDER BY input_seq DESC, event_idx DESC LIMIT 1"
            ).fetchone()
        else:
            row = self.conn.execute(
                "SELECT cards, markers FROM bonus_area WHERE room = ?", (room,)
            ).fetchone()
        if row is None:
            return None
        return list(json.loads(row[0])), [int(m) for m in json.loads(row[1])]

    # --- the event log -------------------------------------------------------------------
    def events(self, room: str | None = None) -> list[dict[str, Any]]:
        """The event log (of ``room``, or all), oldest first, as the events' JSON objects."""
        self._settle()
        if room is None:
            rows = self.conn.execute("SELECT events FROM log ORDER BY seq")
        else:
            rid = self.log.room_id(room)
            if rid is None:
                return []
            rows = self.conn.execute(
                "SELECT referee_events(codec, body) FROM inputs WHERE room_id = ? ORDER BY seq",
                (rid,))
        return [e for r in rows for e in json.loads(r[0])]

    def ledger(self, player: str | None = None) -> list[dict[str, Any]]:
        self._settle()
        sql = (
            "SELECT l.id, l.player, l.delta, l.reason, i.input_id,"
            " json_extract(i.events, '$[' || l.event_idx || '].event') AS event"
            " FROM ledger l JOIN log i ON i.seq = l.input_seq"
        )
        if player is None:
            return list(self.db.query(sql + " ORDER BY l.id"))
        return list(self.db.query(sql + " WHERE l.player = ? ORDER BY l.id", [player]))

    # --- for the chat adapters (no adapter runs SQL on the store) ---------------------------------
    def events_of(self, input_id: str) -> list[dict[str, Any]]:
        """The events saved for input ``input_id`` as JSON objects ([] if it is not saved): a
        bot that stopped between saving an input and queueing its replies finds them here."""
        self._settle()
        seq = self._seq_of(input_id)
        if seq is None:
            return []
        row = self.conn.execute("SELECT events FROM log WHERE seq = ?", (seq,)).fetchone()
        return list(json.loads(row[0])) if row else []

    def identities(self) -> Identities:
        """The IRC bot's identity tables (proven connections, secrets) on this connection."""
        from referee.store.identity import Identities

        return Identities(self.conn)
