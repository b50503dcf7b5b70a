"""Moderator queries on a referee database (``referee records``), outside chat."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from referee.at_table import AtTable
from referee.store.db import Store
from referee.store.schema import StoreError

KINDS = ("bank", "penalties", "flags", "hands", "ledger")


def _time(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def at_tables(store: Store) -> AtTable:
    """The chips seated players hold at the tables (the event log's last word on each)."""
    held = AtTable()
    for room, events in store.conn.execute(
            "SELECT room, events FROM log WHERE events LIKE '%\"seated\"%'"
            " OR events LIKE '%\"hand_end\"%' OR events LIKE '%\"leave\"%'"
            " OR events LIKE '%\"eliminated\"%' OR events LIKE '%\"table_%' ORDER BY seq"):
        held.feed(room, json.loads(events))
    return held


def query(store: Store, kind: str, player: str | None = None) -> list[dict[str, Any]]:
    """Rows of one record kind, oldest first (bank: by player), optionally for one player."""
    store.project()
    db = store.db
    where = "" if player is None else " WHERE x.player = :player"
    params: dict[str, Any] = {} if player is None else {"player": player}
    if kind == "bank":
        held = at_tables(store)
        return [{**r, "at_table": held.chips(r["player"])} for r in db.query(
            f"SELECT x.player, x.balance FROM bank x{where} ORDER BY x.player", params)]
    if kind == "ledger":
        return store.ledger(player)
    if kind == "penalties":
        rows = db.query(
            "SELECT x.id, x.room, x.player, x.kind, x.points, x.chips, i.input_id,"
            " i.processed_at AS time FROM penalties x JOIN log i ON i.seq = x.input_seq"
            f"{where} ORDER BY x.id", params)
        return [{**r, "time": _time(r["time"])} for r in rows]
    if kind == "flags":
        rows = db.query(
            "SELECT x.flag_id AS id, x.room, x.player, x.kind, x.confidence, x.status, x.text,"
            " i.input_id, i.processed_at AS time, d.input_id AS decided_by"
            " FROM flags x JOIN log i ON i.seq = x.input_seq"
            " LEFT JOIN log d ON d.seq = x.decided_input_seq"
            f"{where} ORDER BY x.id", params)
        return [{**r, "time": _time(r["time"])} for r in rows]
    if kind == "hands":
        where = "" if player is None else (
            " WHERE EXISTS (SELECT 1 FROM json_each(x.stacks) j WHERE j.key = :player)")
        rows = db.query(
            "SELECT x.room, seats.table_id AS \"table\", seats.game, x.hand, x.button,"
            " x.stacks, s.input_id AS started, e.input_id AS ended FROM hands x"
            " LEFT JOIN log s ON s.seq = x.start_input_seq"
            " LEFT JOIN log e ON e.seq = x.end_input_seq"
            # the hand's identity is in its hand_seats event (table + number + game)
            " LEFT JOIN (SELECT i.seq, json_extract(j.value, '$.table') AS table_id,"
            " json_extract(j.value, '$.game') AS game, json_extract(j.value, '$.hand') AS hand"
            " FROM log i, json_each(i.events) j"
            " WHERE i.events LIKE '%\"hand_seats\"%'"
            " AND json_extract(j.value, '$.event') = 'hand_seats') seats"
            " ON seats.seq = x.start_input_seq AND seats.hand = x.hand"
            f"{where} ORDER BY x.id", params)
        return [
            {**r, "stacks": None if r["stacks"] is None else json.loads(r["stacks"])}
            for r in rows
        ]
    raise StoreError(f"unknown record kind {kind!r} (one of: {', '.join(KINDS)})")


def records(db_path: str | Path, kind: str, player: str | None = None) -> list[dict[str, Any]]:
    """``referee records``: open an existing database (never create one) and query it."""
    if kind not in KINDS:
        raise StoreError(f"unknown record kind {kind!r} (one of: {', '.join(KINDS)})")
    with Store(db_path, create=False) as store:
        return query(store, kind, player)
