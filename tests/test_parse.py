"""referee.parse: docs/contracts.md §2 on the development corpus (tests/corpus/parse-dev.jsonl), on
the variants players really type, and on anything at all (hypothesis)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from referee import lexicon
from referee.lang import words as words_module
from referee.parse import MAX_ACTION_CHARS, clear_caches, normalize, parse

CORPUS = Path(__file__).parent / "corpus" / "parse-dev.jsonl"
GAMES = ("omaha", "holdem_aa", "seven", "deuces")


def _corpus() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]


def _contains(got: dict[str, Any], expect: dict[str, Any]) -> bool:
    return all(got.get(k) == v for k, v in expect.items())


def _misread(cases: list[dict[str, Any]], name: str) -> list[str]:
    """Every line of a labelled file whose reading lacks what it expects, as ``file:line``: one
    test a file names them all at once (a test a line costs more in collection and per-item
    overhead than the reading)."""
    wrong = []
    for n, case in enumerate(cases, 1):
        got = parse(case["text"], case["game"]).to_json()
        if not _contains(got, case["expect"]):
            wrong.append(f"{name}:{n}: {case['game']}:{case['text']!r} read as {got}")
    return wrong


def test_corpus() -> None:
    wrong = _misread(_corpus(), CORPUS.name)
    assert not wrong, f"{len(wrong)} lines:\n" + "\n".join(wrong)


def test_corpus_is_there() -> None:
    assert len(_corpus()) >= 80  # the file is read, not silently empty


# Our own labelled lines (issue #12): decorations, show clauses, amounts, house-game stakes and
# declarations for every game, and the chat around them that must stay chat.
MORE = Path(__file__).parent / "corpus" / "parse-more.jsonl"


def _more() -> list[dict[str, Any]]:
    return [json.loads(line) for line in MORE.read_text(encoding="utf-8").splitlines() if line]


def test_more_corpus() -> None:
    wrong = _misread(_more(), MORE.name)
    assert not wrong, f"{len(wrong)} lines:\n" + "\n".join(wrong)


def test_more_corpus_covers_every_game() -> None:
    cases = _more()
    assert len(cases) >= 300
    for game in GAMES:
        kinds = {c["expect"]["kind"] for c in cases if c["game"] == game}
        assert kinds == {"action", "chat"}, game


# --- actions: what players type beyond the corpus ---------------------------------------------

ACTIONS: list[tuple[str, str, dict[str, Any]]] = [
    # call
    ("omaha", "ｺ", {"action": "call"}),
    ("omaha", "Ｃ", {"action": "call"}),
    ("omaha", "CALL", {"action": "call"}),
    ("omaha", "こーる", {"action": "call"}),
    ("omaha", "コールで", {"action": "call"}),
    ("omaha", "コールします", {"action": "call"}),
    ("omaha", "コールお願いします", {"action": "call"}),
    ("omaha", "こ！", {"action": "call"}),
    ("omaha", "コールｗ", {"action": "call"}),
    ("omaha", "じゃあコール", {"action": "call"}),
    ("omaha", "コーーール", {"action": "call"}),
    ("omaha", "  こ  ", {"action": "call"}),
    ("omaha", "コール〜", {"action": "call"}),
    ("omaha", "チェックー", {"action": "check"}),
    ("omaha", "オールイン〜！", {"action": "allin"}),
    # check
    ("omaha", "ちぇっく", {"action": "check"}),
    ("omaha", "ﾁｪｯｸ", {"action": "check"}),
    ("omaha", "x", {"action": "check"}),
    ("omaha", "Ｘ", {"action": "check"}),
    ("omaha", "チ", {"action": "check"}),
    ("omaha", "チェックで", {"action": "check"}),
    # fold
    ("omaha", "ふぉーるど", {"action": "fold"}),
    ("omaha", "降り", {"action": "fold"}),
    ("omaha", "おり", {"action": "fold"}),
    ("omaha", "降ります", {"action": "fold"}),
    ("omaha", "フォ", {"action": "fold"}),
    ("omaha", "ＦＯＬＤ", {"action": "fold"}),
    ("omaha", "フォルド", {"action": "fold"}),
    # raise (make)
    ("omaha", "make 1800", {"action": "raise", "to": 1800}),
    ("omaha", "1800にレイズ", {"action": "raise", "to": 1800}),
    ("omaha", "1800までレイズ", {"action": "raise", "to": 1800}),
    ("omaha", "レイズ1800まで", {"action": "raise", "to": 1800}),
    ("omaha", "1800メイク", {"action": "raise", "to": 1800}),
    ("omaha", "raise to 2400", {"action": "raise", "to": 2400}),
    ("omaha", "make it 3000", {"action": "raise", "to": 3000}),
    ("omaha", "ﾒｲｸ１，８００", {"action": "raise", "to": 1800}),
    ("omaha", "r 1.8k", {"action": "raise", "to": 1800}),
    ("omaha", "めいく1万5000", {"action": "raise", "to": 15000}),
    ("omaha", "メイク1万5千", {"action": "raise", "to": 15000}),
    ("omaha", "メイク3千", {"action": "raise", "to": 3000}),
    ("omaha", "メイク1.5万", {"action": "raise", "to": 15000}),
    ("omaha", "メイク12,000で", {"action": "raise", "to": 12000}),
    ("omaha", "レイズ", {"action": "raise"}),
    # bet
    ("omaha", "B600", {"action": "bet", "amount": 600}),
    ("omaha", "600ベット", {"action": "bet", "amount": 600}),
    ("omaha", "べっと ６００", {"action": "bet", "amount": 600}),
    ("omaha", "bet 2k", {"action": "bet", "amount": 2000}),
    # pot
    ("omaha", "ポットレイズ", {"action": "raise", "pot": True}),
    ("omaha", "pot", {"action": "raise", "pot": True}),
    ("omaha", "P", {"action": "raise", "pot": True}),
    ("omaha", "ﾎﾟｯﾄ", {"action": "raise", "pot": True}),
    ("omaha", "ポットで", {"action": "raise", "pot": True}),
    ("omaha", "pot bet", {"action": "bet", "pot": True}),
    # all-in
    ("omaha", "all-in", {"action": "allin"}),
    ("omaha", "allin", {"action": "allin"}),
    ("omaha", "ALL IN", {"action": "allin"}),
    ("omaha", "おーるいん", {"action": "allin"}),
    ("omaha", "ａｉ", {"action": "allin"}),
    ("omaha", "全部いく", {"action": "allin"}),
    ("omaha", "オールインで", {"action": "allin"}),
    # fold / open / muck / close with cards
    ("omaha", "As Kdでフォールド", {"action": "fold", "cards": ["As", "Kd"]}),
    ("omaha", "A♠見せてフォールド", {"action": "fold", "cards": ["As"]}),
    ("omaha", "フォールド、スペードのAだけ見せます", {"action": "fold", "cards": ["As"]}),
    ("omaha", "F 10s", {"action": "fold", "cards": ["Ts"]}),
    ("omaha", "F AhKh", {"action": "fold", "cards": ["Ah", "Kh"]}),
    ("omaha", "Ah Kh Qd Jd オープン", {"action": "open", "cards": ["Ah", "Kh", "Qd", "Jd"]}),
    ("omaha", "open", {"action": "open"}),
    ("omaha", "見せます", {"action": "open"}),
    ("omaha", "Aｓだけ見せます", {"action": "open", "cards": ["As"]}),
    ("omaha", "muck", {"action": "muck"}),
    ("omaha", "まっく", {"action": "muck"}),
    ("omaha", "K♥だけ見せてマック", {"action": "muck", "cards": ["Kh"]}),
    ("omaha", "close", {"action": "close"}),
    ("omaha", "見せません", {"action": "close"}),
    # seven
    ("seven", "ｺ", {"action": "call"}),
    ("seven", "ｈｒ", {"action": "hyper_raise"}),
    ("seven", "はい！", {"action": "hyper_raise"}),
    ("seven", "ﾊｲﾊﾟｰ", {"action": "hyper_raise"}),
    ("seven", "はいぱー", {"action": "hyper_raise"}),
    ("seven", "hyper raise", {"action": "hyper_raise"}),
    ("seven", "ＥＲ", {"action": "extra_raise"}),
    ("seven", "extra", {"action": "extra_raise"}),
    ("seven", "エク", {"action": "extra_raise"}),
    ("seven", "レイズ", {"action": "raise"}),
    ("seven", "降ります", {"action": "fold"}),
    ("seven", "アンティ100", {"action": "ante", "amount": 100}),
    ("seven", "オールイン", {"action": "allin"}),
    ("seven", "3cと7dを捨てます", {"action": "discard", "cards": ["3c", "7d"]}),
    ("seven", "3c7d捨て", {"action": "discard", "cards": ["3c", "7d"]}),
    ("seven", "3c 7d", {"action": "discard", "cards": ["3c", "7d"]}),
    ("seven", "捨て：3c 7d", {"action": "discard", "cards": ["3c", "7d"]}),
    ("seven", "ディスカード 9h 2c", {"action": "discard", "cards": ["9h", "2c"]}),
    ("seven", "7ストレートフラッシュ", {"action": "discard", "hand": "seven_straight_flush"}),
    ("seven", "セブンストレート", {"action": "discard", "hand": "seven_straight"}),
    ("seven", "セブン・オブ・ア・カインド", {"action": "discard", "hand": "seven_of_a_kind"}),
    ("seven", "ミドルハウスで", {"action": "discard", "hand": "middle_house"}),
    ("seven", "ディフェクティブハウス", {"action": "discard", "hand": "defective_house"}),
    ("seven", "ビッグ・ハウス", {"action": "discard", "hand": "big_house"}),
    # any class name reaches the engine, which refuses one weaker than the hand (issue #12)
    ("seven", "フルハウス", {"action": "discard", "hand": "full_house"}),
    # holdem_aa
    ("holdem_aa", "アンティ１００", {"action": "ante", "amount": 100}),
    ("holdem_aa", "アンティ100、AA50", {"action": "ante", "amount": 100, "aa": 50}),
    ("holdem_aa", "AA50 アンティ100", {"action": "ante", "amount": 100, "aa": 50}),
    ("holdem_aa", "アンティ100でAA50", {"action": "ante", "amount": 100, "aa": 50}),
    ("holdem_aa", "アンティ100とAA50", {"action": "ante", "amount": 100, "aa": 50}),
    ("holdem_aa", "アンティ100で", {"action": "ante", "amount": 100}),
    ("omaha", "フォールド（As Kd）", {"action": "fold", "cards": ["As", "Kd"]}),
    ("omaha", "F: As Kd", {"action": "fold", "cards": ["As", "Kd"]}),
    ("deuces", "捨てなし", {"action": "play", "discard": []}),
    ("holdem_aa", "アンティ200 ＡＡ１００", {"action": "ante", "amount": 200, "aa": 100}),
    ("holdem_aa", "アンティ100 AAなし", {"action": "ante", "amount": 100}),
    ("holdem_aa", "100アンティ", {"action": "ante", "amount": 100}),
    ("holdem_aa", "アンティ", {"action": "ante"}),
    ("holdem_aa", "こーる", {"action": "call"}),
    ("holdem_aa", "降り", {"action": "fold"}),
    ("holdem_aa", "オールイン", {"action": "allin"}),
    # deuces
    ("deuces", "As Ks 2dを残す", {"action": "play", "keep": ["As", "Ks", "2d"]}),
    ("deuces", "キープ As Ks", {"action": "play", "keep": ["As", "Ks"]}),
    ("deuces", "hold Ah Kh Qh", {"action": "play", "keep": ["Ah", "Kh", "Qh"]}),
    ("deuces", "4cと9hを捨てます", {"action": "play", "discard": ["4c", "9h"]}),
    ("deuces", "チェンジ 4c 9h", {"action": "play", "discard": ["4c", "9h"]}),
    ("deuces", "4c 9h 交換", {"action": "play", "discard": ["4c", "9h"]}),
    ("deuces", "そのまま", {"action": "play", "discard": []}),
    ("deuces", "交換なし", {"action": "play", "discard": []}),
    ("deuces", "全部捨て", {"action": "play", "keep": []}),
    ("deuces", "プレイ", {"action": "play"}),
    ("deuces", "残す JK As", {"action": "play", "keep": ["JK", "As"]}),
    ("deuces", "アンティ100", {"action": "ante", "amount": 100}),
    ("deuces", "ふぉ", {"action": "fold"}),
]


@pytest.mark.parametrize("game,text,expect", ACTIONS, ids=lambda x: str(x))
def test_actions(game: str, text: str, expect: dict[str, Any]) -> None:
    got = parse(text, game).to_json()
    assert got["kind"] == "action", got
    assert _contains(got, expect), got
    # nothing beyond what the message said
    extra = {"amount", "to", "pot", "aa", "cards", "hand", "keep", "discard"} - set(expect)
    assert not extra & set(got), got


# --- unreadable amounts: the action without its amount ----------------------------------------


@pytest.mark.parametrize(
    "text,action",
    [
        ("メイク abc", "raise"),
        ("レイズ 3x", "raise"),
        ("make 1.2.3", "raise"),
        ("メイク1.2345k", "raise"),
        ("ベット xyz", "bet"),
        ("メイク" + "9" * 40, "raise"),
    ],
)
def test_unreadable_amount_keeps_the_action(text: str, action: str) -> None:
    got = parse(text, "omaha").to_json()
    assert got["kind"] == "action" and got["action"] == action
    assert "to" not in got and "amount" not in got


def test_unreadable_ante_amount() -> None:
    got = parse("アンティ abc", "holdem_aa").to_json()
    assert got == {"kind": "action", "action": "ante", "hand_info": False, "advice": False}


# --- chat: never a wrong action ---------------------------------------------------------------

CHAT = [
    # starts like an action, is not one
    ("omaha", "こんにちは"),
    ("omaha", "ここ"),
    ("omaha", "コーラ飲みたい"),
    ("omaha", "ちょっと待って"),
    ("omaha", "ちぇっ"),
    ("omaha", "降りたい"),
    ("omaha", "降りない"),
    ("omaha", "降りた"),
    ("omaha", "コールする？"),
    ("omaha", "コール?"),
    ("omaha", "コールしない"),
    ("omaha", "Fランク"),
    ("omaha", "call me"),
    ("omaha", "caller"),
    ("omaha", "checkmate"),
    ("omaha", "foldable"),
    ("omaha", "ベットする人いる？"),
    ("omaha", "レイズしてもいいよ"),
    ("omaha", "ポットいくら？"),
    ("omaha", "オールインかな"),
    ("omaha", "pp"),
    ("omaha", "bb"),
    ("omaha", "1800"),
    ("omaha", "Kが来た"),
    ("omaha", "As"),
    ("omaha", "As Kd"),
    ("omaha", "ask"),
    ("omaha", "全部"),
    ("omaha", "見せて"),
    ("omaha", "オープンって何"),
    ("omaha", "gg"),
    ("omaha", "おりこうさん"),
    ("omaha", "コールだね"),
    ("omaha", "オープンだね"),
    ("omaha", "フォー"),
    ("omaha", "チー"),
    ("omaha", "コー"),
    ("omaha", "xx"),
    ("omaha", "はい"),
    ("omaha", "ハイパー"),
    ("omaha", "ER"),
    ("omaha", "アンティ100"),
    ("omaha", "捨て 2h 4s"),
    # game vocabulary: はい only in seven; check/bet/open only where they exist
    ("holdem_aa", "はい"),
    ("deuces", "はい"),
    ("holdem_aa", "チェック"),
    ("seven", "チェック"),
    ("seven", "ベット600"),
    ("deuces", "コール"),
    ("holdem_aa", "AA"),
    ("holdem_aa", "オープン"),
    ("seven", "セブンカード"),
    ("seven", "はいはい"),
    ("seven", "はいよ"),
    ("seven", "じゃあはい"),
    ("seven", "はーい"),
    ("seven", "はいどうぞ"),
    ("seven", "As"),
    ("seven", "3c 7d 8s"),
    ("seven", "ストレートかな"),
    ("deuces", "As Ks"),
    ("deuces", "全部"),
    ("deuces", "ホールデム"),
    # empty and odd
    ("omaha", ""),
    ("omaha", "   "),
    ("omaha", "\x00\x01"),
    ("omaha", "ｗｗｗ"),
    ("omaha", "!?"[1:]),
]


@pytest.mark.parametrize("game,text", CHAT, ids=lambda x: str(x))
def test_chat(game: str, text: str) -> None:
    assert parse(text, game).kind == "chat"


# --- commands ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,command,args",
    [
        ("!bank", "bank", []),
        ("!sit 3", "sit", ["3"]),
        ("！着席", "sit", []),
        ("!退席", "leave", []),
        ("!SIT", "sit", []),
        ("  !deal", "deal", []),
        ("!grant @alice 500", "grant", ["@alice", "500"]),
        ("!penalty @Bob information_leak", "penalty", ["@Bob", "information_leak"]),
        ("!open omaha level=3", "open", ["omaha", "level=3"]),
        ("!confirm 12", "confirm", ["12"]),
        ("!lastslot on", "lastslot", ["on"]),
        ("!ヘルプ", "help", []),
        ("!nogame", "nogame", []),
        ("!frobnicate x", "frobnicate", ["x"]),
        ("!", "", []),
    ],
)
def test_commands(text: str, command: str, args: list[str]) -> None:
    got = parse(text, "omaha")
    assert (got.kind, got.command, got.args) == ("command", command, args)


# --- hand information and advice --------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "AA持ってる",
        "ＫＫだった",
        "AKsなら",
        "A♠あるよ",
        "スペードのA持ってる",
        "ハート3枚",
        "9のペア",
        "7が来た",
        "Qが落ちた",
        "ツーペアです",
        "トリップス",
        "ストレートドロー",
        "フラドロ",
        "ガットショット",
        "ナッツ確定",
        "フルハウス",
        "クアッズ",
        "ブタでした",
        "役なし",
        "いい手だった",
        "手が悪い",
        "エースが2枚",
        "ｋｋ",
        "I have the nuts",
        "flush draw",
        "ワンペア",
        "キッカー負け",
        "ジョーカー引いた",
        "デュース3枚",
        "ビッグハウス",
        "AhKh",
    ],
)
def test_hand_info(text: str) -> None:
    got = parse(text, "omaha")
    assert got.kind == "chat" and got.hand_info


@pytest.mark.parametrize(
    "text",
    [
        "こんにちは",
        "よろしくお願いします",
        "gg",
        "ナイスハンド！",
        "ｗｗｗ",
        "トイレ行ってきます",
        "今日は寒いね",
        "22時に落ちます",
        "2人待ち",
        "ドーナッツ食べたい",
        "おつかれさま",
        "ask him",
        "ok",
        "ありがとう♥",
        "またね〜",
        "セブンカード楽しい",
        "デュースボーナスやろう",
        "セットアップ中",
        "3000点負けた",
        "おはよう",
        "ナイスフォールド",
    ],
)
def test_no_hand_info(text: str) -> None:
    assert not parse(text, "omaha").hand_info


def test_holdem_aa_side_bet_is_not_aces() -> None:
    assert not parse("AA 50にしとこ", "holdem_aa").hand_info
    assert not parse("AAベット忘れた", "holdem_aa").hand_info
    assert parse("AA持ってる", "holdem_aa").hand_info
    assert parse("AA 50にしとこ", "omaha").hand_info  # elsewhere AA is a pair of aces


ADVICE = [
    "なんでそこでコールするの",
    "今のはレイズすべきでしょ",
    "降りたほうがいいよ",
    "それはミスだよ、訂正したら？",
    "降りろ",
    "チェックしとけ",
    "フォールドでしょ",
    "ベットしかない",
    "コールはないわ",
    "悪手だね",
    "どうして降りたの",
    "レイズに変えて",
    "下手くそ",
    "取り消して",
    "you should fold",
    "why did you call",
    "bad call",
    "オールインするべき",
    "レイズしないの？",
    "チェックでよかったのに",
    "取り消したほうがいい",
    "押しすぎ",
]


@pytest.mark.parametrize("text", ADVICE)
def test_advice(text: str) -> None:
    got = parse(text, "omaha")
    assert got.kind == "chat" and got.advice


@pytest.mark.parametrize(
    "text",
    [
        "今日は寒いね",
        "ナイスコール",
        "コールしてくれてありがとう",
        "よろしくお願いします",
        "ディールミスです",
        "寝たほうがいいよ",
        "がんばって",
        "ナイスフォールド",
        "gg",
        "お願いします",
    ],
)
def test_no_advice(text: str) -> None:
    assert not parse(text, "omaha").advice


def test_actions_carry_no_advice_and_hand_info_only_when_showing() -> None:
    assert parse("F", "omaha").to_json() == {
        "kind": "action",
        "action": "fold",
        "hand_info": False,
        "advice": False,
    }
    assert parse("F As", "omaha").hand_info
    assert parse("アンティ100 AA50", "holdem_aa").hand_info is False


# --- normalisation ----------------------------------------------------------------------------


def test_normalize() -> None:
    assert normalize("ｺｰﾙ") == normalize("コール") == normalize("こーる") == "こーる"
    assert normalize("ＭＡＫＥ１８００") == "make1800"
    assert normalize("ハイパー〜") == "はいぱーー"


# --- robustness: anything at all --------------------------------------------------------------


@settings(max_examples=examples(300), deadline=None)
@given(st.text(), st.sampled_from(GAMES))
def test_any_text_never_raises(text: str, game: str) -> None:
    got = parse(text, game)
    assert got.kind in ("action", "command", "chat")
    json.dumps(got.to_json(), ensure_ascii=False)


# Hypothesis cannot draw 10,000 characters at once: repeat a drawn piece up to that length.
_LONG = st.text(min_size=1, max_size=300).map(lambda s: (s * (10_000 // len(s) + 1))[:10_000])


@settings(max_examples=examples(60), deadline=None)
@given(_LONG, st.sampled_from(GAMES))
def test_long_text_never_raises(text: str, game: str) -> None:
    got = parse(text, game)
    assert got.kind == ("command" if normalize(text).lstrip().startswith("!") else "chat")


_ALPHABET = st.sampled_from(
    list("こちふぉーるどめいくれアイズベットポ0123456789,.k万千 ascdhkqjtx♠♥!？。w")
)


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=30), st.sampled_from(GAMES))
def test_near_miss_text_never_raises(text: str, game: str) -> None:
    got = parse(text, game).to_json()
    assert got["kind"] in ("action", "command", "chat")
    for key in ("amount", "to", "aa"):
        assert key not in got or isinstance(got[key], int)


# --- speed ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "あ" * 10_000,
        "ア" * 10_000,
        "こーるで" * 2_500,
        "なんで" * 3_333,
        "a " * 5_000,
        "A♠" * 5_000,
        "1 " * 5_000,
        "ｗ" * 10_000,
        "x" * 10_000,
        "今日は寒いね、" * 1_428,
        "\x00" * 10_000,
    ],
)
def test_long_message_reads_a_bounded_amount(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A wall of text costs a bounded amount of word analysis (the expensive step), whatever
    its length: at most lexicon.WINDOWS windows of lexicon.WINDOW characters each side of a
    word, and no more for a text ten times as long. Counted, not timed (the time of a
    10,000-character message is bench/parse.py's figure)."""
    assert len(text) >= 9_996 and len(text) > MAX_ACTION_CHARS
    tagger = words_module._tagger()
    read: list[int] = []

    def counting(chunk: str) -> Any:
        read.append(len(chunk))
        return tagger(chunk)

    monkeypatch.setattr(words_module, "_tagger", lambda: counting)
    analysed = []
    for long_text in (text, text * 10):
        clear_caches()
        words_module._analyse_cached.cache_clear()
        read.clear()
        assert parse(long_text, "omaha").kind == "chat"
        analysed.append(sum(read))
    assert analysed[0] <= lexicon.WINDOWS * 3 * lexicon.WINDOW, analysed
    assert analysed[1] <= analysed[0], analysed


