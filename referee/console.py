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

The console database is built from the whole log on a start (``referee console`` prints how long
it took); with ``--keep FILE`` a later start over the same log reuses it as it is, or, when the
log has grown, reads only the rows added since (the reader's state is kept beside it,
``FILE.resume``). Restart the console to see newer records.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import sqlite3
import time
import tomllib
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypeGuard

from referee.at_table import AtTable
from referee.discipline import REFEREE
from referee.events import (
    ActionEvent,
    BoardDealt,
    FlagDecided,
    HandEnd,
    HandSeats,
    HandStart,
    PenaltyReversed,
    Pot,
    Rake,
    RankChange,
    Say,
    Settle,
    Shown,
    TableOpened,
)
from referee.history import action_line, game_name, settle_line, shown_item
from referee.lang.catalog import chips, messages, text
from referee.records.replay import HandReplay, ReplayedHand
from referee.records.replay_page import CARD_FACES, replay_json
from referee.records.theory import Theory
from referee.records.visitor import Entry, EventVisitor, Handler, Together, log_entries, walk
from referee.rules.voice import say_text
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


def table_name(table: int | None) -> str:
    """A table as moderators name it (its number in the order tables opened), never the id of
    the room it is played in."""
    return text("console_table_name", table=table) if table is not None \
        else text("console_table_unnumbered")


def _when(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, UTC).astimezone(JST).strftime("%Y-%m-%d %H:%M:%S")


