"""Rebuild and resume: saved inputs re-run with persistence off reach the same state, and a
``replay --db`` run killed at any point and started again ends exactly as an uninterrupted one."""

from __future__ import annotations

import io
import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from event_helpers import handle

from referee.adapters.transcript import read, replay, run
from referee.inputs import Message
from referee.resources import EXAMPLES
from referee.service import Referee
from referee.store import Store

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPTS = sorted(
    [*EXAMPLES.glob("*.txt"), *ROOT.glob("tests/transcripts/service/*.txt")], key=str
)

pytest.importorskip("referee.parse")


def _uninterrupted(path: Path, db: Path) -> tuple[list[dict[str, object]], dict[str, object]]:
    out = io.StringIO()
    replay(path, db, out)
    events = [json.loads(x) for x in out.getvalue().splitlines()]
    ref = Referee()
    with Store(db) as store:
        ref.rebuild(store.inputs())
    return events, ref.state()


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.name for p in TRANSCRIPTS])
def test_rebuild_reaches_the_same_state(path: Path, tmp_path: Path) -> None:
    store = Store(":memory:")
    live = Referee(persistence=store, rng=random.Random(3))
    for _ in run(read(path.read_text(encoding="utf-8")), live):
        pass
    rebuilt = Referee()
    rebuilt.rebuild(store.inputs())
    assert rebuilt.state() == live.state()
    assert store.balances() == {p: b for p, b in live.bank.balances().items()}


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.name for p in TRANSCRIPTS])
def test_resume_after_any_line_matches_an_uninterrupted_run(path: Path, tmp_path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    if "!deal" in text:
        pytest.skip("live deals are random: two runs differ by design")
    full_events, full_state = _uninterrupted(path, tmp_path / "full.db")
    lines = read(text)
    for k in sorted({0, 1, len(lines) // 2, len(lines) - 1, len(lines)}):
        db = tmp_path / f"cut{k}.db"
        with Store(db) as store:
            ref = Referee(persistence=store)
            first: list[dict[str, object]] = []
            for _, events in run(lines[:k], ref):
                first.extend(e.to_json() for e in events)
        out = io.StringIO()
        replay(path, db, out)  # a fresh process would do exactly this
        rest = [json.loads(x) for x in out.getvalue().splitlines()]
        assert first + rest == full_events, f"cut after {k} lines"
        ref2 = Referee()
        with Store(db) as store:
            ref2.rebuild(store.inputs())
        assert ref2.state() == full_state
        # and a third run has nothing left to do
        again = io.StringIO()
        replay(path, db, again)
        assert again.getvalue() == ""


@pytest.mark.slow
def test_sigkill_at_random_moments_then_resume(tmp_path: Path) -> None:
    """Real processes, killed with SIGKILL mid-run, restarted until done: the database holds the
    same inputs and events as one uninterrupted run (the output of a killed run may miss the
    events of the line it was killed on; the database may not)."""
    path = tmp_path / "long.txt"
    body = (EXAMPLES / "leak-example.txt").read_text(encoding="utf-8")
    # long enough that the kills land mid-run: many bank grants after the hand
    path.write_text(body + "\n".join(
        f"[22:{i // 60 % 60:02d}:{i % 60:02d}] dealer: !grant @alice {i + 1}" for i in range(1500)
    ) + "\n", encoding="utf-8")
    full = tmp_path / "full.db"
    cmd = [sys.executable, "-m", "referee.cli", "replay", "--db"]
    subprocess.run([*cmd, str(full), str(path)], check=True, capture_output=True, timeout=120)
    with Store(full) as a:
        total = len(a.inputs())
    killed = tmp_path / "killed.db"
    rng = random.Random(11)
    partial = 0
    for _ in range(5):
        p = subprocess.Popen([*cmd, str(killed), str(path)], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        assert p.stdout is not None
        # past start-up and rebuild for sure: kill after a random number of printed events
        for _ in range(rng.randint(1, 400)):
            if not p.stdout.readline():
                break
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        p.stdout.close()
        with Store(killed) as b:
            partial += 0 < len(b.inputs()) < total
    subprocess.run([*cmd, str(killed), str(path)], check=True, capture_output=True, timeout=120)
    assert partial >= 1, "no run was killed mid-way: the test proved nothing"
    with Store(full) as a, Store(killed) as b:
        assert [i["id"] for i in b.inputs()] == [i["id"] for i in a.inputs()]
        assert b.events() == a.events()
        assert b.balances() == a.balances()


def test_resume_warns_when_the_rebuild_does_not_reproduce_the_bank() -> None:
    from referee.adapters import resume
    from referee.outcome import LedgerEntry, Outcome

    store = Store(":memory:")
    ref = Referee(moderators=["mod"], persistence=store)
    handle(ref, Message(id="1", room="r", sender="mod", text="!grant @alice 100"))
    assert resume(Referee(moderators=["mod"]), store) == []
    # a ledger row no input explains (e.g. written by an older version with other rules)
    store.save(Outcome(input_id="2", room="r",
                       input={"kind": "message", "id": "2", "room": "r", "sender": "x",
                              "text": "hi", "time": None, "dm": False},
                       ledger=[LedgerEntry("alice", 5, "manual")]))
    again = Referee(moderators=["mod"])
    warnings = resume(again, store)
    assert warnings == ["bank of alice: 105 in the database, 100 after the rebuild"]
    assert again.persistence is store


def test_transcripts_sharing_a_header_both_run_against_one_database(tmp_path: Path) -> None:
    a = EXAMPLES / "omaha-example.txt"
    header = [ln for ln in a.read_text(encoding="utf-8").splitlines() if ln.startswith("#")]
    b = tmp_path / "b.txt"
    b.write_text("\n".join([*header, "[21:00:01] alice: フォールド", "[21:00:02] bob: フォールド"])
                 + "\n", encoding="utf-8")
    fresh = io.StringIO()
    replay(b, None, fresh)
    db = tmp_path / "shared.db"
    replay(a, db, io.StringIO())
    out = io.StringIO()
    replay(b, db, out)

    def play(text: str) -> list[dict[str, object]]:
        """The events but the tables' numbers (the database's second table is number 2, and
        its '# table:' closes the first)."""
        import json

        evs = [json.loads(line) for line in text.splitlines()]
        return [{k: v for k, v in e.items() if not (e["event"] == "hand_seats" and k == "table")}
                for e in evs if e["event"] not in ("table_open", "table_close")]

    assert play(out.getvalue()) == play(fresh.getvalue()) != []
    assert '"table_open","table":2' in out.getvalue()
