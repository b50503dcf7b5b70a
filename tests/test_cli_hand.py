"""``referee hand`` through the real command (docs/contracts.md §1)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

_BIN = Path(sys.executable).parent / "referee"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [str(_BIN)] if _BIN.exists() else [sys.executable, "-m", "referee.cli"]
    return subprocess.run(
        [*cmd, "hand", *args], capture_output=True, text=True, timeout=60, check=False
    )


def ok(*args: str) -> dict[str, Any]:
    p = run(*args)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    out = json.loads(p.stdout)
    assert set(out) == {"hands", "winners"}
    for h in out["hands"]:
        assert set(h) == {"class", "name", "cards"}
    assert isinstance(out, dict)
    return out


def test_holdem_aa_full_house_against_a_pair() -> None:
    out = ok("--game", "holdem_aa", "--board", "Ah Ad Kc", "As Kd", "2c 3c")
    assert out["hands"][0] == {
        "class": "full_house", "name": "フルハウス", "cards": ["As", "Ah", "Ad", "Kd", "Kc"],
    }
    assert out["hands"][1]["class"] == "one_pair"
    assert out["winners"] == [0]


def test_output_is_one_json_line_with_japanese_unescaped() -> None:
    p = run("--game", "holdem_aa", "--board", "Ah Ad Kc", "As Kd")
    assert p.stdout.count("\n") == 1 and "フルハウス" in p.stdout


def test_omaha_split_pot_lists_both_winners() -> None:
    out = ok("--game", "omaha", "--board", "Ts 9s 8c 2h 3h", "Jh Qd 4c 4d", "Jd Qc 5c 5d",
             "Ah Ad Kc Kd")
    assert [h["class"] for h in out["hands"]] == ["straight", "straight", "one_pair"]
    assert out["hands"][0]["cards"] == ["Qd", "Jh", "Ts", "9s", "8c"]
    assert out["winners"] == [0, 1]


def test_omaha_needs_two_cards_from_the_hand() -> None:
    # four spades on the board, one in the hand: no flush
    out = ok("--game", "omaha", "--board", "As Ks Qs Js 2c", "Ts 3d 4d 5h")
    assert out["hands"][0]["class"] != "royal_flush"


def test_seven_with_a_joker_and_identical_cards() -> None:
    out = ok("--game", "seven", "JK Ah Ah Ah Ah Ah Ah", "Ac Ad Ah As Kc Kd Kh",
             "2c 3c 4c 5c 6c 7c 8c")
    assert [h["class"] for h in out["hands"]] == [
        "seven_of_a_kind", "big_house", "seven_straight_flush",
    ]
    assert out["hands"][0]["name"] == "セブン・オブ・ア・カインド"
    assert len(out["hands"][0]["cards"]) == 7 and "JK" in out["hands"][0]["cards"]
    assert out["winners"] == [2]


def test_seven_five_card_class_shows_five_cards() -> None:
    out = ok("--game", "seven", "Ac Ad Kh Qs 9c 5d 2h")
    assert out["hands"][0]["class"] == "one_pair"
    assert out["hands"][0]["cards"] == ["Ac", "Ad", "Kh", "Qs", "9c"]


def test_deuces_classes_and_notation() -> None:
    out = ok("--game", "deuces", "Ts Js Qs Ks As", "2c 2d 2h 2s 5d", "2s Js Qs Ks As",
             "ＪＫ スペードのA ♠K Qs 10s")
    assert [h["class"] for h in out["hands"]] == [
        "natural_royal_flush", "four_deuces", "wild_royal_flush", "wild_royal_flush",
    ]
    assert out["hands"][3]["cards"] == ["As", "Ks", "Qs", "Ts", "JK"]
    assert out["winners"] == [0]


@pytest.mark.parametrize(
    "args,fragment",
    [
        (("--game", "omaha", "--board", "Ts 9s 8c 2h 3h", "Ah Kh Qd Xx"), "Xx"),
        (("--game", "omaha", "--board", "Ts 9s 8c 2h 3h", "Ah Kh Qd"), "4枚"),
        (("--game", "omaha", "--board", "Ts 9s 8c 2h", "Ah Kh Qd Jd"), "5枚"),
        (("--game", "omaha", "--board", "Ts 9s 8c 2h 3h", "Ah Kh Qd Jd", "Ah 4c 5c 6c"), "Ah"),
        (("--game", "omaha", "--board", "Ts 9s 8c 2h 3h", "Ah Kh Qd JK"), "ジョーカー"),
        (("--game", "holdem_aa", "--board", "Ts 9s 8c", "Ah Ah"), "重複"),
        (("--game", "holdem_aa", "Ah Kd"), "ボード"),
        (("--game", "seven", "--board", "2c", "Ah Kh Qd Jd Tc 9c 8c"), "ボード"),
        (("--game", "seven", "Ah Kh Qd Jd Tc 9c"), "7枚"),
        (("--game", "deuces", "Ah Kh Qd Jd Tc 9c"), "5枚"),
    ],
)
def test_malformed_input_exits_2_with_one_line(args: tuple[str, ...], fragment: str) -> None:
    p = run(*args)
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert fragment in p.stderr


def test_unknown_game_is_a_usage_error() -> None:
    p = run("--game", "bridge", "Ah Kh")
    assert p.returncode == 2 and "Traceback" not in p.stderr
