"""The store's hot-path pieces used by ``referee replay --db``: the per-event JSON it writes
(and hands back for printing) and the exclusive locking mode."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest
from event_helpers import LooseEvent
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.adapters.transcript import event_line, replay
from referee.events import ActionEvent, Event, HandStart, Say
from referee.outcome import Outcome
from referee.store import Store
from referee.store.db import event_json

ROOM = "!room:example.org"

_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30)


@settings(max_examples=examples(200), deadline=None)
@given(to=_text, text=_text, player=_text, action=_text,
       amount=st.integers(min_value=0, max_value=10**12),
       raise_to=st.none() | st.integers(min_value=0, max_value=10**12))
def test_event_json_is_pydantics_text(to: str, text: str, player: str, action: str,
                                      amount: int, raise_to: int | None) -> None:
    for ev in (Say(to=to, text=text),
               ActionEvent(player=player, action=action, amount=amount, to=raise_to)):
        want = type(ev).__pydantic_serializer__.to_json(ev, exclude_none=True).decode()
        assert event_json(ev) == want
        assert event_line(ev) == want + "\n"
        assert json.loads(want) == ev.to_json()


def test_last_json_is_what_was_stored(tmp_path: Path) -> None:
    evs: list[Event] = [Say(to=ROOM, text="「コール」\n"), HandStart(hand=3, button=1),
                        LooseEvent(event="extra", note="日本語", n=None)]
    with Store(tmp_path / "r.db") as s:
        s.save(Outcome("m1", ROOM, {"kind": "message", "id": "m1", "room": ROOM}, evs, []))
        assert s.last_events is evs
        stored = s.conn.execute("SELECT events FROM log").fetchone()[0]
        assert stored == "[" + ",".join(s.last_json) + "]"
        assert [json.loads(j) for j in s.last_json] == [e.to_json() for e in evs]


def test_exclusive_store_keeps_others_out_until_closed(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    s = Store(db, exclusive=True)
    for i in range(3):
        s.save(Outcome(f"m{i}", ROOM, {"kind": "message", "id": f"m{i}", "room": ROOM}, [], []))
    other = sqlite3.connect(db, timeout=0.05)
    with pytest.raises(sqlite3.OperationalError):
        other.execute("SELECT count(*) FROM inputs").fetchone()
    s.close()
    assert other.execute("SELECT count(*) FROM inputs").fetchone()[0] == 3
    other.close()
    with Store(db) as again:  # an ordinary (shared) open reads what the exclusive one wrote
        assert again.input_ids() == ["m0", "m1", "m2"]


def test_replay_prints_the_same_with_and_without_db(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text(
        "# table: omaha\n# seat 1: alice 1000\n# seat 2: bob 1000\n# button: 1\n"
        "# deal: alice=As Ah Kd Kc | bob=2c 3d 4h 5s | board=7c 8d 9h Tc Js\n"
        "alice: コール\nbob: チェック\nalice: ベット 20\nbob: コール\n",
        encoding="utf-8")
    outs: list[str] = []
    for db in (None, tmp_path / "r.db"):
        buf = io.StringIO()
        replay(path, db, buf)
        outs.append(buf.getvalue())
    assert outs[0] == outs[1]
    assert outs[0].count("\n") > 5
    again = io.StringIO()
    replay(path, tmp_path / "r.db", again)  # everything already saved: nothing printed
    assert again.getvalue() == ""
