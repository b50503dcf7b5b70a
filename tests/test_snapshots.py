"""Snapshots: a restart goes on from the newest snapshot and re-runs only the inputs
after it, reaching exactly the state a full re-run reaches; an unusable snapshot (corrupted,
taken by another version) falls back to the full re-run with a warning; memory does not collect
the ids of the history it re-runs."""

from __future__ import annotations

import io
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.adapters import resume
from referee.adapters.transcript import replay
from referee.service import Referee, SnapshotError, snapshot_version
from referee.store import Store

sys.path.insert(0, str(Path(__file__).parent))
from crash_transcript import omaha_transcript


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database filled by ``referee replay --db`` with 40 hands (chat, leaks, grants)."""
    d = tmp_path_factory.mktemp("snap")
    transcript = d / "t.txt"
    transcript.write_text(omaha_transcript(40, seed=3), encoding="utf-8")
    db = d / "h.db"
    replay(transcript, db, io.StringIO())
    return db


def _copy(db: Path, tmp_path: Path) -> Path:
    out = tmp_path / "copy.db"
    src, dst = sqlite3.connect(db), sqlite3.connect(out)
    src.backup(dst)
    src.close()
    dst.close()
    return out


def _full(db: Path) -> dict[str, Any]:
    with Store(db) as s:
        ref = Referee()
        ref.rebuild(s.inputs())
        return ref.state()


class _Counting:
    """The store, counting the inputs a resume streams from it."""

    def __init__(self, store: Store) -> None:
        self.store, self.streamed = store, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def stream_inputs(self, after: int = 0) -> Any:
        for inp in self.store.stream_inputs(after):
            self.streamed += 1
            yield inp


def _resumed(db: Path) -> tuple[dict[str, Any], list[str], int]:
    with Store(db) as s:
        counting = _Counting(s)
        ref = Referee()
        warnings = resume(ref, counting)
        ref.persistence = s
        return ref.state(), warnings, counting.streamed


def test_a_replay_leaves_a_snapshot_at_a_hand_end(history: Path) -> None:
    with Store(history) as s:
        snap = s.latest_snapshot()
        assert snap is not None
        seq, version, _ = snap
        assert version == snapshot_version()
        (events,) = s.conn.execute("SELECT events FROM log WHERE seq = ?", (seq,)).fetchone()
        n = s.conn.execute("SELECT count(*) FROM inputs").fetchone()[0]
    # group commit writes it with the group that held a hand's end: the last input of a group
    assert 0 < seq <= n and (seq == n or seq % 64 == 0 or '"hand_end"' in events)


def test_resume_from_the_snapshot_equals_a_full_rerun(history: Path, tmp_path: Path) -> None:
    db = _copy(history, tmp_path)
    with Store(db) as s:
        seq = s.latest_snapshot()[0]  # type: ignore[index]
        total = s.conn.execute("SELECT count(*) FROM inputs").fetchone()[0]
    state, warnings, streamed = _resumed(db)
    assert warnings == []
    assert streamed == total - seq  # only the inputs after the snapshot were re-run
    assert state == _full(db)


def test_a_corrupted_snapshot_falls_back_to_the_full_rerun(history: Path, tmp_path: Path) -> None:
    db = _copy(history, tmp_path)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE snapshots SET state = ?", (b"\x80\x05garbage",))
    conn.commit()
    conn.close()
    state, warnings, streamed = _resumed(db)
    assert len(warnings) == 1 and "re-running every input" in warnings[0]
    with Store(db) as s:
        total = s.conn.execute("SELECT count(*) FROM inputs").fetchone()[0]
        fresh = s.latest_snapshot()
    assert streamed == total
    assert state == _full(db)
    # and the fallback saved a good snapshot at once: the next start uses it
    assert fresh is not None and fresh[0] == total
    again, warnings2, streamed2 = _resumed(db)
    assert warnings2 == [] and streamed2 == 0 and again == state


def test_a_snapshot_of_another_version_is_not_used(history: Path, tmp_path: Path) -> None:
    db = _copy(history, tmp_path)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE snapshots SET version = 'older'")
    conn.commit()
    conn.close()
    state, warnings, _ = _resumed(db)
    assert "another version" in warnings[0]
    assert state == _full(db)


def test_restore_refuses_without_changing_anything() -> None:
    ref = Referee(moderators=["m"])
    before = ref.state()
    for version, blob in [("x", b""), (snapshot_version(), b"not a pickle"),
                          (snapshot_version(), b"\x80\x05K\x01.")]:
        with pytest.raises(SnapshotError):
            ref.restore(version, blob)
        assert ref.state() == before


def test_configured_moderators_are_not_frozen_into_a_snapshot(history: Path) -> None:
    with Store(history) as s:
        snap = s.latest_snapshot()
    assert snap is not None
    ref = Referee(moderators=["newmod"])
    ref.restore(snap[1], snap[2])
    # the transcript's "# moderator: dealer" came from an input: kept; the configured one stays
    assert ref.moderators == {"newmod", "dealer"}


def test_a_rebuild_onto_a_store_collects_no_ids(history: Path) -> None:
    with Store(history) as s:
        ref = Referee(persistence=s)
        ref.rebuild(s.stream_inputs())
        assert ref.processed == set()
        first = s.conn.execute("SELECT input FROM log ORDER BY seq LIMIT 1").fetchone()[0]
        import json

        assert ref.process(json.loads(first)) is None  # still refused: the store knows it


def test_snapshot_differences_finds_none_and_finds_a_tampered_one(
    history: Path, tmp_path: Path
) -> None:
    import pickle

    from referee.adapters import snapshot_differences

    db = _copy(history, tmp_path)
    with Store(db) as s:
        assert snapshot_differences(s) == []
        blob = s.conn.execute("SELECT state FROM snapshots").fetchone()[0]  # the head
        state = pickle.loads(blob)
        state["ranks"] = {"alice": "★"}  # a snapshot that disagrees with the log
        s.conn.execute("UPDATE snapshots SET state = ?", (pickle.dumps(state),))
        diffs = snapshot_differences(s)
    assert len(diffs) == 1 and diffs[0].startswith("ranks:")
