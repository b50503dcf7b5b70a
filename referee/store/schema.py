"""The store's SQLite schema, as an ordered list of versioned migrations.

A database records the version it has reached in ``schema_version`` (one row per applied
migration). Opening it applies the missing migrations in order, each in its own transaction
together with its ``schema_version`` row, so an interrupted migration leaves the previous version
intact and the next open simply tries again. Never edit a released migration: append a new one.

Speed: each page a commit touches is a WAL frame write, and the commit itself dominates the
cost of a chat message. So an ordinary message writes ONE row with ONE INSERT: its
``inputs`` row (rowid-appended: its seq is the next rowid) carries its input and its events.
Since version 9 a row is compact (:mod:`referee.store.log`: room and id prefix once in their
own tables, the two JSON texts compressed with a dictionary of the log's own rows); the
``log`` view reads it back as the texts the service wrote. A unique index on the input id
answers "was this processed?" (memory does not grow with every input ever saved) and makes
"never applied twice" SQLite's own guarantee, with any number of writers (a row takes the next
rowid as its seq inside the writer's transaction, see ``Store._write``). ``events`` is a view
of the log, one row per event, ``(input_seq, idx)`` its key.

Layout: ``inputs`` and ``ledger`` are the append-only record (triggers refuse UPDATE and DELETE);
``bank`` is maintained only by a trigger on ``ledger`` and guarded so that no balance can change
without exactly one new ledger row. ``penalties``, ``flags``, ``hands``, ``ranks`` and
``bonus_area`` are projections of the event log (see :func:`project`), a cache brought up to
date in batches (:func:`project_pending`, ``projection.upto``); a migration that adds or changes
one empties it and lets the projector refill it from the log. The projector reads typed events
(:data:`PROJECTED_TYPES`, :func:`project_typed`), never a hand-written schema of their shapes.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from pydantic import ValidationError

from referee.events import (
    BonusArea,
    Event,
    Flag,
    FlagDecided,
    HandEnd,
    HandStart,
    Penalty,
    RankChange,
)
from referee.store.base import LATEST as LATEST
from referee.store.base import StoreError as StoreError
from referee.store.base import current_version as current_version

if TYPE_CHECKING:  # the migrations' handle; the readers of the log need no sqlite-utils
    import sqlite_utils


def _append_only(table: str) -> str:
    return f"""
CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table}
BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END;
CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table}
BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END;
"""


_V1 = (
    """
CREATE TABLE schema_version (
    version     INTEGER PRIMARY KEY,
    description TEXT NOT NULL,
    applied_at  REAL NOT NULL
);
CREATE TABLE inputs (
    seq          INTEGER PRIMARY KEY,
    input_id     TEXT NOT NULL,          -- unique: enforced by Store.save (no index, see above)
    room         TEXT NOT NULL,
    input        TEXT NOT NULL,          -- JSON: the input as it must be replayed
    events       TEXT NOT NULL,          -- JSON array: the events it caused, each its to_json()
    processed_at REAL NOT NULL           -- wall clock (seconds since the epoch)
);
CREATE VIEW events AS
    SELECT i.seq AS input_seq, CAST(j.key AS INTEGER) AS idx, i.room AS room,
           json_extract(j.value, '$.event') AS kind, j.value AS data
    FROM inputs i, json_each(i.events) j
    ORDER BY i.seq, CAST(j.key AS INTEGER);
CREATE TABLE ledger (
    id        INTEGER PRIMARY KEY,
    player    TEXT NOT NULL,
    delta     INTEGER NOT NULL,
    reason    TEXT NOT NULL,
    input_seq INTEGER NOT NULL REFERENCES inputs(seq),
    event_idx INTEGER                    -- the event of that input that caused it, if any
);
CREATE INDEX ledger_player ON ledger(player, id);
CREATE TABLE bank (
    player         TEXT PRIMARY KEY,
    balance        INTEGER NOT NULL,
    last_ledger_id INTEGER NOT NULL REFERENCES ledger(id)
);
-- The only writer of bank: one ledger row moves one balance by its delta.
CREATE TRIGGER ledger_to_bank AFTER INSERT ON ledger
BEGIN
    INSERT INTO bank(player, balance, last_ledger_id) VALUES (NEW.player, NEW.delta, NEW.id)
    ON CONFLICT(player) DO UPDATE
        SET balance = balance + excluded.balance, last_ledger_id = excluded.last_ledger_id;
