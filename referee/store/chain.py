"""Tamper evidence for the record: each ``inputs`` row carries a digest chained to the row
before it (``chain`` = SHA-256 of the previous row's chain and this row's id, room, input and
events), written by :meth:`referee.store.Store.save` in the same transaction as the row.

A byte changed in a stored input or its events, a row deleted or inserted, and the rows after
it no longer link: :func:`first_bad` names the first such row. ``referee check`` reports it and
the bots refuse to start on it (:mod:`referee.store.integrity`). The chain shows an edit made
with SQLite beside the referee, which the append-only triggers cannot stop (anyone can drop a
trigger); it cannot show a whole log rewritten and re-chained by someone with the code -- a
back-up kept elsewhere is the answer to that.

A migration that rewrites stored rows must call :func:`rechain` after it. The chain covers the
texts a reader sees (the ``log`` view of the compact rows, :mod:`referee.store.log`), not how
they are encoded: re-encoding rows leaves it as it was.
"""

from __future__ import annotations

import hashlib
import sqlite3

from referee.store.log import register, source

GENESIS = b""  # the "previous chain" of the first row


def link(prev: bytes, input_id: str, room: str, input_json: str | bytes,
         events_json: str | bytes) -> bytes:
    """The chain value of a row after one whose chain is ``prev`` (length-prefixed fields, so
    no two different rows give the same bytes). The JSON may come as its UTF-8 bytes (the
    writer encodes it once for the hash and the body)."""
    parts = [prev]
    for field in (input_id, room, input_json, events_json):
        b = field if isinstance(field, bytes) else field.encode("utf-8")
        parts += (len(b).to_bytes(8, "big"), b)
    return hashlib.sha256(b"".join(parts)).digest()


def head(conn: sqlite3.Connection) -> bytes:
    """The chain value of the newest row (GENESIS for an empty log)."""
    row = conn.execute("SELECT chain FROM inputs ORDER BY seq DESC LIMIT 1").fetchone()
    return GENESIS if row is None or row[0] is None else bytes(row[0])


def first_bad(conn: sqlite3.Connection, after: int = 0,
              prev: bytes = GENESIS) -> tuple[int, str] | None:
    """(seq, input id) of the first row that does not link to the one before it; None when
    the whole log links. ``after``/``prev``: only the rows after seq ``after``, the first of
    them linked to ``prev`` (the chain value of row ``after``, already verified)."""
    table = _readable(conn)
    for seq, input_id, room, inp, events, chain in conn.execute(
            f"SELECT seq, input_id, room, input, events, chain FROM {table} WHERE seq > ?"
            " ORDER BY seq", (after,)):
        want = link(prev, str(input_id), str(room), str(inp), str(events))
        if chain is None or bytes(chain) != want:
            return int(seq), str(input_id)
        prev = want
    return None


def verified(conn: sqlite3.Connection) -> tuple[int, bytes] | None:
    """The head a whole-chain or incremental check last found sound (seq, its chain value):
    None when none is remembered (or the database has no ``chain_verified`` table yet)."""
    try:
        row = conn.execute("SELECT seq, chain FROM chain_verified WHERE id = 1").fetchone()
    except sqlite3.OperationalError:
        return None
    if row is None or not isinstance(row[1], bytes) or not isinstance(row[0], int):
        return None
    return int(row[0]), bytes(row[1])


def check_since_verified(conn: sqlite3.Connection, known: tuple[int, bytes] | None = None
                         ) -> tuple[tuple[int, str] | None, tuple[int, bytes] | None]:
    """The start-up chain check (the bots', the console's): from the newest of the remembered
    verified head (:func:`verified`) and ``known`` (one the caller kept itself) whose row still
    carries the chain value remembered for it, else from the first row. Returns (the first bad
    row or None, the newest row's (seq, chain value), now verified; None for an empty log).

    What this does not see, by design: a row at or before that head changed without its chain
    value (those were verified once already; ``referee check`` re-reads every row). A
    remembered head that no longer matches -- its row replaced, or the log re-chained or cut
    below it -- makes this a whole-chain check."""
    after, prev = 0, GENESIS
    for seq, chain in sorted(h for h in (verified(conn), known) if h is not None):
        row = conn.execute("SELECT chain FROM inputs WHERE seq = ?", (seq,)).fetchone()
        if row is not None and isinstance(row[0], bytes) and bytes(row[0]) == chain:
            after, prev = seq, chain
    bad = first_bad(conn, after, prev)
    if bad is not None:
        return bad, None
    newest = conn.execute("SELECT seq, chain FROM inputs ORDER BY seq DESC LIMIT 1").fetchone()
    if newest is None or not isinstance(newest[1], bytes):
        return None, None
    return None, (int(newest[0]), bytes(newest[1]))


