"""The hand replayer's figures (:mod:`referee.records.replay`) against the events: for every
transcript of the four games (and the service's and tournaments' tables), the stacks after the
last step are the ``hand_end`` stacks, the pot is empty at the end, never negative on the way,
and holds exactly what the ``rake`` event says was raked from (``pot``) when the rake is taken;
the hand's books (stakes, payouts) agree with the stacks and with a house game's own books;
the console database stores those very steps for the hand's page."""

from __future__ import annotations

import io
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.adapters.transcript import replay
from referee.console import build
from referee.records.replay import HandReplay
from referee.records.visitor import Entry, log_entries, walk

ROOT = Path(__file__).resolve().parent
FOLDERS = ("omaha", "holdem_aa", "seven", "deuces", "service", "tournament", "language")
TRANSCRIPTS = sorted(p for f in FOLDERS for p in (ROOT / "transcripts" / f).glob("*.txt"))


def _rel(p: Path) -> str:
    return f"{p.parent.name}/{p.stem}"


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=_rel)
def test_replayer_figures_equal_the_events(path: Path, tmp_path: Path) -> None:
    db = tmp_path / "referee.db"
    replay(path, db=db, out=io.StringIO())
    conn = sqlite3.connect(db)
    r = HandReplay()
    walk(log_entries(conn), r)
    conn.close()
    for h in r.done:
        assert h.end_stacks is not None
        assert h.steps, (h.room, h.hand)
        pot_before = 0
        for i, step in enumerate(h.steps):
            assert step.pot >= 0, (h.hand, i, step.kind, step.pot)
            if step.kind == "rake" and step.data.get("pot") is not None:
                assert pot_before == step.data["pot"], (h.hand, i)
            pot_before = step.pot
        last = h.steps[-1]
        assert last.pot == 0, (h.hand, last.kind)
        assert {p: last.stacks[p] for p in h.end_stacks} == h.end_stacks, h.hand
        # the hand's books: what the players' stacks gained is what was paid less what was
        # staked; a house game's own books (the ``house`` event) say the same
        assert sum(last.stacks.values()) - sum(c for _, _, c in h.seats) == h.payouts - h.stakes
        for step in h.steps:
            if step.kind == "house":
                assert (step.data["staked"], step.data["paid"]) == (h.stakes, h.payouts)
    # the console database keeps the same steps for the hand's page
    dest = tmp_path / "console.db"
    build(db, dest)
    conn = sqlite3.connect(dest)
    stored = {(s["table"], s["hand"]): s for s in (
        json.loads(v) for (v,) in conn.execute("SELECT 経過 FROM replays"))}
    conn.close()
    for h in r.done:
        page = stored[(h.table, h.hand)]
        assert "room" not in page
        assert page["steps"] == [st.to_json() for st in h.steps]
        assert len(page["lines"]) == len(h.steps) and all(page["lines"])


def _without_posts(entries: Iterator[Entry]) -> Iterator[Entry]:
    """The log as it was written before the ``posted`` kind (no such event)."""
    for e in entries:
        yield Entry(e.seq, e.room, e.input, e.processed_at,
                    [d for d in e.raw if not (isinstance(d, dict) and d.get("event") == "posted")])


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=_rel)
def test_the_posts_read_from_the_events_are_those_inferred_in_older_logs(
        path: Path, tmp_path: Path) -> None:
    """Blinds and antes are ``posted`` events; a log from before them still replays, its posts
    inferred from ``hand_seats``, to the very same steps."""
    db = tmp_path / "referee.db"
    replay(path, db=db, out=io.StringIO())
    conn = sqlite3.connect(db)
    typed, inferred = HandReplay(), HandReplay()
    walk(log_entries(conn), typed)
    walk(_without_posts(log_entries(conn)), inferred)
    kinds = [d.get("event") for e in log_entries(conn) for d in e.raw]
    conn.close()
    if "hand_seats" in kinds and any(
            h.steps and h.steps[0].kind == "post" for h in typed.done):
        assert "posted" in kinds  # the engines say what was posted
    assert [h.to_json() for h in typed.done] == [h.to_json() for h in inferred.done]
