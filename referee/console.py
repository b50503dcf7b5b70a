"""The moderators' read-only web console (``referee console``), served by Datasette.

The referee's own database is never served: it holds every hole card ever dealt (the ``deal`` of
an input, the private ``say`` events that told each player their cards) so that it can be
replayed. :func:`build` reads it (``mode=ro``, one read transaction, so a bot may go on writing)
and writes a separate **console database** of moderator-facing tables only, with Japanese column
names; :func:`serve` serves that file immutable (``Datasette(immutables=…)``): no SQL but a
``SELECT`` runs, and the file is opened read-only.

What goes into the console database is whitelisted, never filtered out: cards reach it only
through what the room itself was shown -- the ``board`` and ``shown`` events, and the ``say``
events addressed to the room while a hand was running at that table (copied as they were said,
for the hand's log; never read) -- and through no other event field. Private ``say`` events,
``deal`` data, the inputs' JSON, ``showdown``/``misdeal``/``duplicate``/``exposed`` events and
rejected messages are never copied. The message that caused a penalty or a flag is copied only
when it was said in a room (``dm`` false). A table's game and number come from its
``table_open`` and ``hand_seats`` events, never from what anyone typed.

The console database is rebuilt from the whole log on every start (``referee console`` prints
how long it took); restart the console to see newer records.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypeGuard

from referee.at_table import AtTable
from referee.history import action_line, game_name, settle_line, shown_item
from referee.lang.catalog import chips, messages, text
from referee.store.schema import (
    LATEST,
    PROJECTED_KINDS,
    StoreError,
    current_version,
    project,
    run_script,
)
from referee.store.schema import PROJECTION_V2 as _PROJECTION_TABLES

JST = timezone(timedelta(hours=9), "JST")
DB_NAME = "referee"
"""The console database's name in Datasette (its URLs: ``/referee/bank``)."""

TEMPLATES = Path(__file__).resolve().parent / "console_templates"
"""Datasette templates of our own (a record page shows one column per line: row.html), the
console database's schema (schema.sql) and the Datasette metadata (metadata.toml: Japanese
titles, descriptions, canned queries and what the hand log reads in the room's lines)."""

SCHEMA = (TEMPLATES / "schema.sql").read_text(encoding="utf-8")
_META: dict[str, Any] = tomllib.loads((TEMPLATES / "metadata.toml").read_text(encoding="utf-8"))

_DECIDED = frozenset({"confirmed", "confirm", "dismissed", "dismiss"})


def label(group: str, value: str, **kw: Any) -> str:
    """A value's Japanese name (the catalogue's ``console_GROUP_VALUE``), else the value."""
    return _label(group, value, **kw)


def ledger_reason(reason: str) -> str:
    """A ledger reason (``penalty:interference``, ``grant:…``) as a moderator reads it."""
    return _reason(reason)


def _label(group: str, value: str, **kw: Any) -> str:
    key = f"console_{group}_{value}"
    return text(key, **kw) if key in messages() else value


def _when(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, UTC).astimezone(JST).strftime("%Y-%m-%d %H:%M:%S")


def _reason(reason: str) -> str:
    head, _, rest = reason.partition(":")
    if head == "penalty" and rest:
        return text("console_reason_penalty", kind=_label("kind", rest))
    if head == "grant":  # (「grant」 alone: a grant without a reason typed)
        return text("console_reason_grant", why=rest) if rest not in ("", "grant") \
            else text("grant_reason")
    return _label("reason", reason.replace(" ", "_"))


def _shares(shares: Any) -> str:
    if not isinstance(shares, dict):
        return ""
    return ", ".join(f"{p} {chips(int(v))}" for p, v in shares.items() if _is_int(v))