# --- the CLI, both modes ----------------------------------------------------------------------


def _cli(*args: str, stdin: str | None = None) -> str:
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", "parse", *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
        timeout=60,
    ).stdout


def test_cli_single_message() -> None:
    assert json.loads(_cli("--game", "omaha", "メイク１８００")) == {
        "kind": "action",
        "action": "raise",
        "to": 1800,
        "hand_info": False,
        "advice": False,
    }


def test_cli_stdin_json_lines_in_order() -> None:
    cases = [c for c in _corpus() if c["game"] == "omaha"]
    lines = [c["text"] for c in cases]
    out = _cli("--game", "omaha", "-", stdin="\n".join(lines) + "\n").splitlines()
    assert len(out) == len(lines)
    for case, line in zip(cases, out, strict=True):
        assert _contains(json.loads(line), case["expect"]), (case, line)


# --- the skeleton cache reads exactly what the grammar reads ------------------------------------

_SLOTTY = st.sampled_from(
    [
        "メイク",
        "レイズ",
        "ベット",
        "B",
        "R",
        "F",
        "オープン",
        "マック",
        "捨て",
        "残す",
        "アンティ",
        "AA",
        "1800",
        "1,800",
        "1.5k",
        "2万",
        "7",
        "10",
        "As",
        "Kd",
        "10s",
        "A♠",
        "スペードのA",
        "jk",
        " ",
        "に",
        "まで",
        "で",
        "だけ見せます",
        "abc",
        "x",
        "ストレート",
        "セブン",
        "フラッシュ",
        "B2万",
        "♠",
        "b",
        "1800b",
        "倍",
        "+",
        "の",
        "aa50",
        "10♠",
        "千",
        "k",
        "0",
    ]
)


