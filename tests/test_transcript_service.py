"""The service's behaviours, end to end through transcripts (tests/transcripts/service/*.txt and
the samples in referee/examples/): commands and permissions, flags and penalties into the
ledger, rejected actions, spectators, and the ``referee replay`` command itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from event_helpers import of
from event_helpers import says as room_says

from referee.adapters.transcript import TranscriptError, read, replay_events, run
from referee.lang.catalog import text as text_of
from referee.resources import EXAMPLES
from referee.service import Referee

pytest.importorskip("referee.parse")

ROOT = Path(__file__).resolve().parent.parent
DIR = ROOT / "tests" / "transcripts" / "service"


def events(name: str, ref: Referee | None = None) -> list[dict[str, Any]]:
    path = DIR / name if (DIR / name).exists() else EXAMPLES / name
    return [e.to_json() for e in replay_events(path, referee=ref)]


def test_leak_high_confidence_applies_the_penalty_at_once() -> None:
    ref = Referee()
    evs = events("leak_omaha.txt", ref)
    flags = of(evs, "flag")
    # a false claim (alice makes a straight, not a flush) is a violation too, but only "low"
    assert [(f["player"], f["confidence"]) for f in flags] == [("alice", "low"), ("bob", "high")]
    assert all(f["kind"] == "information_leak" for f in flags)
    # bob named a card he holds: forced fold, removal, 1000 points from the bank, in that hand
    i_flag = evs.index(flags[1])
    after = evs[i_flag:]
    assert of(after, "action", player="bob", action="fold")
    assert of(after, "penalty", player="bob") == [
        {"event": "penalty", "player": "bob", "kind": "information_leak", "points": 1000,
         "chips": 0}
    ]
    (leave,) = of(after, "leave", player="bob")
    assert "bob" not in ref.tables["transcript"].engine.stacks()
    # the bank: 300 opening + chips back (÷10) - 1000 penalty, every change in the ledger
    assert ref.bank.balance("bob") == 300 + leave["bank"] - 1000
    assert room_says(evs)[-1] == f"bobさんのバンク残高: {300 + leave['bank'] - 1000:,}P"
    assert [e.delta for e in ref.bank.ledger if e.player == "bob"] == [300, -1000, leave["bank"]]
    # the hand goes on without him
    assert of(evs, "action", player="carol", action="bet")
    # the flag messages never repeat what was said (it could hold the cards)
    assert not any("5♦" in s for s in room_says(evs))


def test_low_flags_wait_for_the_moderator_and_interference_demotes() -> None:
    ref = Referee()
    evs = events("interference.txt", ref)
    flags = of(evs, "flag")
    assert [(f["id"], f["player"], f["kind"], f["confidence"]) for f in flags] == [
        (1, "bob", "interference", "low"), (2, "dave", "interference", "low"),
    ]  # not the moderator's remark, not advice after the hand
    refusal = room_says(evs)[room_says(evs).index(next(
        s for s in room_says(evs) if s.startswith("aliceさん: 「!confirm」")))]
    assert "モデレーター専用" in refusal
    assert of(evs, "flag_decided") == [
        {"event": "flag_decided", "id": 1, "decision": "confirmed", "by": "dealer"},
        {"event": "flag_decided", "id": 2, "decision": "dismissed", "by": "dealer"},
    ]
    assert of(evs, "penalty") == [{"event": "penalty", "player": "bob", "kind": "interference",
                                   "points": 5000, "chips": 0}]
    assert of(evs, "rank", player="bob")[-1] == {"event": "rank", "player": "bob", "mark": "",
                                                  "previous": "銀"}
    assert ref.ranks["bob"] == ""
    (leave,) = of(evs, "leave", player="bob")
    assert ref.bank.balance("bob") == 9000 + leave["bank"] - 5000
    assert "dealerさん: フラグ#2はすでに処理済みです" in room_says(evs)
    assert "dealerさん: フラグ#9はありません" in room_says(evs)
    assert ref.flags[2].status == "dismissed" and ref.flags[1].status == "confirmed"


def test_rejected_actions_change_nothing_and_spectators_are_ignored() -> None:
    evs = events("rejected.txt")
    rejected = of(evs, "rejected")
    assert [(r["player"], r["text"]) for r in rejected] == [("alice", "チェック"),
                                                             ("alice", "メイク100000")]
    for r in rejected:
        i = evs.index(r)
        assert evs[i + 1] == {"event": "say", "to": "room", "text": f"aliceさん: {r['reason']}"}
    # zed is not seated: his 「コール」 is not applied and not answered
    assert not [e for e in evs if "zed" in json.dumps(e, ensure_ascii=False)]
    # alice's later legal call is the only action applied
    assert of(evs, "action") == [{"event": "action", "player": "alice", "action": "call",
                                  "amount": 100, "to": 100}]


def test_commands_in_a_transcript() -> None:
    ref = Referee()
    evs = events("commands.txt", ref)
    says = room_says(evs)
    refused = "はモデレーター専用のコマンドです。権限がないため実行しませんでした。"
    assert f"carolさん: 「!grant」{refused}" in says
    assert f"bobさん: 「!nogame」{refused}" in says
    assert of(evs, "bank", reason="buy_in") == [
        {"event": "bank", "player": "alice", "delta": -300, "balance": 0, "reason": "buy_in"},
        {"event": "bank", "player": "bob", "delta": -200, "balance": 0, "reason": "buy_in"},
        {"event": "bank", "player": "carol", "delta": -100, "balance": 0, "reason": "buy_in"},
    ]
    assert "carolさん: 4番席は埋まっています" in says
    # alice asked to leave during the hand: she leaves when it ends (NO GAME), chips to the bank
    (leave,) = of(evs, "leave", player="alice")
    assert evs.index(leave) > evs.index(of(evs, "hand_end")[0])
    assert ref.bank.balance("alice") == leave["bank"] == 300
    assert says[-1] == "aliceさんのバンク残高: 300P"
    assert ref.bank.balance("carol") == 50
    assert "!leave （!退席） — 現在のハンドの後に退席し、チップをバンクに戻します" in says


def test_the_readme_example_runs_to_the_showdown() -> None:
    evs = events("omaha-example.txt")
    assert of(evs, "hand_start") == [{"event": "hand_start", "hand": 1, "button": 1}]
    (end,) = of(evs, "hand_end")
    assert sum(end["stacks"].values()) + sum(r["amount"] for r in of(evs, "rake")) == 60000
    assert of(evs, "pot")[0]["shares"] == {"alice": 4018}
    # carol asked the bot privately for her cards and got them privately
    assert of(evs, "say", to="carol", text="あなたの手札: 9♥ 9♦ 8♠ 7♠")
    assert not of(evs, "flag")


def test_replay_cli_prints_json_lines(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "referee.cli", "replay", str(EXAMPLES / "leak-example.txt")],
        capture_output=True, text=True, timeout=60, encoding="utf-8",
    )
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines == events("leak-example.txt")
    assert "ハンド情報" in r.stdout  # UTF-8 text, not \\u escapes


def test_processed_input_is_never_applied_twice() -> None:
    text = (DIR / "commands.txt").read_text(encoding="utf-8")
    ref = Referee()
    first = [e for _, evs in run(read(text), ref) for e in evs]
    state = ref.state()
    again = [e for _, evs in run(read(text), ref, skip_processed=False) for e in evs]
    assert first and again == []
    assert ref.state() == state


@pytest.mark.parametrize(
    "text,lineno,words",
    [
        ("# table: omaha level=99\n", 1, "level"),
        ("# table: omaha\n# seat 1: alice 100\n# seat 2: bob 100\n"
         "# deal: alice=Ah Kh Qd | bob=2c 3c 4d 5d | board=Ts 9s 8c 2h 3h\n", 4, "4枚"),
        ("# table: omaha\n# seat 1: alice 100\n# seat 1: bob 100\n", 3, "埋まっています"),
        ("# table: omaha\n# bonus: As Ks Qs Js\n", 2, "ボーナスエリア"),
    ],
)
def test_directives_the_table_refuses_exit_2_naming_the_line(
    tmp_path: Path, text: str, lineno: int, words: str
) -> None:
    with pytest.raises(TranscriptError) as e:
        for _ in run(read(text), Referee()):
            pass
    at = text_of("transcript.at_line", line=lineno, error="")
    assert e.value.line == lineno and str(e.value).startswith(at) and words in str(e.value)
    if lineno == 1:  # and through the command: exit 2, one line on stderr
        f = tmp_path / "t.txt"
        f.write_text(text, encoding="utf-8")
        r = subprocess.run([sys.executable, "-m", "referee.cli", "replay", str(f)],
                           capture_output=True, text=True, timeout=60, encoding="utf-8")
        assert r.returncode == 2
        (err,) = r.stderr.strip().splitlines()
        assert at in err and words in err


def test_dealing_mistake_commands_reach_the_engine() -> None:
    base = (DIR / "rejected.txt").read_text(encoding="utf-8").split("[21:00:01]")[0]
    text = base + "dealer: !exposed @bob\nbob: !misdeal @alice\ndealer: !misdeal\n"
    evs = [e.to_json() for e in replay_events(text=text)]
    assert of(evs, "exposed", player="bob")  # half the pot to bob, his cards stay face up
    says = room_says(evs)
    assert any("「!misdeal」はモデレーター専用" in s for s in says)
    assert says[-1] == "dealerさん: 対象のプレイヤーを @user で指定してください"


def test_house_table_leaks_verified_by_cards_and_by_hand_class() -> None:
    ref = Referee()
    evs = events("holdem_aa_leak.txt", ref)
    assert [(f["player"], f["confidence"]) for f in of(evs, "flag")] == [
        ("bob", "high"), ("alice", "high")]  # 7♣ 2♦ named; AA + A♠ on the flop = trips
    # only the named cards are penalised at once (RULES "when the referee acts alone"); the
    # verified hand class waits for a moderator
    assert [p["player"] for p in of(evs, "penalty")] == ["bob"]
    assert ref.flags[2].status == "open"
    assert ref.bank.balance("bob") == 1500 - 1000 + of(evs, "leave", player="bob")[0]["bank"]


def test_showdown_claims_are_left_to_the_moderator_and_talk_after_the_hand_is_free() -> None:
    ref = Referee()
    evs = events("showdown_talk.txt", ref)
    assert [(f["player"], f["confidence"]) for f in of(evs, "flag")] == [("alice", "low")]
    assert not of(evs, "penalty") and not of(evs, "rejected")
    assert of(evs, "hand_end")[0]["stacks"] == {"alice": 20100, "bob": 19900}


def test_private_messages_are_answered_privately_and_never_act() -> None:
    base = (DIR / "rejected.txt").read_text(encoding="utf-8").split("[21:00:01]")[0]
    text = base + "alice (dm): コール\nalice (dm): 手札は？\nzed (dm): 手札\nalice: コール\n"
    evs = [e.to_json() for e in replay_events(text=text)]
    assert of(evs, "say", to="alice")[-2:] == [
        {"event": "say", "to": "alice", "text": "アクションはテーブルのルームで宣言してください"
                                                "（個別メッセージでは受け付けません）。"},
        {"event": "say", "to": "alice", "text": "あなたの手札: A♥ K♥ Q♦ J♦",
         "cards": ["Ah", "Kh", "Qd", "Jd"]},
    ]
    assert of(evs, "say", to="zed") == [
        {"event": "say", "to": "zed", "text": "現在のハンドに参加していません。"}]
    assert [a["player"] for a in of(evs, "action")] == ["alice"]  # only the call in the room
