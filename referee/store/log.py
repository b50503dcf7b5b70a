"""The compact encoding of the event log's rows (``inputs``, schema version 9) and how to read it.

A row is one input and the events it caused. What a reader sees -- the input id, the room, the
input's JSON and the events' JSON, byte for byte as the service serialised them -- is stored
without repeating what other rows or columns already hold:

- ``room_id``: the room's name once, in ``rooms``;
- ``id_prefix``, ``id_rest``: the input id. An id that ends in ``:`` and a decimal counter (one
  run's or one file's ids differ only there) is its prefix, once in ``id_prefixes``, and the
  counter as an integer; any other id is prefix 0 and the whole id as text. The unique index on
  the pair keeps "never applied twice" SQLite's own guarantee;
- ``codec``, ``body``: both JSON texts as one raw DEFLATE stream with a preset dictionary,
  ``codecs(codec).dict`` (codec 0: none), after the input part's length (LEB128). A row repeats
  the shapes and sentences of the rows before it (its id and room inside the input, the event
  keys, the prompts); a dictionary made of this database's own newest rows turns those into
  back-references. The first is made after :data:`TRAIN_FIRST` rows, the next ones after four
  times as many rows each time, then every :data:`TRAIN_EVERY`, so it follows the names and
  games a database sees; every row names the
  dictionary it was written with, and a dictionary is never changed or removed.

Nothing here depends on which fields an input or event carries: the texts are compressed as
they are. The digest chain (:mod:`referee.store.chain`) covers the decoded texts, exactly as
before the encoding changed, so a migrated row keeps its chain value and a changed dictionary
shows as a broken chain.

:func:`register` installs the decoding SQL functions on a connection (``referee_room``,
``referee_id``, ``referee_input``, ``referee_events``); the ``log`` view (seq, input_id, room,
input, events, processed_at, chain) reads through them, so a query written against the old
columns reads ``log`` instead of ``inputs``. :func:`source` names whichever of the two a
database has (a file not yet migrated still has the old columns).
"""

from __future__ import annotations

import itertools
import sqlite3
import time
import weakref
import zlib
from typing import Any

TRAIN_FIRST = 64  # rows written without a dictionary before the first is made
TRAIN_EVERY = 16384  # the most rows written with one dictionary before the next is made
DICT_BYTES = 16384  # the window: a longer dictionary is never referred to
# Primed codecs held in memory besides codec 0 and the newest, which writes (~100 KB each: a
# compressor's and a decompressor's state and the dictionary): the last few made or read.
# Older ones are primed again from ``codecs`` when a row of theirs is read; without this a log
# that makes a dictionary every TRAIN_EVERY rows would hold one more every 16,384 inputs for as
# long as the process runs (~600 MB in a year of a thousand tables).
CODECS_KEPT = 4
# Raw DEFLATE (the row says which dictionary), a 16 KB window: copying the primed compressor
# (its window and hash tables) for every row is most of a row's cost, and twice the window
# takes twice as long to copy for ~10% smaller rows; level 9 searches longer chains through
# the dictionary for 4% less.
_WBITS = -14
_LEVEL = 6
_MEMLEVEL = 4


def split_id(input_id: str) -> tuple[str, int | str]:
    """(prefix, rest) of an input id: ``"run:7"`` -> (``"run:"``, 7); ``"$ev"`` -> ("", "$ev").
    Only a counter written the one way (no leading zero, ASCII digits, fits 64 bits) is split
    off, so the id is always the prefix and ``str(rest)`` again."""
    head, colon, tail = input_id.rpartition(":")
    if (colon and tail.isascii() and tail.isdigit() and len(tail) <= 18
            and (tail[0] != "0" or tail == "0")):
        return head + colon, int(tail)
    return "", input_id


