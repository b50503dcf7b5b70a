"""Save, or it did not happen: when the store cannot save an input (a full disk, a figure
SQLite cannot hold), the live game is exactly what the store holds -- as if the input had
never come -- and the same input sent again is taken as new. A real SQLite file; the full disk
is SQLite's own (``PRAGMA max_page_count``: SQLITE_FULL, the error a full disk gives)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from referee.inputs import Message
from referee.service import Referee
from referee.store import Store, StoreError

ROOM = "!t"


def fresh_from(path: Path) -> Referee:
    """What a restart (or ``referee replay --db``) makes of the stored inputs."""
    s = Store(path)
    try:
        ref = Referee(moderators=["dealer"])
        ref.persistence = s
        ref.reload()
        state = ref.state()
        ref.persistence = None
        ref.last_state = state  # type: ignore[attr-defined]
        return ref
    finally:
        s.close()


def _comparable(state: dict) -> dict:
    return {k: state[k] for k in ("balances", "tables", "flags", "penalties", "ranks")}


def test_a_failed_save_changes_nothing_and_the_resent_input_is_taken(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    store = Store(path)
    ref = Referee(moderators=["dealer"], rng=random.Random(5))
    ref.persistence = store
    n = 0

    def say(who: str, text: str) -> None:
        nonlocal n
        n += 1
        ref.process(Message(f"m{n}", ROOM, who, text, time=1000.0 + n))

    for p in ("alice", "bob"):
        say("dealer", f"!grant @{p} 2000")
    say("dealer", "!open omaha level=1")
    say("alice", "!sit")
    say("bob", "!sit")
    say("dealer", "!deal")
    before = ref.state()
    # the disk is full now: not one more page
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count = {pages}")
    failed = 0
    for i in range(200):  # until a save needs a new page
        text = "!grant @carol 1 " + "x" * 2000
        try:
            ref.process(Message(f"full{i}", ROOM, "dealer", text, time=2000.0 + i))
        except StoreError:
            failed = i
            break
    else:
        pytest.fail("the full database never refused a save")
    live = ref.state()
    # the live game is what the store holds (the input that failed is not in it)
    store.conn.execute("PRAGMA max_page_count = 1073741823")
    assert _comparable(live) == _comparable(fresh_from(path).last_state)  # type: ignore[attr-defined]
    assert live["tables"] == before["tables"]
    assert ref.bank.balance("carol") == failed
    # sent again, it is new (never half-applied, never "already processed")
    out = ref.process(Message(f"full{failed}", ROOM, "dealer", "!grant @carol 1 again",
                              time=3000.0))
    assert out is not None and any(e.event == "bank" for e in out.events)
    assert ref.bank.balance("carol") == failed + 1
    store.close()


def test_a_figure_sqlite_cannot_hold_is_refused_where_it_is_read(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db")
    ref = Referee(moderators=["dealer"])
    ref.persistence = store
    out = ref.process(Message("g1", ROOM, "dealer", "!grant @alice 99999999999999999999999"))
    assert out is not None
    assert [e.event for e in out.events] == ["say"]  # a coded refusal, nothing saved but that
    assert ref.bank.balance("alice") == 0
    store.close()


def test_a_name_with_nothing_of_a_name_is_refused() -> None:
    ref = Referee(moderators=["dealer"])
    for arg in ("@", "@@", "!", "@-"):
        out = ref.process(Message(f"n{arg}", ROOM, "dealer", f"!grant {arg} 5"))
        assert out is not None and [e.event for e in out.events] == ["say"], arg
    assert ref.bank.balances() == {} or not any(ref.bank.balances().values())