def _is_int(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


@dataclass(slots=True)
class _Hand:
    """A hand being read: only what the room was shown, and card-free events."""

    id: int
    room: str
    number: int
    game: str | None
    button: int | None
    start: str | None
    end: str | None = None
    table: int | None = None
    players: list[str] = field(default_factory=list)
    board: str | None = None
    shown: dict[str, str] = field(default_factory=dict)
    actions: list[str] = field(default_factory=list)
    pots: list[str] = field(default_factory=list)
    rake: int = 0
    settles: list[str] = field(default_factory=list)
    stacks: str | None = None
    log: list[tuple[str | None, str]] = field(default_factory=list)
    street_first: bool = False  # the first entry of ``actions`` is a street

    def action(self, d: dict[str, Any]) -> None:
        player = str(d.get("player", ""))
        if player and player not in self.players:
            self.players.append(player)
        self.actions.append(action_line(self.game or "", d))

    def dealt(self, seats: Any) -> None:
        """Everyone dealt in, in seat order (a player who never acted -- the small blind
        who won after everyone folded -- is a participant too)."""
        for s in seats if isinstance(seats, list) else []:
            player = s.get("player") if isinstance(s, dict) else None
            if isinstance(player, str) and player and player not in self.players:
                self.players.append(player)

    def street(self, d: dict[str, Any]) -> None:
        self.board = " ".join(_pretty(str(c)) for c in d.get("board") or [])
        self.street_first = self.street_first or not self.actions
        self.actions.append(text("console_street", street=_label("street", str(
            d.get("street", "")))) + " " + self.board)

    def show(self, d: dict[str, Any]) -> None:
        player = str(d.get("player", ""))
        self.shown[player] = shown_item(self.game or "", d)

    def row(self) -> tuple[Any, ...]:
        if self.board is not None and self.actions and not self.street_first:
            self.actions.insert(0, text("console_street", street=text("console_preflop")))
            self.street_first = True
        return (
            self.id, text("console_hand_label", room=self.room, hand=self.number,
                          table=self.table if self.table is not None else "",
                          when=(self.start or "")[5:16]), self.room, self.table,
            game_name(self.game), self.number, self.start, self.end, self.button,
            ", ".join(self.players) or None, self.board,
            " / ".join(self.shown.values()) or None,
            " / ".join(self.actions) or None, " / ".join(self.pots) or None, self.rake,
            " / ".join(self.settles) or None, self.stacks,
        )


def _pretty(card: str) -> str:
    from referee.cards import parse_card, pretty

    return pretty(parse_card(card))


@dataclass(slots=True)
class _Context:
    """Where an input happened, for the records that point at it."""

    when: str | None
    room: str
    hand: int | None
    sender: str | None  # a message said in a room (None: a directive, a tick or a DM)
    said: str | None
    dm: bool
    decided_by: str | None = None
    confirmed: tuple[int, ...] = ()  # flag numbers confirmed by this input
    reversed: tuple[int, ...] = ()  # flag numbers whose penalty this input reversed


@dataclass
class Built:
    """What :func:`build` wrote, for the start-up line and the tests."""

    hands: int = 0
    penalties: int = 0
    flags: int = 0
    players: int = 0
    seconds: float = 0.0


def open_source(path: Path) -> sqlite3.Connection:
    """The referee's database, opened read-only (StoreError if missing or not ours)."""
    if not path.exists():
        raise StoreError(f"{path}: no such database")
    if not path.is_file():
        raise StoreError(f"{path}: not a database file")
    try:
        conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True,
                               isolation_level=None, check_same_thread=False)
    except sqlite3.Error as e:
        raise StoreError(f"{path}: cannot open: {e}") from None
    try:
        version = current_version(conn)
    except StoreError as e:
        conn.close()
        raise StoreError(f"{path}: {e}") from None
    except sqlite3.OperationalError as e:  # locked (a replay owns it), unreadable
        conn.close()
        raise StoreError(f"{path}: cannot read: {e}") from None
    except sqlite3.Error as e:
        conn.close()
        raise StoreError(f"{path}: not a referee database ({e})") from None
    if version == 0:
        conn.close()
        raise StoreError(f"{path}: not a referee database (empty)")
    if version > LATEST:
        conn.close()
        raise StoreError(f"{path}: database schema version {version} is newer than this referee"
                         f" supports ({LATEST}); upgrade the referee")
    return conn


