"""Integrity and back-ups on real SQLite files and the real ``referee``
command: a corrupted page makes every command stop with one line (exit 2), ``check`` tells a
sound database from damaged books, and a back-up taken while the database is written is a
consistent copy that passes ``check`` and holds every committed input."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cli_helpers import run_cli
from crash_transcript import omaha_transcript

from referee.resources import EXAMPLES
from referee.store import Store
from referee.store.integrity import Backups, backup, check
from referee.store.log import register

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = EXAMPLES / "omaha-example.txt"


def referee(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=timeout)


def make_db(tmp: Path, hands: int = 30) -> tuple[Path, Path]:
    transcript = tmp / "t.txt"
    transcript.write_text(omaha_transcript(hands, seed=3), encoding="utf-8")
    db = tmp / "r.db"
    code, _, err = run_cli(["replay", "--db", str(db), str(transcript)])  # in-process: setup only
    assert code == 0, err
    return db, transcript


def corrupt_middle(db: Path) -> None:
    size = db.stat().st_size
    assert size > 16 * 4096
    with open(db, "r+b") as f:
        f.seek((size // 2) // 4096 * 4096)  # one whole page in the middle of the file
        f.write(os.urandom(4096))


def one_line(r: subprocess.CompletedProcess[str], db: Path) -> None:
    assert r.returncode == 2, (r.returncode, r.stdout[-500:], r.stderr[-2000:])
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert str(db) in lines[0] and ".recover" in lines[0] and "バックアップ" in lines[0]


def test_a_corrupt_page_stops_every_command_with_one_line(tmp_path: Path) -> None:
    db, transcript = make_db(tmp_path)
    corrupt_middle(db)
    one_line(referee("records", "--db", str(db), "bank"), db)
    one_line(referee("records", "--db", str(db), "penalties", "--json"), db)
    one_line(referee("replay", "--db", str(db), str(transcript)), db)
    one_line(referee("play", "--db", str(db), stdin="dealer: !status\n"), db)
    one_line(referee("check", "--db", str(db)), db)
    one_line(referee("backup", "--db", str(db), str(tmp_path / "copy.db")), db)
    # the bots refuse to start on it the same way (before they ever connect)
    one_line(referee("irc", "--server", "127.0.0.1", "--port", "1", "--no-tls",
                     "--channel", "#x", "--db", str(db)), db)
    one_line(referee("matrix", "--homeserver", "http://127.0.0.1:1", "--user-id", "@r:hs",
                     "--password", "x", "--db", str(db)), db)


def test_garbage_header_and_unreadable_file(tmp_path: Path) -> None:
    db, _ = make_db(tmp_path, hands=3)
    with open(db, "r+b") as f:
        f.write(os.urandom(100))  # the header page
    one_line(referee("records", "--db", str(db), "bank"), db)
    one_line(referee("check", "--db", str(db)), db)
    r = referee("check", "--db", str(tmp_path / "missing.db"))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


def test_check_sound_and_unbalanced(tmp_path: Path) -> None:
    db, _ = make_db(tmp_path, hands=10)
    r = referee("check", "--db", str(db))
    assert r.returncode == 0, r.stderr
    assert str(db) in r.stdout
    report = check(db)
    assert report.ok and report.inputs > 0 and report.ledger > 0 and report.players > 0
    # books that do not balance: possible only by going around the store's guards
    bad = tmp_path / "bad.db"
    shutil.copy(db, bad)
    conn = sqlite3.connect(str(bad))
    conn.execute("DROP TRIGGER bank_update_guard")
    player = conn.execute("SELECT player FROM bank LIMIT 1").fetchone()[0]
    conn.execute("UPDATE bank SET balance = balance + 1 WHERE player = ?", (player,))
    conn.commit()
    conn.close()
    r = referee("check", "--db", str(bad))
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert player in r.stderr and len(r.stderr.strip().splitlines()) == 1


def _inputs(db: Path) -> list[str]:
    conn = sqlite3.connect(str(db))
    register(conn)
    try:
        return [r[0] for r in conn.execute("SELECT input_id FROM log ORDER BY seq")]
    finally:
        conn.close()


def test_backup_while_a_replay_writes(tmp_path: Path) -> None:
    """``referee replay --db`` owns its file (exclusive locking): the back-up asked for while it
    runs waits for it, then copies a state that passes check and holds every input it
    committed (all the lines it printed)."""
    transcript = tmp_path / "long.txt"
    transcript.write_text(omaha_transcript(150, seed=5), encoding="utf-8")
    db = tmp_path / "r.db"
    out_file = tmp_path / "replay.out"
    with open(out_file, "w") as out:
        replay = subprocess.Popen([sys.executable, "-m", "referee.cli", "replay", "--db",
                                   str(db), str(transcript)], cwd=ROOT, stdout=out,
                                  stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + 60
    while out_file.stat().st_size == 0:  # it has committed its first group
        assert time.monotonic() < end and replay.poll() is None
        time.sleep(0.01)
    running = replay.poll() is None
    r = referee("backup", "--db", str(db), str(tmp_path / "copy.db"), "--wait", "120")
    _, err = replay.communicate(timeout=180)
    assert replay.returncode == 0, err
    assert r.returncode == 0, r.stderr
    copy = tmp_path / "copy.db"
    assert referee("check", "--db", str(copy)).returncode == 0
    got, final = _inputs(copy), _inputs(db)
    assert got == final[: len(got)] and len(got) > 0  # one committed state, a prefix
    printed = out_file.read_text(encoding="utf-8").splitlines()
    assert len(printed) > 1
    assert running  # the back-up was asked for while the replay was writing
    print(f"\nbackup asked for during a replay: {len(got)} of {len(final)} inputs")
    print(f"\nbackup during replay: {len(got)} of {len(final)} inputs")


_WRITER = r"""
import sys, time
from referee.outcome import Outcome
from referee.store import Store
store = Store(sys.argv[1])
n = int(sys.argv[2])
for i in range(n):
    oid = f"w:{i}"
    store.save(Outcome(input_id=oid, room="r", input={"kind": "message", "id": oid, "room": "r",
                       "sender": "a", "text": "x" * 200, "time": 0.0}, events=[], ledger=[]))
    print(oid, flush=True)  # committed (one transaction per save, as the bots do)
