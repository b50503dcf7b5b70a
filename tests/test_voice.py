"""The dealer's voice in the house games, over every house-game transcript: no
result id (win, lose, push, dq, dealer_fold) in any room text; every accepted action is
acknowledged in one line right away; in seven, every action-round decision is prompted first,
naming the player and the choices with their cost."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from referee.adapters.transcript import replay_events
from referee.rules.voice import say_text

ROOT = Path(__file__).parent / "transcripts"
FILES = sorted([*ROOT.glob("holdem_aa/*.txt"), *ROOT.glob("seven/*.txt"),
                *ROOT.glob("deuces/*.txt")])
RESULT_IDS = re.compile(r"(?<![a-z_])(win|lose|push|dq|dealer_fold)(?![a-z_])")


def events(path: Path) -> list[dict[str, Any]]:
    return [e.to_json() for e in replay_events(path)]


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_room_texts_are_japanese_words(path: Path) -> None:
    for e in events(path):
        if e["event"] == "say" and e["to"] == "room":
            assert not RESULT_IDS.search(e["text"]), e["text"]


@pytest.mark.parametrize(
    "path", [p for p in FILES if p.parent.name in ("holdem_aa", "seven")],
    ids=lambda p: f"{p.parent.name}/{p.stem}",
)
def test_every_accepted_action_is_acknowledged(path: Path) -> None:
    evs = events(path)
    acted = 0
    for i, e in enumerate(evs):
        if e["event"] != "action" or e.get("action") not in (
            "ante", "call", "raise", "hyper_raise", "extra_raise", "fold"
        ):
            continue
        nxt = evs[i + 1]
        if e["action"] == "fold" and nxt["event"] in ("penalty", "leave"):
            continue  # a forced fold (a penalty), not an action the player declared
        who = e["player"] or "ディーラー席"
        assert nxt["event"] == "say" and nxt["to"] == "room" and nxt["text"].startswith(who), \
            (e, nxt)
        acted += 1
    assert acted


@pytest.mark.parametrize("path", sorted(ROOT.glob("seven/*.txt")), ids=lambda p: p.stem)
def test_seven_prompts_each_action_round_decision(path: Path) -> None:
    npcs = set(re.findall(r"^# seat \d+: (\S+) \d+ npc", path.read_text(encoding="utf-8"), re.M))
    evs = events(path)
    prompted: str | None = None
    checked = 0
    for e in evs:
        if e["event"] == "say" and "の番です（第" in e["text"]:
            prompted = e["text"]
            assert "コール" in prompted and "フォールド" in prompted
            # a round's own raise only, and only when affordable (the turn's offers)
            assert "エクストラレイズ" not in prompted if "第1" in prompted \
                else "ハイパーレイズ" not in prompted
        elif e["event"] == "action" and e.get("action") in (
            "call", "raise", "hyper_raise", "extra_raise"
        ) and e.get("player") and e["player"] not in npcs:  # NPCs act by themselves
            assert prompted is not None and prompted.startswith(e["player"] + "さんの番です"), e
            checked += 1
    assert checked or "npc" in path.stem or "nogame" in path.stem


def _room(path: Path) -> list[str]:
    return [e["text"] for e in events(path) if e["event"] == "say" and e["to"] == "room"]


def test_omaha_announces_the_rake_with_its_figures() -> None:
    evs = events(ROOT / "omaha" / "rake_over_500.txt")
    (rake,) = [e["amount"] for e in evs if e["event"] == "rake"]
    assert [t for t in _room(ROOT / "omaha" / "rake_over_500.txt")
            if t.startswith(f"レイク {rake:,}（ポット ")]


@pytest.mark.parametrize("name,word", [("fa_alpha_call", "コール"), ("fa_alpha_check", "チェック"),
                                       ("fa_alpha_raise", "レイズ")])
def test_omaha_says_when_a_flying_action_is_applied_at_the_turn(name: str, word: str) -> None:
    assert [t for t in _room(ROOT / "omaha" / f"{name}.txt")
            if f"のフライングアクション（{word}）を手番で適用しました" in t]


def test_heads_up_hand_start_names_the_sb_first() -> None:
    (start,) = [t for t in _room(ROOT / "omaha" / "heads_up.txt") if t.startswith("ハンド#1 開始")]
    assert start.index("SB") < start.index("BB")


def test_seven_announces_the_dealer_hand_owners_win_count() -> None:
    evs = events(ROOT / "seven" / "win_count.txt")
    owners = [e for e in evs if e["event"] == "settle" and e.get("dealer_hand")]
    said = [t for t in _room(ROOT / "seven" / "win_count.txt")
            if t.startswith("ディーラーハンドの持ち主")]
    assert owners and len(said) == len(owners)
    for e, line in zip(owners, said, strict=True):
        assert f"{e['wins']}勝" in line and line.endswith(f"→ {e['payout']:,}")


def test_a_lost_hand_whose_aa_paid_names_the_aa_payout() -> None:
    """holdem_aa: the ante and call lost but the AA side bet paid 400: the line must not read
    「負け 400」 (a loss of 400); it names the AA payout and the total received."""
    from referee.events import Settle
    from referee.rules.house import settlement_line

    line = say_text(settlement_line([Settle(
        player="alice", result="lose", payout=400, ante=0, call=0, aa=400, hand="one_pair",
        dealer_class="two_pair")], "holdem_aa"))
    assert "負け 400" not in line and "AA配当 400" in line and "計 400" in line, line
    plain = say_text(settlement_line([Settle(player="bob", result="lose", payout=0, ante=0,
                                             call=0, aa=0)], "holdem_aa"))
    assert "AA" not in plain, plain


def test_a_leave_says_what_goes_into_the_bank_not_a_balance() -> None:
    """「チップ 45,190 → バンク 4,519」 read as the new balance when a penalty had taken 1,000
    before: the line says the points are added (加算), in points."""
    from referee.events import Leave
    from referee.rules.voice import leave_line

    line = say_text(leave_line(Leave(player="alice", chips=45190, bank=4519)))
    assert "4,519P" in line and "加算" in line, line


def test_an_all_in_stake_with_an_aa_bet_is_said_split() -> None:
    """「AA50でオールイン」 was acknowledged 「オールイン 450」: the ante and AA bet are named apart
    as for any other stake with an AA bet."""
    from referee.events import ActionEvent
    from referee.rules.voice import action_line

    line = say_text(action_line("holdem_aa", ActionEvent(
        player="alice", action="ante", amount=450, ante=400, aa=50, allin=True)))
    assert "オールイン" in line and "アンティ 400" in line and "AA 50" in line, line
