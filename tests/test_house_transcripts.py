"""Transcript tests of the house games (tests/transcripts/holdem_aa/*.txt, seven/*.txt).

Each transcript is replayed exactly as ``referee replay`` does (the library function, the real
parser, service and engine) and checked against its own ``## expect KIND …`` comment lines, in
order (an ordered subsequence of the events), read and checked by tests/transcript_expect.py (the
one format of every transcript's expectations; its docstring has the generic form and
``## absent`` / ``## final`` / ``## bank`` / ``## exactly``). The house forms:

    ## expect settle NAME RESULT PAYOUT [key=value …]   a settle event (extra keys compared too;
                                                       ``bets.ante=200`` reads a nested key)
    ## expect stacks NAME=CHIPS …                      a hand_end with exactly these stacks
    ## expect rejected NAME TEXT                       a rejected event whose reason contains TEXT
    ## expect action NAME ACTION [AMOUNT [key=value …]]
                                                       an action event (extra keys compared too)
    ## expect joker NAME PAYOUT [key=value …]          a joker bonus
    ## expect compensation NAME PAYOUT [key=value …]   a dealing-mistake guarantee
    ## expect leave NAME CHIPS                         a leave event (bank = chips, 1:1)
    ## expect say TEXT                                 a message containing TEXT
    ## expect house RESULT                             the house's result of a hand

Besides, every hand's books must balance: the chips players put in (action events) are the
house's ``staked``, and every payout, joker bonus and compensation is in its ``paid``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from transcript_expect import check_transcript, replay

from referee.adapters.transcript import replay_events

ROOT = Path(__file__).parent / "transcripts"
FILES = sorted((ROOT / "holdem_aa").glob("*.txt")) + sorted((ROOT / "seven").glob("*.txt"))


def check_books(events: list[dict[str, Any]]) -> int:
    """Each hand: staked = the chips of the action events, paid = every payout. Returns hands."""
    staked = paid = hands = 0
    for ev in events:
        if ev["event"] == "action":
            staked += ev.get("amount", 0)
        elif ev["event"] in ("settle", "joker", "compensation"):
            paid += ev["payout"]
        elif ev["event"] == "house":
            assert (ev["staked"], ev["paid"]) == (staked, paid), ev
            assert ev["result"] == staked - paid
            staked = paid = 0
            hands += 1
    return hands


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_transcript(path: Path) -> None:
    assert check_transcript(path)
    events = replay(path)
    assert check_books(events) == sum(1 for e in events if e["event"] == "hand_end")


def test_cli_replay_prints_the_same_events() -> None:
    path = ROOT / "holdem_aa" / "pay_tables.txt"
    run = subprocess.run(
        [sys.executable, "-m", "referee.cli", "replay", str(path)],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert run.returncode == 0, run.stderr
    printed = [json.loads(line) for line in run.stdout.splitlines()]
    assert printed == [e.to_json() for e in replay_events(path)]
    assert sum(1 for e in printed if e["event"] == "settle") == 13
