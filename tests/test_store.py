"""The SQLite store: what one saved outcome leaves behind, atomicity, guards, errors, migrations.

Real SQLite files (tmp_path) and ``:memory:``; outcomes are built by hand here so the store is
tested on its own contract (referee.outcome), independent of the service.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any, Literal

import log_rows
import pytest
import sqlite_utils
from event_helpers import LooseEvent

from referee.events import (
    ActionEvent,
    BankChange,
    BonusArea,
    Event,
    Flag,
    FlagDecided,
    HandEnd,
    HandStart,
    Penalty,
    RankChange,
    Say,
)
from referee.lang.catalog import text
from referee.outcome import LedgerEntry, Outcome, Persistence, StoredState
from referee.rules.registry import parse_event
from referee.store import (
    LATEST,
    MIGRATIONS,
    AlreadyProcessed,
    Store,
    StoreError,
    connect,
    migrate,
)

ROOM = "!room:example.org"


def msg(i: int, text: str = "コール", room: str = ROOM) -> dict[str, Any]:
    return {"kind": "message", "id": f"m{i}", "room": room, "sender": "alice", "text": text,
            "time": float(i), "dm": False}


def outcome(i: int, events: list[Event] | None = None, ledger: list[LedgerEntry] | None = None,
            room: str = ROOM) -> Outcome:
    return Outcome(f"m{i}", room, msg(i, room=room), list(events or []), list(ledger or []))


@pytest.fixture(params=["file", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    s = Store(tmp_path / "data" / "referee.db" if request.param == "file" else ":memory:")
    yield s
    s.close()


def count(s: Store, table: str) -> int:
    return int(s.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def test_implements_the_service_protocols(store: Store) -> None:
    p: Persistence = store
    st: StoredState = store
    assert p.inputs() == [] and st.balances() == {} and st.bonus_area() is None


def test_file_database_settings(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "dir" / "r.db"  # parent directories are created
    with Store(path) as s:
        assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert s.conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert s.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert s.version == LATEST
    assert path.is_file()


def test_save_and_read_back(store: Store) -> None:
    store.save(outcome(1, [ActionEvent(player="alice", action="call", amount=100),
                           Say(to="room", text="aliceがコール")]))
    store.save(outcome(2, [], room="other"))
    assert store.is_processed("m1") and store.is_processed("m2")
    assert not store.is_processed("m3")
    assert store.inputs() == [msg(1), msg(2, room="other")]
    assert store.inputs(room="other") == [msg(2, room="other")]
    assert store.events() == [
        {"event": "action", "player": "alice", "action": "call", "amount": 100},
        {"event": "say", "to": "room", "text": "aliceがコール"},
    ]
    assert store.events(room="other") == []
    # the per-event view of the log
    rows = store.conn.execute("SELECT input_seq, idx, room, kind FROM events").fetchall()
    assert rows == [(1, 0, ROOM, "action"), (1, 1, ROOM, "say")]


def test_event_json_is_exactly_to_json(store: Store) -> None:
    evs: list[Event] = [LooseEvent(event="extra_kind", note="日本語", n=None, t=(1, 2)),
                        HandStart(hand=1, button=2), Say(to="room", text="「コール」\n")]
    store.save(outcome(1, evs))
    assert store.events() == [e.to_json() for e in evs]


def test_projected_kinds_are_the_registry_classes() -> None:
    from referee.rules.registry import event_types
    from referee.store.schema import PROJECTED_TYPES

    assert PROJECTED_TYPES
    for kind, cls in PROJECTED_TYPES.items():
        assert cls.model_fields["event"].annotation == Literal[kind]
    try:
        kinds = event_types()
    except RuntimeError as e:  # another kind's class is not typed yet (tests/test_event_union)
        pytest.skip(f"the closed union is incomplete: {e}")
    assert all(kinds[k] is cls for k, cls in PROJECTED_TYPES.items())


def test_duplicate_input_writes_nothing(store: Store) -> None:
    store.save(outcome(1, [Say(to="room", text="x")], [LedgerEntry("alice", 100, "grant")]))
    with pytest.raises(AlreadyProcessed):
        store.save(outcome(1, [Penalty(player="alice", kind="interference", points=5000)],
                           [LedgerEntry("alice", -5000, "penalty", 0)]))
    assert count(store, "inputs") == 1 and count(store, "penalties") == 0
    assert store.balances() == {"alice": 100}


def test_failed_save_leaves_nothing(store: Store) -> None:
    # The second ledger row breaks a NOT NULL constraint: by then the input row and the first
    # ledger row (with its bank update) were written in the transaction; all must roll back.
    bad = outcome(1, [Say(to="room", text="x")],
                  [LedgerEntry("alice", 500, "grant"),
                   LedgerEntry(None, 1, "broken")])  # type: ignore[arg-type]
    with pytest.raises(StoreError):
        store.save(bad)
    assert not store.is_processed("m1")
    for table in ("inputs", "ledger", "bank"):
        assert count(store, table) == 0
    store.save(outcome(1, [Say(to="room", text="x")], [LedgerEntry("alice", 500, "grant")]))
    assert store.balances() == {"alice": 500}
    assert store.inputs() == [msg(1)]


@pytest.mark.parametrize(("event", "why"), [
    (LooseEvent(event="penalty", kind="interference"), "player: Field required"),
    (LooseEvent(event="flag", id="one", player="a", kind="interference", text="x",
                confidence="low"),
     "id: Input should be a valid integer"),
    (LooseEvent(event="hand_end", hand=1), "stacks: Field required"),
    (LooseEvent(event="penalty", player="a", kind="interference", points="1000"),
     "points: Input should be a valid integer"),
    (LooseEvent(event="penalty", player="a", kind="cheating", points=1000),
     "kind: Input should be"),
    (LooseEvent(event="hand_start", hand=True, button=1),
     "hand: Input should be a valid integer"),
])
def test_unprojectable_events_refused_before_writing(store: Store, event: Event, why: str
                                                     ) -> None:
    with pytest.raises(StoreError, match="cannot save") as raised:
        store.save(outcome(1, [Say(to="room", text="x"), event]))
    message = str(raised.value)
    assert why in message and "\n" not in message
    assert count(store, "inputs") == 0 and not store.is_processed("m1")


def test_a_log_event_that_does_not_fit_is_passed_over(tmp_path: Path) -> None:
    """A log written by something else than Store.save: an event of a projected kind that does
    not fit its class, or a value that is no event, is left out; the rest is projected."""
    path = tmp_path / "r.db"
    Store(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    bad = [{"event": "penalty", "player": "a", "kind": "interference", "points": "9"}, 7,
           {"event": "hand_start", "hand": 1, "button": 1}]
    log_rows.insert(conn, "x", ROOM, "{}", json.dumps(bad))
    log_rows.insert(conn, "y", ROOM, "{}", '{"event": "flag"}')
    conn.close()
    with Store(path) as s:
        assert s.project() == 2
        assert count(s, "penalties") == 0
        assert s.conn.execute("SELECT room, hand, button FROM hands").fetchall() == [(ROOM, 1, 1)]


def test_projection_is_lazy_but_always_current_when_read(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    s = Store(path)
    s.save(outcome(1, [Penalty(player="bob", kind="interference", points=5000),
                       RankChange(player="bob", mark="★", previous="")]))
    assert count(s, "penalties") == 0  # not yet in the cache table...
    assert s.rank_marks() == {"bob": "★"}  # ...but every read catches up first
    assert count(s, "penalties") == 1
    s.save(outcome(2, [Penalty(player="bob", kind="interference", points=5000)]))
    s.close()  # closing catches up too
    c = sqlite3.connect(path)
    assert c.execute("SELECT count(*) FROM penalties").fetchone()[0] == 2
    assert c.execute("SELECT upto FROM projection").fetchone()[0] == 2
    c.close()


def test_invalid_ledger_rejected_before_writing(store: Store) -> None:
    with pytest.raises(StoreError, match="points at no event"):
        store.save(outcome(1, [], [LedgerEntry("alice", 5, "x", event_index=0)]))
    with pytest.raises(StoreError, match="int"):
        store.save(outcome(1, [], [LedgerEntry("alice", 5.5, "x")]))  # type: ignore[arg-type]
    assert count(store, "inputs") == 0 and not store.is_processed("m1")


def test_penalty_points_reach_the_ledger(store: Store) -> None:
    store.save(outcome(1, [BankChange(player="bob", delta=20000, balance=20000,
                                 reason="grant")],
                       [LedgerEntry("bob", 20000, "grant", 0)]))
    pen = Penalty(player="bob", kind="interference", points=5000)
    store.save(outcome(2, [Say(to="room", text="干渉行為"), pen],
                       [LedgerEntry("bob", -5000, "penalty:interference", 1)]))
    assert store.balances() == {"bob": 15000} and store.balance("bob") == 15000
    assert store.balance("nobody") == 0
    led = store.ledger("bob")
    assert [(r["delta"], r["reason"], r["input_id"], r["event"]) for r in led] == [
        (20000, "grant", "m1", "bank"), (-5000, "penalty:interference", "m2", "penalty")]
    store.project()
    pens = store.conn.execute(
        "SELECT room, player, kind, points, chips, input_seq, event_idx FROM penalties"
    ).fetchall()
    assert pens == [(ROOM, "bob", "interference", 5000, 0, 2, 1)]


def test_flags_and_decisions(store: Store) -> None:
    store.save(outcome(1, [Flag(id=1, player="carol", kind="information_leak", text="Aある",
                                confidence="high"),
                           Flag(id=2, player="dave", kind="interference", text="下手",
                                confidence="low")]))
    store.save(outcome(2, [FlagDecided(id=2, decision="dismissed", by="dealer")]))
    # decided from another room (a DM to the bot): still the flag with that id
    store.save(outcome(3, [FlagDecided(id=1, decision="confirmed", by="dealer")],
                       room="dm"))
    store.project()
    rows = store.conn.execute(
        "SELECT flag_id, player, status, decided_input_seq FROM flags ORDER BY flag_id"
    ).fetchall()
    assert rows == [(1, "carol", "confirmed", 3), (2, "dave", "dismissed", 2)]


def test_hands_ranks_bonus_area(store: Store) -> None:
    store.save(outcome(1, [HandStart(hand=1, button=1)]))
    store.save(outcome(2, [HandEnd(hand=1, stacks={"alice": 1900, "bob": 2100}),
                           HandStart(hand=2, button=2)]))
    store.save(outcome(3, [RankChange(player="bob", mark="★", previous=""),
                           BonusArea(cards=["As", "Kd", "2c", "9h"], markers=[0, 1, 0, 0])]))
    store.save(outcome(4, [RankChange(player="bob", mark="", previous="★"),
                           BonusArea(cards=["Kd", "2c", "9h", "Th"], markers=[1, 0, 0, 0])],
                       room="deuces"))
    store.project()
    hands = store.conn.execute(
        "SELECT room, hand, button, stacks, start_input_seq, end_input_seq FROM hands"
    ).fetchall()
    assert hands == [(ROOM, 1, 1, '{"alice":1900,"bob":2100}', 1, 2), (ROOM, 2, 2, None, 2, None)]
    assert store.rank_marks() == {"bob": ""}
    assert store.bonus_area(ROOM) == (["As", "Kd", "2c", "9h"], [0, 1, 0, 0])
    assert store.bonus_area() == (["Kd", "2c", "9h", "Th"], [1, 0, 0, 0])  # the latest anywhere
    assert store.bonus_area("nowhere") is None


def test_hand_end_without_start_is_kept(store: Store) -> None:
    store.save(outcome(1, [HandEnd(hand=7, stacks={"a": 1})]))
    store.project()
    assert store.conn.execute("SELECT hand, stacks FROM hands").fetchall() == [(7, '{"a":1}')]


# --- guards: the record is append-only, the bank moves only with the ledger ----------------

@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE bank SET balance = balance + 1",
        "INSERT INTO bank(player, balance, last_ledger_id) VALUES ('eve', 10, 1)",
        "INSERT INTO bank(player, balance, last_ledger_id) VALUES ('eve', 100, 1)",
        "UPDATE bank SET balance = 0, last_ledger_id = 1",
        "DELETE FROM bank",
        "UPDATE ledger SET delta = 1",
        "DELETE FROM ledger",
        "UPDATE inputs SET body = x''",
        "DELETE FROM inputs",
    ],
)
def test_guards(store: Store, sql: str) -> None:
    store.save(outcome(1, [], [LedgerEntry("alice", 100, "grant")]))
    store.save(outcome(2, [], [LedgerEntry("alice", -30, "x")]))
    with pytest.raises(sqlite3.IntegrityError):
        store.conn.execute(sql)
    assert store.balances() == {"alice": 70}
    assert count(store, "ledger") == 2 and count(store, "inputs") == 2


# --- files, reopening, a second writer ------------------------------------------------------

def test_reopen_keeps_everything(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    with Store(path) as s:
        s.save(outcome(1, [HandStart(hand=1, button=1)], [LedgerEntry("alice", 10, "grant")]))
    with Store(path) as s:
        assert s.is_processed("m1") and s.inputs() == [msg(1)]
        assert s.balances() == {"alice": 10}
        with pytest.raises(AlreadyProcessed):
            s.save(outcome(1))
        version_rows = count(s, "schema_version")
    with Store(path) as s:  # opening again migrates nothing
        assert count(s, "schema_version") == version_rows == len(MIGRATIONS)


def test_second_writer_cannot_apply_twice(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    a, b = Store(path), Store(path)
    try:
        assert not b.is_processed("m1")
        a.save(outcome(1, [], [LedgerEntry("alice", 10, "grant")]))
        # b has not seen m1 yet; the check inside its write transaction catches it
        with pytest.raises(AlreadyProcessed):
            b.save(outcome(1, [], [LedgerEntry("alice", 10, "grant")]))
        assert b.is_processed("m1")  # learnt inside that transaction
        b.save(outcome(2))
        with pytest.raises(AlreadyProcessed):
            a.save(outcome(2))
        assert a.is_processed("m2")
        assert a.balances() == b.balances() == {"alice": 10}
        assert count(a, "inputs") == 2
    finally:
        a.close()
        b.close()


# --- unusable databases ----------------------------------------------------------------------

def test_not_sqlite(tmp_path: Path) -> None:
    p = tmp_path / "notes.txt"
    p.write_text("hello, this is not a database\n" * 100)
    with pytest.raises(StoreError, match=r"notes\.txt: .*\.recover"):
        Store(p)


def test_not_ours(tmp_path: Path) -> None:
    p = tmp_path / "other.db"
    c = sqlite3.connect(p)
    c.execute("CREATE TABLE customers (id INTEGER)")
    c.commit()
    c.close()
    with pytest.raises(StoreError, match=re.escape(text("store.not_ours_bare"))):
        Store(p)


def test_newer_schema(tmp_path: Path) -> None:
    p = tmp_path / "r.db"
    Store(p).close()
    c = sqlite3.connect(p)
    c.execute("INSERT INTO schema_version VALUES (?, 'from the future', 0)", (LATEST + 1,))
    c.commit()
    c.close()
    with pytest.raises(StoreError, match="newer"):
        Store(p)


def test_directory_and_missing(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=re.escape(text("store.not_a_file", path=str(tmp_path)))):
        Store(tmp_path)
    said = text("store.no_database", path=str(tmp_path / "missing.db"))
    with pytest.raises(StoreError, match=re.escape(said)):
        Store(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()


def test_uncreatable(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match=re.escape(str(blocker / "sub"))):
        Store(blocker / "sub" / "r.db")


# --- migrations -------------------------------------------------------------------------------

def _v1_database(path: Path) -> None:
    """A database as version 1 of the referee left it: log and ledger, no derived tables."""
    conn = connect(path)
    db = sqlite_utils.Database(conn, execute_plugins=False)
    assert migrate(db, target=1) == 1
    events = [
        [HandStart(hand=1, button=1).to_json(),
         Flag(id=1, player="carol", kind="information_leak", text="Aある",
              confidence="high").to_json()],
        [FlagDecided(id=1, decision="confirmed", by="d").to_json(),
         Penalty(player="carol", kind="information_leak", points=1000).to_json()],
        [HandEnd(hand=1, stacks={"carol": 0}).to_json(),
         BonusArea(cards=["As", "Kd", "2c", "9h"], markers=[0, 0, 0, 1]).to_json(),
         {"event": "rank", "player": "carol", "mark": "", "previous": "★"}],
    ]
    for i, evs in enumerate(events, start=1):
        conn.execute(
            "INSERT INTO inputs(input_id, room, input, events, processed_at) VALUES (?,?,?,?,?)",
            (f"m{i}", ROOM, json.dumps(msg(i)), json.dumps(evs), 0.0),
        )
    conn.execute("INSERT INTO ledger(player, delta, reason, input_seq, event_idx)"
                 " VALUES ('carol', -1000, 'penalty', 2, 1)")
    conn.close()


def test_migrate_old_version(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _v1_database(path)
    with Store(path) as s:
        assert s.version == LATEST
        assert s.balances() == {"carol": -1000}
        s.project()
        flags = s.conn.execute("SELECT flag_id, player, status FROM flags").fetchall()
        assert flags == [(1, "carol", "confirmed")]
        pens = s.conn.execute("SELECT player, points, input_seq, event_idx FROM penalties")
        assert pens.fetchall() == [("carol", 1000, 2, 1)]
        hands = s.conn.execute("SELECT hand, stacks FROM hands").fetchall()
        assert hands == [(1, '{"carol":0}')]
        assert s.bonus_area(ROOM) == (["As", "Kd", "2c", "9h"], [0, 0, 0, 1])
        assert s.rank_marks() == {"carol": ""}
        # and it keeps working at the new version
        s.save(outcome(4, [Penalty(player="carol", kind="interference", points=5000)]))
        s.project()
        assert count(s, "penalties") == 2
    # the same events saved directly at the latest version give the same derived tables
    with Store(path) as migrated, Store(tmp_path / "new.db") as fresh:
        for i, inp in enumerate(migrated.inputs()[:3], start=1):
            evs = json.loads(migrated.conn.execute(
                "SELECT events FROM log WHERE seq = ?", (i,)).fetchone()[0])
            fresh.save(Outcome(inp["id"], ROOM, inp, [parse_event(e) for e in evs]))
        fresh.save(outcome(4, [Penalty(player="carol", kind="interference", points=5000)]))
        fresh.project()
        migrated.project()
        for table in ("flags", "penalties", "hands", "ranks", "bonus_area"):
            q = f"SELECT * FROM {table} ORDER BY 1"
            assert migrated.conn.execute(q).fetchall() == fresh.conn.execute(q).fetchall()
        versions = migrated.conn.execute("SELECT version FROM schema_version ORDER BY 1")
        assert [v for (v,) in versions] == [m[0] for m in MIGRATIONS]


def test_failed_migration_keeps_previous_version(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    Store(path).close()

    def broken(db: sqlite_utils.Database) -> None:
        db.conn.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("disk on fire")

    conn = connect(path)
    db = sqlite_utils.Database(conn, execute_plugins=False)
    with pytest.raises(RuntimeError):
        migrate(db, migrations=[*MIGRATIONS, (LATEST + 1, "broken", broken)])
    assert "half_done" not in db.table_names()
    assert migrate(db) == LATEST
    conn.close()
    with Store(path) as s:  # still usable
        s.save(outcome(1))


def test_background_checkpoints_and_clean_close(tmp_path: Path) -> None:
    import time

    from referee.store.db import CHECKPOINT_EVERY

    path = tmp_path / "r.db"
    s = Store(path)
    initial = path.stat().st_size
    for i in range(CHECKPOINT_EVERY * 2 + 10):
        s.save(outcome(i, [Say(to="room", text="x" * 200)]))
    deadline = time.monotonic() + 10
    while path.stat().st_size == initial and time.monotonic() < deadline:
        time.sleep(0.05)  # the checkpoint thread copies the WAL into the file meanwhile
    assert path.stat().st_size > initial
    s.close()
    assert not Path(str(path) + "-wal").exists()
    with Store(path) as again:
        assert len(again.inputs()) == CHECKPOINT_EVERY * 2 + 10


def test_input_must_be_json(store: Store) -> None:
    bad = Outcome("m1", ROOM, {"id": "m1", "when": object()}, [])
    with pytest.raises(StoreError, match="not JSON"):
        store.save(bad)
    assert count(store, "inputs") == 0


def test_flag_penalised_in_the_same_input_is_confirmed(store: Store) -> None:
    store.save(outcome(1, [
        Flag(id=1, player="alice", kind="information_leak", text="AA", confidence="high"),
        Flag(id=2, player="bob", kind="interference", text="下手", confidence="low"),
        Penalty(player="alice", kind="information_leak", points=1000)]))
    # a later penalty of bob's does not decide his flag: a moderator does
    store.save(outcome(2, [Penalty(player="bob", kind="interference", points=5000)]))
    store.project()
    rows = store.conn.execute(
        "SELECT flag_id, status, decided_input_seq FROM flags ORDER BY flag_id").fetchall()
    assert rows == [(1, "confirmed", 1), (2, "open", None)]


_DERIVED = ("penalties", "flags", "hands", "ranks", "bonus_area")


def _derived(conn: sqlite3.Connection) -> dict[str, list[Any]]:
    return {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in _DERIVED}


def _projected_from_log(path: Path) -> dict[str, list[Any]]:
    """The derived tables projected from scratch by reading the whole log back."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for t in _DERIVED:
            conn.execute(f"DELETE FROM {t}")
        conn.execute("UPDATE projection SET upto = 0")
        from referee.store.schema import project_pending

        project_pending(conn)
        return _derived(conn)
    finally:
        conn.close()


