"""A console started over a log that grew since its database was kept serves the kept one at
once and reads the rows added behind it (:class:`referee.console.CatchUp`): its pages carry a
notice until the served database is swapped to the one caught up, which equals a build from the
whole log, table by table; a changed or damaged log is never read (the pages stay on what was
kept, with the reason); a catch-up stopped or crashed at any point leaves kept files that the
next start resumes to the same tables. In-process: the Datasette the console serves, asked
through its own client (no port, no timing)."""

from __future__ import annotations

import asyncio
import hashlib
import io
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from log_rows import message_row_after
from test_console_build import _cut, _tables
from test_store_chain import tamper

from referee.adapters.transcript import replay
from referee.console import CatchUp, build, served_as_kept, verified_head
from referee.console_base import Progress, Stopped

pytest.importorskip("datasette")


def _log(tmp_path: Path, hands: int = 14) -> tuple[Path, int]:
    """A replayed omaha log and its last input's seq."""
    from crash_transcript import omaha_transcript

    src = tmp_path / "t.txt"
    src.write_text(omaha_transcript(hands, seed=5), encoding="utf-8")
    db = tmp_path / "referee.db"
    replay(src, db, io.StringIO())
    conn = sqlite3.connect(db)
    (last,) = conn.execute("SELECT max(seq) FROM inputs").fetchone()
    conn.close()
    return db, int(last)


def _kept_from(tmp_path: Path, db: Path, at: int) -> Path:
    """A console database kept (with its resume state) from the log as it stood at ``at``."""
    part = tmp_path / f"part-{at}.db"
    _cut(db, part, at)
    dest = tmp_path / "console.db"
    build(part, dest, reuse=True)
    return dest


def _pages(ds: Any) -> tuple[str | None, int]:
    """The front page's catch-up notice (its state code, None without one) and the hands the
    console serves."""
    async def ask() -> tuple[str, int]:
        front = await ds.client.get("/")
        count = await ds.client.get("/referee.json?sql=select+count(*)+as+n+from+hands"
                                    "&_shape=array")
        return front.text, int(count.json()[0]["n"])

    html, hands = asyncio.run(ask())
    found = re.search(r'data-catch-up="(\w+)"', html)
    return (found.group(1) if found else None), hands


def _counted(ds: Any) -> dict[str, int]:
    """The tables' row counts Datasette gives for the served database."""
    async def ask() -> Any:
        return (await ds.client.get("/referee.json")).json()

    return {t["name"]: t["count"] for t in asyncio.run(ask())["tables"]}


def _digests(dest: Path) -> dict[str, str]:
    """The kept files' contents (and no other file the console left beside them)."""
    out = {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
           for p in dest.parent.iterdir() if p.name.startswith(dest.name)
           or p.name.startswith(f".{dest.name}")}
    return out


def _serving(db: Path, dest: Path) -> tuple[CatchUp, Any, list[str]]:
    from referee.console import datasette

    kept = served_as_kept(db, dest)
    assert kept is not None and kept[1]  # kept from an earlier row of this log: behind it
    said: list[str] = []
    catch_up = CatchUp(db, dest, kept[0], say=said.append)
    return catch_up, datasette(dest, catch_up=catch_up), said


def test_the_kept_database_is_served_at_once_and_caught_up_behind_it(tmp_path: Path) -> None:
    db, last = _log(tmp_path)
    want = _tables(_whole(tmp_path, db))
    dest = _kept_from(tmp_path, db, last // 2)
    shown = len(_tables(dest)["hands"])
    catch_up, ds, said = _serving(db, dest)
    assert _pages(ds) == ("reading", shown)  # what was kept, with the notice
    catch_up.run()
    assert catch_up.state == "done" and len(said) == 1
    assert _pages(ds) == (None, len(want["hands"]))  # the served database swapped
    assert _counted(ds)["hands"] == len(want["hands"])  # Datasette's counts of the new file
    assert _tables(dest) == want
    head = verified_head(dest)
    assert head is not None and head[0] == last
    again = served_as_kept(db, dest)
    assert again is not None and not again[1]  # the next start serves it as it is
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".build")]


def _whole(tmp_path: Path, db: Path) -> Path:
    whole = tmp_path / "whole.db"
    build(db, whole)
    return whole


@pytest.mark.parametrize("damage", ["changed", "corrupt"])
def test_a_damaged_log_is_never_read_and_the_pages_stay_on_what_was_kept(
        tmp_path: Path, damage: str) -> None:
    from test_store_integrity import corrupt_middle

    db, last = _log(tmp_path, hands=30)
    dest = _kept_from(tmp_path, db, last // 2)
    shown = len(_tables(dest)["hands"])
    before = _digests(dest)
    seq = message_row_after(db, last // 2)
    if damage == "changed":
        iid = tamper(db, seq)
    else:
        corrupt_middle(db)
    catch_up, ds, said = _serving(db, dest)
    catch_up.run()
    assert catch_up.state == "failed" and catch_up.error is not None
    assert _pages(ds) == ("failed", shown)
    assert len(said) == 1 and str(db) in said[0] and "Traceback" not in said[0]
    if damage == "changed":
        assert str(seq) in said[0] and iid in said[0]
    assert _digests(dest) == before  # the kept files as they were, nothing left beside them


class _StopAfter(Progress):
    """Asks the walk to stop after ``inputs`` inputs (the console closing mid-way)."""

    def __init__(self, inputs: int) -> None:
        super().__init__()
        self.left = inputs

    @property
    def stopping(self) -> bool:
        self.left -= 1
        return self.left < 0

    @stopping.setter
    def stopping(self, value: bool) -> None:
        pass


def test_a_catch_up_stopped_half_way_leaves_the_kept_files_as_they_were(
        tmp_path: Path) -> None:
    db, last = _log(tmp_path)
    want = _tables(_whole(tmp_path, db))
    dest = _kept_from(tmp_path, db, last // 3)
    before = _digests(dest)
    with pytest.raises(Stopped):
        build(db, dest, reuse=True, progress=_StopAfter((last - last // 3) // 2))
    assert _digests(dest) == before
    build(db, dest, reuse=True)
    assert _tables(dest) == want


class _Crash(BaseException):
    """The process killed at this point (nothing after it runs, no clean-up)."""


@pytest.mark.parametrize("at", [1, 2, 3])
def test_a_catch_up_crashed_at_each_rename_is_resumed_by_the_next_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: int) -> None:
    """The install renames the resume state staged (1), the database over the kept one (2),
    the state over the kept one (3): killed before any of them, the next start resumes from
    the state that answers for the database then kept, to a whole build's tables."""
    import os

    import referee.console_build as console_build

    db, last = _log(tmp_path)
    want = _tables(_whole(tmp_path, db))
    dest = _kept_from(tmp_path, db, last // 3)
    middle = tmp_path / f"part-{last // 2}.db"
    _cut(db, middle, last // 2)
    calls = 0
    real = os.replace

    def replace(a: Any, b: Any) -> None:
        nonlocal calls
        calls += 1
        if calls == at:
            raise _Crash
        real(a, b)

    monkeypatch.setattr(console_build.os, "replace", replace)
    with pytest.raises(_Crash):
        build(middle, dest, reuse=True)
    monkeypatch.setattr(console_build.os, "replace", real)
    kept = served_as_kept(db, dest)
    assert kept is not None and kept[1]
    from referee.console_build import _load_resume

    src = sqlite3.connect(db)
    assert _load_resume(dest, src) is not None  # resumed, not built afresh
    src.close()
    build(db, dest, reuse=True)
    assert _tables(dest) == want
