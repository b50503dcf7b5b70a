"""The database's integrity and back-ups (``referee check``, ``referee backup``, the bots').

* :func:`quick_check` runs when a :class:`~referee.store.Store` opens an existing file: a page
  of garbage anywhere in it is found before any command reads a record, and the command stops
  with one line that names the file and says what to do (:class:`CorruptDatabase`).
* :func:`check` = ``PRAGMA integrity_check`` plus the ledger invariants: every balance equals
  the sum of that player's ledger entries and points at their newest entry, and no ledger entry
  is without a balance; and the inputs' digest chain (:mod:`referee.store.chain`) over every
  row, naming the first changed one. The bots' start-up (:class:`BackgroundCheck`) and the
  console's check it only from the head a start-up check last found sound (remembered in the
  database): a start costs the rows added since, not the whole log.
* :func:`backup` copies a database with SQLite's online backup API: a consistent snapshot (a
  committed state, never half a transaction) while the bot keeps writing. The copy is written
  to a temporary name, checked, then renamed into place, so a back-up file is always whole.
* :class:`Backups`: the bots' periodic copies (and one on ``!close``), keeping the last N.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from referee.lang.catalog import text
from referee.store.base import StoreError


class CorruptDatabase(StoreError):
    """A database file SQLite cannot read whole: restore a back-up or recover it."""

    def __init__(self, path: str | Path, detail: str) -> None:
        self.path = str(path)
        self.detail = " ".join(detail.split())[:120]
        super().__init__(text("store.corrupt", path=self.path, detail=_sqlite_said(self.detail)))


# What SQLite says of a damaged or unusable file (its English), as the line a moderator reads.
_SQLITE_SAYS = (("file is not a database", "store.sqlite_not_a_database"),
                ("database disk image is malformed", "store.sqlite_malformed"),
                ("*** in database", "store.sqlite_integrity"),
                ("unable to open database file", "store.sqlite_cannot_open"),
                ("database is locked", "store.sqlite_locked"),
                ("readonly database", "store.sqlite_readonly"),
                ("database or disk is full", "store.sqlite_full"))


def sqlite_said(detail: str) -> str:
    """SQLite's English ``detail`` as a moderator reads it (Japanese; an unknown one quoted)."""
    return _sqlite_said(detail)


def _sqlite_said(detail: str) -> str:
    for english, key in _SQLITE_SAYS:
        if english in detail:
            return text(key)
    return text("store.sqlite_other", detail=detail)


class UnwritableDatabase(StoreError):
    """A database file this process can read but not write (a read-only file, mount or
    medium, an immutable file): the bots would go online and fail every message."""

    def __init__(self, path: str | Path, detail: str) -> None:
        self.path = str(path)
        self.detail = " ".join(detail.split())[:120]
        super().__init__(text("store.unwritable", path=self.path, detail=self.detail))


class TamperedDatabase(StoreError):
    """A stored input was changed after it was saved (its digest chain breaks at ``seq``)."""

    def __init__(self, path: str | Path, seq: int, input_id: str) -> None:
        self.path, self.seq, self.input_id = str(path), seq, input_id
        super().__init__(text("store.tampered", path=self.path, seq=seq, input_id=input_id))


class TruncatedDatabase(StoreError):
    """The log does not reach the head kept beside it (``FILE.head``): its newest rows were
    removed, or the row there replaced. A bot that started on it would save over the cut and
    write a new head, and the evidence would be gone: it refuses, as on a broken chain."""

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path, self.problem = str(path), problem
        super().__init__(text("store.truncated", path=self.path, problem=problem))


def chain_check(conn: sqlite3.Connection, path: str | Path) -> None:
    """Raise TamperedDatabase at the first input row that breaks the digest chain."""
    from referee.store.chain import first_bad

    names = {r[0] for r in conn.execute("SELECT name FROM pragma_table_info('inputs')")}
    if "chain" not in names:
        return  # a database from before the chain: migrated (and chained) when next opened
    bad = first_bad(conn)
    if bad is not None:
        raise TamperedDatabase(path, *bad)


def chain_check_since_verified(conn: sqlite3.Connection, path: str | Path,
                               known: tuple[int, bytes] | None = None
                               ) -> tuple[int, bytes] | None:
    """The start-up form of :func:`chain_check`: only the rows after the newest head found
    sound before (:func:`referee.store.chain.check_since_verified`); returns the newest row's
    head, now verified (None: an empty log or one without a chain). Raises TamperedDatabase
    like the whole check."""
    from referee.store.chain import check_since_verified

    names = {r[0] for r in conn.execute("SELECT name FROM pragma_table_info('inputs')")}
    if "chain" not in names:
        return None
    bad, head = check_since_verified(conn, known)
    if bad is not None:
        raise TamperedDatabase(path, *bad)
    return head


