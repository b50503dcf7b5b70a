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


def first_bad(conn: sqlite3.Connection) -> tuple[int, str] | None:
    """(seq, input id) of the first row that does not link to the one before it; None when
    the whole log links."""
    prev = GENESIS
    table = _readable(conn)
    for seq, input_id, room, inp, events, chain in conn.execute(
            f"SELECT seq, input_id, room, input, events, chain FROM {table} ORDER BY seq"):
        want = link(prev, str(input_id), str(room), str(inp), str(events))
        if chain is None or bytes(chain) != want:
            return int(seq), str(input_id)
        prev = want
    return None


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