def build(source: Path, dest: Path) -> Built:
    """Write the console database ``dest`` (replaced if it exists) from the referee database
    ``source``, which is only read."""
    started = time.monotonic()
    src = open_source(source)
    try:
        src.execute("BEGIN")  # one snapshot of a database a bot may be writing
        try:
            return _build(src, dest, started)
        except sqlite3.Error as e:
            raise StoreError(f"{source}: cannot read: {e}") from None
    finally:
        src.close()


def _inputs(src: sqlite3.Connection) -> Iterator[tuple[int, str, str, str, float]]:
    from referee.store.log import register, source

    table = source(src)  # a database not migrated yet (nothing here writes) has the old rows
    if table == "log":
        register(src)
    cur = src.execute(f"SELECT seq, room, input, events, processed_at FROM {table} ORDER BY seq")
    while rows := cur.fetchmany(512):
        yield from rows


def _build(src: sqlite3.Connection, dest: Path, started: float) -> Built:
    ledger = src.execute(
        "SELECT id, player, delta, reason, input_seq FROM ledger ORDER BY id").fetchall()
    bank = dict(src.execute("SELECT player, balance FROM bank").fetchall())
    ledger_seqs = {row[4] for row in ledger}

    # The referee's own projection (penalties, flags and their decisions, ranks), computed
    # afresh in memory from the log: the database's copy may lag (it is a cache) and is not
    # ours to bring up to date.
    mem = sqlite3.connect(":memory:", isolation_level=None)
    run_script(mem, _PROJECTION_TABLES)

    try:
        if dest.exists():
            dest.unlink()
        out = sqlite3.connect(dest, isolation_level=None)
        out.execute("PRAGMA user_version = 0")  # fails here, not midway, if it is unwritable
    except (OSError, sqlite3.Error) as e:
        raise StoreError(f"{dest}: cannot write the console database: {e}") from None
    try:
        out.execute("PRAGMA journal_mode = OFF")
        out.execute("PRAGMA synchronous = OFF")
        out.execute("BEGIN")
        run_script(out, SCHEMA)
        built = _walk(src, mem, out, ledger_seqs, ledger, bank)
        out.execute("COMMIT")
        out.execute("ANALYZE")
    finally:
        out.close()
        mem.close()
    built.seconds = time.monotonic() - started
    return built