def quick_check(conn: sqlite3.Connection, path: str | Path) -> None:
    """Raise CorruptDatabase unless ``PRAGMA quick_check`` passes (reads every page once)."""
    try:
        rows = conn.execute("PRAGMA quick_check(5)").fetchall()
    except sqlite3.DatabaseError as e:
        raise CorruptDatabase(path, str(e)) from None
    problems = [str(r[0]) for r in rows if str(r[0]) != "ok"]
    if problems:
        raise CorruptDatabase(path, "; ".join(problems))


class BackgroundCheck:
    """:func:`quick_check` of a database file on a thread and a read-only connection of its
    own, so a bot's start-up (snapshot + tail) does not wait for a read of the whole
    file; the bot asks :meth:`result` before it goes online."""

    def __init__(self, path: str | Path, *, remember: bool = True,
                 known: tuple[int, bytes] | None = None, pages: bool = True) -> None:
        self.path = Path(path)
        self.remember, self.known, self.pages = remember, known, pages
        self.error: StoreError | None = None
        self.head: tuple[int, bytes] | None = None  # the chain's head verified, once done
        self._thread = threading.Thread(target=self._run, name="store-quick-check", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self.head = quick_check_file(self.path, chain=True, remember=self.remember,
                                         known=self.known, pages=self.pages)
        except StoreError as e:
            self.error = e
        except sqlite3.Error as e:
            self.error = CorruptDatabase(self.path, str(e))

    def result(self, timeout: float | None = None) -> None:
        """Wait for the check; raise CorruptDatabase if it failed."""
        self._thread.join(timeout)
        if self.error is not None:
            raise self.error


@dataclass
class Report:
    """What :func:`check` found; ``problems`` empty means sound."""

    path: str
    problems: list[str] = field(default_factory=list)
    inputs: int = 0
    ledger: int = 0
    players: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def _ro_uri(path: Path) -> str:
    """A read-only SQLite URI for ``path`` (percent-encoded: ``?``/``#`` in a name are safe)."""
    return path.resolve().as_uri() + "?mode=ro"


def _open_readonly(path: str | Path) -> sqlite3.Connection:
    p = Path(path)
    if not p.is_file():
        raise StoreError(text("store.no_database", path=str(p)))
    try:
        conn = sqlite3.connect(_ro_uri(p), uri=True, isolation_level=None)
        conn.execute("PRAGMA busy_timeout = 10000")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as e:
        raise CorruptDatabase(p, str(e)) from None
    return conn


def check(path: str | Path) -> Report:
    """Integrity check and ledger invariants of the database at ``path`` (opened read-only).
    Raises StoreError (CorruptDatabase) when the file is not a readable referee database."""
    conn = _open_readonly(path)
    report = Report(str(path))
    try:
        try:
            rows = conn.execute("PRAGMA integrity_check(20)").fetchall()
        except sqlite3.DatabaseError as e:
            raise CorruptDatabase(path, str(e)) from None
        bad = [str(r[0]) for r in rows if str(r[0]) != "ok"]
        if bad:
            raise CorruptDatabase(path, "; ".join(bad))
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"schema_version", "inputs", "ledger", "bank"} <= names:
            raise StoreError(text("store.not_ours", path=str(path)))
        try:
            report.inputs = int(conn.execute("SELECT count(*) FROM inputs").fetchone()[0])
            report.ledger = int(conn.execute("SELECT count(*) FROM ledger").fetchone()[0])
            report.players = int(conn.execute("SELECT count(*) FROM bank").fetchone()[0])
            for player, balance, total in conn.execute(
                    "SELECT b.player, b.balance, coalesce(sum(l.delta), 0) FROM bank b"
                    " LEFT JOIN ledger l ON l.player = b.player GROUP BY b.player"):
                if balance != total:
                    report.problems.append(
                        f"bank of {player}: balance {balance} but its ledger entries sum to"
                        f" {total}")
            for player, last, newest in conn.execute(
                    "SELECT b.player, b.last_ledger_id, (SELECT max(id) FROM ledger l"
                    " WHERE l.player = b.player) FROM bank b"):
                if last != newest:
                    report.problems.append(
                        f"bank of {player}: points at ledger entry {last}, newest is {newest}")
            for (player,) in conn.execute(
                    "SELECT DISTINCT player FROM ledger WHERE player NOT IN"
                    " (SELECT player FROM bank)"):
                report.problems.append(f"ledger entries for {player} but no balance")
            for (seq,) in conn.execute(
                    "SELECT DISTINCT input_seq FROM ledger WHERE input_seq NOT IN"
                    " (SELECT seq FROM inputs) LIMIT 5"):
                report.problems.append(f"ledger entry of input {seq}, which is not in the log")
            from referee.store.log import register, source

            key = "input_id"
            if source(conn) == "log":
                register(conn)
                key = "referee_id(id_prefix, id_rest)"
            for (iid, n) in conn.execute(
                    f"SELECT {key}, count(*) FROM inputs GROUP BY {key} HAVING count(*) > 1"
                    " LIMIT 5"):
                report.problems.append(f"input {iid} saved {n} times")
            table = "log" if key != "input_id" else "inputs"
            bad_cite = _uncited_ledger_row(conn, table)
            if bad_cite is not None:
                report.problems.insert(0, bad_cite)
            from referee.store.chain import head_problem

            cut = head_problem(conn, str(path))
            if cut is not None:
                report.problems.insert(0, cut)
            try:
                chain_check(conn, path)
            except TamperedDatabase as e:
                report.problems.insert(0, f"input row {e.seq} ({e.input_id}) was changed after"
                                       " it was saved: the digest chain breaks there (the rows"
                                       " before it are intact)")
        except sqlite3.DatabaseError as e:
            raise CorruptDatabase(path, str(e)) from None
    finally:
        conn.close()
    return report


