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
    with pytest.raises(Discrepancy) as refused:
        verify(evs)
    assert refused.value.code == "verify.never_revealed" and "#2" in str(refused.value)
    f = tmp_path / "cut.jsonl"
    f.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in evs),
                 encoding="utf-8")
    code, out, err = _run(["verify", str(f)])
    assert code == 1 and str(refused.value) in err, (out, err)


def test_a_board_card_sent_privately_before_the_flop_fails(omaha: list[dict[str, Any]]
                                                           ) -> None:
    evs = copy.deepcopy(omaha)
    rev = next(e for e in evs if e["event"] == "deal_reveal" and e["hand"] == 1)
    river = rev["dealt"]["board"][4]  # never shown in the room before the hand ended
    start = next(i for i, e in enumerate(evs) if e["event"] == "hand_start" and e["hand"] == 1)
    hole = next(e for e in evs[start:] if e["event"] == "say" and e["to"] != "room"
                and e.get("cards"))
    evs.insert(evs.index(hole) + 1, dict(hole, text="(the river to come)", cards=[river]))
    with pytest.raises(Discrepancy) as refused:
        verify(evs)
    assert refused.value.code == "verify.sent_early"
    # the same kind of message after the room saw the card is no leak (it is on the board)
    evs2 = copy.deepcopy(omaha)
    at = next(i for i, e in enumerate(evs2) if e["event"] == "board" and e.get("hand", 1) == 1)
    flop_card = evs2[at]["cards"][0]
    hole2 = next(e for e in evs2 if e["event"] == "say" and e["to"] != "room" and e.get("cards"))
    evs2.insert(at + 1, dict(hole2, text="(the board)", cards=[flop_card]))
    assert verify(evs2) == 3
