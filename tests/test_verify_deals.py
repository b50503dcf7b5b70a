"""``referee verify`` fails a record with a dealt hand's reveal taken out, and one where a private
message named a board card before it was dealt (docs/fairness.md promises both are caught)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_cli as _run
from test_fairness import _events

from referee.verify import Discrepancy, verify


@pytest.fixture(scope="module")
def omaha() -> list[dict[str, Any]]:
    return _events("omaha", 11, hands=3, players=3)


def test_the_record_as_made_verifies(omaha: list[dict[str, Any]]) -> None:
    assert verify(copy.deepcopy(omaha)) == 3


def test_a_dealt_hand_whose_reveal_was_removed_fails(omaha: list[dict[str, Any]],
                                                     tmp_path: Path) -> None:
    evs = copy.deepcopy(omaha)
    i = next(i for i, e in enumerate(evs) if e["event"] == "deal_reveal" and e["hand"] == 2)
    del evs[i]
    with pytest.raises(Discrepancy, match=r"hand 2: .*never revealed"):
        verify(evs)
    f = tmp_path / "cut.jsonl"
    f.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in evs),
                 encoding="utf-8")
    code, out, err = _run(["verify", str(f)])
    assert code == 1 and "never revealed" in out + err, (out, err)


def test_a_board_card_sent_privately_before_the_flop_fails(omaha: list[dict[str, Any]]
                                                           ) -> None:
    evs = copy.deepcopy(omaha)
    rev = next(e for e in evs if e["event"] == "deal_reveal" and e["hand"] == 1)
    river = rev["dealt"]["board"][4]  # never shown in the room before the hand ended
    start = next(i for i, e in enumerate(evs) if e["event"] == "hand_start" and e["hand"] == 1)
    hole = next(e for e in evs[start:] if e["event"] == "say" and e["to"] != "room")
    leak = dict(hole)
    pretty = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
    rank = "10" if river[0] == "T" else river[0]
    leak["text"] = f"（ボード予定: {rank}{pretty[river[1]]}）"
    evs.insert(evs.index(hole) + 1, leak)
    with pytest.raises(Discrepancy, match="before it was dealt"):
        verify(evs)
    # the same card sent after the room saw it is no leak (it is on the board)
    flop_at = next(i for i, e in enumerate(evs) if e["event"] == "say" and e["to"] == "room"
                   and e["text"].startswith("フロップ"))
    flop_card = evs[flop_at]["text"].split(":", 1)[1].split()[0]
    late = dict(hole, text=f"（ボード: {flop_card}）")
    evs2 = copy.deepcopy(omaha)
    at = next(i for i, e in enumerate(evs2) if e["event"] == "say" and e["to"] == "room"
              and e["text"].startswith("フロップ"))
    evs2.insert(at + 1, late)
    assert verify(evs2) == 3
