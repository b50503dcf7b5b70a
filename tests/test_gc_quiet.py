"""The collector of a long-running bot (referee/adapters/gc_tuning.py): a full collection at a
quiet moment freezes its survivors, so the next one walks only what came since; a cycle among
frozen objects is found by the complete collection that the frozen set's growth brings; and
the referee's own work -- tables opened, played, replaced -- leaves no cyclic garbage, which is
what makes freezing its state safe."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.adapters import gc_tuning
from referee.adapters.transcript import replay_events
from referee.service import Referee

TRANSCRIPTS = Path(__file__).resolve().parent / "transcripts"


@pytest.fixture
def tuned(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    before = gc.get_threshold()
    monkeypatch.setattr(gc_tuning, "_tuned", False)
    monkeypatch.setattr(gc_tuning, "QUIET_EVERY", 1)
    try:
        gc_tuning.tune()
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
        gc_tuning._tuned = False


def _until_full() -> int:
    """Quiet moments until one makes a full collection; how many it took."""
    for n in range(1, 1000):
        gc_tuning.answered()
        if gc_tuning.quiet() == 2:
            return n
    raise AssertionError("no full collection at a quiet moment")


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


@pytest.mark.usefixtures("tuned")
def test_a_quiet_full_collection_freezes_what_survived_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gc_tuning, "FROZEN_SLACK", 10**9)  # no complete collection here
    kept = [_Node() for _ in range(5_000)]  # the state: made after start-up, kept
    frozen = gc.get_freeze_count()
    assert _until_full() > 1
    assert gc.get_freeze_count() >= frozen + len(kept)
    assert not gc.get_objects(2)  # the next full collection walks only what comes after
    # a frozen object that dies is freed by reference counting and leaves the frozen set
    before = gc.get_freeze_count()
    del kept
    assert gc.get_freeze_count() <= before - 5_000


@pytest.mark.usefixtures("tuned")
def test_a_cycle_among_frozen_objects_is_found_once_the_frozen_set_grows(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gc_tuning, "FROZEN_SLACK", 10**9)
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    _until_full()  # frozen with the rest
    del a, b
    assert gone() is not None  # a cycle among frozen objects: no collection sees it
    complete = gc_tuning.complete
    monkeypatch.setattr(gc_tuning, "FROZEN_SLACK", 0)
    monkeypatch.setattr(gc_tuning, "FROZEN_GROWTH", 0.5)  # the frozen set "grew" past it
    _until_full()
    assert gc_tuning.complete == complete + 1
    assert gone() is None


def test_the_referees_work_leaves_no_cyclic_garbage() -> None:
    """One referee for every service transcript and the first of each game's, each table
    replacing the one before in the same room: once everything is loaded (the same files
    through another referee first), reference counting frees all the work leaves behind."""
    files = sorted((TRANSCRIPTS / "service").glob("*.txt"))
    files += [sorted(d.glob("*.txt"))[0] for d in sorted(TRANSCRIPTS.iterdir())
              if d.is_dir() and d.name != "service" and list(d.glob("*.txt"))]
    warm = Referee()
    for f in files:  # loads every grammar, cache and lazy import
        list(replay_events(f, referee=warm))
    ref = Referee()  # the one measured (a referee applies each input once)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for f in files:
            list(replay_events(f, referee=ref))
        gc.set_debug(gc.DEBUG_SAVEALL)
        found = gc.collect()
        kinds = sorted({type(o).__name__ for o in gc.garbage})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.collect()
        if enabled:
            gc.enable()
    assert found == 0, kinds
    assert ref.tables_opened >= len(files)