END;
-- Guards: a balance row appears or changes only as the effect of the newest ledger row, once.
CREATE TRIGGER bank_insert_guard BEFORE INSERT ON bank
WHEN NOT EXISTS (
    SELECT 1 FROM ledger
    WHERE id = NEW.last_ledger_id AND id = (SELECT max(id) FROM ledger)
      AND player = NEW.player AND delta = NEW.balance)
BEGIN SELECT RAISE(ABORT, 'bank: a balance changes only with a new ledger row'); END;
CREATE TRIGGER bank_update_guard BEFORE UPDATE ON bank
WHEN NOT (
    NEW.player = OLD.player AND NEW.last_ledger_id > OLD.last_ledger_id
    AND EXISTS (
        SELECT 1 FROM ledger
        WHERE id = NEW.last_ledger_id AND id = (SELECT max(id) FROM ledger)
          AND player = NEW.player AND delta = NEW.balance - OLD.balance))
BEGIN SELECT RAISE(ABORT, 'bank: a balance changes only with a new ledger row'); END;
CREATE TRIGGER bank_no_delete BEFORE DELETE ON bank
BEGIN SELECT RAISE(ABORT, 'bank: balances are never deleted'); END;
"""
    + _append_only("inputs")
    + _append_only("ledger")
)

PROJECTION_V2 = """
CREATE TABLE penalties (
    id        INTEGER PRIMARY KEY,
    room      TEXT NOT NULL,
    player    TEXT NOT NULL,
    kind      TEXT NOT NULL,
    points    INTEGER NOT NULL,
    chips     INTEGER NOT NULL,
    input_seq INTEGER NOT NULL REFERENCES inputs(seq),
    event_idx INTEGER NOT NULL
);
CREATE INDEX penalties_player ON penalties(player, id);
CREATE TABLE flags (
    id                 INTEGER PRIMARY KEY,
    room               TEXT NOT NULL,
    flag_id            INTEGER NOT NULL,     -- the id moderators type (!confirm ID)
    player             TEXT NOT NULL,
    kind               TEXT NOT NULL,
    text               TEXT NOT NULL,
    confidence         TEXT NOT NULL,
    status             TEXT NOT NULL DEFAULT 'open',  -- open | confirmed | dismissed
    input_seq          INTEGER NOT NULL REFERENCES inputs(seq),
    event_idx          INTEGER NOT NULL,
    decided_input_seq  INTEGER REFERENCES inputs(seq)
);
CREATE INDEX flags_id ON flags(room, flag_id);
CREATE INDEX flags_player ON flags(player, id);
CREATE TABLE hands (
    id              INTEGER PRIMARY KEY,
    room            TEXT NOT NULL,
    hand            INTEGER NOT NULL,
    button          INTEGER,
    stacks          TEXT,                   -- JSON {name: chips} from hand_end
    start_input_seq INTEGER REFERENCES inputs(seq),
    end_input_seq   INTEGER REFERENCES inputs(seq)
);
CREATE INDEX hands_room ON hands(room, hand, id);
CREATE TABLE ranks (
    player    TEXT PRIMARY KEY,
    mark      TEXT NOT NULL,
    input_seq INTEGER NOT NULL REFERENCES inputs(seq)
);
CREATE TABLE bonus_area (
    room      TEXT PRIMARY KEY,
    cards     TEXT NOT NULL,                -- JSON list, oldest first
    markers   TEXT NOT NULL,                -- JSON list
    input_seq INTEGER NOT NULL REFERENCES inputs(seq),
    event_idx INTEGER NOT NULL
);
"""

#: The event classes the derived tables are projected from, by kind (the kind is read from the
#: class's own ``event`` literal; ``referee.rules.registry.event_types()`` maps each of these
#: kinds to the same class, which tests/test_store.py checks). The store validates an event of
#: these kinds as its class -- strictly, from its JSON, exactly what the log holds -- before
#: saving it, and projects the typed event; there is no second, hand-written schema.
PROJECTED_TYPES: dict[str, type[Event]] = {
    str(cls.model_fields["event"].default): cls
    for cls in (Penalty, Flag, FlagDecided, HandStart, HandEnd, RankChange, BonusArea)
}
PROJECTED_KINDS = frozenset(PROJECTED_TYPES)

_MENTIONS = " OR ".join(f"instr(events, '\"{k}\"') > 0" for k in sorted(PROJECTED_KINDS))


def projected_event(kind: str, data: str | dict[str, Any]) -> Event:
    """An event of the projected kind ``kind`` (its JSON text or JSON object) as its typed
    class, validated strictly (an int is a JSON integer, never ``"1000"``; the data's own
    ``event`` must be ``kind``); ValueError with one line saying why it does not fit."""
    cls = PROJECTED_TYPES.get(kind)
    if cls is None:
        raise ValueError(f"not a projected event kind: {kind!r}")
    try:
        if isinstance(data, dict):
            return cls.model_validate(data, strict=True)
        return cls.model_validate_json(data, strict=True)
    except ValidationError as e:
        why = "; ".join(
            f"{'.'.join(str(x) for x in err['loc']) or 'event'}: {err['msg']}"
            for err in e.errors(include_url=False)[:3]
        )
        shown = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        shown = shown if len(shown) <= 160 else shown[:157] + "..."
        raise ValueError(f"{kind} event does not fit {cls.__name__} ({why}): {shown}") from None


Typed = list[tuple[int, Event]]
"""(event index, typed event) of one input's events of projected kinds."""


