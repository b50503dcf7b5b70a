"""omaha end to end: every transcript in tests/transcripts/omaha/ is replayed through the real
service pipeline (parser, resolution, engine), exactly as ``referee replay`` does.

Each ``NAME.txt`` ends with its expectations, written by hand from docs/rules.md (the arithmetic is
in the transcript's ``##`` comments above them), in the one format of tests/transcript_expect.py:
- ``## expect KIND key=value …``: partial events (only the keys given are compared) that must
  appear in this order;
- ``## absent KIND key=value …``: partial events that must not appear at all;
- ``## final NAME=CHIPS …``: the stacks of the last ``hand_end``;
- ``## bank NAME=POINTS``: points the player's last ``leave`` event credits to the bank;
- ``## exactly KIND``: no event of that kind beyond the ones the ``## expect`` lines matched.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from transcript_expect import check_transcript, parse

from referee.adapters.transcript import replay_events
from referee.lang.catalog import text

ROOT = Path(__file__).resolve().parent.parent
DIR = ROOT / "tests" / "transcripts" / "omaha"
CASES = sorted(p.stem for p in DIR.glob("*.txt"))


def run(name: str) -> list[dict[str, Any]]:
    return [e.to_json() for e in replay_events(DIR / f"{name}.txt")]


@pytest.mark.parametrize("name", CASES)
def test_transcript(name: str) -> None:
    assert check_transcript(DIR / f"{name}.txt")


def test_every_transcript_has_expectations() -> None:
    assert len(CASES) >= 20
    for name in CASES:
        assert parse((DIR / f"{name}.txt").read_text(encoding="utf-8")), name
    assert not list(DIR.glob("*.json")), "expectations live in the transcript"


def test_rejected_actions_change_nothing() -> None:
    """Each rejected line, replayed without it, gives exactly the same other events."""
    events = run("rejected")
    rejected = [e for e in events if e["event"] == "rejected"]
    assert len(rejected) >= 5
    assert all(any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in e["reason"])
               for e in rejected), "reasons are Japanese"
    text = (DIR / "rejected.txt").read_text(encoding="utf-8").splitlines()
    bad = {f"{e['player']}: {e['text']}" for e in rejected}
    assert all(sum(ln == b for ln in text) == 1 for b in bad), "each refused line is unique"
    kept = [ln for ln in text if ln not in bad]
    tmp = DIR.parent / "_omaha_rejected_stripped.tmp"
    try:
        tmp.write_text("\n".join(kept) + "\n", encoding="utf-8")
        others = [e.to_json() for e in replay_events(tmp)]
    finally:
        tmp.unlink(missing_ok=True)
    # the service also tells the room why (one say per rejection): drop those too
    told = {f"{e['player']}さん: {e['reason']}" for e in rejected}
    strip = [e for e in events
             if e["event"] != "rejected" and not (e["event"] == "say" and e["text"] in told)]
    assert strip == others


def test_referee_replay_command_end_to_end(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "referee.cli", "replay", str(DIR / "showdown_side_pots.txt")],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert lines == run("showdown_side_pots")
    bad = tmp_path / "bad.txt"
    bad.write_text(
        "# table: omaha level=1\n# seat 1: alice 1000\n# seat 2: bob 1000\n"
        "# deal: alice=Ah Kh Qh Jh | bob=2c 3c 4c 5c | board=Zz 7d 9h Js 3s\n",
        encoding="utf-8",
    )
    out = subprocess.run(
        [sys.executable, "-m", "referee.cli", "replay", str(bad)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert out.returncode == 2 and out.stdout == ""
    assert "4" in out.stderr and len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(("deal", "why"), [
    ("alice=Ah Kh Qh Jh | board=2c 7d 9h Js 3s", "4枚"),  # bob has no cards
    ("alice=Ah Kh Qh Jh | bob=Ah 2c 3c 4c | board=2d 7d 9h Js 3s", "重複"),  # Ah twice
    ("alice=Ah Kh Qh Jh | bob=2c 3c 4c 5c | board=2d 7d", "ボード"),  # board too short
])
def test_a_deal_the_table_cannot_use_exits_2_naming_the_line(tmp_path: Path, deal: str,
                                                             why: str) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text(
        "# table: omaha level=1\n# seat 1: alice 1000\n# seat 2: bob 1000\n"
        f"# deal: {deal}\nalice: コール\n",
        encoding="utf-8",
    )
    out = subprocess.run(
        [sys.executable, "-m", "referee.cli", "replay", str(bad)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert out.returncode == 2
    assert out.stderr.startswith("referee: " + text("transcript.at_line", line=4, error=""))
    assert why in out.stderr
