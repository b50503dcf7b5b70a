"""Opening the database file and keeping its write-ahead log short: the connection every store
and tool uses (:func:`connect`, configured once: WAL, busy timeout, foreign keys; a clear
StoreError or CorruptDatabase for a file that is not one), and the background checkpointer a
writing store runs (:class:`Checkpointer`)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from referee.lang.catalog import text
from referee.store.base import StoreError
from referee.store.integrity import CorruptDatabase

__all__ = ["Checkpointer", "connect"]


def connect(
    path: str | Path, *, create: bool = True, exclusive: bool = False
) -> sqlite3.Connection:
    """A configured connection to ``path`` (``":memory:"`` allowed), or StoreError.

    ``exclusive``: hold the file lock from the first write until closing (SQLite's EXCLUSIVE
    locking mode; the WAL index then lives in this process's memory). A commit then takes no
    lock and touches no shared memory -- 6 ``fcntl`` calls fewer each -- but no other
    connection can read or write the file meanwhile: for a batch job that owns the database
    (``referee replay --db``), never for the bot."""
    memory = str(path) == ":memory:"
    if not memory:
        p = Path(path)
        if p.exists() and not p.is_file():
            raise StoreError(text("store.not_a_file", path=str(p)))
        if not p.exists():
            if not create:
                raise StoreError(text("store.no_database", path=str(p)))
            try:
                p.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise StoreError(text("store.cannot_create", path=str(p),
                                              reason=str(e.strerror))) from None
    try:
        # isolation_level=None: no implicit transactions, we issue BEGIN/COMMIT ourselves.
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    except sqlite3.Error as e:
        raise StoreError(text("store.cannot_open", path=str(path), reason=str(e))) from None
    try:
        conn.execute("PRAGMA busy_timeout = 10000")
        # Fails here ("file is not a database") for a non-SQLite file.
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        if not memory:
            if exclusive:  # before the first WAL access: no shared-memory index at all
                conn.execute("PRAGMA locking_mode = EXCLUSIVE")
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(text("store.no_wal", path=str(path), mode=str(mode)))
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.OperationalError as e:  # locked, read-only, I/O error
        conn.close()
        raise StoreError(text("store.cannot_open", path=str(path), reason=str(e))) from None
    except sqlite3.DatabaseError as e:  # "file is not a database", a damaged header page
        conn.close()
        raise CorruptDatabase(path, str(e)) from None
    except StoreError:
        conn.close()
        raise
    return conn


class Checkpointer:
    """A daemon thread that runs PASSIVE checkpoints on request, on its own connection."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._wake = threading.Event()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="store-checkpoint", daemon=True)
        self._thread.start()

    def request(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA busy_timeout = 10000")
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stopping:
                    return
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error:
                    pass  # best effort: the next request (or closing) checkpoints again
        finally:
            conn.close()
