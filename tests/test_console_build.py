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


def _tables(dest: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every table of a console database, in a stable order (a hand's log lines without their
    row numbers: a resume writes an open hand's lines again under new ones; not the planner's
    statistics)."""
    conn = sqlite3.connect(dest)
    try:
        names = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " ORDER BY name")]
        out = {}
        for name in names:
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({name})")]
            if name == "hand_log":
                cols = cols[1:]
            quoted = ", ".join(f'"{c}"' for c in cols)
            out[name] = conn.execute(f"SELECT {quoted} FROM {name} ORDER BY {quoted}").fetchall()
        return out
    finally:
        conn.close()


def _cut(db: Path, dest: Path, seq: int) -> None:
    """A copy of the log as it stood after input ``seq`` (as an earlier start saw it)."""
    import shutil

    shutil.copy(db, dest)
    conn = sqlite3.connect(dest)
    conn.execute("DROP TRIGGER inputs_no_delete")
    conn.execute("DROP TRIGGER IF EXISTS ledger_no_delete")
    conn.execute("DELETE FROM ledger WHERE input_seq > ?", (seq,))
    conn.execute("DELETE FROM inputs WHERE seq > ?", (seq,))
    conn.commit()
    conn.close()


def test_a_grown_log_is_read_from_where_the_kept_build_stopped(tmp_path: Path) -> None:
    """The console database a start over a grown log resumes -- at any row: inside a hand,
    between a hand's end and the winner's OPEN, after a flag -- is the one a build from the
    whole log writes, table by table; only the rows added are read."""
    from crash_transcript import omaha_transcript

    src = tmp_path / "t.txt"
    src.write_text(omaha_transcript(14, seed=5), encoding="utf-8")
    db = tmp_path / "referee.db"
    replay(src, db, io.StringIO())
    whole = tmp_path / "whole.db"
    build(db, whole)
    want = _tables(whole)
    assert want["hands"] and want["flags"] and want["ledger"]
    conn = sqlite3.connect(db)
    (last,) = conn.execute("SELECT max(seq) FROM inputs").fetchone()
    conn.close()
    cuts = sorted({1, 2, last // 7, last // 3, last // 2 + 1, last - 5, last - 1})
    dest = tmp_path / "kept.db"
    for at in cuts:  # each start resumes the one before
        part = tmp_path / f"part-{at}.db"
        _cut(db, part, at)
        build(part, dest, reuse=True)
        assert Path(str(dest) + ".resume").is_file()
    grown = build(db, dest, reuse=True)
    assert grown.hands == len(want["hands"])
    assert _tables(dest) == want
    # one resume from each cut alone
    for at in cuts:
        one = tmp_path / f"one-{at}.db"
        build(tmp_path / f"part-{at}.db", one, reuse=True)
        build(db, one, reuse=True)
        assert _tables(one) == want, at


def test_a_damaged_resume_state_means_a_build_afresh(tmp_path: Path) -> None:
    dest = built(tmp_path, TRANSCRIPT)
    db = tmp_path / "referee.db"
    state = Path(str(dest) + ".resume")
    assert state.is_file() and state.stat().st_mode & 0o077 == 0  # its owner's only
    state.write_bytes(b"not a state")
    more = tmp_path / "more.txt"
    more.write_text(REVERSED, encoding="utf-8")
    replay(more, db, io.StringIO())
    grown = build(db, dest, reuse=True)
    assert grown.hands == 2 and grown.penalties == 1
    assert state.is_file()  # a new one, for the next start
