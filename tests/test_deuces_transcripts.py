"""``deuces`` end to end through ``referee replay`` transcripts (tests/transcripts/deuces/*.txt):
the settle rows and payouts, bonus payouts and the bonus area, jokers, all-in and bankruptcy,
rejected actions and dealing mistakes, and the final stacks. The expected numbers are worked out
by hand from the pay tables in the transcripts' comments, not read back from the engine, and
live in each transcript as its ``## expect`` / ``## absent`` / ``## exactly`` / ``## final`` lines,
in the one format of tests/transcript_expect.py. A Python list of a kind of event
(every settle, every rejected line …) is pinned there element by element, in order, with an
``## exactly KIND`` line so that no other event of that kind may appear.

Kept here in Python: the books of every transcript (a property over all their hands) and the
``referee replay`` command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from event_helpers import of
from transcript_expect import check_transcript, parse, replay

pytest.importorskip("referee.parse")

ROOT = Path(__file__).resolve().parent.parent
DIR = ROOT / "tests" / "transcripts" / "deuces"
CASES = sorted(p.stem for p in DIR.glob("*.txt"))


def events(name: str) -> list[dict[str, Any]]:
    return replay(DIR / name)


def settles(evs: list[dict[str, Any]]) -> list[tuple[str, str, int]]:
    return [(e["player"], e["result"], e["payout"]) for e in of(evs, "settle")]


@pytest.mark.parametrize("name", CASES)
def test_transcript(name: str) -> None:
    assert check_transcript(DIR / f"{name}.txt")


def test_every_transcript_has_expectations() -> None:
    assert len(CASES) >= 12
    for name in CASES:
        xs = parse((DIR / f"{name}.txt").read_text(encoding="utf-8"))
        assert any(x.directive == "expect" for x in xs), name


def test_chips_balance_in_every_transcript() -> None:
    """Every chip that left a player is in a payout or in the house's result: per hand, each
    stack moves by exactly (payouts received - chips staked), and the house's result is the
    sum of what the players lost."""
    for path in sorted(DIR.glob("*.txt")):
        before: dict[str, int] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("# seat "):
                name, chips = line.split(":", 1)[1].split()[:2]
                before[name] = int(chips)
        staked: dict[str, int] = {}
        got: dict[str, int] = {}
        for e in events(path.name):
            kind = e["event"]
            if kind == "action":
                staked[e["player"]] = staked.get(e["player"], 0) + e["amount"]
            elif kind in ("settle", "joker", "compensation", "bonus_payout"):
                amount = e["amount"] if kind == "bonus_payout" else e["payout"]
                got[e["player"]] = got.get(e["player"], 0) + amount
            elif kind == "house":
                assert e["result"] == sum(staked.values()) - sum(got.values()), path.name
            elif kind == "hand_end":
                for name, chips in before.items():
                    want = chips - staked.get(name, 0) + got.get(name, 0)
                    assert e["stacks"][name] == want, (path.name, e["hand"], name)
                before, staked, got = dict(e["stacks"]), {}, {}
            elif kind == "leave":
                del before[e["player"]]


def test_replay_cli(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "referee.cli", "replay", str(DIR / "results.txt")],
        capture_output=True, text=True, check=True, timeout=60,
    )
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert settles(lines) == settles(events("results.txt"))