def _expected_delta(event: Any, player: str) -> int | None:
    """What the bank event a ledger row cites says that row is worth (None: it cites no event
    that moves a bank)."""
    if not isinstance(event, dict):
        return None
    kind = event.get("event")
    if kind == "bank" and event.get("player") == player:
        return int(event.get("delta", 0))
    if kind == "leave" and event.get("player") == player:
        return int(event.get("bank", 0))
    if kind == "penalty" and event.get("player") == player:
        return -int(event.get("points", 0))
    if kind == "penalty_reversed" and event.get("player") == player:
        return int(event.get("points", 0))
    if kind == "tournament_end":
        prizes = event.get("prizes") or {}
        return int(prizes[player]) if player in prizes else None
    return None


def _uncited_ledger_row(conn: sqlite3.Connection, table: str) -> str | None:
    """The first ledger row that its input's (hash-chained) events do not back: the ledger and
    the bank are not chained themselves, so a row changed together with its bank row keeps
    their sums equal -- but no longer says what the event it cites says."""
    rows = conn.execute(
        "SELECT l.id, l.player, l.delta, l.input_seq, l.event_idx, i.events FROM ledger l"
        f" JOIN {table} i ON i.seq = l.input_seq ORDER BY l.id")
    for lid, player, delta, seq, idx, events in rows:
        try:
            event = json.loads(events)[int(idx)] if idx is not None else None
        except (ValueError, IndexError, TypeError):
            event = None
        want = _expected_delta(event, str(player))
        if want != delta:
            return (f"ledger entry {lid} ({player} {delta:+d}) does not match the event it"
                    f" cites in input {seq} ({want if want is not None else 'none'})")
    return None


def backup(path: str | Path, dest: str | Path, wait: float = 60.0) -> Path:
    """A consistent copy of the database ``path`` at ``dest``; returns the file written.
    ``dest`` is the copy's file name, or a directory to put a time-stamped copy in: one that
    exists, or a name ending in ``/`` (created), as a shell user writes ``backups/``. Waits up
    to ``wait`` seconds for a writer that holds the file exclusively (``referee replay --db``)."""
    src_path = Path(path)
    if not src_path.is_file():
        raise StoreError(text("store.no_database", path=str(src_path)))
    target = Path(dest)
    named_directory = isinstance(dest, str) and dest.endswith(("/", os.sep))
    if named_directory or target.is_dir():
        target = target / stamped_name(src_path)
    if target.resolve() == src_path.resolve():
        raise StoreError(text("store.backup_self", path=str(target)))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreError(text("store.cannot_create", path=str(target.parent),
                              reason=str(e.strerror))) from None
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        src = sqlite3.connect(_ro_uri(src_path), uri=True,
                              isolation_level=None, timeout=wait)
    except sqlite3.Error as e:
        raise StoreError(text("store.cannot_open", path=str(src_path), reason=str(e))) from None
    try:
        src.execute(f"PRAGMA busy_timeout = {int(wait * 1000)}")
        try:
            src.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as e:
            raise CorruptDatabase(src_path, str(e)) from None
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        dst = sqlite3.connect(str(tmp), isolation_level=None)
        try:
            end = time.monotonic() + wait
            while True:
                try:
                    # pages=-1: the whole database in one step, under one read transaction of
                    # the source -- one committed state, whatever the writers do meanwhile.
                    src.backup(dst, pages=-1)
                    break
                except sqlite3.OperationalError as e:
                    if "locked" not in str(e) and "busy" not in str(e):
                        raise
                    if time.monotonic() > end:
                        raise StoreError(text("store.busy", path=str(src_path),
                                              seconds=f"{wait:.0f}")) from None
                    time.sleep(0.2)
            dst.execute("PRAGMA journal_mode = DELETE")  # the copy is one self-contained file
        finally:
            dst.close()
    except sqlite3.DatabaseError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise CorruptDatabase(src_path, str(e)) from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    finally:
        src.close()
    try:
        try:
            quick_check_file(tmp)
        except CorruptDatabase as e:  # the copy of a damaged database: the source is damaged
            raise CorruptDatabase(src_path, e.detail) from None
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return target


