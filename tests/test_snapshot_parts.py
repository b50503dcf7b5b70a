"""Snapshots per room: a snapshot writes only the rooms that changed since the one before, a
few rooms per input while it is being taken (a room about to change is pickled first), and
whatever the moment a restart goes on from, the snapshot plus the inputs after it reach
exactly the state a full re-run reaches."""

from __future__ import annotations

import itertools
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee import discipline, service
from referee.adapters import resume
from referee.adapters.transcript import read
from referee.history import HistoryBook
from referee.inputs import Input
from referee.service import Referee
from referee.store import Store
from referee.store import db as store_db

sys.path.insert(0, str(Path(__file__).parent))
from crash_transcript import omaha_transcript
from flags_transcript import flags_transcript

ROOMS = ("!a:x", "!b:x", "!c:x")


def _plays() -> dict[str, list[Input]]:
    """Three rooms' omaha transcripts (chat, leaks, grants, penalties); room c plays a third
    as long as the others, then stays idle."""
    plays = {}
    for i, room in enumerate(ROOMS):
        text = omaha_transcript(12 if i < 2 else 4, seed=10 + i)
        plays[room] = [line.given for line in read(text, room=room)]
    return plays


def _interleave(plays: dict[str, list[Input]]) -> Iterator[Input]:
    iters = [iter(p) for p in plays.values()]
    while iters:
        alive = []
        for it in iters:
            nxt = next(it, None)
            if nxt is not None:
                alive.append(it)
                yield nxt
        iters = alive


def _copy(conn: sqlite3.Connection, out: Path) -> Path:
    dst = sqlite3.connect(out)
    conn.backup(dst)
    dst.close()
    return out


def _state(ref: Referee) -> dict[str, Any]:
    """The comparable state and every room's hand history (``!hand N``)."""
    return {**ref.state(), "hands": {r: ref.history.hands(r) for r in sorted(ROOMS)}}


def _from_snapshot(db: Path) -> tuple[dict[str, Any], list[str]]:
    with Store(db) as s:
        ref = Referee()
        warnings = resume(ref, s)
        return _state(ref), warnings


def _full(db: Path) -> dict[str, Any]:
    with Store(db) as s:
        ref = Referee()
        ref.rebuild(s.inputs())
        return _state(ref)


def _parts(conn: sqlite3.Connection) -> dict[str, list[int]]:
    got: dict[str, list[int]] = {}
    for room, seq in conn.execute("SELECT room, seq FROM snapshot_parts ORDER BY room, seq"):
        got.setdefault(room, []).append(seq)
    return got


