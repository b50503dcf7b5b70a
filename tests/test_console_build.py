"""What the console's pages say, built with :func:`referee.console.build` from replayed
transcripts (no server): a hand page lists every player dealt in, in seat order -- not only
those who acted (a small blind who won when everyone folded to them never acted); a penalty
reversed by a !dismiss after its !confirm is linked to its flag, caused by the player's words,
marked returned and not counted as forfeit on the bank page."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

from referee.adapters.transcript import replay
from referee.console import build

TRANSCRIPT = """# table: omaha rules=loj level=1
# seat 1: alice 10000
# seat 2: bob 10000
# seat 3: carol 10000
# button: 3
# deal: alice=Ah Ad Kc Qc | bob=Kh Kd 8c 4c | carol=Qh Qd 6c 5c | board=2c 7d 9h Js 3s
carol: フォールド
bob: フォールド
"""


def built(tmp_path: Path, transcript: str) -> Path:
    src = tmp_path / "t.txt"
    src.write_text(transcript, encoding="utf-8")
    db = tmp_path / "referee.db"
    replay(src, db, io.StringIO())
    dest = tmp_path / "console.db"
    build(db, dest)
    return dest


REVERSED = """# table: omaha level=1
# moderator: dealer
# bank: bob 9000
# seat 1: alice 2000
# seat 2: bob 2000
# seat 3: carol 2000
# deal: alice=Ah Kh Qd Jd | bob=2c 3c 4d 5d | carol=9h 9d 8s 7s | board=Ts 9s 8c 2h 3h
[21:00:01] bob: なんでそこでコールするの
[21:00:04] dealer: !confirm 1
[21:00:05] dealer: !dismiss 1
"""


def test_a_reversed_penalty_is_linked_to_its_flag_and_not_forfeit(tmp_path: Path) -> None:
    dest = built(tmp_path, REVERSED)
    with sqlite3.connect(dest) as conn:
        row = conn.execute('SELECT "フラグ", "発言者", "原因の発言", "返還", "ポイント"'
                           " FROM penalties").fetchone()
        (flag_no,) = conn.execute('SELECT "番号" FROM flags').fetchone()
        bank = conn.execute('SELECT "ペナルティ数", "没収ポイント" FROM bank'
                            ' WHERE "プレイヤー" = ?', ("bob",)).fetchone()
    assert row[:3] == (flag_no, "bob", "なんでそこでコールするの")
    assert row[3] is not None and row[4] == 5000
    assert bank == (0, 0)


def test_records_penalties_name_the_flag_and_the_reversal(tmp_path: Path) -> None:
    from referee.store import records

    src = tmp_path / "t.txt"
    src.write_text(REVERSED, encoding="utf-8")
    db = tmp_path / "referee.db"
    replay(src, db, io.StringIO())
    (row,) = records(db, "penalties")
    assert row["flag"] == 1 and row["reversed"] is not None


def test_every_dealt_player_is_a_participant(tmp_path: Path) -> None:
    dest = built(tmp_path, TRANSCRIPT)
    with sqlite3.connect(dest) as conn:
        (players,) = conn.execute('SELECT "参加者" FROM hands').fetchone()
    assert players.split(", ") == ["alice", "bob", "carol"]


def test_a_kept_console_database_is_reused_until_the_log_grows(tmp_path: Path) -> None:
    dest = built(tmp_path, TRANSCRIPT)
    db = tmp_path / "referee.db"
    first = build(db, dest, reuse=True)
    before = dest.stat().st_mtime_ns
    again = build(db, dest, reuse=True)
    assert dest.stat().st_mtime_ns == before  # not written again
    assert (again.hands, again.penalties, again.flags) == (first.hands, first.penalties,
                                                            first.flags) == (1, 0, 0)
    more = tmp_path / "more.txt"
    more.write_text(REVERSED, encoding="utf-8")
    replay(more, db, io.StringIO())
    grown = build(db, dest, reuse=True)
    assert dest.stat().st_mtime_ns != before and grown.hands == 2 and grown.penalties == 1
    assert build(db, dest).hands == 2  # without reuse: always rebuilt
