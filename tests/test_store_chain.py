"""Tamper evidence: every stored input carries a digest chained to the one before it. A byte
changed inside a stored input's text is found by ``referee check`` (exit 1, naming the first bad
row), the bots refuse to start on it and so does the console -- or, serving the database it
kept from before the change, never reads the rows added and says why on its pages -- which also
checks every page whenever it reads the log (a corrupt page: exit 2 before it serves). Real
SQLite files, the real CLI."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import log_rows
import pytest
from cli_helpers import run_cli
from log_rows import message_row_after
from test_store_integrity import corrupt_middle, make_db, one_line, referee

from referee.store import LATEST, Store
from referee.store.integrity import check
from referee.store.log import register

V8 = Path(__file__).parent / "fixtures" / "store_v8.db"


def tamper(db: Path, seq: int) -> str:
    """Change one byte inside the stored text of input row ``seq`` (as anyone with sqlite3
    could, around the append-only trigger); its input id."""
    conn = sqlite3.connect(str(db))
    try:
        conn.execute("DROP TRIGGER inputs_no_update")
        iid, text = next((r[1], r[3]) for r in log_rows.rows(conn) if r[0] == seq)
        i = text.index('"text"') + 9
        changed = text[:i] + ("x" if text[i] != "x" else "y") + text[i + 1:]
        log_rows.rewrite(conn, seq, input_json=changed)
        conn.commit()
        return str(iid)
    finally:
        conn.close()


def _message_row(db: Path) -> int:
    conn = sqlite3.connect(str(db))
    try:
        register(conn)
        rows = conn.execute("SELECT seq FROM log WHERE input LIKE '%\"text\"%'"
                            " ORDER BY seq").fetchall()
        return int(rows[len(rows) // 2][0])
    finally:
        conn.close()


def test_a_changed_input_is_found_and_named(tmp_path: Path) -> None:
    db, _ = make_db(tmp_path, hands=3)
    assert check(db).ok
    seq = _message_row(db)
    iid = tamper(db, seq)
    code, out, err = run_cli(["check", "--db", str(db)])  # the bots below run as processes
    assert code == 1, (out, err)
    assert f"input row {seq} ({iid})" in err and len(err.strip().splitlines()) == 1
    from referee.store.chain import first_bad

    conn = sqlite3.connect(str(db))
    try:
        assert first_bad(conn) == (seq, iid)
    finally:
        conn.close()
    for argv in (["irc", "--server", "127.0.0.1", "--port", "1", "--no-tls", "--channel", "#x",
                  "--db", str(db)],
                 ["matrix", "--homeserver", "http://127.0.0.1:1", "--user-id", "@r:hs",
                  "--password", "x", "--db", str(db)],
                 ["console", "--db", str(db), "--port", "0"]):
        r = referee(*argv)
        assert r.returncode == 2, (argv[0], r.returncode, r.stderr[-2000:])
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
        assert f"{seq} 行目" in lines[0] and iid in lines[0], lines[0]


def test_the_console_refuses_a_corrupt_page(tmp_path: Path) -> None:
    db, _ = make_db(tmp_path, hands=30)
    corrupt_middle(db)
    one_line(referee("console", "--db", str(db), "--port", "0"), db)


def test_a_database_from_before_the_chain_is_chained_when_opened(tmp_path: Path) -> None:
    make_db(tmp_path, hands=5)  # (its transcript, t.txt, is replayed below)
    old = tmp_path / "old.db"
    shutil.copy(V8, old)  # a real version-8 file; made version 7 by taking the chain away
    conn = sqlite3.connect(str(old))
    conn.execute("ALTER TABLE inputs DROP COLUMN chain")
    conn.execute("DELETE FROM schema_version WHERE version = 8")
    conn.commit()
    conn.close()
    assert check(old).ok  # nothing to check yet: not an error
    with Store(old) as s:  # migration 8 chains every row (and 9 keeps the chain)
        assert s.version == LATEST
    assert check(old).ok
    r = referee("replay", "--db", str(old), str(tmp_path / "t.txt"))  # goes on chaining
    assert r.returncode == 0, r.stderr
    assert check(old).ok
    tamper(old, _message_row(old))
    assert not check(old).ok


def _remembered(db: Path) -> tuple[int, bytes] | None:
    from referee.store.chain import verified

    conn = sqlite3.connect(str(db))
    try:
        return verified(conn)
    finally:
        conn.close()


def _newest(db: Path) -> tuple[int, bytes]:
    conn = sqlite3.connect(str(db))
    try:
        seq, chain = conn.execute("SELECT seq, chain FROM inputs ORDER BY seq DESC LIMIT 1"
                                  ).fetchone()
        return int(seq), bytes(chain)
    finally:
        conn.close()


def test_start_up_checks_remember_the_verified_head_and_read_only_the_rows_after_it(
        tmp_path: Path) -> None:
    """The bots' and the console's start-up check reads the chain from the head the last one
    found sound: a row changed after that head stops them; one changed before it (without its
    chain value) is left to ``referee check``, which reads every row and never writes."""
    from referee.store.integrity import TamperedDatabase, quick_check_file

    db, _ = make_db(tmp_path, hands=4)
    assert _remembered(db) is None
    assert check(db).ok and _remembered(db) is None  # referee check writes nothing
    quick_check_file(db, chain=True)  # what BackgroundCheck and the console run
    head = _newest(db)
    assert _remembered(db) == head
    # rows appended after the verified head: read and linked to it, the head moves on
    more = tmp_path / "more.txt"
    more.write_text(omaha_more(), encoding="utf-8")
    code, _, err = run_cli(["replay", "--db", str(db), str(more)])
    assert code == 0, err
    assert _newest(db)[0] > head[0]
    seq = message_row_after(db, head[0])
    iid = tamper(db, seq)
    try:
        quick_check_file(db, chain=True)
        raise AssertionError("a changed row after the verified head was not found")
    except TamperedDatabase as e:
        assert (e.seq, e.input_id) == (seq, iid)
    assert _remembered(db) == head  # a failed check moves nothing
    r = referee("console", "--db", str(db), "--port", "0")
    assert r.returncode == 2 and f"{seq} 行目" in r.stderr, r.stderr[-2000:]


def test_a_row_changed_before_the_verified_head_is_found_by_check_and_by_a_moved_head(
        tmp_path: Path) -> None:
    from referee.store.chain import remember_verified
    from referee.store.integrity import TamperedDatabase, quick_check_file

    db, _ = make_db(tmp_path, hands=4)
    quick_check_file(db, chain=True)
    head = _newest(db)
    seq = _message_row(db)
    iid = tamper(db, seq)
    quick_check_file(db, chain=True)  # verified once already: the start-up check skips it
    report = check(db)
    assert not report.ok and f"input row {seq} ({iid})" in report.problems[0]
    code, _, err = run_cli(["check", "--db", str(db)])
    assert code == 1 and f"input row {seq} ({iid})" in err
    # a remembered head its row no longer carries (the log re-chained, the row replaced, the
    # head row written over): the start-up check reads the whole chain again
    assert remember_verified(str(db), head[0], bytes(32))
    try:
        quick_check_file(db, chain=True)
        raise AssertionError("a remembered head that does not match was trusted")
    except TamperedDatabase as e:
        assert (e.seq, e.input_id) == (seq, iid)
    # and so is a head past the log's end (rows cut from it)
    assert remember_verified(str(db), head[0] + 1000, head[1])
    try:
        quick_check_file(db, chain=True)
        raise AssertionError("a remembered head past the log's end was trusted")
    except TamperedDatabase as e:
        assert e.seq == seq


def test_a_read_only_database_is_checked_without_remembering(tmp_path: Path) -> None:
    from referee.store.integrity import quick_check_file

    db, _ = make_db(tmp_path, hands=2)
    db.chmod(0o444)
    try:
        quick_check_file(db, chain=True)  # nothing remembered, no error
    finally:
        db.chmod(0o644)
    if os.geteuid() != 0:  # root writes read-only files
        assert _remembered(db) is None


def omaha_more() -> str:
    from crash_transcript import omaha_transcript

    return omaha_transcript(3, seed=11)


@contextlib.contextmanager
def _console_serving(db: Path, keep: Path) -> Iterator[tuple[str, Path]]:
    """``referee console --keep`` started until it serves (its URL and its stderr's file),
    stopped after."""
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    from test_store_integrity import ROOT

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    err = keep.with_name(keep.name + ".stderr")
    with open(err, "w", encoding="utf-8") as f:
        proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "console", "--db",
                                 str(db), "--keep", str(keep), "--port", str(port)], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=f, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        end = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/-/versions.json", timeout=5)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > end:
                    raise AssertionError(err.read_text(encoding="utf-8")[-2000:]) from None
                time.sleep(0.05)
        yield url, err
    finally:
        proc.terminate()
        proc.wait()


def _console_start(db: Path, keep: Path) -> None:
    """``referee console --keep`` started until it serves what it will serve (caught up, when
    the log grew since ``keep`` was built), then stopped."""
    with _console_serving(db, keep) as (url, err):
        assert _caught_up(url) is None, err.read_text(encoding="utf-8")


def _caught_up(url: str) -> str | None:
    """The console's catch-up notice once it no longer reads (``failed``), None once there is
    none (caught up, or nothing to catch up)."""
    import re
    import time
    import urllib.request

    end = time.monotonic() + 120
    while True:
        with urllib.request.urlopen(url + "/", timeout=30) as r:
            found = re.search(r'data-catch-up="(\w+)"', r.read().decode("utf-8"))
        if found is None or found.group(1) != "reading":
            return found.group(1) if found else None
        assert time.monotonic() < end, "still catching up"
        time.sleep(0.05)


def test_the_console_keeps_its_verified_head_beside_its_database_not_in_the_log(
        tmp_path: Path) -> None:
    """The console never writes the referee's database: the head its check verified is kept
    beside its own (``--keep FILE``: FILE.chain) and read at the next start, with the bots'."""
    import hashlib

    pytest.importorskip("datasette")
    from referee.console import verified_head

    db, _ = make_db(tmp_path, hands=3)
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    keep = tmp_path / "console.db"
    _console_start(db, keep)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest  # not written
    assert _remembered(db) is None and verified_head(keep) == _newest(db)
    head = _newest(db)
    more = tmp_path / "more.txt"
    more.write_text(omaha_more(), encoding="utf-8")
    code, _, err = run_cli(["replay", "--db", str(db), str(more)])
    assert code == 0, err
    seq = message_row_after(db, head[0])
    iid = tamper(db, seq)
    # kept from the log before it grew: served as kept, the rows added never read
    with _console_serving(db, keep) as (url, err):
        assert _caught_up(url) == "failed"
    said = err.read_text(encoding="utf-8")
    assert str(seq) in said and iid in said and "Traceback" not in said, said
    assert verified_head(keep) == head  # a failed check keeps nothing
    # nothing kept to serve: the start reads the log, and refuses it
    r = referee("console", "--db", str(db), "--port", "0")
    assert r.returncode == 2 and str(seq) in r.stderr and iid in r.stderr, r.stderr[-2000:]


def test_the_console_checks_every_page_when_it_reads_the_log(tmp_path: Path) -> None:
    """A damaged page stops the console whenever it must read the log before it serves (a
    first build: exit 2, one line), and stops a catch-up behind a kept database before it
    reads (the pages stay on what was kept, the reason in one line); a start that serves the
    console database kept from this very log reads no page but its last row's, and serves
    what it read when the file was sound."""
    pytest.importorskip("datasette")
    db, _ = make_db(tmp_path)
    keep = tmp_path / "console.db"
    _console_start(db, keep)  # built, the head verified
    damaged = tmp_path / "damaged.db"
    shutil.copy(db, damaged)
    shutil.copy(str(db) + ".head", str(damaged) + ".head")
    corrupt_middle(damaged)
    one_line(referee("console", "--db", str(damaged), "--port", "0"), damaged)  # a build
    served = tmp_path / "served.db"
    for suffix in ("", ".resume", ".chain"):
        shutil.copy(str(keep) + suffix, str(served) + suffix)
    _console_start(damaged, served)  # nothing of the log read: served as kept
    more = tmp_path / "more.txt"
    more.write_text(omaha_more(), encoding="utf-8")
    code, _, err = run_cli(["replay", "--db", str(db), str(more)])
    assert code == 0, err
    corrupt_middle(db)
    with _console_serving(db, keep) as (url, err):  # served as kept, the rows added not read
        assert _caught_up(url) == "failed"
    (line,) = [x for x in err.read_text(encoding="utf-8").splitlines() if str(db) in x]
    assert ".recover" in line and "Traceback" not in err.read_text(encoding="utf-8")