def _typed(events: Iterable[tuple[int, str, dict[str, Any]]]) -> Typed:
    """The events of projected kinds among (index, kind, data) as typed events; one that does
    not fit its class (only possible in a log written by something else than Store.save) is
    left out, never allowed to stop the projection."""
    out: Typed = []
    for idx, kind, d in events:
        if kind in PROJECTED_TYPES and isinstance(d, dict):
            try:
                out.append((idx, projected_event(kind, d)))
            except ValueError:
                continue
    return out


def project(
    conn: sqlite3.Connection,
    input_seq: int,
    room: str,
    events: Iterable[tuple[int, str, dict[str, Any]]],
) -> None:
    """Apply the projected kinds among ``events`` ((index, kind, JSON object) of one input, as
    the log holds them) to the derived tables: :func:`project_typed` of their typed events."""
    project_typed(conn, input_seq, room, _typed(events))


def project_typed(conn: sqlite3.Connection, input_seq: int, room: str, events: Typed) -> None:
    """Apply one input's typed events of projected kinds to the derived tables."""
    penalties: list[tuple[Any, ...]] = []
    raised: dict[tuple[str, str], int | None] = {}  # flags raised by this input
    for idx, ev in events:
        if isinstance(ev, Penalty):
            penalties.append((room, ev.player, ev.kind, ev.points, ev.chips, input_seq, idx))
            # A penalty in the very input that raised a flag on the same player and offence:
            # the referee acted on the flag at once (a high-confidence leak) -- it is confirmed.
            flag_row = raised.pop((ev.player, ev.kind), None)
            if flag_row is not None:
                conn.execute(
                    "UPDATE flags SET status = 'confirmed', decided_input_seq = ? WHERE id = ?",
                    (input_seq, flag_row),
                )
        elif isinstance(ev, Flag):
            cur = conn.execute(
                "INSERT INTO flags(room, flag_id, player, kind, text, confidence, input_seq,"
                " event_idx) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (room, ev.id, ev.player, ev.kind, ev.text, ev.confidence, input_seq, idx),
            )
            raised[(ev.player, ev.kind)] = cur.lastrowid
        elif isinstance(ev, FlagDecided):
            # The latest flag with that id in this room; a decision typed elsewhere (a DM)
            # falls back to the latest flag with that id anywhere.
            cur = conn.execute(
                "UPDATE flags SET status = ?, decided_input_seq = ? WHERE id ="
                " (SELECT max(id) FROM flags WHERE room = ? AND flag_id = ?)",
                (ev.decision, input_seq, room, ev.id),
            )
            if cur.rowcount == 0:
                conn.execute(
                    "UPDATE flags SET status = ?, decided_input_seq = ? WHERE id ="
                    " (SELECT max(id) FROM flags WHERE flag_id = ?)",
                    (ev.decision, input_seq, ev.id),
                )
        elif isinstance(ev, HandStart):
            conn.execute(
                "INSERT INTO hands(room, hand, button, start_input_seq) VALUES (?, ?, ?, ?)",
                (room, ev.hand, ev.button, input_seq),
            )
        elif isinstance(ev, HandEnd):
            stacks = json.dumps(ev.stacks, ensure_ascii=False, separators=(",", ":"))
            cur = conn.execute(
                "UPDATE hands SET stacks = ?, end_input_seq = ? WHERE id ="
                " (SELECT max(id) FROM hands WHERE room = ? AND hand = ?)",
                (stacks, input_seq, room, ev.hand),
            )
            if cur.rowcount == 0:
                conn.execute(
                    "INSERT INTO hands(room, hand, stacks, end_input_seq) VALUES (?, ?, ?, ?)",
                    (room, ev.hand, stacks, input_seq),
                )
        elif isinstance(ev, RankChange):
            conn.execute(
                "INSERT INTO ranks(player, mark, input_seq) VALUES (?, ?, ?) ON CONFLICT(player)"
                " DO UPDATE SET mark = excluded.mark, input_seq = excluded.input_seq",
                (ev.player, ev.mark, input_seq),
            )
        elif isinstance(ev, BonusArea):
            conn.execute(
                "INSERT INTO bonus_area(room, cards, markers, input_seq, event_idx)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT(room) DO UPDATE SET cards = excluded.cards,"
                " markers = excluded.markers, input_seq = excluded.input_seq,"
                " event_idx = excluded.event_idx",
                (room, json.dumps(ev.cards), json.dumps(ev.markers), input_seq, idx),
            )
    if penalties:
        conn.executemany(
            "INSERT INTO penalties(room, player, kind, points, chips, input_seq, event_idx)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            penalties,
        )


