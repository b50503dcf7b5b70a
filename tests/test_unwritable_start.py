"""A database the process cannot write (issue 45, observation 9): ``referee irc``, ``referee
matrix`` and ``referee play`` refuse to start with one Japanese line instead of going online and
failing every message. Root writes through file modes, so the file is made unwritable for real:
immutable (``chattr +i``), or the folder bind-mounted read-only in a private mount namespace
(``unshare -rm``). No server is needed: the refusal comes before any connection."""

from __future__ import annotations

import contextlib
import importlib.util
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from needs import need

from referee.store.log import register

ROOT = Path(__file__).resolve().parents[1]
REFUSAL = "書き込めないため起動しません"

COMMANDS = {
    "irc": ["irc", "--server", "127.0.0.1", "--port", "9", "--no-tls", "--channel", "#x"],
    "matrix": ["matrix", "--homeserver", "http://127.0.0.1:9", "--user-id", "@bot:localhost",
               "--password", "x"],
    "play": ["play"],
}
EXTRA = {"irc": "irc", "matrix": "nio", "play": None}


def _made(tmp: Path) -> Path:
    db = tmp / "r.db"
    r = subprocess.run([sys.executable, "-m", "referee.cli", "play", "--db", str(db)],
                       input="dealer: !open omaha level=3\ndealer: !grant @alice 100\n",
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    return db


def _inputs(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    register(conn)
    try:
        return int(conn.execute("SELECT count(*) FROM log").fetchone()[0])
    finally:
        conn.close()


@contextlib.contextmanager
def immutable(path: Path) -> Iterator[None]:
    chattr = shutil.which("chattr")
    ok = chattr is not None and subprocess.run([chattr, "+i", str(path)],
                                               capture_output=True).returncode == 0
    need(ok, "chattr +i (root on a file system with the immutable flag: ext4, xfs, btrfs)",
         "run the tests as root on such a file system")
    try:
        yield
    finally:
        subprocess.run([str(chattr), "-i", str(path)], capture_output=True)


def _run(argv: list[str], db: Path,
         prefix: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*(prefix or []), sys.executable, "-m", "referee.cli", *argv,
                           "--db", str(db)], input="dealer: !grant @alice 5\n",
                          capture_output=True, text=True, cwd=ROOT, timeout=60)


def _refused(r: subprocess.CompletedProcess[str]) -> None:
    assert r.returncode == 2, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and REFUSAL in lines[0], r.stderr[-2000:]
    assert "Traceback" not in r.stderr and "connected" not in r.stderr


@pytest.mark.parametrize("bot", sorted(COMMANDS))
def test_an_immutable_database_is_refused_at_start(bot: str, tmp_path: Path) -> None:
    extra = EXTRA[bot]
    if extra is not None and importlib.util.find_spec(extra) is None:
        pytest.skip(f"the {bot} extra is not installed")
    db = _made(tmp_path)
    before = _inputs(db)
    with immutable(db):
        r = _run(COMMANDS[bot], db)
    _refused(r)
    assert _inputs(db) == before


def test_a_read_only_mount_is_refused_at_start(tmp_path: Path) -> None:
    """The folder of the database bind-mounted read-only (what a read-only medium or a
    remount after a disk error looks like to SQLite)."""
    if importlib.util.find_spec("irc") is None:
        pytest.skip("the irc extra is not installed")
    db = _made(tmp_path)
    folder = str(tmp_path)
    unshare = shutil.which("unshare")
    probe = unshare is not None and subprocess.run(
        [unshare, "-rm", "sh", "-c", f"mount --bind {folder} {folder} && "
         f"mount -o remount,bind,ro {folder} {folder} && ! touch {folder}/x"],
        capture_output=True).returncode == 0
    need(probe, "unshare -rm with bind mounts (a private mount namespace)",
         "run the tests where user namespaces and mounts are allowed")
    before = _inputs(db)
    mount = ["unshare", "-rm", "sh", "-c",
             f'mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} {folder} '
             '&& exec "$@"', "sh"]
    r = _run(COMMANDS["irc"], db, prefix=mount)
    _refused(r)
    assert _inputs(db) == before
