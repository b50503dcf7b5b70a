"""Moderator queries on a referee database (``referee records``), outside chat."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.at_table import AtTable
from referee.store.base import StoreError

if TYPE_CHECKING:
    from referee.store.db import Store

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
            " i.processed_at AS time,"
            # the flag it carried out: confirmed by the same input, same player and offence
            " (SELECT f.flag_id FROM flags f, json_each(i.events) j"
            "  WHERE json_extract(j.value, '$.event') = 'flag_decided'"
            "  AND json_extract(j.value, '$.decision') = 'confirmed'"
            "  AND f.flag_id = json_extract(j.value, '$.id')"
            "  AND f.player = x.player AND f.kind = x.kind) AS flag"
            f" FROM penalties x JOIN log i ON i.seq = x.input_seq{where} ORDER BY x.id", params)
        reversals = {int(json.loads(d)["flag"]): t for d, t in store.conn.execute(
            "SELECT e.data, l.processed_at FROM events e JOIN log l ON l.seq = e.input_seq"
            " WHERE e.kind = 'penalty_reversed'")}
        return [{**r, "time": _time(r["time"]),
                 # when the points went back (a !dismiss after the !confirm), else None
                 "reversed": _time(reversals[r["flag"]]) if r["flag"] in reversals else None}
                for r in rows]
    if kind == "flags":
        rows = db.query(
            "SELECT x.flag_id AS id, x.room, x.player, x.kind, x.confidence, x.status, x.text,"
            " i.input_id, i.processed_at AS time, d.input_id AS decided_by,"
            # who decided it: the flag_decided event's moderator (or the referee)
            " (SELECT json_extract(j.value, '$.by') FROM json_each(d.events) j"
            "  WHERE json_extract(j.value, '$.event') = 'flag_decided'"
            "  AND json_extract(j.value, '$.id') = x.flag_id) AS moderator"
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
    raise StoreError(_unknown_kind(kind))


#: The columns ``referee records`` prints for people (``--json`` keeps every column, ids
#: included): input ids are left out, the flag's deciding input is its moderator's name.
_SHOWN = {
    "bank": ("player", "balance", "at_table"),
    "penalties": ("id", "room", "player", "kind", "points", "chips", "time", "flag",
                  "reversed"),
    "flags": ("id", "room", "player", "kind", "confidence", "status", "text", "time",
              "moderator"),
    "hands": ("room", "table", "game", "hand", "button", "stacks"),
    "ledger": ("id", "player", "delta", "reason"),
}
_CHIPS = frozenset({"balance", "at_table", "points", "chips", "delta"})


def _value(key: str, value: Any) -> str:
    """One cell as a moderator reads it: names for ids, local (JST) times, grouped chips."""
    from referee.console_base import JST, label, ledger_reason
    from referee.history import game_name
    from referee.lang.catalog import text

    if value is None:
        return text("records_none")
    if key in ("kind", "confidence", "status"):
        return label(key, str(value))
    if key == "reason":
        head, _, kind = str(value).partition(":")
        if head == "penalty_reversed":  # a dismissed flag's penalty given back
            return text("records_reason_penalty_reversed", kind=label("kind", kind))
        return ledger_reason(str(value))
    if key == "game":
        return game_name(str(value))
    if key in ("time", "reversed"):
        return datetime.fromisoformat(str(value)).astimezone(JST).strftime("%Y-%m-%d %H:%M:%S")
    if key == "stacks" and isinstance(value, dict):
        return text("hand_list_sep").join(f"{k} {int(v):,}" for k, v in value.items())
    if key == "moderator" and value == "referee":
        return text("records_by_referee")
    if key in _CHIPS and isinstance(value, int):
        return f"{value:,}"
    return str(value)


def text_lines(kind: str, rows: list[dict[str, Any]]) -> list[str]:
    """``referee records`` without ``--json``: one line a row, each shown column as
    「名前: 値」 (the catalogue's ``records_col_*``), never an internal id or a UTC time."""
    from referee.lang.catalog import text

    return [text("records_sep").join(
        text("records_cell", name=text(f"records_col_{k}"), value=_value(k, row.get(k)))
        for k in _SHOWN[kind]) for row in rows]


def record_kind(word: str) -> str | None:
    """The kind of record a moderator typed: its id (``penalties``) or its Japanese name
    (ペナルティ, from the catalogue), any width or case; None when it names none."""
    from referee.lang.catalog import text
    from referee.lang.normalize import fold, nfkc

    typed = fold(nfkc(word)).strip()
    for kind in KINDS:
        if typed in (kind, fold(nfkc(text(f"records_kind_{kind}")))):
            return kind
    return None


def _unknown_kind(kind: str) -> str:
    from referee.lang.catalog import excerpt, text

    return text("records_kind_unknown", kind=excerpt(kind), kinds=kind_names())


def kind_names() -> str:
    """The kinds of record as a refusal lists them (by name)."""
    from referee.lang.catalog import text

    return " / ".join(text(f"records_kind_{k}") for k in KINDS)


def records(db_path: str | Path, kind: str, player: str | None = None) -> list[dict[str, Any]]:
    """``referee records``: open an existing database (never create one) and query it."""
    if kind not in KINDS:
        raise StoreError(_unknown_kind(kind))
    from referee.store.db import Store

    with Store(db_path, create=False) as store:
        return query(store, kind, player)