Projected = list[tuple[int, str, Typed]]
"""(input seq, room, typed events of projected kinds) of inputs with such events."""


def project_pending(
    conn: sqlite3.Connection, known: tuple[int, int, Projected] | None = None
) -> int:
    """Bring the derived tables up to the end of the log, in one transaction of its own.

    The derived tables are a cache of the log: ``projection.upto`` is the last input they
    include, advanced in the same transaction, so a crash mid-way simply redoes the batch.
    ``known`` = (first, last, inputs): the caller saved every input from seq ``first`` to
    ``last`` and ``inputs`` are those of them with projected events, as saved. When that is
    exactly what is pending, the log is not read again. Returns the number of inputs projected.
    """
    from referee.store.log import register

    register(conn)  # the log view's decoding functions (any connection may project)
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN IMMEDIATE")
    try:
        upto = conn.execute("SELECT upto FROM projection WHERE id = 1").fetchone()[0]
        last = conn.execute("SELECT coalesce(max(seq), 0) FROM inputs").fetchone()[0]
        if known is not None and known[0] == upto + 1 and known[1] == last:
            todo = known[2]
        else:
            # Only inputs whose events mention a projected kind are parsed (most mention
            # none): a kind is a JSON string, so its quoted name is in the text; a false hit
            # costs a parse.
            rows = conn.execute(
                f"SELECT seq, room, events FROM log WHERE seq > ? AND seq <= ?"
                f" AND ({_MENTIONS}) ORDER BY seq",
                (upto, last),
            ).fetchall()
            todo = [(input_seq, room, _typed(_of_log(events))) for input_seq, room, events in rows]
        for input_seq, room, projected in todo:
            project_typed(conn, input_seq, room, projected)
        if last != upto:
            conn.execute("UPDATE projection SET upto = ? WHERE id = 1", (last,))
        if own:
            conn.execute("COMMIT")
        return int(last - upto)
    except BaseException:
        if own and conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _project_log(db: sqlite_utils.Database) -> None:
    """Version 2 projected every save as it was written: fill the new tables from the log."""
    conn = db.conn
    rows = conn.execute("SELECT seq, room, events FROM inputs ORDER BY seq").fetchall()
    for input_seq, room, events in rows:
        project_typed(conn, input_seq, room, _typed(_of_log(events)))