@pytest.fixture
def small_snapshots(monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot every 40 inputs, one room pickled per input besides the input's own, the
    last 3 hands kept per room: many snapshots, each spread over several inputs, and finished
    hands dropped from the history all along."""
    monkeypatch.setattr(store_db, "SNAPSHOT_SPACING", 40)
    monkeypatch.setattr(service, "PARTS_PER_INPUT", 1)
    monkeypatch.setattr(HistoryBook.__init__, "__defaults__", (3,))


def _played(ref: Referee, s: Store, heads: list[int]) -> Iterator[int]:
    """The three rooms' inputs through ``ref`` on ``s``, the number of each yielded after it
    is processed; each new snapshot head appended to ``heads``."""
    for n, inp in enumerate(_interleave(_plays()), start=1):
        ref.process(inp)
        head = s.conn.execute("SELECT seq FROM snapshots").fetchone()
        if head is not None and (not heads or head[0] != heads[-1]):
            heads.append(head[0])
        yield n


@pytest.mark.usefixtures("small_snapshots")
def test_any_moment_resumes_to_the_full_rerun_and_idle_rooms_are_not_written(
    tmp_path: Path,
) -> None:
    checked = 0
    heads: list[int] = []
    with Store(tmp_path / "live.db") as s:
        ref = Referee(persistence=s)
        for n in _played(ref, s, heads):
            if n % 53 == 0:  # a restart now: mid-hand, mid-snapshot, whatever is stored
                db = _copy(s.conn, tmp_path / f"at{n}.db")
                state, warnings = _from_snapshot(db)
                assert warnings == []
                assert state == _full(db)
                checked += 1
        parts = _parts(s.conn)
        last_head = heads[-1]
        kept = {r: sorted(ref.history.room_hands(r)) for r in ROOMS}
    assert all(len(keys) == 3 for keys in kept.values())
    with Store(tmp_path / "live.db") as s:  # closed: the closing snapshot's drops are done
        # each finished hand is stored once, and only those still kept
        stored: dict[str, list[int]] = {}
        for room, key in s.conn.execute("SELECT room, key FROM snapshot_hands ORDER BY 1, 2"):
            stored.setdefault(room, []).append(key)
    assert stored == kept
    assert checked >= 5 and len(heads) >= 5
    # only the newest part of each room at or before the head is kept (and those of a
    # snapshot being taken after it)
    assert all(len([q for q in seqs if q <= last_head]) == 1 for seqs in parts.values())
    # room c went idle early: its part is from long before the newest head, never rewritten
    (idle,) = parts["!c:x"]
    assert idle < heads[-3]
    assert max(parts["!a:x"]) > heads[-3]
    # and a restart from the database as the run left it (the closing snapshot) re-runs
    # nothing and equals the full re-run
    state, warnings = _from_snapshot(tmp_path / "live.db")
    assert warnings == [] and state == _full(tmp_path / "live.db")


@pytest.mark.usefixtures("small_snapshots")
def test_a_room_is_pickled_before_it_changes_while_a_snapshot_is_taken(
    tmp_path: Path,
) -> None:
    """With a snapshot begun and every room still to pickle, an input to one of them pickles
    that room first: its part is the room as it was at the snapshot's seq."""
    with Store(tmp_path / "live.db") as s:
        ref = Referee(persistence=s)
        plays = _plays()
        for inp in _interleave(plays):
            ref.process(inp)
            taking = ref._taking
            if taking is not None and len(taking.pending) >= 2:
                break
        assert taking is not None
        room = sorted(taking.pending)[-1]  # the last the per-input pickling would reach
        before = ref._part(room)
        nxt = next(i for i in plays[room] if not ref.is_processed(i.id))
        ref.process(nxt)
        assert room not in taking.pending
        # pickled before the input changed it (it was handed to the store with that input)
        got = s.conn.execute("SELECT state FROM snapshot_parts WHERE room = ? AND seq = ?",
                             (room, taking.seq)).fetchone()
        assert got is not None and got[0] == before


def test_old_snapshots_are_not_used_and_a_new_one_is_written(tmp_path: Path) -> None:
    """A database whose snapshot is of the whole service in one row (before snapshots per
    room, so other code): a restart re-runs everything, says so, and saves a snapshot of
    every room at once."""
    db = tmp_path / "old.db"
    with Store(db) as s:
        ref = Referee(persistence=s)
        for inp in _interleave(_plays()):
            ref.process(inp)
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM snapshot_parts")
    conn.execute("UPDATE snapshots SET state = ?, version = 'older'", (b"\x80\x05K\x01.",))
    conn.commit()
    conn.close()
    state, warnings = _from_snapshot(db)
    assert len(warnings) == 1 and "another version" in warnings[0]
    assert state == _full(db)
    with Store(db) as s:
        assert set(_parts(s.conn)) == set(ROOMS)
    assert _from_snapshot(db) == (state, [])


@pytest.mark.usefixtures("small_snapshots")
def test_a_command_from_elsewhere_pickles_the_room_it_changes_first(tmp_path: Path) -> None:
    """A moderator's ``!confirm`` in a private room charges the penalty at the flag's table:
    while a snapshot waits for that room, the room is pickled before the command changes it,
    and a restart from the result equals a full re-run."""
    from referee.inputs import Message

    with Store(tmp_path / "live.db") as s:
        ref = Referee(moderators=["mod"], persistence=s)
        ref.record_configuration()  # as the adapters do: a re-run knows the moderator
        taking = None
        for inp in _interleave(_plays()):
            ref.process(inp)
            taking = ref._taking
            open_flags = [f for f in ref.flags.values() if f.status == "open"
                          and taking is not None and f.room in taking.pending]
            if open_flags:
                break
        assert taking is not None and open_flags
        flag = open_flags[0]
        before = ref._part(flag.room)
        out = ref.process(Message("dm:1", "!dm-mod:x", "mod", f"!confirm {flag.id}", dm=True))
        assert out is not None and any(e.event == "flag_decided" for e in out.events)
        assert flag.room not in taking.pending
        got = s.conn.execute("SELECT state FROM snapshot_parts WHERE room = ? AND seq = ?",
                             (flag.room, taking.seq)).fetchone()
        assert got is not None and got[0] == before
        assert ref._part(flag.room) != before  # the command did change the room
        db = _copy(s.conn, tmp_path / "copy.db")
    state, warnings = _from_snapshot(db)
    assert warnings == [] and state == _full(db)


@pytest.mark.usefixtures("small_snapshots")
def test_the_spacing_grows_with_the_tables_and_a_restart_still_equals_the_full_rerun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three tables at 30 inputs each: a snapshot every 90 inputs at least, not every 40."""
    monkeypatch.setattr(store_db, "SPACING_PER_TABLE", 30)
    heads: list[int] = []
    with Store(tmp_path / "live.db") as s:
        for n in _played(Referee(persistence=s), s, heads):
            if n == 200:
                db = _copy(s.conn, tmp_path / "at200.db")
    assert len(heads) >= 2
    assert all(b - a >= 90 for a, b in itertools.pairwise(heads))
    state, warnings = _from_snapshot(db)
    assert warnings == [] and state == _full(db)


@pytest.mark.usefixtures("small_snapshots")
def test_a_restart_across_the_memory_horizon_equals_the_full_rerun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Flags, penalties and charged hands forgotten all along (the newest 8 flags and 2
    penalties kept): whatever the moment, the snapshot plus the inputs after it remember and
    forget exactly what the full re-run does."""
    monkeypatch.setattr(discipline, "FLAGS_KEPT", 8)
    monkeypatch.setattr(discipline, "PENALTIES_KEPT", 2)
    plays = {room: [line.given for line in read(flags_transcript(25, seed=20 + i), room=room)]
             for i, room in enumerate(ROOMS[:2])}
    checked = 0
    with Store(tmp_path / "live.db") as s:
        ref = Referee(persistence=s)
        for n, inp in enumerate(_interleave(plays), start=1):
            ref.process(inp)
            if n % 41 == 0:
                db = _copy(s.conn, tmp_path / f"at{n}.db")
                state, warnings = _from_snapshot(db)
                assert warnings == []
                assert state == _full(db)
                checked += 1
        open_forgotten, penalties_forgotten, dropped = ref.state()["forgotten"]
    assert checked >= 5
    assert sum(open_forgotten.values()) > 0 and penalties_forgotten and dropped > 0
