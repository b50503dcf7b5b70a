"""``referee records --db PATH {bank,penalties,flags,hands} [--player NAME] [--json]``: one
moderator query per record kind, through the real command line."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from referee.events import (
    BankChange,
    Event,
    Flag,
    FlagDecided,
    HandEnd,
    HandSeats,
    HandStart,
    Penalty,
)
from referee.lang.catalog import text
from referee.outcome import LedgerEntry, Outcome
from referee.store import Store, StoreError, records

ROOM = "!omaha:example.org"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "referee.db"
    with Store(path) as s:
        def save(i: int, events: list[Event], ledger: list[LedgerEntry] | None = None,
                 room: str = ROOM) -> None:
            s.save(Outcome(f"m{i}", room, {"id": f"m{i}"}, events, ledger or []))

        save(1, [BankChange(player="alice", delta=30000, balance=30000, reason="grant"),
                 BankChange(player="bob", delta=20000, balance=20000, reason="grant")],
             [LedgerEntry("alice", 30000, "grant", 0), LedgerEntry("bob", 20000, "grant", 1)])
        save(2, [HandStart(hand=1, button=1),
                 HandSeats(hand=1, game="omaha", seats=[], table=1)])
        save(3, [Flag(id=1, player="bob", kind="information_leak", text="俺Aある",
                      confidence="high")])
        save(4, [FlagDecided(id=1, decision="confirmed", by="dealer"),
                 Penalty(player="bob", kind="information_leak", points=1000)],
             [LedgerEntry("bob", -1000, "penalty:information_leak", 1)])
        save(5, [HandEnd(hand=1, stacks={"alice": 3100, "bob": 0})])
        save(6, [HandStart(hand=1, button=1), HandSeats(hand=1, game="deuces", seats=[], table=2),
                 HandEnd(hand=1, stacks={"carol": 500})],
             room="!deuces:example.org")
        save(7, [Flag(id=2, player="alice", kind="interference", text="それ下手",
                      confidence="low")])
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, Any]]:
    main(["records", *argv, "--json"])
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_bank(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--db", str(db), "bank") == [
        {"player": "alice", "balance": 30000, "at_table": 0},
        {"player": "bob", "balance": 19000, "at_table": 0}]
    assert run(capsys, "--db", str(db), "bank", "--player", "bob") == [
        {"player": "bob", "balance": 19000, "at_table": 0}]
    assert run(capsys, "--db", str(db), "bank", "--player", "nobody") == []


def test_penalties(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = run(capsys, "--db", str(db), "penalties")
    assert len(rows) == 1
    row = rows[0]
    assert {k: row[k] for k in ("room", "player", "kind", "points", "chips", "input_id")} == {
        "room": ROOM, "player": "bob", "kind": "information_leak", "points": 1000, "chips": 0,
        "input_id": "m4"}
    assert row["time"].endswith("+00:00")
    assert run(capsys, "--db", str(db), "penalties", "--player", "alice") == []


def test_flags(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = run(capsys, "--db", str(db), "flags")
    assert [(r["id"], r["player"], r["kind"], r["confidence"], r["status"], r["text"],
             r["decided_by"]) for r in rows] == [
        (1, "bob", "information_leak", "high", "confirmed", "俺Aある", "m4"),
        (2, "alice", "interference", "low", "open", "それ下手", None)]
    assert [r["id"] for r in run(capsys, "--db", str(db), "flags", "--player", "alice")] == [2]


def test_hands(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = run(capsys, "--db", str(db), "hands")
    assert rows == [
        {"room": ROOM, "table": 1, "game": "omaha", "hand": 1, "button": 1,
         "stacks": {"alice": 3100, "bob": 0}, "started": "m2", "ended": "m5"},
        {"room": "!deuces:example.org", "table": 2, "game": "deuces", "hand": 1,
         "button": 1, "stacks": {"carol": 500}, "started": "m6", "ended": "m6"},
    ]
    assert [r["room"] for r in run(capsys, "--db", str(db), "hands", "--player", "carol")] == [
        "!deuces:example.org"]


def test_text_output(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without ``--json`` people read names, moderators' names and JST times: no id of a
    kind, status or ledger reason, no input id, no UTC time (a catalogue test: wording)."""
    main(["records", "--db", str(db), "hands", "--player", "bob"])
    out = capsys.readouterr().out.splitlines()
    assert out == [f"ルーム: {ROOM} ｜ テーブル: 1 ｜ ゲーム: オマハ（PLO リングゲーム）"
                   " ｜ ハンド: 1 ｜ ボタン: 1 ｜ 終了時のチップ: alice 3,100・bob 0"]
    main(["records", "--db", str(db), "bank"])
    assert capsys.readouterr().out.splitlines() == [
        "プレイヤー: alice ｜ 残高: 30,000 ｜ テーブルのチップ: 0",
        "プレイヤー: bob ｜ 残高: 19,000 ｜ テーブルのチップ: 0"]
    ids = ("information_leak", "interference", "confirmed", "open", "high", "low", "penalty:",
           "grant", "m4", "+00:00")
    for kind in ("penalties", "flags", "ledger"):
        main(["records", "--db", str(db), kind])
        out = capsys.readouterr().out
        assert out and not [w for w in ids if w in out], (kind, out)
    main(["records", "--db", str(db), "flags"])
    first = capsys.readouterr().out.splitlines()[0]
    assert "判断したモデレーター: dealer" in first and "ハンド情報の公開" in first
    assert "日時: " in first