def quick_check_file(path: Path, chain: bool = False, *, remember: bool = True,
                     known: tuple[int, bytes] | None = None,
                     pages: bool = True) -> tuple[int, bytes] | None:
    """:func:`quick_check` of a file on a read-only connection of its own; ``chain``: and the
    inputs' digest chain from the newest head found sound before on (the database's
    ``chain_verified``, or ``known``: :func:`chain_check_since_verified`). Returns the chain's
    head now verified (None without ``chain``, or for a log without one); with ``remember``
    it is written into the database (on a writable connection of its own, best effort) --
    the console, which never writes the referee's database, keeps it itself. ``pages`` False:
    the chain and the head only, without reading every page (the console's start, which
    reads every page only when it reads the log: :func:`referee.console.build`)."""
    try:
        conn = sqlite3.connect(_ro_uri(path), uri=True)
    except sqlite3.Error as e:
        raise CorruptDatabase(path, str(e)) from None
    head = before = None
    try:
        if pages:
            quick_check(conn, path)
        if chain:
            from referee.store.chain import verified

            try:
                before = verified(conn)
                head = chain_check_since_verified(conn, path, known)
                _head_check(conn, path)
            except sqlite3.DatabaseError as e:
                raise CorruptDatabase(path, str(e)) from None
    finally:
        conn.close()
    if remember and head is not None and head != before:
        from referee.store.chain import remember_verified

        remember_verified(str(path), *head)
    return head


def _head_check(conn: sqlite3.Connection, path: str | Path) -> None:
    """Raise TruncatedDatabase unless the log reaches the head kept beside it."""
    from referee.store.chain import head_problem

    names = {r[0] for r in conn.execute("SELECT name FROM pragma_table_info('inputs')")}
    if "chain" not in names:
        return
    cut = head_problem(conn, str(path))
    if cut is not None:
        raise TruncatedDatabase(path, cut)


def stamped_name(db: Path, now: datetime | None = None) -> str:
    """``referee-20261201T083000.123Z.db``: sorts in time order."""
    now = datetime.now(UTC) if now is None else now
    return f"{db.stem}-{now.strftime('%Y%m%dT%H%M%S')}.{now.microsecond // 1000:03d}Z.db"


class Backups:
    """A bot's back-ups of its database: every ``every`` seconds (0: never) and on demand
    (``!close``), into ``directory``, keeping the newest ``keep`` copies. ``clock`` (seconds,
    monotonic) decides when one is due and ``wall`` names the copies: both injectable."""

    def __init__(self, db: Path, directory: Path | None = None, every: float = 3600.0,
                 keep: int = 24, *, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        if keep < 1:
            raise ValueError("backup_keep must be at least 1")
        if every < 0:
            raise ValueError("backup_every must be >= 0")
        self.db = db
        self.directory = directory if directory is not None else db.parent / "backups"
        self.every = every
        self.keep = keep
        self.clock, self.wall = clock, wall
        self.last = clock()
        self.made: list[Path] = []

    def due(self, now: float | None = None) -> bool:
        now = self.clock() if now is None else now
        return self.every > 0 and now - self.last >= self.every

    def run(self) -> Path:
        """Take one back-up now and prune old ones; StoreError if it failed."""
        try:
            out = backup(self.db, self.directory / stamped_name(self.db, self.wall()), wait=30.0)
        finally:
            self.last = self.clock()  # a failed attempt waits its interval too
        self.made.append(out)
        self.prune()
        return out

    def copies(self) -> list[Path]:
        prefix = f"{self.db.stem}-"
        if not self.directory.is_dir():
            return []
        return sorted(p for p in self.directory.iterdir()
                      if p.name.startswith(prefix) and p.name.endswith("Z.db"))

    def prune(self) -> None:
        for old in self.copies()[:-self.keep]:
            with contextlib.suppress(OSError):
                old.unlink()