def remember_verified(db_path: str, seq: int, chain: bytes) -> bool:
    """Write the verified head into the database at ``db_path`` on a connection of its own
    (the checks read on read-only ones). Best effort: a read-only file, a writer holding the
    lock for more than a quarter of a second (a bot's start waits for this check) or a
    database not migrated yet leaves the old head, and the next start checks a little more;
    False then."""
    from pathlib import Path

    try:
        conn = sqlite3.connect(Path(db_path).resolve().as_uri() + "?mode=rw", uri=True,
                               timeout=0.25, isolation_level=None)
    except sqlite3.Error:
        return False
    try:
        conn.execute("INSERT OR REPLACE INTO chain_verified(id, seq, chain, verified_at)"
                     " VALUES (1, ?, ?, strftime('%s', 'now'))", (seq, chain))
        return True
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def rechain(conn: sqlite3.Connection) -> None:
    """Write every row's chain from the first (in the caller's transaction; the append-only
    trigger is lifted for it and put back)."""
    conn.execute("DROP TRIGGER IF EXISTS inputs_no_update")
    prev = GENESIS
    table = _readable(conn)
    rows = conn.execute(f"SELECT seq, input_id, room, input, events FROM {table} ORDER BY seq"
                        ).fetchall()
    for seq, input_id, room, inp, events in rows:
        prev = link(prev, str(input_id), str(room), str(inp), str(events))
        conn.execute("UPDATE inputs SET chain = ? WHERE seq = ?", (prev, seq))
    conn.execute("CREATE TRIGGER inputs_no_update BEFORE UPDATE ON inputs"
                 " BEGIN SELECT RAISE(ABORT, 'inputs is append-only'); END")


def _readable(conn: sqlite3.Connection) -> str:
    """The table or view to read the rows' texts from (decoding functions installed)."""
    table = source(conn)
    if table == "log":
        register(conn)
    return table


def head_file(db_path: str) -> str:
    """Where the newest chain value is kept outside the database (beside it): a truncated log
    -- the newest rows removed with their ledger rows and the bank rolled back -- still links,
    but no longer reaches the head written here."""
    return db_path + ".head"


def write_head(db_path: str, seq: int, chain: bytes) -> None:
    """Record ``seq`` and its chain value beside the database (atomically: a crash leaves the
    previous head, which is older, never a torn one)."""
    import os

    path = head_file(db_path)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write(f"{seq} {chain.hex()}\n")
    os.replace(tmp, path)


def read_head(db_path: str) -> tuple[int, bytes] | None:
    """The (seq, chain) kept beside the database, None when there is none (or it is not one)."""
    try:
        with open(head_file(db_path), encoding="ascii") as f:
            seq_text, chain_hex = f.read().split()
        return int(seq_text), bytes.fromhex(chain_hex)
    except (OSError, ValueError):
        return None


def head_problem(conn: sqlite3.Connection, db_path: str) -> str | None:
    """One line when the log does not reach the head kept beside it: rows removed from its end
    (or the row there replaced). None when it does, or there is no head file."""
    kept = read_head(db_path)
    if kept is None:
        return None
    seq, chain = kept
    row = conn.execute("SELECT chain FROM inputs WHERE seq = ?", (seq,)).fetchone()
    newest = conn.execute("SELECT max(seq) FROM inputs").fetchone()[0] or 0
    if row is None:
        return (f"the log ends at input {newest}, but {head_file(db_path)} says input {seq} was"
                f" saved: input {newest + 1} (the first missing) and the rows after it were"
                f" removed (after restoring a back-up on purpose, delete that file)")
    if row[0] is None or bytes(row[0]) != chain:
        return f"input row {seq} is not the one {head_file(db_path)} recorded"
    return None
