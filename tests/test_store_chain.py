"""Tamper evidence: every stored input carries a digest chained to the one before it. A byte
changed inside a stored input's text is found by ``referee check`` (exit 1, naming the first bad
row), the bots refuse to start on it and so does the console, which also runs the integrity
check every other command runs (a corrupt page: exit 2). Real SQLite files, the real CLI."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import log_rows
from cli_helpers import run_cli
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