def _walk(src: sqlite3.Connection, mem: sqlite3.Connection, out: sqlite3.Connection,
          ledger_seqs: set[int], ledger: list[tuple[Any, ...]], bank: dict[str, int]) -> Built:
    built = Built()
    games: dict[str, str] = {}
    current: dict[str, _Hand] = {}
    contexts: dict[int, _Context] = {}
    tables: dict[str, list[Any]] = {}  # room -> [game, hands, first, last]
    hand_rows: list[tuple[Any, ...]] = []
    log_rows: list[tuple[Any, ...]] = []
    rank_events: list[tuple[str, str, int]] = []
    closed: dict[str, tuple[int, int]] = {}  # room -> (input seq, hand) of its last hand's end
    # room -> its last finished hand, written when the room's next hand starts (or at the end):
    # omaha's winner may still OPEN after the hand's end
    finished: dict[str, _Hand] = {}
    held = AtTable()
    seq = 0
    next_hand = 1
    wanted = PROJECTED_KINDS | {"bank", "leave"}

    def flush(force: bool = False) -> None:
        if force or len(log_rows) > 5000 or len(hand_rows) > 500:
            out.executemany(f"INSERT INTO hands VALUES ({', '.join('?' * 17)})", hand_rows)
            out.executemany("INSERT INTO hand_log VALUES (NULL, ?, ?, ?, ?)", log_rows)
            hand_rows.clear()
            log_rows.clear()

    def write(h: _Hand) -> None:
        hand_rows.append(h.row())
        log_rows.extend((h.id, i, when, said) for i, (when, said) in enumerate(h.log, 1))
        flush()

    def close(h: _Hand) -> None:
        t = tables.setdefault(h.room, [h.game, 0, h.start, h.start])
        t[0] = h.game or t[0]
        t[1] += 1
        t[3] = h.start
        closed[h.room] = (seq, h.id)
        done = finished.pop(h.room, None)
        if done is not None:
            write(done)
        finished[h.room] = h

    for seq, room, raw_input, raw_events, processed_at in _inputs(src):
        when = _when(processed_at)
        inp = json.loads(raw_input)
        dm = bool(inp.get("dm"))
        said = inp.get("text") if inp.get("kind") == "message" else None
        events = json.loads(raw_events)
        held.feed(room, (d for d in events if isinstance(d, dict)))
        projected: list[tuple[int, str, dict[str, Any]]] = []
        keep = seq in ledger_seqs
        seen = False
        decided_by: str | None = None
        confirmed: list[int] = []
        reversed_: list[int] = []
        at_hand: int | None = None  # the hand running at the input's first record
        for idx, d in enumerate(events):
            if not isinstance(d, dict):
                continue
            kind = str(d.get("event", ""))
            if kind in PROJECTED_KINDS:
                projected.append((idx, kind, d))
            if kind in wanted and not seen:
                keep = seen = True
                running = current.get(room)
                at_hand = running.id if running is not None else None
            if kind == "rank" and isinstance(d.get("player"), str):
                rank_events.append((d["player"], str(d.get("mark") or ""), seq))
            if kind == "flag_decided" and d.get("by") is not None:
                decided_by = str(d["by"])
            if kind == "flag_decided" and d.get("decision") == "confirmed" and _is_int(
                    d.get("id")):
                confirmed.append(int(d["id"]))
            if kind == "penalty_reversed" and _is_int(d.get("flag")):
                reversed_.append(int(d["flag"]))
            if kind == "table_open" and isinstance(d.get("game"), str):
                games[room] = d["game"]
            if kind == "hand_start" and _is_int(d.get("hand")):
                if room in current:  # a hand that never ended (a misdeal's restart, a crash)
                    close(current.pop(room))
                button = d.get("button")
                current[room] = _Hand(next_hand, room, int(d["hand"]), games.get(room),
                                      int(button) if _is_int(button) else None, when)
                next_hand += 1
                continue
            h = current.get(room)
            if h is None:
                after = finished.get(room)
                if kind == "shown" and d.get("why") == "open" and after is not None:
                    after.show(d)  # the winner's OPEN after everyone folded
                    after.log.append((when, shown_item(after.game or "", d)))
                continue
            if kind == "hand_seats":
                if isinstance(d.get("game"), str):
                    h.game = games[room] = d["game"]
                if _is_int(d.get("table")):
                    h.table = int(d["table"])
                h.dealt(d.get("seats"))
            elif kind == "action":
                h.action(d)
            elif kind == "board":
                h.street(d)
            elif kind == "shown":
                h.show(d)
            elif kind == "say":
                # Only what the room was told, as it was said (never read: the hand's facts
                # are the typed events); a player's own cards come in a private "say".
                if d.get("to") == "room" and isinstance(d.get("text"), str):
                    h.log.append((when, d["text"]))
            elif kind == "pot" and _is_int(d.get("amount")):
                index = int(d["index"]) if _is_int(d.get("index")) else 0
                shares = _shares(d.get("shares"))
                h.pots.append(
                    text("console_pot_main", amount=int(d["amount"]), shares=shares) if index == 0
                    else text("console_pot_side", index=index, amount=int(d["amount"]),
                              shares=shares))
            elif kind == "rake" and _is_int(d.get("amount")):
                h.rake += int(d["amount"])
            elif kind == "settle" and _is_int(d.get("payout")):
                h.settles.append(settle_line(h.game or "", d))
            elif kind == "hand_end":
                stacks = d.get("stacks")
                if isinstance(stacks, dict):
                    h.stacks = ", ".join(f"{p} {chips(int(v))}" for p, v in stacks.items()
                                         if _is_int(v))
                h.end = when
                close(current.pop(room))
        if keep:
            hand_id = at_hand
            if hand_id is None and closed.get(room, (0, 0))[0] == seq:
                hand_id = closed[room][1]  # a record after the hand_end of the same input
            if hand_id is None and room in current:
                hand_id = current[room].id
            contexts[seq] = _Context(
                when, room, hand_id,
                str(inp.get("sender")) if said is not None and not dm else None,
                said if isinstance(said, str) and not dm else None, dm, decided_by,
                tuple(confirmed), tuple(reversed_))
        if projected:
            project(mem, seq, room, projected)
    for h in list(current.values()):
        close(h)
    for h in finished.values():
        write(h)
    flush(force=True)
    for room, game in games.items():
        tables.setdefault(room, [game, 0, None, None])
    out.executemany("INSERT INTO tables VALUES (?, ?, ?, ?, ?)",
                    [(room, game_name(t[0]), *t[1:]) for room, t in tables.items()])
    built.hands = next_hand - 1
    _records(mem, out, contexts, ledger, bank, rank_events, built, held)
    return built


