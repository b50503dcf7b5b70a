"""The compact event log (referee/store/log.py, schema version 9): a database written before it
(tests/fixtures/store_v8.db: made by `referee replay --db` with the store of 25c5b42, the last
version-8 code, from tests/crash_transcript.py's omaha_transcript(20, seed=7) -- flags,
penalties, a grant, a snapshot) opens, is migrated, and reads back exactly what it held; rows
written after keep going on the same chain; the encoding round-trips whatever an input or
event carries."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import log_rows
import pytest

from referee.store import LATEST, Store
from referee.store.chain import first_bad
from referee.store.integrity import check
from referee.store.log import TRAIN_FIRST, Log, split_id

V8 = Path(__file__).parent / "fixtures" / "store_v8.db"


def _old_rows(path: Path) -> list[tuple[int, str, str, str, str, float, bytes]]:
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT max(version) FROM schema_version").fetchone()[0] == 8
        return conn.execute("SELECT seq, input_id, room, input, events, processed_at, chain"
                            " FROM inputs ORDER BY seq").fetchall()
    finally:
        conn.close()


def _tables(path: Path) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(path)
    try:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()
                for t in ("ledger", "bank", "penalties", "flags", "hands", "snapshots")}
    finally:
        conn.close()


def test_a_version_8_database_is_migrated_and_reads_the_same(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    shutil.copy(V8, db)
    before, tables = _old_rows(db), _tables(db)
    assert len(before) > TRAIN_FIRST  # some rows get a dictionary made on the way
    with Store(db) as s:
        assert s.version == LATEST
        after = s.conn.execute("SELECT seq, input_id, room, input, events, processed_at, chain"
                               " FROM log ORDER BY seq").fetchall()
        assert after == before  # every text byte for byte, the chain untouched
        assert s.input_ids() == [r[1] for r in before]
        assert s.inputs() == [json.loads(r[3]) for r in before]
        assert s.events() == [e for r in before for e in json.loads(r[4])]
        assert all(s.is_processed(r[1]) for r in before)
        assert s.events_of(before[5][1]) == json.loads(before[5][4])
        assert s.conn.execute("SELECT count(*) FROM codecs").fetchone()[0] == 2  # at 64, 256
        assert first_bad(s.conn) is None
    assert _tables(db) == tables  # ledger, bank, projections and the snapshot as they were
    report = check(db)
    assert report.ok and report.inputs == len(before)


def test_the_migrated_file_is_smaller_and_checks_with_its_snapshot(tmp_path: Path) -> None:
    from cli_helpers import run_cli

    from referee.adapters import resume
    from referee.service import Referee

    db = tmp_path / "old.db"
    shutil.copy(V8, db)
    Store(db).close()
    assert db.stat().st_size < V8.stat().st_size  # compacted after migrating (its snapshot
    conn = sqlite3.connect(db)                    # is most of so small a file)
    body = conn.execute("SELECT sum(length(body)) FROM inputs").fetchone()[0]
    conn.close()
    old = sum(len(r[3].encode()) + len(r[4].encode()) for r in _old_rows(V8))
    assert body < old / 3
    # its snapshot was taken by other code: a restart re-runs the whole migrated log and
    # takes a new one, which must then agree with a full re-run
    with Store(db) as s:
        assert s.latest_snapshot() is not None
        list(resume(Referee(), s))
    code, _, err = run_cli(["check", "--snapshots", "--db", str(db)])
    assert code == 0, err


def test_rows_written_after_the_migration_chain_on(tmp_path: Path) -> None:
    from test_store_chain import _message_row, tamper

    from referee.outcome import Outcome

    db = tmp_path / "old.db"
    shutil.copy(V8, db)
    with Store(db) as s:
        inp = {"kind": "message", "id": "new:1", "room": "transcript", "sender": "zed",
               "text": "こんにちは", "time": None, "dm": False}
        s.save(Outcome("new:1", "transcript", inp, []))
        assert s.is_processed("new:1") and not s.is_processed("new:2")
    assert check(db).ok
    tamper(db, _message_row(db))
    assert not check(db).ok


@pytest.mark.parametrize("input_id", ["t:1", "t:0", "t:007", "x:y:12", "$ev:server", "12",
                                      ":5", "t:", "a:١٢", "run:" + "9" * 19, ""])
def test_any_id_is_stored_and_found_as_it_is(tmp_path: Path, input_id: str) -> None:
    prefix, rest = split_id(input_id)
    assert prefix + str(rest) == input_id
    from referee.outcome import Outcome

    with Store(tmp_path / "r.db") as s:
        s.save(Outcome(input_id, "room", {"odd": [1, "\n", None]}, []))
        assert s.input_ids() == [input_id] and s.is_processed(input_id)
        assert s.inputs() == [{"odd": [1, "\n", None]}]


def test_the_encoding_round_trips_any_text(tmp_path: Path) -> None:
    """Nothing depends on which fields a row carries: any two texts come back exactly."""
    conn = sqlite3.connect(":memory:")
    log = Log(conn)
    for inp, events in [("", ""), ("{}", "[]"), ('{"a":"\\u0000\n"}', "x" * 5000),
                        ("全角　テキスト", "[" + ",".join(['{"event":"say"}'] * 300) + "]")]:
        assert log.decode(0, log.encode(0, inp, events)) == (inp, events)


def test_a_dictionary_is_made_from_the_log_and_rows_shrink(tmp_path: Path) -> None:
    from referee.outcome import Outcome

    def row(i: int) -> Outcome:
        inp = {"kind": "message", "id": f"t:{i}", "room": "r", "sender": "alice",
               "text": "コール", "time": None, "dm": False, "line": i}
        return Outcome(f"t:{i}", "r", inp, [])

    with Store(tmp_path / "r.db") as s:
        for i in range(1, TRAIN_FIRST + 50):
            s.save(row(i))
        sizes = dict(s.conn.execute("SELECT codec, avg(length(body)) FROM inputs GROUP BY codec"))
        assert set(sizes) == {0, 1} and sizes[1] < sizes[0] / 2
        assert [i["line"] for i in s.inputs()] == list(range(1, TRAIN_FIRST + 50))
    assert check(tmp_path / "r.db").ok
    conn = sqlite3.connect(tmp_path / "r.db")
    assert [r[1] for r in log_rows.rows(conn)] == [f"t:{i}" for i in range(1, TRAIN_FIRST + 50)]
    conn.close()


def test_only_a_few_primed_dictionaries_stay_in_memory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dictionary every 16 rows (instead of 16,384): memory holds codec 0, the newest and at
    most CODECS_KEPT others however many the log made, and every row still reads back (an old
    dictionary is primed again from the database)."""
    from referee.outcome import Outcome
    from referee.store import log as store_log

    monkeypatch.setattr(store_log, "TRAIN_EVERY", 16)
    monkeypatch.setattr(store_log, "TRAIN_FIRST", 16)

    def row(i: int) -> Outcome:
        inp = {"kind": "message", "id": f"t:{i}", "room": "r", "sender": "alice",
               "text": f"コール{i % 7}", "time": None, "dm": False, "line": i}
        return Outcome(f"t:{i}", "r", inp, [])

    with Store(tmp_path / "r.db") as s:
        for i in range(1, 400):
            s.save(row(i))
            assert len(s.log._codecs) <= store_log.CODECS_KEPT + 2
        made = s.conn.execute("SELECT count(*) FROM codecs").fetchone()[0]
        assert made > 2 * store_log.CODECS_KEPT
        assert [i["line"] for i in s.inputs()] == list(range(1, 400))
        assert len(s.log._codecs) <= store_log.CODECS_KEPT + 2
    assert check(tmp_path / "r.db").ok
