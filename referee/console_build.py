"""Writing the moderators' console database from the referee's log (:func:`referee.console.build`
when the kept database does not answer for the log as it is now): a whole build, or a resumed
one over a log that has grown. Apart from :mod:`referee.console` so that a start over a log
that has not grown -- the kept database served as it is -- imports none of the typed events,
the games, the replayer or the store's projection.

What goes into the console database is whitelisted, never filtered out (see
:mod:`referee.console`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import pickle
import shutil
import sqlite3
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeGuard

from referee.at_table import AtTable
from referee.console_base import (
    JST,
    TEMPLATES,
    Built,
    Progress,
    Stopped,
    code_digest,
    file_stamp,
    label,
    ledger_reason,
    stamp_of,
    table_name,
)
from referee.events import (
    REFEREE,
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
from referee.lang.catalog import chips, file_error, text
from referee.records.replay import HandReplay, ReplayedHand
from referee.records.replay_page import replay_json
from referee.records.visitor import Entry, EventVisitor, Handler, Together, log_entries, walk
from referee.rules.voice import say_text
from referee.store.base import StoreError
from referee.store.schema import PROJECTED_KINDS, project, run_script
from referee.store.schema import PROJECTION_V2 as _PROJECTION_TABLES

SCHEMA = (TEMPLATES / "schema.sql").read_text(encoding="utf-8")
"""The console database's tables (Japanese column names)."""