def _records(mem: sqlite3.Connection, out: sqlite3.Connection, contexts: dict[int, _Context],
             ledger: list[tuple[Any, ...]], bank: dict[str, int],
             rank_events: list[tuple[str, str, int]], built: Built, held: AtTable) -> None:
    def ctx(seq: int | None) -> _Context | None:
        return contexts.get(seq) if seq is not None else None

    flags = mem.execute(
        "SELECT id, room, flag_id, player, kind, text, confidence, status, input_seq,"
        " decided_input_seq FROM flags ORDER BY id").fetchall()
    flag_rows: list[tuple[Any, ...]] = []
    for fid, room, flag_id, player, kind, said, confidence, status, seq, decided in flags:
        c, dc = ctx(seq), ctx(decided)
        by = None
        if status != "open" and dc is not None:
            by = dc.decided_by or (text("console_decided_at_once") if decided == seq
                                   else dc.sender)
        flag_rows.append((
            fid, c.when if c else None, room, flag_id, c.hand if c else None, player,
            _label("kind", kind), _label("confidence", confidence),
            said if c is None or not c.dm else text("console_private_message"),
            _label("status", status), by, dc.when if dc is not None and status != "open" else None,
        ))
    out.executemany(f"INSERT INTO flags VALUES ({', '.join('?' * 12)})", flag_rows)
    built.flags = len(flag_rows)

    penalties = mem.execute(
        "SELECT id, room, player, kind, points, chips, input_seq FROM penalties ORDER BY id"
    ).fetchall()
    # flag number -> when its penalty was reversed (a !dismiss after the !confirm)
    returned = {n: c.when for c in contexts.values() for n in c.reversed}
    penalty_rows: list[tuple[Any, ...]] = []
    for pid, room, who, kind, points, chip_count, seq in penalties:
        c = ctx(seq)
        # The flag this penalty carried out: confirmed in this very input (at once, or by a
        # moderator's !confirm), on the same player and offence -- whatever became of it
        # since (a dismissed flag's penalty was reversed, and is still its penalty).
        # A penalty charged at once (a card named in a leak) carries the flag raised by the
        # same input.
        numbers = c.confirmed if c is not None else ()
        flag = mem.execute(
            "SELECT id, text, input_seq, flag_id FROM flags WHERE player = ? AND kind = ?"
            f" AND flag_id IN ({', '.join('?' * len(numbers))}) ORDER BY id DESC LIMIT 1",
            (who, kind, *numbers)).fetchone() if numbers else mem.execute(
            "SELECT id, text, input_seq, flag_id FROM flags WHERE player = ? AND kind = ?"
            " AND input_seq = ? ORDER BY id DESC LIMIT 1", (who, kind, seq)).fetchone()
        if flag is not None:
            fc = ctx(flag[2])
            sender, said = (who, flag[1]) if fc is None or not fc.dm else (
                who, text("console_private_message"))
            hand = fc.hand if fc is not None and fc.hand is not None else (c.hand if c else None)
        else:
            sender = c.sender if c else None
            said = c.said if c else None
            if c is not None and c.dm:
                said = text("console_private_message")
            hand = c.hand if c else None
        back = returned.get(int(flag[3])) if flag is not None else None
        penalty_rows.append((pid, c.when if c else None, room, hand, who,
                             _label("kind", kind), points, chip_count,
                             flag[0] if flag is not None else None, sender, said,
                             (back or text("console_returned_unknown_time"))
                             if flag is not None and int(flag[3]) in returned else None))
    out.executemany(f"INSERT INTO penalties VALUES ({', '.join('?' * 12)})", penalty_rows)
    built.penalties = len(penalty_rows)

    running: dict[str, int] = {}
    ledger_rows: list[tuple[Any, ...]] = []
    for lid, player, delta, reason, seq in ledger:
        c = ctx(seq)
        running[player] = running.get(player, 0) + int(delta)
        ledger_rows.append((lid, c.when if c else None, player, delta, running[player],
                            _reason(str(reason)), c.room if c else None,
                            c.hand if c else None))

    ranks: dict[str, str] = {}
    rank_rows: list[tuple[Any, ...]] = []
    for name, mark, seq in rank_events:
        c = ctx(seq)
        rank_rows.append((c.when if c else None, name, mark or None, ranks.get(name) or None))
        ranks[name] = mark

    players: dict[str, list[Any]] = {}

    def player_row(name: str) -> list[Any]:
        return players.setdefault(name, [name, bank.get(name, 0), held.chips(name), None, 0, 0,
                                         0, None])

    for name in bank:
        player_row(name)
    for name in sorted(held.players()):
        player_row(name)
    for row in ledger_rows:
        p = player_row(row[2])
        p[4] += 1
        p[7] = row[1]
    for row in penalty_rows:
        if row[11] is not None:
            continue  # reversed: the points went back, nothing is forfeit
        p = player_row(row[4])
        p[5] += 1
        p[6] += int(row[6])
    for row in flag_rows:
        player_row(row[5])
    for name, mark in ranks.items():
        player_row(name)[3] = mark or None
    out.executemany("INSERT INTO bank VALUES (?, ?, ?, ?, ?, ?, ?, ?)", list(players.values()))
    out.executemany(f"INSERT INTO ledger VALUES ({', '.join('?' * 8)})", ledger_rows)
    out.executemany("INSERT INTO ranks VALUES (NULL, ?, ?, ?, ?)", rank_rows)
    built.players = len(players)



