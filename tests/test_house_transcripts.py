"""Transcript tests of the house games (tests/transcripts/holdem_aa/*.txt, seven/*.txt).

Each transcript is replayed exactly as ``referee replay`` does (the library function, the real
parser, service and engine) and checked against its own ``## expect KIND …`` comment lines, in
order (an ordered subsequence of the events):

    ## expect settle NAME RESULT PAYOUT [key=value …]   a settle event (extra keys compared too;
                                                       ``bets.ante=200`` reads a nested key)
    ## expect stacks NAME=CHIPS …                      a hand_end with exactly these stacks
    ## expect rejected NAME TEXT                       a rejected event whose reason contains TEXT
    ## expect action NAME ACTION [AMOUNT]              an action event
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

from referee.adapters.transcript import replay_events

ROOT = Path(__file__).parent / "transcripts"
EVENT = {"stacks": "hand_end"}  # expectation kind -> event name, where they differ
FILES = sorted((ROOT / "holdem_aa").glob("*.txt")) + sorted((ROOT / "seven").glob("*.txt"))


def _value(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        return text


def _kv(words: list[str]) -> dict[str, Any]:
    out = {}
    for w in words:
        k, v = w.split("=", 1)
        out[k] = _value(v)
    return out


def _get(ev: dict[str, Any], key: str) -> Any:
    """``bets.ante`` reads a nested key."""
    for part in key.split("."):
        ev = ev.get(part) if isinstance(ev, dict) else None  # type: ignore[assignment]
    return ev


def expectations(text: str) -> list[tuple[int, str, list[str]]]:
    out = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.startswith("## expect "):
            kind, *words = line[len("## expect "):].split()
            out.append((lineno, kind, words))
    return out


def matches(ev: dict[str, Any], kind: str, words: list[str]) -> bool:
    if kind in ("settle", "joker", "compensation"):
        if ev["event"] != kind or ev["player"] != words[0]:
            return False
        if kind == "settle":
            want = {"result": words[1], "payout": int(words[2])} | _kv(words[3:])
        else:
            want = {"payout": int(words[1])} | _kv(words[2:])
        return all(_get(ev, k) == v for k, v in want.items())
    if kind == "stacks":
        return ev["event"] == "hand_end" and ev["stacks"] == {
            k: int(v) for k, v in (w.split("=") for w in words)
        }
    if kind == "rejected":
        return ev["event"] == "rejected" and ev["player"] == words[0] and words[1] in ev["reason"]
    if kind == "action":
        return (ev["event"] == "action" and ev["player"] == words[0] and ev["action"] == words[1]
                and (len(words) < 3 or ev["amount"] == int(words[2])))
    if kind == "leave":
        return (ev["event"] == "leave" and ev["player"] == words[0]
                and ev["chips"] == int(words[1]) == ev["bank"])
    if kind == "say":
        return ev["event"] == "say" and " ".join(words) in ev["text"]
    if kind == "house":
        return ev["event"] == "house" and ev["result"] == int(words[0])
    raise AssertionError(f"unknown expectation kind {kind!r}")


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
    text = path.read_text(encoding="utf-8")
    events = [e.to_json() for e in replay_events(text=text)]
    want = expectations(text)
    assert want, "a transcript test needs expectations"
    i = 0
    for lineno, kind, words in want:
        while i < len(events) and not matches(events[i], kind, words):
            i += 1
        assert i < len(events), (
            f"{path.name}:{lineno}: expected {kind} {' '.join(words)} not found in order; "
            f"events of that kind: {[e for e in events if e['event'] == EVENT.get(kind, kind)]}"
        )
        i += 1
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