def _of_log(events: str) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(index, kind, JSON object) of the events of one ``inputs.events`` text; a value that is
    not an event object is passed over (only in a log written by something else)."""
    parsed = json.loads(events)
    if not isinstance(parsed, list):
        return
    for i, d in enumerate(parsed):
        if isinstance(d, dict):
            yield i, str(d.get("event", "")), d


def _v1(db: sqlite_utils.Database) -> None:
    run_script(db.conn, _V1)


def _v2(db: sqlite_utils.Database) -> None:
    run_script(db.conn, PROJECTION_V2)
    _project_log(db)


def _v3(db: sqlite_utils.Database) -> None:
    # Everything logged so far was projected by version 2's eager saves.
    run_script(db.conn, """
CREATE TABLE projection (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    upto INTEGER NOT NULL                  -- the last inputs.seq the derived tables include
);
INSERT INTO projection(id, upto) SELECT 1, coalesce(max(seq), 0) FROM inputs;
""")


def _v4(db: sqlite_utils.Database) -> None:
    # The projection changed (a flag acted on at once is confirmed): empty the cache tables;
    # the next read or close projects the whole log again.
    run_script(db.conn, """
DELETE FROM penalties;
DELETE FROM flags;
DELETE FROM hands;
DELETE FROM ranks;
DELETE FROM bonus_area;
UPDATE projection SET upto = 0;
""")


def _v5(db: sqlite_utils.Database) -> None:
    # Processed ids looked up in the database instead of held in memory; the service's
    # snapshots, so that a restart re-runs only the inputs after the newest one.
    run_script(db.conn, """
CREATE UNIQUE INDEX inputs_input_id ON inputs(input_id);
CREATE TABLE snapshots (
    id       INTEGER PRIMARY KEY CHECK (id = 1),   -- only the newest is kept
    seq      INTEGER NOT NULL,                     -- the state right after this input
    version  TEXT NOT NULL,                        -- the code and game definitions it needs
    state    BLOB NOT NULL,
    saved_at REAL NOT NULL
);
""")


def _v10(db: sqlite_utils.Database) -> None:
    # Snapshots per room: the service-wide head stays in ``snapshots``; each room's newest
    # part (its table and hand history) is here, so a snapshot writes only the rooms that
    # changed; a room's finished hands are rows of their own, written once. A head at seq H is
    # read with each room's newest part at or before H; parts of a
    # snapshot still being taken (after H) wait for their head. A head from before this
    # migration was taken by other code: it is not used (a full re-run, then a new snapshot).
    run_script(db.conn, """
CREATE TABLE snapshot_parts (
    room     TEXT NOT NULL,
    seq      INTEGER NOT NULL,                     -- the room right after this input
    version  TEXT NOT NULL,
    state    BLOB NOT NULL,
    PRIMARY KEY (room, seq)
) WITHOUT ROWID;
-- each finished hand a room's history keeps, pickled once, named by the room's parts
CREATE TABLE snapshot_hands (
    room     TEXT NOT NULL,
    key      INTEGER NOT NULL,
    state    BLOB NOT NULL,
    PRIMARY KEY (room, key)
) WITHOUT ROWID;
""")


def _v11(db: sqlite_utils.Database) -> None:
    # The digest chain's head a start-up check last found sound: the bots and the console
    # verify the chain from there on instead of from the first row (``referee check`` still
    # reads every row). Not part of the record: rewritten by each check, never chained.
    run_script(db.conn, """