def test_flags_name_their_moderator_in_json(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = run(capsys, "--db", str(db), "flags")
    assert [(r["decided_by"], r["moderator"]) for r in rows] == [("m4", "dealer"), (None, None)]


def test_ledger_kind_in_the_library(db: Path) -> None:
    rows = records(db, "ledger", player="bob")
    assert [(r["delta"], r["reason"], r["event"]) for r in rows] == [
        (20000, "grant", "bank"), (-1000, "penalty:information_leak", "penalty")]
    with pytest.raises(StoreError, match="everything"):
        records(db, "everything")


def test_a_kind_of_record_is_typed_by_its_japanese_name(
        db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``referee records ペナルティ`` is ``referee records penalties`` (issue 41: every id a
    moderator types may be typed by its name); an unknown kind lists the kinds by name."""
    from referee.store.records import KINDS, record_kind

    for kind in KINDS:
        assert record_kind(kind) == kind == record_kind(text(f"records_kind_{kind}"))
    main(["records", "--db", str(db), "penalties"])
    by_id = capsys.readouterr().out
    main(["records", "--db", str(db), "ペナルティ"])
    assert capsys.readouterr().out == by_id and by_id
    with pytest.raises(SystemExit):
        main(["records", "--db", str(db), "everything"])
    err = capsys.readouterr().err
    assert text("records_kind_penalties") in err and "penalties" not in err, err


def test_records_never_creates_a_database(tmp_path: Path) -> None:
    said = text("store.no_database", path=str(tmp_path / "typo.db"))
    with pytest.raises(StoreError, match=re.escape(said)):
        records(tmp_path / "typo.db", "bank")
    assert not (tmp_path / "typo.db").exists()


@pytest.mark.parametrize("case", ["missing", "not_sqlite", "not_ours", "directory"])
def test_errors_are_one_line_exit_2(tmp_path: Path, case: str) -> None:
    path = tmp_path / "x.db"
    if case == "not_sqlite":
        path.write_bytes(b"\x00garbage" * 1000)
    elif case == "not_ours":
        c = sqlite3.connect(path)
        c.execute("CREATE TABLE t (x)")
        c.commit()
        c.close()
    elif case == "directory":
        path.mkdir()
    r = subprocess.run(
        [sys.executable, "-m", "referee.cli", "records", "--db", str(path), "bank"],
        capture_output=True, text=True, timeout=60,
    )
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: ") and str(path) in lines[0]
    assert "Traceback" not in r.stderr