# --- Datasette -------------------------------------------------------------------------------

PASSWORD_ENV = "REFEREE_CONSOLE_PASSWORD"
HASH_ENV = "REFEREE_CONSOLE_PASSWORD_HASH"
USER = "moderator"
"""The login name when a password is set (HTTP basic authentication)."""

QUERIES: dict[str, dict[str, Any]] = _META["queries"]
TABLES: dict[str, dict[str, Any]] = _META["tables"]


ORDER = ("bank", "ledger", "penalties", "flags", "hands", "hand_log", "tables", "ranks")


def _menu() -> str:
    """The Japanese menu on the first pages (Datasette lists tables by their SQL names)."""
    from html import escape

    def item(path: str, info: dict[str, Any]) -> str:
        return (f'<li><a href="/{DB_NAME}/{path}"><strong>{escape(info["title"])}</strong></a>'
                f" — {escape(info.get('description', ''))}</li>")

    return (
        str(_META["menu_intro"]) + f"<h3>{_META['menu_queries']}</h3><ul>"
        + "".join(item(k, v) for k, v in QUERIES.items())
        + f"</ul><h3>{_META['menu_tables']}</h3><ul>"
        + "".join(item(t, TABLES[t]) for t in ORDER) + "</ul>"
    )


def metadata(password_hash: str | None = None) -> dict[str, Any]:
    """Datasette metadata: Japanese titles, descriptions and canned queries."""
    menu = _menu()
    meta: dict[str, Any] = {
        "title": _META["title"],
        "description_html": menu,
        "databases": {DB_NAME: {"title": _META["database_title"], "description_html": menu,
                                "tables": TABLES, "queries": QUERIES}},
    }
    if password_hash is not None:
        # By reference: /-/metadata.json shows {"$env": …}, not the hash (Datasette resolves it
        # from the environment of this process only when the plugin asks for its config).
        os.environ[HASH_ENV] = password_hash
        meta["plugins"] = {"datasette-auth-passwords": {
            f"{USER}_password_hash": {"$env": HASH_ENV}, "http_basic_auth": True}}
        meta["allow"] = {"id": USER}
    return meta


