"""End to end: ``referee replay --db`` of a transcript with leaks, interference and moderator
decisions, then ``referee records`` for each kind -- the service's real events, projected."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from referee.resources import EXAMPLES
from referee.store import records

ROOT = Path(__file__).resolve().parent.parent
LEAKS = EXAMPLES / "leak-example.txt"


def referee(*argv: str) -> str:
    r = subprocess.run([sys.executable, "-m", "referee.cli", *argv],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def rows(db: Path, *argv: str) -> list[dict[str, Any]]:
    """``referee records … --json`` (in this process: the same code without the start-up)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(["records", "--db", str(db), *argv, "--json"])
    return [json.loads(line) for line in buf.getvalue().splitlines()]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("records") / "referee.db"
    referee("replay", "--db", str(path), str(LEAKS))
    return path


def test_replayed_records(db: Path) -> None:
    events = [json.loads(line) for line in referee("replay", str(LEAKS)).splitlines()]
    # what the referee decided, as printed by a replay without a database ...
    penalties = [e for e in events if e["event"] == "penalty"]
    flags = {e["id"]: e for e in events if e["event"] == "flag"}
    decided = {e["id"]: e["decision"] for e in events if e["event"] == "flag_decided"}
    ends = [e for e in events if e["event"] == "hand_end"]
    assert penalties and flags and decided and ends

    # ... is what the moderators find in the database
    got = rows(db, "penalties")
    assert [(r["player"], r["kind"], r["points"]) for r in got] == [
        (e["player"], e["kind"], e["points"]) for e in penalties]
    got_flags = rows(db, "flags")
    assert [r["id"] for r in got_flags] == sorted(flags)
    for r in got_flags:
        f = flags[r["id"]]
        assert (r["player"], r["kind"], r["confidence"], r["text"]) == (
            f["player"], f["kind"], f["confidence"], f["text"])
        # penalised at once: a high flag whose player was penalised for it without a decision
        penalised_at_once = f["confidence"] == "high" and r["id"] not in decided and any(
            p["player"] == f["player"] and p["kind"] == f["kind"] for p in penalties)
        expected = decided.get(r["id"], "confirmed" if penalised_at_once else "open")
        assert r["status"] == expected, r
    assert [r["stacks"] for r in rows(db, "hands")] == [e["stacks"] for e in ends]

    # the bank: every balance is the sum of that player's ledger, penalties included
    bank = {r["player"]: r["balance"] for r in rows(db, "bank")}
    assert bank
    for player, balance in bank.items():
        assert [{k: r[k] for k in ("player", "balance")} for r in rows(
            db, "bank", "--player", player)] == [{"player": player, "balance": balance}]
    for p in penalties:
        ledger = records(db, "ledger", player=p["player"])
        assert any(r["delta"] == -p["points"] and r["event"] == "penalty" for r in ledger)
        assert sum(r["delta"] for r in ledger) == bank[p["player"]]


def test_player_filters(db: Path) -> None:
    everyone = rows(db, "penalties")
    for player in {r["player"] for r in everyone}:
        mine = rows(db, "penalties", "--player", player)
        assert mine == [r for r in everyone if r["player"] == player]
    assert rows(db, "flags", "--player", "nobody") == []
    bob_hands = rows(db, "hands", "--player", "bob")
    assert bob_hands and all("bob" in r["stacks"] for r in bob_hands)