CREATE TABLE chain_verified (
    id          INTEGER PRIMARY KEY CHECK (id = 1),  -- only the newest is kept
    seq         INTEGER NOT NULL,                    -- the newest input row verified
    chain       BLOB NOT NULL,                       -- its chain value when it was verified
    verified_at REAL NOT NULL
);
""")


def run_script(conn: sqlite3.Connection, sql: str) -> None:
    """Run a multi-statement script inside the open transaction (executescript would commit)."""
    buf = ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            conn.execute(buf)
            buf = ""
    if buf.strip():
        raise StoreError(f"incomplete SQL in migration: {buf[:60]!r}")


def _v6(db: sqlite_utils.Database) -> None:
    # The IRC bot's identities (referee/store/identity.py): not part of the event log (a secret
    # must never be in a replayable input), but in the same file, so they share its back-ups.
    run_script(db.conn, """
CREATE TABLE irc_secrets (
    name     TEXT PRIMARY KEY,          -- the player's name, case-folded by the IRC adapter
    display  TEXT NOT NULL,             -- the name as the table spells it
    salt     BLOB NOT NULL,
    digest   BLOB NOT NULL,             -- hashlib.scrypt(secret, salt, n, r, p)
    params   TEXT NOT NULL,             -- 'scrypt:n=16384,r=8,p=1'
    set_at   REAL NOT NULL
);
CREATE TABLE irc_sessions (
    name     TEXT PRIMARY KEY,          -- one proven connection per player (case-folded)
    display  TEXT NOT NULL,
    nick     TEXT NOT NULL,             -- the nick it has now (followed through NICK)
    userhost TEXT NOT NULL,             -- user@host as WHOIS showed it
    signon   INTEGER NOT NULL,          -- the connection's sign-on time (WHOIS 317)
    proof    TEXT NOT NULL,             -- 'secret'
    bound_at REAL NOT NULL
);
""")


def _v7(db: sqlite_utils.Database) -> None:
    # Who may prove a name, kept across restarts (referee/store/identity.py): a secret seen
    # where others read it is void; wrong guesses and the connections trusted for a name.
    run_script(db.conn, """
ALTER TABLE irc_secrets ADD COLUMN void_at REAL;         -- seen in a channel: proves nothing
ALTER TABLE irc_secrets ADD COLUMN void_userhost TEXT;   -- the connection that showed it
ALTER TABLE irc_secrets ADD COLUMN void_signon INTEGER;
ALTER TABLE irc_secrets ADD COLUMN set_by TEXT;          -- the nick that set it last
CREATE TABLE irc_guesses (
    key      TEXT PRIMARY KEY,          -- 'name:<folded name>', 'src:<user@host>', 'host:<host>'
    fails    INTEGER NOT NULL,          -- wrong secrets in a row
    last_at  REAL NOT NULL,             -- wall time of the last one
    until    REAL NOT NULL              -- no guess from this key before (wall time)
);
CREATE TABLE irc_trusted (
    name     TEXT NOT NULL,             -- a folded player name
    userhost TEXT NOT NULL,             -- a user@host that proved it before
    proven_at REAL NOT NULL,
    PRIMARY KEY (name, userhost)
);
""")


def _v8(db: sqlite_utils.Database) -> None:
    # Tamper evidence (referee/store/chain.py): each input row's digest, chained to the last.
    from referee.store.chain import rechain

    db.conn.execute("ALTER TABLE inputs ADD COLUMN chain BLOB")
    rechain(db.conn)


def _v9(db: sqlite_utils.Database) -> None:
    # The compact rows (referee/store/log.py): every row re-encoded in order (the codecs are
    # made on the way, as a live writer would), then the old columns dropped. The decoded texts
    # are the old ones byte for byte, so the digest chain stands as it was.
    from referee.store import log as compact

    conn = db.conn
    run_script(conn, compact.SCHEMA)
    for column in ("room_id INTEGER", "id_prefix INTEGER", "id_rest", "codec INTEGER",
                   "body BLOB"):
        conn.execute(f"ALTER TABLE inputs ADD COLUMN {column}")
    conn.execute("DROP TRIGGER IF EXISTS inputs_no_update")
    writer = compact.Log(conn)
    last = 0
    while True:
        rows = conn.execute(
            "SELECT seq, input_id, room, input, events FROM inputs WHERE seq > ? ORDER BY seq"
            " LIMIT 512", (last,)).fetchall()
        if not rows:
            break
        for seq, input_id, room, inp, events in rows:
            key = writer.key(str(input_id), create=True)
            assert key is not None
            codec = writer.writing_codec(int(seq))
            conn.execute(
                "UPDATE inputs SET room_id = ?, id_prefix = ?, id_rest = ?, codec = ?, body = ?"
                " WHERE seq = ?",
                (writer.room_id(str(room), create=True), *key, codec,
                 writer.encode(codec, str(inp), str(events)), seq))
            last = int(seq)
    run_script(conn, """
