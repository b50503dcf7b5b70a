"""Crash test: ``referee replay --db`` killed with SIGKILL at random points, restarted until it
finishes, ends with exactly the database and stacks of an uninterrupted run, and no message is
applied twice.

The kills are real: the replay runs as a separate process and is sent SIGKILL at random moments
(some by a timer during start-up and rebuild, most a random few output lines into the run plus a
random sub-10 ms delay, so they land during parsing, the engine, a save's transaction or the
printing). Nothing in the referee knows it is being tested. Both ways of saving are killed: the
CLI's group commit (64 lines per transaction, shown once durable) and one commit per line, as the
bots save.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from crash_transcript import omaha_transcript  # tests/ is on sys.path (rootdir-less import)
from db_dump import dump

from referee.adapters import resume
from referee.adapters.transcript import read
from referee.service import Referee
from referee.store import Store
from referee.store.log import register

# hands per mode: a group-committing run must span enough groups (64 lines) for every kill to
# land in a different one before it finishes
HANDS = {"cli": 120, "one-by-one": 50}
KILLS = 12


# ``referee replay --db`` commits a group of lines at a time; with group 1 every line is its own
# commit, as the live bot saves every chat message: both are killed.
_ONE_BY_ONE = (
    "import sys; from pathlib import Path; from referee.adapters.transcript import replay;"
    " replay(Path(sys.argv[2]), Path(sys.argv[1]), sys.stdout, group=1)"
)


def _command(db: Path, transcript: Path, group: str) -> list[str]:
    if group == "cli":
        return [sys.executable, "-m", "referee.cli", "replay", "--db", str(db), str(transcript)]
    return [sys.executable, "-c", _ONE_BY_ONE, str(db), str(transcript)]


def _replay(db: Path, transcript: Path, group: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        _command(db, transcript, group), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def _drain(proc: subprocess.Popen[bytes], lines: list[bytes], got: threading.Event,
           want: list[int]) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.append(line)
        if len(lines) >= want[0]:
            got.set()
    got.set()


def _state(db: Path) -> dict[str, Any]:
    """The referee rebuilt from the database: tables with their stacks, bank, flags, …"""
    with Store(db) as s:
        ref = Referee()
        ref.rebuild(s.inputs())
        return ref.state()


def _resumed_state(db: Path) -> dict[str, Any]:
    """The referee as a restart brings it back: from the newest snapshot plus the inputs after
    it."""
    with Store(db) as s:
        assert s.latest_snapshot() is not None  # the killed runs left snapshots behind
        ref = Referee()
        assert resume(ref, s) == []
        return ref.state()  # the ledger and the processed ids: the store's


@pytest.mark.slow
@pytest.mark.parametrize("group", ["cli", "one-by-one"])
def test_sigkill_at_random_points_resumes_exactly(tmp_path: Path, group: str) -> None:
    rng = random.Random(20261129)
    transcript = tmp_path / "long.txt"
    hands = HANDS[group]
    transcript.write_text(omaha_transcript(hands, seed=7), encoding="utf-8")
    n_inputs = len(read(transcript.read_text(encoding="utf-8")))

    # the uninterrupted run
    ref_db = tmp_path / "reference.db"
    ref = subprocess.run(_command(ref_db, transcript, group), capture_output=True, timeout=120)
    assert ref.returncode == 0, ref.stderr.decode()
    ref_out = ref.stdout.splitlines(keepends=True)
    assert sum(b'"hand_end"' in line for line in ref_out) == hands

    # killed again and again
    db = tmp_path / "crashed.db"
    kills = 0
    progress: list[int] = []
    while kills < KILLS:
        proc = _replay(db, transcript, group)
        lines: list[bytes] = []
        got = threading.Event()
        done = _count(db)
        remaining = max(1, len(ref_out) * (n_inputs - done) // n_inputs)
        # Deterministic triggers, no sleeps: the kill follows the want-th line the run prints
        # (a seeded choice), or, for two of the runs, comes at once, before any output: during
        # interpreter start-up or the rebuild.
        want = [10**9 if kills in (0, 6) else
                rng.randint(1, max(1, remaining // (KILLS - kills + 1)))]
        threading.Thread(target=_drain, args=(proc, lines, got, want), daemon=True).start()
        if want[0] < 10**9:
            got.wait(timeout=120)
        if proc.poll() is not None:
            break  # it finished before the kill: fine, it is the last run
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        kills += 1
        progress.append(_count(db))
        assert _duplicates(db) == []

    # the run that finishes
    last = subprocess.run(_command(db, transcript, group), capture_output=True, timeout=120)
    assert last.returncode == 0, last.stderr.decode()

    print(f"\n{kills} SIGKILLs; inputs saved at each kill: {progress} of {n_inputs}")
    assert kills >= 10, f"only {kills} kills landed before the run finished"
    # the kills landed at different points of the transcript, not all at start-up
    assert len(set(progress)) >= kills // 2, progress
    assert any(0 < p < n_inputs for p in progress), progress

    # the resumed run printed exactly the events of the lines not processed before
    last_out = last.stdout.splitlines(keepends=True)
    assert last_out == ref_out[len(ref_out) - len(last_out):]

    want, got_db = dump(ref_db), dump(db)
    assert got_db["integrity"] == "ok"
    assert got_db["duplicates"] == []
    assert len(got_db["inputs"]) == n_inputs
    for key in want:
        assert got_db[key] == want[key], key
    assert _state(db) == _state(ref_db)
    assert _resumed_state(db) == _state(ref_db)
    final = json.loads(got_db["hands"][-1][4])
    assert final and final == json.loads(want["hands"][-1][4])


def _duplicates(db: Path) -> list[Any]:
    conn = sqlite3.connect(db)
    register(conn)
    try:
        return conn.execute(
            "SELECT input_id FROM log GROUP BY input_id HAVING count(*) > 1").fetchall()
    except sqlite3.OperationalError:  # killed before the schema was committed
        return []
    finally:
        conn.close()


def _count(db: Path) -> int:
    if not db.exists():
        return 0
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT count(*) FROM inputs").fetchone()[0])
    except sqlite3.OperationalError:  # killed before the schema was committed
        return 0
    finally:
        conn.close()
