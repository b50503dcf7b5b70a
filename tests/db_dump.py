"""A referee database as comparable data: two runs that should have saved the same thing must
give equal dumps."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from referee.store.log import register

TABLES = ("ledger", "bank", "penalties", "flags", "hands", "ranks", "bonus_area", "projection")


def dump(db: Path) -> dict[str, Any]:
    """Everything in the database except wall-clock timestamps, plus its duplicate input ids and
    SQLite's integrity check."""
    conn = sqlite3.connect(db)
    register(conn)
    try:
        out: dict[str, Any] = {
            "inputs": conn.execute(
                "SELECT seq, input_id, room, input, events FROM log ORDER BY seq").fetchall(),
        }
        for table in TABLES:
            out[table] = conn.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
        out["duplicates"] = conn.execute(
            "SELECT input_id, count(*) FROM log GROUP BY input_id HAVING count(*) > 1"
        ).fetchall()
        out["integrity"] = conn.execute("PRAGMA integrity_check").fetchone()[0]
        return out
    finally:
        conn.close()
