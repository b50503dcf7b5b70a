"""Leak assessment: what a chat message claims, checked against what the speaker holds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.cards import Card, card_str, parse_cards
from referee.flags import (
    Confidence,
    judge_leak,
    made_class,
    named_cards,
    named_classes,
    named_rank_pairs,
    named_suit_counts,
)


def c(text: str) -> list[Card]:
    return parse_cards(text)


def assess_leak(text: str, game: str, holdings: list[Card], shown: list[Card],
                board: list[Card] | None = None) -> Confidence | None:
    """The priority of the leak flag ``text`` would raise (None: none)."""
    v = judge_leak(text, game, holdings, shown, board or [])
    return None if v is None else v.priority


@pytest.mark.parametrize(
    "text,cards",
    [
        ("A♠持ってる", ["As"]), ("スペードのAとハートの10", ["As", "Th"]), ("as well as", []),
        ("5♦があるんだよね", ["5d"]), ("Ａ♥Ｋ♥", ["Ah", "Kh"]), ("AhKh", ["Ah", "Kh"]),
        ("こんにちは", []), ("20000点", []), ("Aハート持ってる", ["Ah"]),
        ("エースのハート", ["Ah"]), ("Kのスペード", ["Ks"]), ("10のクラブ", ["Tc"]),
    ],
)
def test_named_cards(text: str, cards: list[str]) -> None:
    assert [card_str(x) for x in named_cards(text)] == cards


def test_rank_pairs_suit_counts_and_classes() -> None:
    assert named_rank_pairs("AA持ってるから降りない") == [12]
    assert named_rank_pairs("降りたのはQQでした") == [10]
    assert named_rank_pairs("1010") == [8]
    assert named_rank_pairs("100点") == []
    assert named_rank_pairs("俺のハンドはAのペアだよ") == [12]
    assert named_rank_pairs("キングのペア") == [11]
    assert named_rank_pairs("ツーペア") == named_rank_pairs("2ペア") == []
    assert named_rank_pairs("2のペア") == [0]
    assert named_suit_counts("スペード2枚あるんだよね") == [(3, 2)]
    assert named_suit_counts("ハート三枚") == [(2, 3)]
    assert named_classes("ストレートフラッシュ狙い") == {"straight_flush"}
    assert named_classes("セットできた") == {"three_of_a_kind"}
    assert named_classes("フラッシュドロー") == {"flush"}
    assert named_classes("ワンペア") == {"one_pair"}
    assert named_classes("こんにちは") == set()


def test_made_class_is_the_best_with_the_visible_board() -> None:
    assert made_class("omaha", c("Ah Kh Qd Jd"), c("Ts 9s 8c")) == "straight"
    assert made_class("omaha", c("Ah Ad Kc Qs"), []) is None  # preflop: rank pairs decide
    assert made_class("holdem_aa", c("Ah Ad"), c("As 9s 4h")) == "three_of_a_kind"
    assert made_class("seven", c("2c 3c 4c 5c 6c 7c 8c"), []) == "seven_straight_flush"
    assert made_class("deuces", c("As Ks Qs Js Ts"), []) == "natural_royal_flush"


def test_a_pair_in_hand_is_not_named_by_talk_of_a_paired_board() -> None:
    hole, board = c("Ah Ad Kc Qs"), c("9s 9h 4c")
    assert made_class("omaha", hole, board) == "two_pair"
    assert assess_leak("ペアボードだね", "omaha", hole, [], board) is None  # the board is public
    assert assess_leak("ツーペアある", "omaha", hole, [], board) == "high"


def test_assess_leak() -> None:
    hole = c("Ah Ad Kc Qs")
    assert assess_leak("AA持ってるから降りない", "omaha", hole, []) == "high"
    assert assess_leak("KK持ってる", "omaha", hole, []) == "low"  # false claims count, low
    assert assess_leak("K♣ある", "omaha", hole, []) == "high"
    assert assess_leak("K♦ある", "omaha", hole, []) == "low"
    assert assess_leak("ナッツだわ", "omaha", hole, []) == "low"
    assert assess_leak("ボードの10♠", "omaha", hole, [], c("Ts 9s 8c")) is None
    # cards legally shown (a fold with show) may be talked about
    assert assess_leak("A♥見せたよ", "omaha", hole, c("Ah")) is None
    assert assess_leak("A♦もあった", "omaha", hole, c("Ah")) == "high"
    # a seven hand is all face up: nothing to leak
    seven = c("2c 3c 4c 5c 6c 7c 8c")
    assert assess_leak("ストレートフラッシュ", "seven", seven, seven) is None
    # a spectator-like speaker holding nothing: only a low flag
    assert assess_leak("AAだよ", "omaha", [], []) == "low"


@given(st.lists(st.integers(0, 51), min_size=4, max_size=4, unique=True))
def test_naming_any_hidden_card_is_high(cards: list[int]) -> None:
    hole = [Card(x) for x in cards]
    for card in hole:
        assert assess_leak(f"{card_str(card)}持ってる", "omaha", hole, []) == "high"


def test_counts_the_board_shows_are_not_verified_claims() -> None:
    hole, board = c("Ks Kh 7s 2s"), c("Kd Kc 9s 8s 3s")
    assert assess_leak("ボードにKK", "omaha", hole, [], board) is None  # talk about the board
    assert assess_leak("ボードにKKで俺もK持ち", "omaha", hole, [], board) == "low"
    assert assess_leak("スペード3枚", "omaha", hole, [], board) == "low"
    assert assess_leak("スペード3枚", "omaha", hole, [], c("Kd Kc 9s")) == "high"