store.close()
"""


def test_backup_while_a_bot_style_writer_commits(tmp_path: Path) -> None:
    """The bots' case: a writer committing input after input; the back-up taken meanwhile is
    one committed state (a prefix of the log) holding every input committed before it began."""
    db = tmp_path / "bot.db"
    Store(db).close()
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(db), "4000"], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert writer.stdout is not None
    committed: list[str] = []
    while len(committed) < 300:
        line = writer.stdout.readline()
        assert line, writer.stderr.read() if writer.stderr else ""
        committed.append(line.strip())
    before = list(committed)
    copy = backup(db, tmp_path / "copies")
    alive_during = writer.poll() is None
    _, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    assert check(copy).ok
    got, final = _inputs(copy), _inputs(db)
    assert set(before) <= set(got)
    assert got == final[: len(got)]
    assert alive_during and len(got) < len(final)  # it really was taken mid-way
    print(f"\nbackup during writes: {len(got)} of {len(final)} inputs")


def test_backups_rotate(tmp_path: Path) -> None:
    db, _ = make_db(tmp_path, hands=2)
    now = [1000.0]  # the injected clocks: monotonic seconds, and the wall time naming copies
    start = datetime(2026, 12, 1, 8, 30, tzinfo=UTC)
    b = Backups(db, tmp_path / "bk", every=3600, keep=3, clock=lambda: now[0],
                wall=lambda: start + timedelta(seconds=now[0]))
    assert not Backups(db, every=0).due()
    made = []
    for _ in range(5):
        assert not b.due()
        now[0] += 3599.9
        assert not b.due()
        now[0] += 0.1
        assert b.due()
        made.append(b.run())
        assert not b.due()
    left = b.copies()
    assert left == made[-3:]
    for p in left:
        assert check(p).ok
    with pytest.raises(ValueError):
        Backups(db, keep=0)


def test_backup_into_a_directory_named_with_a_trailing_slash(tmp_path: Path) -> None:
    """``referee backup --db D backups/``: a directory that does not exist yet, named as a shell
    user names one, gets a dated copy inside it -- not a file called ``backups``."""
    db, _ = make_db(tmp_path, hands=2)
    dest = tmp_path / "backups"
    code, out, err = run_cli(["backup", "--db", str(db), f"{dest}/"])
    assert code == 0, err
    files = list(dest.iterdir())
    assert dest.is_dir() and len(files) == 1 and str(files[0]) in out
    assert re.fullmatch(r"r-\d{8}T\d{6}\.\d{3}Z\.db", files[0].name) and check(files[0]).ok
    # without the slash a new name is the copy's file name, as before
    code, _, err = run_cli(["backup", "--db", str(db), str(tmp_path / "copy.db")])
    assert code == 0 and (tmp_path / "copy.db").is_file() and check(tmp_path / "copy.db").ok


def test_backup_command_into_a_directory(tmp_path: Path) -> None:
    db, _ = make_db(tmp_path, hands=2)
    (tmp_path / "dir").mkdir()
    r = referee("backup", "--db", str(db), str(tmp_path / "dir"))
    assert r.returncode == 0, r.stderr
    files = list((tmp_path / "dir").iterdir())
    assert len(files) == 1 and files[0].name.startswith("r-") and check(files[0]).ok
    rows = json.loads(referee("records", "--db", str(files[0]), "bank", "--json")
                      .stdout.splitlines()[0])
    assert "player" in rows


def test_check_snapshots_against_a_full_rerun(tmp_path: Path) -> None:
    """``check --snapshots`` (slow, on demand): the newest snapshot plus the tail must
    equal a full re-run of the log; a snapshot that disagrees makes it exit 1 naming what."""
    import pickle

    db, _ = make_db(tmp_path, hands=10)
    with Store(db) as s:
        assert s.latest_snapshot() is not None
    r = referee("check", "--db", str(db), "--snapshots")
    assert r.returncode == 0, r.stderr
    conn = sqlite3.connect(str(db))
    state = pickle.loads(conn.execute("SELECT state FROM snapshots").fetchone()[0])
    state["ranks"] = {"alice": "★"}
    conn.execute("UPDATE snapshots SET state = ?", (pickle.dumps(state),))
    conn.commit()
    conn.close()
    assert referee("check", "--db", str(db)).returncode == 0  # the quick check does not re-run
    r = referee("check", "--db", str(db), "--snapshots")
    assert r.returncode == 1 and "ranks" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_background_check_of_the_bots(tmp_path: Path) -> None:
    """The bots open the store with the check on a thread beside their resume (start-up does
    not read the whole file first); verify() waits for it and refuses a damaged file."""
    from referee.store.integrity import CorruptDatabase

    db, _ = make_db(tmp_path, hands=30)
    with Store(db, check="background") as s:
        s.verify()  # sound
    corrupt_middle(db)
    with pytest.raises(CorruptDatabase, match=r"\.recover"):
        s2 = Store(db, check="background")  # the open itself may already meet the damage
        try:
            s2.verify()
        finally:
            s2.close()
    with pytest.raises(ValueError):
        Store(tmp_path / "x.db", check="maybe")