@settings(max_examples=examples(1500), deadline=None)
@given(st.lists(_SLOTTY, max_size=6).map("".join), st.sampled_from(GAMES))
def test_skeleton_parse_equals_direct_parse(text: str, game: str) -> None:
    from referee.lang import decor
    from referee.lang.normalize import nfkc
    from referee.parse import _parse_skeleton, _strip_tail

    got = parse(text, game)
    core = _strip_tail(normalize(text))
    direct = _parse_skeleton.__wrapped__(core, game) if core else None
    if direct is None:  # then the parser reads the text without its decorations
        bare = decor.strip(nfkc(text).lstrip())
        core = _strip_tail(bare) if bare else ""
        direct = _parse_skeleton.__wrapped__(core, game) if core else None
    if direct is None:  # then the repaired text and the clause reader: as parse, uncached
        from referee.parse import _parse

        again = _parse(text, game).to_json()
        direct = None if again["kind"] != "action" else {
            k: v for k, v in again.items() if k not in ("kind", "hand_info", "advice")}
    if direct is None:
        assert got.kind == "chat"
    else:
        assert got.kind == "action"
        flags = ("kind", "hand_info", "advice")
        fields = {k: v for k, v in got.to_json().items() if k not in flags}
        assert fields == {k: v for k, v in direct.items() if v is not None}


