"""Group commit (``Store(group=N)``, what ``referee replay --db`` uses): the same database as one
commit per input, nothing shown before it is durable, a crash loses only the open group, a
failed commit forgets exactly that group, reads see every save."""

from __future__ import annotations

import io
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from crash_transcript import omaha_transcript  # tests/ is on sys.path (rootdir-less import)
from db_dump import dump

import referee.adapters.transcript as transcript
from referee.adapters.transcript import TranscriptError, replay
from referee.events import Penalty, Say
from referee.outcome import LedgerEntry, Outcome
from referee.store import AlreadyProcessed, Store, StoreError

ROOM = "!room:example.org"


def outcome(i: int, ledger: list[LedgerEntry] | None = None) -> Outcome:
    return Outcome(f"m{i}", ROOM, {"kind": "message", "id": f"m{i}", "room": ROOM},
                   [Say(to=ROOM, text=f"メッセージ{i}")], list(ledger or []))


def test_group_needs_a_sole_writer() -> None:
    with pytest.raises(ValueError):
        Store(":memory:", group=0)
    with pytest.raises(ValueError):
        Store(":memory:", group=2)  # not exclusive: another writer could take the seqs


def test_same_database_and_output_as_one_commit_per_input(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text(omaha_transcript(30, seed=3), encoding="utf-8")
    results = []
    for group in (1, 7, 64):
        db, out = tmp_path / f"g{group}.db", io.StringIO()
        replay(path, db, out, group=group)
        results.append((out.getvalue(), dump(db)))
    (text, want), *others = results
    assert want["ledger"] and want["penalties"] and want["hands"], "a transcript with records"
    assert want["integrity"] == "ok"
    for got_text, got in others:
        assert got_text == text
        assert got == want


def test_lines_are_shown_only_once_durable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    path = tmp_path / "t.txt"
    path.write_text(omaha_transcript(5, seed=4), encoding="utf-8")
    stores: list[Store] = []
    real_open = transcript.open_store

    def open_store(db: Path, group: int = 5) -> Store:
        stores.append(real_open(db, group))
        return stores[-1]

    class Out(io.StringIO):
        def write(self, s: str) -> int:
            assert stores[0].pending == 0, "shown before its commit"
            self.writes += 1
            return super().write(s)

    monkeypatch.setattr(transcript, "open_store", open_store)
    out = Out()
    out.writes = 0  # type: ignore[attr-defined]
    replay(path, tmp_path / "r.db", out, group=5)
    assert out.writes > 3  # type: ignore[attr-defined]
    assert out.getvalue().count("hand_end") == 5


def test_a_crash_loses_only_the_open_group(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    code = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_store_group import outcome
        from referee.store import Store
        s = Store({str(db)!r}, exclusive=True, group=3)
        for i in range(8):
            s.save(outcome(i))
        os._exit(0)  # no close: the last two saves were never committed
    """)
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    with Store(db) as s:
        assert s.input_ids() == [f"m{i}" for i in range(6)]
        assert dump(db)["integrity"] == "ok"


def test_reads_see_every_save(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db", exclusive=True, group=100) as s:
        s.save(outcome(1, [LedgerEntry("alice", 500, "grant")]))
        s.save(Outcome("m2", ROOM, {"kind": "message", "id": "m2", "room": ROOM},
                       [Penalty(player="alice", kind="information_leak", points=1000)],
                       [LedgerEntry("alice", -1000, "penalty", 0)]))
        assert s.pending == 2 and s.is_processed("m2")
        assert s.balances() == {"alice": -500}  # committed first
        assert s.pending == 0
        s.save(outcome(3))
        assert [e["player"] for e in s.ledger()] == ["alice", "alice"]
        assert s.input_ids() == ["m1", "m2", "m3"]
        s.project()
        assert s.conn.execute("SELECT player, points FROM penalties").fetchall() == [
            ("alice", 1000)]


class _FailingConn:
    """A connection whose COMMIT fails as a full disk would (the WAL frames are written then)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, *args: Any) -> Any:
        if sql == "COMMIT":
            raise sqlite3.OperationalError("database or disk is full")
        return self.conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


def test_a_failed_commit_forgets_exactly_its_group(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    s = Store(db, exclusive=True, group=3)
    for i in range(3):
        s.save(outcome(i, [LedgerEntry("bob", 10, "grant")]))
    real = s.conn
    s.conn = _FailingConn(real)  # type: ignore[assignment]
    s.save(outcome(3, [LedgerEntry("bob", 10, "grant")]))
    s.save(outcome(4))
    with pytest.raises(StoreError, match="disk is full"):
        s.save(outcome(5))  # the group is full: its commit fails
    assert not any(s.is_processed(f"m{i}") for i in (3, 4, 5))
    assert s.is_processed("m2") and s.pending == 0
    s.conn = real
    for i in (3, 4, 5):  # processed again, once
        s.save(outcome(i, [LedgerEntry("bob", 10, "grant")] if i == 3 else None))
    s.close()
    with Store(db) as again:
        assert again.input_ids() == [f"m{i}" for i in range(6)]
        assert again.balances() == {"bob": 40}


def test_a_malformed_line_keeps_the_lines_before_it(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    good = omaha_transcript(2, seed=5)
    # well-formed, refused by the referee when it is reached: seat 1 is taken
    path.write_text(good + "# seat 1: zed 1000\n", encoding="utf-8")
    out = io.StringIO()
    with pytest.raises(TranscriptError, match=r"^\d+行目: "):
        replay(path, tmp_path / "r.db", out, group=64)
    reference = io.StringIO()
    ref_txt = tmp_path / "good.txt"
    ref_txt.write_text(good, encoding="utf-8")
    replay(ref_txt, None, reference)
    assert out.getvalue() == reference.getvalue()  # all of it shown: it is all durable
    with Store(tmp_path / "r.db") as s:
        assert len(s.input_ids()) == sum(
            1 for line in good.splitlines() if line.strip() and not line.startswith("##"))


def test_expect_answers_a_replays_new_lines_from_memory(tmp_path: Path) -> None:
    db = tmp_path / "e.db"
    with Store(db, exclusive=True, group=4) as s:
        for i in range(3):
            s.save(outcome(i))
        s.expect([f"m{i}" for i in range(6)])
        assert [s.is_processed(f"m{i}") for i in range(6)] == [True] * 3 + [False] * 3
        s.save(outcome(3))  # in the open group: processed, not committed yet
        assert s.is_processed("m3") and s.pending == 0  # (the group of 4 was written)
        s.save(outcome(4))
        assert s.is_processed("m4") and not s.is_processed("m5")
        with pytest.raises(StoreError):
            s.save(outcome(4))  # still refused twice
    with Store(db) as s:
        assert s.is_processed("m4") and not s.is_processed("m5")
        with pytest.raises(StoreError):
            s.expect(["m5"])  # only a sole writer may trust what it learned


def test_one_writer_whether_grouped_or_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    """Group commit is a wrapper around the same writer (it only defers the COMMIT)."""
    writes: list[tuple[int, int]] = []
    real = Store._write

    def counting(self: Store, *args: Any) -> None:
        real(self, *args)
        writes.append((self.group, self.pending))

    monkeypatch.setattr(Store, "_write", counting)
    for group in (1, 3):
        with Store(tmp_path / f"g{group}.db", exclusive=True, group=group) as s:
            for i in range(4):
                s.save(outcome(i, [LedgerEntry("bob", 10, "grant")]))
            assert s.balances() == {"bob": 40}
    # each save written once, into the open transaction: 1 deep unbatched, up to 3 grouped
    assert writes == [(1, 1)] * 4 + [(3, 1), (3, 2), (3, 3), (3, 1)]


def test_a_duplicate_never_costs_the_open_group(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db", exclusive=True, group=5) as s:
        s.save(outcome(0))
        s.save(outcome(1))
        with pytest.raises(AlreadyProcessed):
            s.save(outcome(0))
        assert s.pending == 2
        s.commit()
        with pytest.raises(AlreadyProcessed):  # no open transaction: the unique index refuses it
            s.save(outcome(1))
        assert s.pending == 0
        assert s.input_ids() == ["m0", "m1"]


def test_a_failed_write_rolls_back_its_group(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    with Store(db, exclusive=True, group=5) as s:
        s.save(outcome(0, [LedgerEntry("bob", 10, "grant")]))
        with pytest.raises(StoreError, match=r"'m1' \(and the 1 before it in its group\)"):
            s.save(outcome(1, [LedgerEntry(None, 10, "broken")]))  # type: ignore[arg-type]
        assert s.pending == 0 and not s.is_processed("m0") and not s.is_processed("m1")
        s.save(outcome(0, [LedgerEntry("bob", 10, "grant")]))
        s.save(outcome(1))
    with Store(db) as again:
        assert again.input_ids() == ["m0", "m1"]
        assert again.balances() == {"bob": 10}
        assert dump(db)["integrity"] == "ok"