def _leb128(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _unleb128(data: bytes) -> tuple[int, int]:
    """(value, bytes used) of the LEB128 number at the start of ``data``."""
    n = shift = 0
    for i, b in enumerate(data):
        n |= (b & 0x7F) << shift
        if not b & 0x80:
            return n, i + 1
        shift += 7
    raise ValueError("truncated row body")


def source(conn: sqlite3.Connection) -> str:
    """``log`` for a database in the compact layout, ``inputs`` for one not migrated yet: both
    have the columns seq, input_id, room, input, events, processed_at (and chain, once v8)."""
    cols = {r[1] for r in conn.execute("PRAGMA table_info(inputs)")}
    return "log" if "body" in cols else "inputs"


class Log:
    """The codecs, rooms and id prefixes of one connection, cached (they are never changed
    once written; a lookup that misses asks the database again, where another writer may have
    added one). The writer's caches hold what its open transaction added: :meth:`forget` after
    a rollback."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._rooms: dict[int, str] = {}
        self._room_ids: dict[str, int] = {}
        self._prefixes: dict[int, str] = {}
        self._prefix_ids: dict[str, int] = {}
        # codec id -> (compressor primed with its dictionary, decompressor primed with it)
        self._codecs: dict[int, tuple[Any, Any]] = {0: self._primed(b"")}
        self._newest: tuple[int, int] | None = None  # (codec id, its first seq), for writing
        self._last: tuple[int, bytes, str, str] | None = None  # the last row decoded

    def forget(self) -> None:
        """Drop the cached names and codecs (after a rollback some may not exist)."""
        self._rooms.clear()
        self._room_ids.clear()
        self._prefixes.clear()
        self._prefix_ids.clear()
        self._codecs = {0: self._codecs[0]}
        self._newest = None
        self._last = None

    # --- names ----------------------------------------------------------------------------
    def room(self, room_id: int) -> str:
        name = self._rooms.get(room_id)
        if name is None:
            row = self.conn.execute("SELECT name FROM rooms WHERE id = ?", (room_id,)).fetchone()
            if row is None:
                raise ValueError(f"row refers to no room {room_id}")
            name = self._rooms[room_id] = str(row[0])
        return name

    def room_id(self, name: str, create: bool = False) -> int | None:
        """The id of room ``name`` (added, inside the caller's transaction, with ``create``);
        None when it has none."""
        rid = self._room_ids.get(name)
        if rid is None:
            rid = self._lookup("rooms", "name", name, create)
            if rid is not None:
                self._room_ids[name] = rid
        return rid

    def prefix(self, prefix_id: int) -> str:
        if prefix_id == 0:
            return ""
        text = self._prefixes.get(prefix_id)
        if text is None:
            row = self.conn.execute(
                "SELECT prefix FROM id_prefixes WHERE id = ?", (prefix_id,)).fetchone()
            if row is None:
                raise ValueError(f"row refers to no id prefix {prefix_id}")
            text = self._prefixes[prefix_id] = str(row[0])
        return text

    def input_id(self, prefix_id: int, rest: int | str) -> str:
        return self.prefix(prefix_id) + str(rest)

    def key(self, input_id: str, create: bool = False) -> tuple[int, int | str] | None:
        """(id_prefix, id_rest) of ``input_id``; None when its prefix is not stored (so no
        row has that id), unless ``create`` adds it."""
        prefix, rest = split_id(input_id)
        if not prefix:
            return 0, rest
        pid = self._prefix_ids.get(prefix)
        if pid is None:
            pid = self._lookup("id_prefixes", "prefix", prefix, create)
            if pid is None:
                return None
            self._prefix_ids[prefix] = pid
        return pid, rest

    def _lookup(self, table: str, column: str, value: str, create: bool) -> int | None:
        conn = self.conn
        row = conn.execute(f"SELECT id FROM {table} WHERE {column} = ?", (value,)).fetchone()
        if row is None and create:
            cur = conn.execute(f"INSERT INTO {table}({column}) VALUES (?)", (value,))
            return cur.lastrowid
        return None if row is None else int(row[0])

    # --- bodies ---------------------------------------------------------------------------
    @staticmethod
    def _primed(zdict: bytes) -> tuple[Any, Any]:
        if zdict:
            comp = zlib.compressobj(_LEVEL, zlib.DEFLATED, _WBITS, _MEMLEVEL,
                                    zlib.Z_DEFAULT_STRATEGY, zdict=zdict)
            return comp, zlib.decompressobj(_WBITS, zdict=zdict)
        comp = zlib.compressobj(_LEVEL, zlib.DEFLATED, _WBITS, _MEMLEVEL)
        return comp, zlib.decompressobj(_WBITS)

    def _codec(self, codec: int) -> tuple[Any, Any]:
        primed = self._codecs.get(codec)
        if primed is None:
            row = self.conn.execute("SELECT dict FROM codecs WHERE id = ?", (codec,)).fetchone()
            if row is None:
                raise ValueError(f"row refers to no codec {codec}")
            primed = self._codecs[codec] = self._primed(bytes(row[0]))
            self._keep_few()
        return primed

    def _keep_few(self) -> None:
        """Forget the primed codecs beyond :data:`CODECS_KEPT` (the oldest made or read first;
        never codec 0 nor the newest, which writes)."""
        codecs = self._codecs
        newest = self._newest[0] if self._newest is not None else None
        for old in [c for c in codecs if c not in (0, newest)][:-CODECS_KEPT or None]:
            del codecs[old]

    def encode(self, codec: int, input_json: str | bytes, events_json: str | bytes) -> bytes:
        part = input_json if isinstance(input_json, bytes) else input_json.encode()
        rest = events_json if isinstance(events_json, bytes) else events_json.encode()
        comp = self._codec(codec)[0].copy()
        data: bytes = comp.compress(part + rest) + comp.flush()
        return _leb128(len(part)) + data

    def decode(self, codec: int, body: bytes) -> tuple[str, str]:
        """(input JSON, events JSON) of a row's body."""
        last = self._last
        if last is not None and last[0] == codec and last[1] == body:
            return last[2], last[3]
        n, used = _unleb128(body)
        d = self._codec(codec)[1].copy()
        data: bytes = d.decompress(body[used:])
        if not d.eof:
            raise ValueError("truncated row body")
        texts = data[:n].decode(), data[n:].decode()
        self._last = (codec, bytes(body), *texts)
        return texts

    def writing_codec(self, next_seq: int) -> int:
        """The codec a row about to take seq ``next_seq`` is written with, making a new
        dictionary first (inside the caller's write transaction) when one is due."""
        if self._newest is None:
            row = self.conn.execute(
                "SELECT id, first_seq FROM codecs ORDER BY id DESC LIMIT 1").fetchone()
            self._newest = (0, 0) if row is None else (int(row[0]), int(row[1]))
        codec, first = self._newest
        # at rows 64, 256, 1024, 4096, 16384, then every 16384: a young log's dictionary is
        # soon replaced by one of more typical rows, an old log's follows it slowly
        if next_seq > min(max(4 * first, TRAIN_FIRST), first + TRAIN_EVERY):
            zdict = self._train(next_seq)
            if zdict:
                cur = self.conn.execute(
                    "INSERT INTO codecs(dict, first_seq, made_at) VALUES (?, ?, ?)",
                    (zdict, next_seq, time.time()))
                assert cur.lastrowid is not None
                codec = cur.lastrowid
                self._codecs[codec] = self._primed(zdict)
            self._newest = (codec, next_seq)
            self._keep_few()
        return codec

    def _train(self, before: int) -> bytes:
        """A dictionary of the newest rows before seq ``before``: their texts, most recent
        last (the nearest back-references are the cheapest), at most :data:`DICT_BYTES`."""
        parts: list[bytes] = []
        size = 0
        for codec, body in self.conn.execute(
                "SELECT codec, body FROM inputs WHERE seq < ? ORDER BY seq DESC", (before,)):
            inp, events = self.decode(int(codec), bytes(body))
            part = (inp + "\n" + events + "\n").encode()
            parts.append(part)
            size += len(part)
            if size >= DICT_BYTES:
                break
        return bytes(b"".join(reversed(parts))[-DICT_BYTES:])


# The Log of each connection with the functions installed, by the token its ``referee_log()``
# returns (a connection cannot be weakly referred to; its functions keep its Log alive).
_REGISTERED: weakref.WeakValueDictionary[int, Log] = weakref.WeakValueDictionary()
_TOKENS = itertools.count(1)


def register(conn: sqlite3.Connection) -> Log:
    """Install the decoding SQL functions on ``conn`` (what the ``log`` and ``events`` views
    read through) and return their :class:`Log` -- one per connection, so the writer's
    :meth:`Log.forget` after a rollback reaches what the functions cached too."""
    try:
        known = _REGISTERED.get(int(conn.execute("SELECT referee_log()").fetchone()[0]))
    except sqlite3.OperationalError:  # no such function: not installed on this connection
        known = None
    if known is not None:
        return known
    log = Log(conn)
    token = next(_TOKENS)
    _REGISTERED[token] = log
    conn.create_function("referee_log", 0, lambda: (log, token)[1])

    def input_text(codec: int, body: bytes) -> str:
        return log.decode(int(codec), bytes(body))[0]

    def events_text(codec: int, body: bytes) -> str:
        return log.decode(int(codec), bytes(body))[1]

    conn.create_function("referee_room", 1, lambda r: log.room(int(r)), deterministic=True)
    conn.create_function("referee_id", 2, lambda p, r: log.input_id(int(p), r),
                         deterministic=True)
    conn.create_function("referee_input", 2, input_text, deterministic=True)
    conn.create_function("referee_events", 2, events_text, deterministic=True)
    return log


#: The compact layout (migration 9 builds it from the old columns).
SCHEMA = """
CREATE TABLE rooms (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE id_prefixes (
    id     INTEGER PRIMARY KEY,            -- 0 is no prefix (never a row)
    prefix TEXT NOT NULL UNIQUE
);
CREATE TABLE codecs (
    id        INTEGER PRIMARY KEY,         -- 0 is no dictionary (never a row)
    dict      BLOB NOT NULL,               -- the DEFLATE preset dictionary
    first_seq INTEGER NOT NULL,            -- the first row it was made for
    made_at   REAL NOT NULL
);
CREATE TRIGGER codecs_no_update BEFORE UPDATE ON codecs
BEGIN SELECT RAISE(ABORT, 'codecs are never changed'); END;
CREATE TRIGGER codecs_no_delete BEFORE DELETE ON codecs
BEGIN SELECT RAISE(ABORT, 'codecs are never changed'); END;
"""

VIEWS = """
CREATE VIEW log AS
    SELECT seq, referee_id(id_prefix, id_rest) AS input_id, referee_room(room_id) AS room,
           referee_input(codec, body) AS input, referee_events(codec, body) AS events,
           processed_at, chain
    FROM inputs;
CREATE VIEW events AS
    SELECT i.seq AS input_seq, CAST(j.key AS INTEGER) AS idx, referee_room(i.room_id) AS room,
           json_extract(j.value, '$.event') AS kind, j.value AS data
    FROM inputs i, json_each(referee_events(i.codec, i.body)) j
    ORDER BY i.seq, CAST(j.key AS INTEGER);
"""
