"""The console's hand page lists every player dealt into the hand, in seat order -- not only
those who acted (a small blind who won when everyone folded to them never acted). Built with
:func:`referee.console.build` from a replayed transcript; no server."""

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


def test_every_dealt_player_is_a_participant(tmp_path: Path) -> None:
    src = tmp_path / "t.txt"
    src.write_text(TRANSCRIPT, encoding="utf-8")
    db = tmp_path / "referee.db"
    replay(src, db, io.StringIO())
    dest = tmp_path / "console.db"
    build(db, dest)
    with sqlite3.connect(dest) as conn:
        (players,) = conn.execute('SELECT "参加者" FROM hands').fetchone()
    assert players.split(", ") == ["alice", "bob", "carol"]