def _when(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, UTC).astimezone(JST).strftime("%Y-%m-%d %H:%M:%S")


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
        self.actions.append(text("console_street", street=label("street", str(
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


def _ledger(src: sqlite3.Connection) -> tuple[list[tuple[Any, ...]], dict[str, int], set[int]]:
    ledger = src.execute(
        "SELECT id, player, delta, reason, input_seq FROM ledger ORDER BY id").fetchall()
    bank = dict(src.execute("SELECT player, balance FROM bank").fetchall())
    return ledger, bank, {row[4] for row in ledger}


def build_afresh(src: sqlite3.Connection, dest: Path, started: float,
                 stamp: tuple[int, int] | None = None, progress: Progress | None = None) -> Built:
    """Write ``dest`` from the whole log, into a file of its own beside it that replaces it
    only when done: a console serving ``dest`` meanwhile goes on reading it, and a build that
    stops half-way leaves the kept files as they were."""
    _stop_if_asked(progress)
    ledger, bank, ledger_seqs = _ledger(src)

    # The referee's own projection (penalties, flags and their decisions, ranks), computed
    # afresh in memory from the log: the database's copy may lag (it is a cache) and is not
    # ours to bring up to date.
    mem = sqlite3.connect(":memory:", isolation_level=None)
    run_script(mem, _PROJECTION_TABLES)
    scratch = _scratch(dest)
    try:
        if dest.is_dir():  # fails here, not after the walk
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(dest))
        with contextlib.suppress(FileNotFoundError):
            scratch.unlink()
        out = sqlite3.connect(scratch, isolation_level=None)
        out.execute("PRAGMA user_version = 0")  # fails here, not midway, if it is unwritable
    except OSError as e:
        mem.close()
        raise StoreError(file_error(dest, e)) from None
    except sqlite3.Error as e:
        from referee.store.integrity import sqlite_said

        mem.close()
        _discard(scratch)
        raise StoreError(text("console_cannot_write", path=str(dest),
                              reason=sqlite_said(str(e)))) from None
    try:
        out.execute("PRAGMA journal_mode = OFF")
        out.execute("PRAGMA synchronous = OFF")
        out.execute("BEGIN")
        run_script(out, SCHEMA)
        reader = _Reader(mem, out, ledger_seqs, HandReplay(keep=False))
        built, state = _walk(src, reader, ledger, bank, stamp, progress=progress)
        out.execute("COMMIT")
        out.execute("ANALYZE")
        if stamp is not None:  # what :func:`build` with ``reuse`` knows it by
            out.execute(f"PRAGMA user_version = {int(stamp[0])}")
            out.execute(f"PRAGMA application_id = {int(stamp[1])}")
    except BaseException:
        out.close()
        _discard(scratch)
        raise
    finally:
        mem.close()
    out.close()
    _install(scratch, dest, state)
    built.seconds = time.monotonic() - started
    return built


# --- writing beside the served file ------------------------------------------------------------
# A build or a resume writes a file of its own beside FILE (".FILE.<pid>.build"; journal off,
# as nothing else reads it) and puts it in FILE's place with one rename once it is complete
# (flushed to disk first), its resume state beside it: Datasette may be serving FILE meanwhile
# (immutable: it must never change under a reader), and a console stopped or killed half-way
# leaves FILE and FILE.resume as they were, which the next start serves and resumes again.
# A left-over file of a process that is gone is removed by the next build.


def _scratch(dest: Path) -> Path:
    prefix = f".{dest.name}."
    with contextlib.suppress(OSError):
        for old in dest.parent.iterdir():
            pid = old.name[len(prefix):-len(".build")]
            if old.name.startswith(prefix) and old.name.endswith(".build") and pid.isdigit() \
                    and not _alive(int(pid)):
                _discard(old)
    return dest.with_name(f"{prefix}{os.getpid()}.build")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process
        return True
    return True


def _discard(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def _install(scratch: Path, dest: Path, state: bytes | None) -> None:
    """Put the finished ``scratch`` in ``dest``'s place, and its resume state beside it.

    The state is written first as FILE.resume.new and renamed after the database: whichever
    moment a crash stops this at, one of the two state files answers for FILE as it is then
    (:func:`_load_resume` takes the one whose row is FILE's)."""
    try:
        fd = os.open(scratch, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        staged = _stage_resume(dest, state)
        os.replace(scratch, dest)
    except OSError as e:
        _discard(scratch)
        raise StoreError(file_error(dest, e)) from None
    if staged is not None:
        with contextlib.suppress(OSError):
            os.replace(staged, _resume_file(dest))
    else:
        _discard(_resume_file(dest))
    with contextlib.suppress(OSError):
        fd = os.open(dest.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# --- resuming a build over a log that has grown ------------------------------------------------
# A build keeps, beside the console database (FILE.resume, readable by its owner only: the
# projection's flags hold what was said in private messages), the reader's state as it stood
# after the log's last row, before the end of the walk wrote the hands still open and the
# records: a later start over the same log grown reads only the rows added since, rewrites
# those hands and the records in a copy of FILE, and keeps every hand finished before.

_RESUME_VERSION = 1


def _resume_file(dest: Path) -> Path:
    return dest.with_name(dest.name + ".resume")


def _staged_resume_file(dest: Path) -> Path:
    return dest.with_name(dest.name + ".resume.new")


def _stage_resume(dest: Path, state: bytes | None) -> Path | None:
    """Write the state as FILE.resume.new (mode 0600; None: none written, or none to write)."""
    path = _staged_resume_file(dest)
    _discard(path)
    if state is None:
        return None
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(state)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError:
        _discard(tmp)
        return None  # the next start over a grown log builds afresh
    return path


def _load_resume(dest: Path, src: sqlite3.Connection) -> dict[str, Any] | None:
    """The state a build of ``dest`` kept, if this code wrote it for ``dest`` as it is (the
    same row of the log) from the log ``src`` reads (that row still carries the chain value
    it had); None: build afresh. Not consumed: the resume writes a copy of ``dest``."""
    stamp = file_stamp(dest)
    if stamp is None or stamp[0] == 0:
        return None
    for path in (_staged_resume_file(dest), _resume_file(dest)):
        try:
            state = pickle.loads(zlib.decompress(path.read_bytes()))
        except Exception:  # missing, damaged or foreign: the other, else build afresh
            continue
        if not isinstance(state, dict) or state.get("version") != _RESUME_VERSION \
                or state.get("code") != code_digest() or not isinstance(state.get("chain"), bytes) \
                or stamp_of(int(state.get("seq", -1)), state["chain"]) != stamp:
            continue
        row = src.execute("SELECT chain FROM inputs WHERE seq = ?", (state["seq"],)).fetchone()
        if row is None or not isinstance(row[0], bytes) or row[0] != state["chain"]:
            return None
        return state
    return None


def _hand_columns(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """The tables that hold a hand's rows and the column naming the hand: the hands table's key
    and every column referencing it (schema.sql names them, in Japanese)."""
    key = next(str(r[1]) for r in conn.execute("PRAGMA table_info(hands)") if r[5])
    out = [("hands", key)]
    for table in ("hand_log", "replays", "books"):
        out += [(table, str(fk[3])) for fk in conn.execute(f"PRAGMA foreign_key_list({table})")
                if fk[2] == "hands"]
    return out


def resume(src: sqlite3.Connection, dest: Path, stamp: tuple[int, int],
           progress: Progress | None = None) -> Built | None:
    """Bring ``dest`` up to the log's row ``stamp`` names from the state its build kept, in a
    copy of it that replaces it when done; None when there is none to resume from (the caller
    builds afresh)."""
    state = _load_resume(dest, src)
    if state is None or int(state["seq"]) >= stamp[0]:
        return None
    _stop_if_asked(progress)  # before the copy (the console closing since the check)
    ledger, bank, ledger_seqs = _ledger(src)
    scratch = _scratch(dest)
    try:
        shutil.copyfile(dest, scratch)
    except OSError as e:
        _discard(scratch)
        raise StoreError(file_error(scratch, e)) from None
    mem = sqlite3.connect(":memory:", isolation_level=None)
    out: sqlite3.Connection | None = None
    try:
        mem.deserialize(state["mem"])
        out = sqlite3.connect(scratch, isolation_level=None)
        out.execute("PRAGMA journal_mode = OFF")
        out.execute("PRAGMA synchronous = OFF")
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
        built, kept = _walk(src, reader, ledger, bank, stamp, after=int(state["seq"]),
                            progress=progress)
        out.execute("COMMIT")
        out.execute("PRAGMA analysis_limit = 1000")  # the planner's statistics, sampled
        out.execute("ANALYZE")
        out.execute(f"PRAGMA user_version = {int(stamp[0])}")
        out.execute(f"PRAGMA application_id = {int(stamp[1])}")
    except (sqlite3.Error, KeyError, TypeError, ValueError, AttributeError):
        _discard(scratch)
        return None  # the caller builds afresh (and replaces the file)
    except BaseException:
        _discard(scratch)
        raise
    finally:
        if out is not None:
            out.close()
        mem.close()
    _install(scratch, dest, kept)
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
            "version": _RESUME_VERSION, "code": code_digest(), "seq": seq, "chain": row[0],
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
          bank: dict[str, int], stamp: tuple[int, int] | None, after: int = 0,
          progress: Progress | None = None) -> tuple[Built, bytes | None]:
    keeping = _Keeping(reader, stamp, src)
    entries = log_entries(src, after=after)
    walk(entries if progress is None else _watched(entries, reader, progress), keeping)
    built = Built(hands=reader.next_hand - 1)
    _records(reader.mem, reader.out, reader.contexts, ledger, bank, reader.rank_events, built,
             reader.held)
    return built, keeping.state



def _stop_if_asked(progress: Progress | None) -> None:
    if progress is not None and progress.stopping:
        raise Stopped


def _watched(entries: Iterator[Entry], reader: _Reader, progress: Progress) -> Iterator[Entry]:
    """``entries``, telling ``progress`` the hands read so far; stopped when it asks."""
    first = reader.next_hand
    for entry in entries:
        if progress.stopping:
            raise Stopped
        progress.hands = reader.next_hand - first
        yield entry
    progress.hands = reader.next_hand - first


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
            label("kind", kind), label("confidence", confidence),
            said if c is None or not c.dm else text("console_private_message"),
            label("status", status), by, dc.when if dc is not None and status != "open" else None,
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
                             label("kind", kind), points, chip_count,
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
                            ledger_reason(str(reason)), c.table if c else None,
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

