"""The event log's rows as a reader or an editor outside the referee sees them: for tests that
write a row the way something other than ``Store.save`` would, or change one the way anyone
with sqlite3 could. Rows are compact (referee/store/log.py); these go through its encoding."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from referee.store.log import Log, register


def rows(conn: sqlite3.Connection) -> list[tuple[int, str, str, str, str]]:
    """(seq, input id, room, input JSON, events JSON) of every row, in order."""
    register(conn)
    return [(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4])) for r in conn.execute(
        "SELECT seq, input_id, room, input, events FROM log ORDER BY seq")]


def insert(conn: sqlite3.Connection, input_id: str, room: str, input_json: str,
           events_json: str, processed_at: float = 0.0) -> int:
    """Append a row (no digest chain, as a foreign writer would); its seq."""
    log = Log(conn)
    key = log.key(input_id, create=True)
    assert key is not None
    cur = conn.execute(
        "INSERT INTO inputs(room_id, id_prefix, id_rest, codec, body, processed_at)"
        " VALUES (?, ?, ?, 0, ?, ?)",
        (log.room_id(room, create=True), *key, log.encode(0, input_json, events_json),
         processed_at or time.time()))
    assert cur.lastrowid is not None
    return cur.lastrowid


def rewrite(conn: sqlite3.Connection, seq: int, *, input_json: str | None = None,
            events_json: str | None = None) -> None:
    """Change row ``seq``'s input or events text in place (the append-only trigger must be
    dropped first, as the caller's tampering would)."""
    log = Log(conn)
    codec, body = conn.execute("SELECT codec, body FROM inputs WHERE seq = ?",
                               (seq,)).fetchone()
    old_input, old_events = log.decode(int(codec), bytes(body))
    conn.execute("UPDATE inputs SET body = ? WHERE seq = ?", (log.encode(
        int(codec), old_input if input_json is None else input_json,
        old_events if events_json is None else events_json), seq))


def message_row_after(db: str | Path, after: int) -> int:
    """The seq of a chat message's row half-way through the rows after ``after`` (a row to
    damage or cut at, one the check from a verified head must meet)."""
    conn = sqlite3.connect(str(db))
    try:
        register(conn)
        found = conn.execute("SELECT seq FROM log WHERE input LIKE '%\"text\"%' AND seq > ?"
                             " ORDER BY seq", (after,)).fetchall()
        return int(found[len(found) // 2][0])
    finally:
        conn.close()
