"""The Matrix bot's own tables (in the store's database file, on a connection of their own):
the sync token and session, the rooms it knows (which are players' private rooms), the outbox
of replies not yet delivered, and encrypted messages waiting for their room key.

Kept apart from :mod:`referee.store` on purpose: these rows are delivery state of one Matrix
account, not the referee's record -- a rebuild never reads them, and a transcript replay has
none.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

# Room kinds of matrix_rooms whose messages are private messages to the bot:
#   dm       the partner's private channel (private content is sent only there, after _vouch)
#   dm_left  the partner left it: a new one is made
#   dm_lost  not private (any more): unencrypted, a third member, or not the partner's own;
#            what is typed there is still a private message, nothing private is sent there
DM_KINDS = ("dm", "dm_left", "dm_lost")

SCHEMA = """
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
-- What the flush reads: the unsent rows only, whatever the outbox ever held.
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
    """The adapter's tables above, on their own connection to the database file."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(str(path), isolation_level=None, timeout=60)
        self.conn.execute("PRAGMA busy_timeout = 60000")
        self.conn.executescript(SCHEMA)

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
        """Forget the replies already delivered (the outbox must not grow with every
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