# A query of one's own stops after 1 s (and at most HEAVY of them run at once: the guard);
# the pages' own queries keep the other SQL threads.
SETTINGS: dict[str, Any] = {
    "default_page_size": 50,
    "suggest_facets": False,
    "sql_time_limit_ms": 1000,
    "max_returned_rows": 5000,
    "num_sql_threads": 3,
    "allow_download": True,
}


class ExtraMissing(Exception):
    """The ``console`` extra (Datasette) is not installed."""


def datasette(console_db: Path, password: str | None = None, guard: Any = None) -> Any:
    """A started :class:`datasette.app.Datasette` serving ``console_db`` immutable, behind
    ``guard`` (a :class:`referee.console_guard.Guard`, a fresh one if None; it limits wrong
    passwords when there is a password, and heavy queries always)."""
    try:
        import asyncio

        from datasette.app import Datasette
        from datasette.database import Database
    except ImportError as e:
        raise ExtraMissing(e.name or "datasette") from None
    password_hash = None
    if password is not None:
        try:
            from datasette_auth_passwords.utils import hash_password
        except ImportError as e:
            raise ExtraMissing(e.name or "datasette-auth-passwords") from None
        password_hash = hash_password(password)
    # Datasette prints each refused request's traceback with its locals when rich is installed
    # (a refused INSERT in the SQL editor is an ordinary event here): one line of log is enough.
    import datasette.handle_exception as handle_exception

    handle_exception.rich = None
    # Served under the name DB_NAME whatever the file is called (--keep FILE), immutable: the
    # file is opened read-only (?immutable=1) and only SELECT runs. A Datasette without files
    # would add an in-memory database of its own: removed, so that only the console is served.
    _register_plugin()
    ds = Datasette(metadata=metadata(password_hash), settings=SETTINGS,
                   template_dir=str(TEMPLATES))
    from referee.console_guard import Guard

    ds.referee_guard = guard or Guard()  # with no password it limits heavy queries only
    if "_memory" in ds.databases:
        ds.remove_database("_memory")
    ds.add_database(Database(ds, path=str(console_db), is_mutable=False), name=DB_NAME,
                    route=DB_NAME)
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(ds.invoke_startup())
    finally:
        loop.close()
    return ds


def _titles() -> dict[str, Any]:
    return {"console_titles": {name: info["title"] for name, info in TABLES.items()}}


def _guarded(datasette: Any) -> Any:
    """The wrong-password limit of a console with a password (:mod:`referee.console_guard`),
    looked up per request: Datasette builds its app before :func:`datasette` can set it.
    Outermost (``trylast``: wrappers apply in hook order), so it sees the password plugin's
    401 answers."""

    def wrap(app: Any) -> Any:
        async def guarded(scope: Any, receive: Any, send: Any) -> None:
            guard = getattr(datasette, "referee_guard", None)
            inner = app if guard is None else guard.wrap(app)
            await inner(scope, receive, send)

        return guarded

    return wrap


def _register_plugin() -> None:
    """A Datasette plugin, in-process: the tables' Japanese titles for the templates."""
    from datasette import hookimpl
    from datasette.plugins import pm

    if pm.get_plugin("referee-console") is None:
        hooks = {"extra_template_vars": staticmethod(hookimpl(_titles)),
                 "asgi_wrapper": staticmethod(hookimpl(_guarded, trylast=True))}
        plugin = type("RefereeConsole", (), hooks)
        pm.register(plugin, name="referee-console")


def serve(ds: Any, host: str, port: int) -> None:
    """Serve until interrupted (uvicorn, as ``datasette serve`` does)."""
    import signal
    import threading

    import uvicorn

    if threading.current_thread() is threading.main_thread():
        # uvicorn shuts down gracefully on SIGINT / SIGTERM and then raises the signal again
        # with the handlers it found: make those a plain exit, so that the caller's cleanup
        # (the temporary console database) runs and Ctrl+C prints no traceback.
        def stop(sig: int, frame: object) -> None:
            raise SystemExit(0)

        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, stop)
    # proxy_headers off: uvicorn would otherwise take the client address from X-Forwarded-For
    # on connections from 127.0.0.1, letting anyone choose whose guess count a try lands on
    uvicorn.run(ds.app(), host=host, port=port, log_level="warning", lifespan="on", workers=1,
                proxy_headers=False)