def _projected_outcomes(start: int) -> list[Outcome]:
    i = start
    return [
        outcome(i, [HandStart(hand=i, button=1), Say(to="room", text="ハンド開始")]),
        outcome(i + 1, [Flag(id=i, player="carol", kind="information_leak", text="Aある",
                             confidence="high"),
                        Penalty(player="carol", kind="information_leak", points=1000)],
                [LedgerEntry("carol", -1000, "penalty", 1)]),
        outcome(i + 2, [RankChange(player="bob", mark="★", previous=""),
                        BonusArea(cards=["As", "Kd", "2c", "9h"], markers=[0, 1, 0, 0])]),
        outcome(i + 3, [HandEnd(hand=i, stacks={"alice": 1900, "bob": 2100})]),
        outcome(i + 4, [FlagDecided(id=i, decision="dismissed", by="dealer")]),
    ]


def test_projection_from_memory_equals_projection_from_the_log(tmp_path: Path) -> None:
    """A store projects what it saved itself without reading the log back; when another
    writer's inputs are in between, it reads the log. Both give what a full re-projection
    from the log gives."""
    path = tmp_path / "r.db"
    a, b = Store(path), Store(path)
    try:
        for o in _projected_outcomes(1):  # a alone: from memory
            a.save(o)
        a.project()
        for o in _projected_outcomes(10)[:2]:
            a.save(o)
        for o in _projected_outcomes(20):  # b in between: a must read the log
            b.save(o)
        for o in _projected_outcomes(10)[2:]:
            a.save(o)
        a.project()
        b.project()  # nothing left for b
        got = _derived(a.conn)
    finally:
        a.close()
        b.close()
    assert got["hands"] and got["flags"] and got["penalties"]
    assert got == _projected_from_log(path)