def _reason(reason: str) -> str:
    head, _, rest = reason.partition(":")
    if head == "penalty" and rest:
        return text("console_reason_penalty", kind=_label("kind", rest))
    if head == "penalty_reversed" and rest:
        return text("console_reason_penalty_reversed", kind=_label("kind", rest))
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
    replay: ReplayedHand | None = None  # the hand step by step (its page's replayer)

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

    def row(self, game: str) -> tuple[Any, ...]:
        """The hand's row; ``game``: its game's name as people read it."""
        if self.board is not None and self.actions and not self.street_first:
            self.actions.insert(0, text("console_street", street=text("console_preflop")))
            self.street_first = True
        return (
            self.id, text("console_hand_label", hand=self.number,
                          table=self.table if self.table is not None else "",
                          when=(self.start or "")[5:16]), table_name(self.table), self.table,
            game, self.number, self.start, self.end, self.button,
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
    table: str | None  # the name of the room's table at the time (never the room's id)
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


def build(source: Path, dest: Path, reuse: bool = False) -> Built:
    """Write the console database ``dest`` (replaced if it exists) from the referee database
    ``source``, which is only read. With ``reuse``, a ``dest`` already built by this code from
    ``source`` as it is now (its log's last row unchanged) is kept as it is: a restart of the
    console over a log that has not grown costs no rebuild."""
    started = time.monotonic()
    src = open_source(source)
    try:
        src.execute("BEGIN")  # one snapshot of a database a bot may be writing
        try:
            stamp = _stamp(src)
            if reuse and stamp is not None and dest.is_file():
                kept = _kept(dest, stamp)
                if kept is None:
                    kept = _resume(src, dest, stamp)
                if kept is not None:
                    kept.seconds = time.monotonic() - started
                    return kept
            return _build(src, dest, started, stamp)
        except sqlite3.Error as e:
            raise StoreError(f"{source}: cannot read: {e}") from None
    finally:
        src.close()


def _code_digest() -> bytes:
    """The console database's makers: a change to any gives another database."""
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted([here / "console.py", *(here / "records").glob("*.py"),
                        TEMPLATES / "schema.sql", *(here / "lang" / "messages").glob("*.toml")]):
        h.update(path.read_bytes())
    return h.digest()


def _stamp(src: sqlite3.Connection) -> tuple[int, int] | None:
    """The source log's last row (its seq) and an identity of it and of this code (the digest
    chain's last value covers every row before it), or None for a log without a chain."""
    try:
        row = src.execute("SELECT seq, chain FROM inputs ORDER BY seq DESC LIMIT 1").fetchone()
    except sqlite3.Error:
        return None
    if row is None or not isinstance(row[1], bytes) or not 0 < int(row[0]) < 2**31:
        return None
    return int(row[0]), zlib.crc32(row[1] + _code_digest()) & 0x7FFFFFFF


def _kept(dest: Path, stamp: tuple[int, int]) -> Built | None:
    """What ``dest`` holds if this code built it from the log ``stamp`` names, else None."""
    try:
        conn = sqlite3.connect(f"file:{dest.resolve()}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        seq = conn.execute("PRAGMA user_version").fetchone()[0]
        ident = conn.execute("PRAGMA application_id").fetchone()[0]
        if (seq, ident) != stamp:
            return None
        counts = [conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                  for t in ("hands", "penalties", "flags", "bank")]
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    return Built(*counts)


def _ledger(src: sqlite3.Connection) -> tuple[list[tuple[Any, ...]], dict[str, int], set[int]]:
    ledger = src.execute(
        "SELECT id, player, delta, reason, input_seq FROM ledger ORDER BY id").fetchall()
    bank = dict(src.execute("SELECT player, balance FROM bank").fetchall())
    return ledger, bank, {row[4] for row in ledger}


def _build(src: sqlite3.Connection, dest: Path, started: float,
           stamp: tuple[int, int] | None = None) -> Built:
    ledger, bank, ledger_seqs = _ledger(src)

    # The referee's own projection (penalties, flags and their decisions, ranks), computed
    # afresh in memory from the log: the database's copy may lag (it is a cache) and is not
    # ours to bring up to date.
    mem = sqlite3.connect(":memory:", isolation_level=None)
    run_script(mem, _PROJECTION_TABLES)
    _forget_resume(dest)

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
        reader = _Reader(mem, out, ledger_seqs, HandReplay(keep=False))
        built, state = _walk(src, reader, ledger, bank, stamp)
        out.execute("COMMIT")
        out.execute("ANALYZE")
        if stamp is not None:  # what :func:`build` with ``reuse`` knows it by
            out.execute(f"PRAGMA user_version = {int(stamp[0])}")
            out.execute(f"PRAGMA application_id = {int(stamp[1])}")
    finally:
        out.close()
        mem.close()
    if state is not None:
        _keep_resume(dest, state)
    built.seconds = time.monotonic() - started
    return built


# --- resuming a build over a log that has grown ------------------------------------------------
# A build keeps, beside the console database (FILE.resume, readable by its owner only: the
# projection's flags hold what was said in private messages), the reader's state as it stood
# after the log's last row, before the end of the walk wrote the hands still open and the
# records: a later start over the same log grown reads only the rows added since, rewrites
# those hands and the records, and keeps every hand finished before.

_RESUME_VERSION = 1


def _chain_file(dest: Path) -> Path:
    return dest.with_name(dest.name + ".chain")


def verified_head(dest: Path) -> tuple[int, bytes] | None:
    """The referee log's chain head the console's last start-up check found sound, kept beside
    the console database ``dest`` (the console never writes the referee's database); None
    when there is none or it is not one."""
    try:
        seq, chain = _chain_file(dest).read_text(encoding="ascii").split()
        return int(seq), bytes.fromhex(chain)
    except (OSError, ValueError):
        return None


def keep_verified_head(dest: Path, head: tuple[int, bytes]) -> None:
    """Keep ``head`` beside ``dest`` for the next start's check (best effort, atomically)."""
    path = _chain_file(dest)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(f"{head[0]} {head[1].hex()}\n", encoding="ascii")
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


def _resume_file(dest: Path) -> Path:
    return dest.with_name(dest.name + ".resume")


def _forget_resume(dest: Path) -> None:
    with contextlib.suppress(OSError):
        _resume_file(dest).unlink()


def _keep_resume(dest: Path, state: bytes) -> None:
    """Write the state (atomically; a failure leaves none, and the next start builds afresh)."""
    path = _resume_file(dest)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(state)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


def _load_resume(dest: Path, src: sqlite3.Connection) -> dict[str, Any] | None:
    """The state a build of ``dest`` kept, if this code wrote it from the log ``src`` reads
    (the row it stopped at still carries the chain value it had); consumed: a resume that
    stops half-way leaves none, and the next start builds afresh."""
    path = _resume_file(dest)
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    _forget_resume(dest)
    try:
        state = pickle.loads(zlib.decompress(blob))
    except Exception:  # a damaged or foreign file: build afresh
        return None
    if not isinstance(state, dict) or state.get("version") != _RESUME_VERSION \
            or state.get("code") != _code_digest():
        return None
    row = src.execute("SELECT chain FROM inputs WHERE seq = ?", (state["seq"],)).fetchone()
    if row is None or not isinstance(row[0], bytes) or row[0] != state["chain"]:
        return None
    return state



def _hand_columns(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """The tables that hold a hand's rows and the column naming the hand: the hands table's key
    and every column referencing it (schema.sql names them, in Japanese)."""
    key = next(str(r[1]) for r in conn.execute("PRAGMA table_info(hands)") if r[5])
    out = [("hands", key)]
    for table in ("hand_log", "replays", "books"):
        out += [(table, str(fk[3])) for fk in conn.execute(f"PRAGMA foreign_key_list({table})")
                if fk[2] == "hands"]
    return out

def _resume(src: sqlite3.Connection, dest: Path, stamp: tuple[int, int]) -> Built | None:
    """Bring ``dest`` up to the log's row ``stamp`` names from the state its build kept; None
    when there is none to resume from (the caller builds afresh)."""
    state = _load_resume(dest, src)
    if state is None or int(state["seq"]) >= stamp[0]:
        return None
    ledger, bank, ledger_seqs = _ledger(src)
    mem = sqlite3.connect(":memory:", isolation_level=None)
    out: sqlite3.Connection | None = None
    try:
        mem.deserialize(state["mem"])
        out = sqlite3.connect(dest, isolation_level=None)
        out.execute("PRAGMA journal_mode = OFF")
        out.execute("PRAGMA synchronous = OFF")
        out.execute("PRAGMA user_version = 0")  # not the log's until the resume is done
        out.execute("BEGIN")
        ids = [int(i) for i in state["provisional"]]
        marks = ", ".join("?" * len(ids))
        for table, column in _hand_columns(out):
            if ids:
                out.execute(f'DELETE FROM {table} WHERE "{column}" IN ({marks})', ids)
        for table in ("tables", "flags", "penalties", "ledger", "bank", "ranks"):
            out.execute(f"DELETE FROM {table}")
        reader: _Reader = state["reader"]
        reader.attach(mem, out, ledger_seqs, state["replay"])
        built, kept = _walk(src, reader, ledger, bank, stamp, after=int(state["seq"]))
        out.execute("COMMIT")
        out.execute("PRAGMA analysis_limit = 1000")  # the planner's statistics, sampled
        out.execute("ANALYZE")
        out.execute(f"PRAGMA user_version = {int(stamp[0])}")
        out.execute(f"PRAGMA application_id = {int(stamp[1])}")
    except (sqlite3.Error, KeyError, TypeError, ValueError, AttributeError):
        return None  # the caller builds afresh (and replaces the file)
    finally:
        if out is not None:
            out.close()
        mem.close()
    if kept is not None:
        _keep_resume(dest, kept)
    return built


_HAND_KINDS = frozenset({"hand_start", "hand_end", "bonus_area"})
# What the console reads of the store's projection (its flags and penalties): computed for
# these kinds only -- the projection's hands would cost a row per hand and never be read.
_READ_KINDS = frozenset({"flag", "flag_decided", "penalty"})


class _Reader(EventVisitor):
    """The console's reader of the log (:func:`referee.records.visitor.walk`): the hands as
    the room saw them, where and when every record happened (:class:`_Context`), the ranks and
    the store's own projection (penalties, flags, decisions), computed afresh in ``mem``."""

    def __init__(self, mem: sqlite3.Connection, out: sqlite3.Connection,
                 ledger_seqs: set[int], replay: HandReplay) -> None:
        self.mem, self.out, self.ledger_seqs = mem, out, ledger_seqs
        self.replay = replay  # walked beside this reader, each event before it
        self.replay_rows: list[tuple[int, str]] = []
        self.book_rows: list[tuple[Any, ...]] = []
        self.names: dict[str, str] = {}
        self.games: dict[str, str] = {}
        self.current: dict[str, _Hand] = {}
        self.contexts: dict[int, _Context] = {}
        self.tables: dict[str | None, list[Any]] = {}  # table name -> [game, hands, first, last]
        self.table_of: dict[str, str] = {}  # room -> the name of its table now
        self.opened: dict[str, str] = {}  # table name -> its game
        self.hand_rows: list[tuple[Any, ...]] = []
        self.log_rows: list[tuple[Any, ...]] = []
        self.rank_events: list[tuple[str, str, int]] = []
        # room -> (input seq, hand) of its last hand's end
        self.closed: dict[str, tuple[int, int]] = {}
        # room -> its last finished hand, written when the room's next hand starts (or at the
        # end): omaha's winner may still OPEN after the hand's end
        self.finished: dict[str, _Hand] = {}
        self.held = AtTable()
        self.next_hand = 1
        # the input being read
        self.seq = 0
        self.room = ""
        self.when: str | None = None
        self.keep = self.seen = False
        self.decided_by: str | None = None
        self.confirmed: list[int] = []
        self.reversed: list[int] = []
        self.at_hand: int | None = None  # the hand running at the input's first record

    _LIVE = ("mem", "out", "ledger_seqs", "replay")  # not kept: attached again on a resume

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in self._LIVE}

    def attach(self, mem: sqlite3.Connection, out: sqlite3.Connection, ledger_seqs: set[int],
               replay: HandReplay) -> None:
        """A resumed reader's connections, the ledger's inputs now and its replay."""
        self.mem, self.out, self.ledger_seqs, self.replay = mem, out, ledger_seqs, replay

    def state(self, src: sqlite3.Connection, seq: int) -> bytes | None:
        """Everything a resume after input ``seq`` needs (see ``_resume``), the finished
        hands written first; None for a log whose row ``seq`` has no chain value."""
        self._flush(force=True)
        row = src.execute("SELECT chain FROM inputs WHERE seq = ?", (seq,)).fetchone()
        if row is None or not isinstance(row[0], bytes):
            return None
        provisional = [h.id for h in (*self.current.values(), *self.finished.values())]
        return zlib.compress(pickle.dumps({
            "version": _RESUME_VERSION, "code": _code_digest(), "seq": seq, "chain": row[0],
            "provisional": provisional, "reader": self, "replay": self.replay,
            "mem": self.mem.serialize()}, protocol=pickle.HIGHEST_PROTOCOL), 1)

    def handlers(self) -> dict[str, Handler]:
        """A record of the bank, the projection or a seat's leaving notes where the input
        happened (its first such event), before the kind's own method."""
        out = super().handlers()
        for kind in PROJECTED_KINDS | {"bank", "leave"}:
            out[kind] = self._marked(out.get(kind), kind not in _HAND_KINDS)
        return out

    def _marked(self, then: Handler | None, record: bool) -> Handler:
        """``record``: a kind whose record is written with its input's context (a hand's start
        or end only places a record later in the same input; its own context is never read)."""
        def handler(ev: Any) -> None:
            if not self.seen:
                self.seen = True
                running = self.current.get(self.room)
                self.at_hand = running.id if running is not None else None
            if record:
                self.keep = True
            if then is not None:
                then(ev)

        return handler

    # --- per input --------------------------------------------------------------------------
    def begin_input(self, entry: Entry) -> None:
        self.seq, self.room, self.when = entry.seq, entry.room, _when(entry.processed_at)
        self.held.feed(entry.room, (d for d in entry.raw if isinstance(d, dict)))
        self.keep = entry.seq in self.ledger_seqs
        self.seen = False
        self.decided_by = None
        self.confirmed, self.reversed = [], []
        self.at_hand = None

    def end_input(self, entry: Entry) -> None:
        if self.keep:
            self.contexts[entry.seq] = self._context(entry)
        projected = [(i, str(d["event"]), d) for i, d in enumerate(entry.raw)
                     if isinstance(d, dict) and d.get("event") in _READ_KINDS]
        if projected:
            project(self.mem, entry.seq, entry.room, projected)

    def _context(self, entry: Entry) -> _Context:
        inp, room, seq = entry.input, entry.room, entry.seq
        dm = bool(inp.get("dm"))
        said = inp.get("text") if inp.get("kind") == "message" else None
        hand_id = self.at_hand
        if hand_id is None and self.closed.get(room, (0, 0))[0] == seq:
            hand_id = self.closed[room][1]  # a record after the hand_end of the same input
        if hand_id is None and room in self.current:
            hand_id = self.current[room].id
        return _Context(
            self.when, room, self.table_of.get(room), hand_id,
            str(inp.get("sender")) if said is not None and not dm else None,
            said if isinstance(said, str) and not dm else None, dm, self.decided_by,
            tuple(self.confirmed), tuple(self.reversed))

    def end(self) -> None:
        for h in list(self.current.values()):
            self._close(h)
        for h in self.finished.values():
            self._write(h)
        self._flush(force=True)
        for name, game in self.opened.items():
            self.tables.setdefault(name, [game, 0, None, None])
        self.out.executemany("INSERT INTO tables VALUES (?, ?, ?, ?, ?)",
                             [(name, self._name(t[0]), *t[1:])
                              for name, t in self.tables.items()])

    # --- records ------------------------------------------------------------------------------
    def visit_rank(self, ev: RankChange) -> None:
        self.rank_events.append((ev.player, ev.mark or "", self.seq))

    def visit_flag_decided(self, ev: FlagDecided) -> None:
        self.decided_by = ev.by
        if ev.decision == "confirmed":
            self.confirmed.append(ev.id)

    def visit_penalty_reversed(self, ev: PenaltyReversed) -> None:
        self.reversed.append(ev.flag)

    def visit_table_open(self, ev: TableOpened) -> None:
        self.games[self.room] = ev.game
        self.table_of[self.room] = name = table_name(ev.table)
        self.opened[name] = ev.game

    # --- hands ------------------------------------------------------------------------------
    def visit_hand_start(self, ev: HandStart) -> None:
        if self.room in self.current:  # a hand that never ended (a misdeal's restart, a crash)
            self._close(self.current.pop(self.room))
        self.current[self.room] = _Hand(self.next_hand, self.room, ev.hand,
                                        self.games.get(self.room), ev.button, self.when,
                                        replay=self.replay.open.get(self.room))
        self.next_hand += 1

    def visit_hand_seats(self, ev: HandSeats) -> None:
        h = self.current.get(self.room)
        if h is not None:
            h.game = self.games[self.room] = ev.game
            if ev.table is not None:
                h.table = ev.table
                self.table_of[self.room] = table_name(ev.table)
            h.dealt(ev.seats)

    def visit_action(self, ev: ActionEvent) -> None:
        if (h := self.current.get(self.room)) is not None:
            h.action(ev.__dict__)

    def visit_board(self, ev: BoardDealt) -> None:
        if (h := self.current.get(self.room)) is not None:
            h.street(ev.__dict__)

    def visit_shown(self, ev: Shown) -> None:
        h = self.current.get(self.room)
        if h is not None:
            h.show(ev.__dict__)
            return
        after = self.finished.get(self.room)
        if ev.why == "open" and after is not None:
            after.show(ev.__dict__)  # the winner's OPEN after everyone folded
            after.log.append((self.when, shown_item(after.game or "", ev.__dict__)))

    def visit_say(self, ev: Say) -> None:
        # Only what the room was told, as it was said (never read: the hand's facts are the
        # typed events); a player's own cards come in a private "say".
        h = self.current.get(self.room)
        if h is not None and ev.to == "room":
            h.log.append((self.when, say_text(ev)))

    def visit_pot(self, ev: Pot) -> None:
        if (h := self.current.get(self.room)) is None:
            return
        shares = _shares(ev.shares)
        h.pots.append(
            text("console_pot_main", amount=ev.amount, shares=shares) if ev.index == 0
            else text("console_pot_side", index=ev.index, amount=ev.amount, shares=shares))

    def visit_rake(self, ev: Rake) -> None:
        if (h := self.current.get(self.room)) is not None:
            h.rake += ev.amount

    def visit_settle(self, ev: Settle) -> None:
        if (h := self.current.get(self.room)) is not None:
            h.settles.append(settle_line(h.game or "", ev.__dict__))

    def visit_hand_end(self, ev: HandEnd) -> None:
        if (h := self.current.get(self.room)) is None:
            return
        h.stacks = ", ".join(f"{p} {chips(v)}" for p, v in ev.stacks.items())
        h.end = self.when
        self._close(self.current.pop(self.room))

    # --- writing ------------------------------------------------------------------------------
    def _flush(self, force: bool = False) -> None:
        if force or len(self.log_rows) > 5000 or len(self.hand_rows) > 500:
            self.out.executemany(f"INSERT INTO hands VALUES ({', '.join('?' * 17)})",
                                 self.hand_rows)
            self.out.executemany("INSERT INTO hand_log VALUES (NULL, ?, ?, ?, ?)", self.log_rows)
            self.out.executemany("INSERT INTO replays VALUES (?, ?)", self.replay_rows)
            self.out.executemany("INSERT INTO books VALUES (?, ?, ?, ?, ?, ?, ?)",
                                 self.book_rows)
            self.book_rows.clear()
            self.hand_rows.clear()
            self.log_rows.clear()
            self.replay_rows.clear()

    def _write(self, h: _Hand) -> None:
        name = self._name(h.game)
        self.hand_rows.append(h.row(name))
        self.log_rows.extend((h.id, i, when, said) for i, (when, said) in enumerate(h.log, 1))
        if h.replay is not None:
            r = h.replay
            self.replay_rows.append((h.id, replay_json(r)))
            self.book_rows.append((h.id, (h.start or "")[:7] or None, name,
                                   r.stakes, r.payouts, r.rake, r.payouts - r.stakes))
        self._flush()

    def _name(self, game: str | None) -> str:
        """:func:`referee.history.game_name`, once per game of the build (it loads the game's
        definition)."""
        key = game or ""
        if key not in self.names:
            self.names[key] = game_name(game)
        return self.names[key]

    def _close(self, h: _Hand) -> None:
        t = self.tables.setdefault(table_name(h.table), [h.game, 0, h.start, h.start])
        t[0] = h.game or t[0]
        t[1] += 1
        t[3] = h.start
        self.closed[h.room] = (self.seq, h.id)
        done = self.finished.pop(h.room, None)
        if done is not None:
            self._write(done)
        self.finished[h.room] = h


class _Keeping(Together):
    """The replay and the reader walked together; before the end of the walk (which writes
    the hands still open), their state is kept for a later resume."""

    def __init__(self, reader: _Reader, stamp: tuple[int, int] | None,
                 src: sqlite3.Connection) -> None:
        super().__init__(reader.replay, reader)
        self.reader, self.stamp, self.src = reader, stamp, src
        self.state: bytes | None = None

    def end(self) -> None:
        if self.stamp is not None:
            self.state = self.reader.state(self.src, self.stamp[0])
        super().end()


def _walk(src: sqlite3.Connection, reader: _Reader, ledger: list[tuple[Any, ...]],
          bank: dict[str, int], stamp: tuple[int, int] | None,
          after: int = 0) -> tuple[Built, bytes | None]:
    keeping = _Keeping(reader, stamp, src)
    walk(log_entries(src, after=after), keeping)
    built = Built(hands=reader.next_hand - 1)
    _records(reader.mem, reader.out, reader.contexts, ledger, bank, reader.rank_events, built,
             reader.held)
    return built, keeping.state



def _records(mem: sqlite3.Connection, out: sqlite3.Connection, contexts: dict[int, _Context],
             ledger: list[tuple[Any, ...]], bank: dict[str, int],
             rank_events: list[tuple[str, str, int]], built: Built, held: AtTable) -> None:
    def ctx(seq: int | None) -> _Context | None:
        return contexts.get(seq) if seq is not None else None

    flags = mem.execute(
        "SELECT id, room, flag_id, player, kind, text, confidence, status, input_seq,"
        " decided_input_seq FROM flags ORDER BY id").fetchall()
    flag_rows: list[tuple[Any, ...]] = []
    for fid, _room, flag_id, player, kind, said, confidence, status, seq, decided in flags:
        c, dc = ctx(seq), ctx(decided)
        by = None
        if status != "open" and dc is not None:
            by = dc.decided_by or (text("console_decided_at_once") if decided == seq
                                   else dc.sender)
            if by == REFEREE:
                by = text("console_decided_at_once")
        flag_rows.append((
            fid, c.when if c else None, c.table if c else None, flag_id,
            c.hand if c else None, player,
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
    for pid, _room, who, kind, points, chip_count, seq in penalties:
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
        penalty_rows.append((pid, c.when if c else None, c.table if c else None, hand, who,
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
                            _reason(str(reason)), c.table if c else None,
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


ORDER = ("bank", "ledger", "penalties", "flags", "hands", "hand_log", "books", "tables", "ranks")


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
        + f'<p class="console-note"><a href="/{DB_NAME}?_sql_editor=1">'
        f'{escape(text("console_ui_sql_link"))}</a></p>'
    )


MENU = ("bank_ranking", "economy", "player_balance", "bank", "ledger", "penalties", "flags",
        "hands")
"""The console's menu on every page (base.html): canned queries and tables by their titles."""


def _ui() -> dict[str, str]:
    prefix = "console_ui_"
    return {k[len(prefix):]: v for k, v in messages().items() if k.startswith(prefix)}


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


def datasette(console_db: Path, password: str | None = None, guard: Any = None,
              theory_hands: int = 0) -> Any:
    """A started :class:`datasette.app.Datasette` serving ``console_db`` immutable, behind
    ``guard`` (a :class:`referee.console_guard.Guard`, a fresh one if None; it limits wrong
    passwords when there is a password, and heavy queries always); the house games'
    theoretical returns computed after it starts with ``theory_hands`` hands per Monte Carlo
    bet (0: not at all)."""
    try:
        import asyncio

        _lazy_units()
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
    ds.referee_theory = Theory(theory_hands)
    ds.referee_theory.start()
    return ds


class _LazyUnits:
    """Stands for pint's unit registry until a page uses one (a column with units, which our
    metadata never sets): Datasette builds the registry when its views are imported, which
    is most of the CPU time of a console's start after the imports."""

    _made: Any = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._how = (args, kwargs)

    def _registry(self) -> Any:
        if self._made is None:
            self._made = _PINT_REGISTRY[0](*self._how[0], **self._how[1])
        return self._made

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._registry()(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._registry(), name)


_PINT_REGISTRY: list[Any] = []


def _lazy_units() -> None:
    """Datasette's views made with a :class:`_LazyUnits` for their unit registry."""
    import sys

    if "datasette.views.base" in sys.modules:
        return
    import importlib

    pint = importlib.import_module("datasette.vendored.pint")
    if not _PINT_REGISTRY:
        _PINT_REGISTRY.append(pint.UnitRegistry)
    setattr(pint, "UnitRegistry", _LazyUnits)  # noqa: B010
    try:
        importlib.import_module("datasette.views.base")  # reads pint.UnitRegistry once, here
    finally:
        setattr(pint, "UnitRegistry", _PINT_REGISTRY[0])  # noqa: B010


def _globals() -> dict[str, Any]:
    """What our templates read besides Datasette's own, on every page (errors too): the menu,
    the Japanese chrome (``console_ui_*`` of the catalogue), the filters' names and the
    tables' titles."""
    ui = _ui()
    titles = {name: info["title"] for name, info in TABLES.items()}
    titles.update({name: info["title"] for name, info in QUERIES.items()})
    return {
        "console_titles": titles,
        "console_hidden": [name for name, info in TABLES.items() if info.get("hidden")],
        "console_text": ui,
        "console_menu": [{"href": f"/{DB_NAME}/{name}", "label": titles[name]} for name in MENU
                         if name in titles],
        "console_lookups": {k[len("lookup_"):]: v for k, v in ui.items()
                            if k.startswith("lookup_")},
        "console_params": {k[len("param_"):]: v for k, v in ui.items()
                           if k.startswith("param_")},
    }


def _environment(env: Any) -> None:
    env.globals.update(_globals())


def _template_vars(view_name: str, table: str | None, request: Any, datasette: Any) -> Any:
    """On a hand's page, its replay (the ``replays`` row of the hand); on the bank over time,
    the house games' theoretical returns (:class:`referee.records.theory.Theory`)."""
    theory = getattr(datasette, "referee_theory", None)
    base: dict[str, Any] = {"console_theory": dict(theory.figures) if theory else {}}
    ui = _ui()
    if view_name != "row" or table != "hands" or request is None:
        return base

    async def with_replay() -> dict[str, Any]:
        pk = str(request.url_vars.get("pks", ""))
        rows = (await datasette.get_database(DB_NAME).execute(
            "SELECT * FROM replays WHERE rowid = ?", [pk])).rows if pk.isdigit() else []
        if rows:  # JSON inside a <script> element: no "</" may end it early
            base["replay"] = str(rows[0][1]).replace("</", "<\\/")
            base["card_faces"] = json.dumps(CARD_FACES, ensure_ascii=False)
            base["replay_words"] = json.dumps(
                {k: ui[f"replay_{k}"] for k in ("step", "start", "none", "dealer")},
                ensure_ascii=False).replace("</", "<\\/")
        return base

    return with_replay


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
        hooks = {"extra_template_vars": staticmethod(hookimpl(_template_vars)),
                 "prepare_jinja2_environment": staticmethod(hookimpl(_environment)),
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