DROP VIEW events;
DROP INDEX inputs_input_id;
ALTER TABLE inputs DROP COLUMN input_id;
ALTER TABLE inputs DROP COLUMN room;
ALTER TABLE inputs DROP COLUMN input;
ALTER TABLE inputs DROP COLUMN events;
CREATE UNIQUE INDEX inputs_key ON inputs(id_prefix, id_rest);
CREATE TRIGGER inputs_no_update BEFORE UPDATE ON inputs
BEGIN SELECT RAISE(ABORT, 'inputs is append-only'); END;
""")
    run_script(conn, compact.VIEWS)


Migration: TypeAlias = "tuple[int, str, Callable[[sqlite_utils.Database], None]]"

MIGRATIONS: Sequence[Migration] = (
    (1, "inputs, event log, ledger and guarded bank", _v1),
    (2, "penalties, flags, hands, ranks, bonus area projected from the event log", _v2),
    (3, "derived tables projected in batches, off the per-message path", _v3),
    (4, "re-project: a flag penalised in the input that raised it is confirmed", _v4),
    (5, "unique index on input ids; service snapshots", _v5),
    (6, "IRC identities: salted secrets and proven connections", _v6),
    (7, "IRC identities: void secrets, persisted guess limits, trusted connections", _v7),
    (8, "digest chain over the stored inputs", _v8),
    (9, "compact rows: rooms and id prefixes once, texts with a dictionary of the log", _v9),
    (10, "service snapshots per room: only the rooms that changed are written", _v10),
    (11, "the chain's verified head: start-up checks read only the rows after it", _v11),
)

#: Migrations that free most of the file's pages: the file is compacted after them.
_COMPACT_AFTER = frozenset({9})

if MIGRATIONS[-1][0] != LATEST:  # a migration appended: referee/store/base.py's LATEST too
    raise RuntimeError(f"referee.store.base.LATEST is {LATEST}, the newest migration is "
                       f"{MIGRATIONS[-1][0]}")


def migrate(
    db: sqlite_utils.Database,
    target: int | None = None,
    migrations: Sequence[Migration] = MIGRATIONS,
) -> int:
    """Bring ``db`` to ``target`` (default: the latest of ``migrations``); return the version
    reached.

    Each step re-reads the version inside its write transaction, so two processes opening the
    same fresh file cannot both apply a migration.
    """
    conn = db.conn
    latest = migrations[-1][0]
    target = latest if target is None else target
    version = current_version(conn)
    if version > latest:
        raise StoreError(
            f"database schema version {version} is newer than this referee supports ({latest});"
            " upgrade the referee"
        )
    compact = False
    for number, description, step in migrations:
        if number <= version or number > target:
            continue
        compact = compact or (number in _COMPACT_AFTER and version > 0)
        conn.execute("BEGIN IMMEDIATE")
        try:
            if current_version(conn) >= number:
                conn.execute("ROLLBACK")
                continue
            step(db)
            conn.execute(
                "INSERT INTO schema_version(version, description, applied_at) VALUES (?, ?, ?)",
                (number, description, time.time()),
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    if compact:
        # Best effort: the rows are migrated either way; a file another process has open,
        # or too little disk for the copy, stays its old size until a later VACUUM.
        try:
            conn.execute("VACUUM")
        except sqlite3.Error:
            pass
    return current_version(conn)
