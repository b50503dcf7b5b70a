"""A reader that goes away (``referee parse - | head``): the real command in a process of its own,
its stdout a pipe whose read end is already closed. It ends quietly -- nothing on stderr, exit
status 141 (128 + SIGPIPE, what the shell reports for cat or grep) -- and what a ``--db`` run
saved stands."""

from __future__ import annotations

import io
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli

import referee
from referee.adapters.transcript import replay
from referee.cli import SIGPIPE_STATUS
from referee.store.log import register

ROOT = Path(referee.__file__).resolve().parent.parent
EXAMPLE = ROOT / "referee" / "examples" / "omaha-example.txt"


def _closed_reader(args: list[str], stdin: Path | None = None) -> tuple[int, str]:
    """``referee ARGS`` writing into a pipe nobody reads: (exit status, stderr)."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first write
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open(stdin if stdin is not None else os.devnull, "rb") as given:
        proc = subprocess.run([sys.executable, "-m", "referee.cli", *args], stdin=given,
                              stdout=write_end, stderr=subprocess.PIPE, env=env, timeout=120)
    os.close(write_end)
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


def _saved(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        register(conn)
        rows = conn.execute("SELECT input_id, events FROM log ORDER BY seq").fetchall()
    conn.close()
    return [(str(i), str(e)) for i, e in rows]


def _history_db(tmp_path: Path) -> Path:
    db = tmp_path / "h.db"
    replay(EXAMPLE, db, io.StringIO())
    return db


def test_parse_stream_into_a_closed_reader(tmp_path: Path) -> None:
    chat = tmp_path / "chat.txt"
    chat.write_text("コール\nフォールド\nポット\n" * 5000, encoding="utf-8")
    code, err = _closed_reader(["parse", "--game", "omaha", "-"], stdin=chat)
    assert (code, err) == (SIGPIPE_STATUS, "")


def test_replay_into_a_closed_reader() -> None:
    code, err = _closed_reader(["replay", str(EXAMPLE)])
    assert (code, err) == (SIGPIPE_STATUS, "")


def test_history_into_a_closed_reader(tmp_path: Path) -> None:
    db = _history_db(tmp_path)
    # the output is small: it is still in the buffer when the command is done, and the flush
    # at the end meets the closed pipe
    for args in (["history", "--db", str(db)], ["history", "--db", str(db), "--json"]):
        code, err = _closed_reader(args)
        assert (code, err) == (SIGPIPE_STATUS, ""), args


def test_replay_db_into_a_closed_reader_then_resumed(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    code, err = _closed_reader(["replay", "--db", str(db), str(EXAMPLE)])
    assert (code, err) == (SIGPIPE_STATUS, "")
    # what was saved stands; the next run does the rest and ends as one uninterrupted run
    # (the rest and the check need no pipe of their own: in-process)
    code, rest, err = run_cli(["replay", "--db", str(db), str(EXAMPLE)])
    assert code == 0 and err == ""
    whole = io.StringIO()
    replay(EXAMPLE, tmp_path / "whole.db", whole)
    # (the lines whose events were lost in the pipe were durable: they do not run again)
    assert whole.getvalue().endswith(rest)
    assert _saved(db) == _saved(tmp_path / "whole.db") != []
    assert run_cli(["check", "--db", str(db)])[0] == 0


@pytest.mark.parametrize("args", [
    ["hand", "--game", "omaha", "--board", "Ts 9s 8c 2d 3h", "Ah Kh Qd Jd"],
    ["parse", "--game", "omaha", "コール"],
])
def test_a_one_line_answer_into_a_closed_reader(args: list[str]) -> None:
    code, err = _closed_reader(args)
    assert (code, err) == (SIGPIPE_STATUS, "")