@pytest.mark.parametrize("game", GAMES)
def test_grammar_builds_lalr_without_conflicts(game: str) -> None:
    from referee.parse import _grammar

    g = _grammar(game)  # Lark raises GrammarError on any LALR conflict
    assert g.lark.options.parser == "lalr"
    assert g.gate.match("こ" if game != "deuces" else "ふぉ")


def test_cli_stdin_binary_and_bom_are_read_not_fatal() -> None:
    data = "\ufeffこ\n".encode() + b"\xff\xfe\x80\x00abc\n" + "!\xff".encode("latin-1") + b"\nF\n"
    done = subprocess.run(
        [sys.executable, "-m", "referee.cli", "parse", "--game", "omaha", "-"],
        input=data,
        capture_output=True,
        check=True,
        timeout=60,
        env={**os.environ, "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8:strict"},
    )
    kinds = [json.loads(line)["kind"] for line in done.stdout.decode("utf-8").splitlines()]
    assert kinds == ["action", "chat", "command", "action"]


@pytest.mark.parametrize("text", ["\u200bこ", "こ\u200d", "\ufeffコール", "コ\u00adール"])
def test_invisible_characters_do_not_hide_an_action(text: str) -> None:
    assert parse(text, "omaha").action == "call"


def test_lexicon_reads_long_texts_as_it_reads_short_ones() -> None:
    from referee import lexicon

    texts = [
        "AA持ってる",
        "Kが来た",
        "ナッツだわ",
        "ドーナッツ",
        "セットアップ",
        "7が来た",
        "今日は寒いね",
        "なんでそこでコールするの",
        "降りたほうがいいよ",
        "寝たほうがいいよ",
        "As Kd",
        "ask",
        "ありがとう♥",
        "ブタ肉",
        "すりーおぶかいんど",
        "悪手",
        "ミスディールです",
        "AA 50にしとこ",
        *ADVICE,
    ]
    pad = "ー" * lexicon.LONG
    for game in GAMES:
        for text in texts:
            norm = normalize(text)
            short = lexicon.scan(text, norm, game)
            assert lexicon.scan(text + "。" + pad, norm + "。" + pad, game) == short, (game, text)
            assert lexicon.scan(pad + "。" + text, pad + "。" + norm, game) == short, (game, text)
