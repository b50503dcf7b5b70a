"""Standard hands (omaha, holdem_aa): exhaustive class counts, cross-checks against treys and
pokerkit, the 2 + 3 Omaha rule, the threshold helpers and validation."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cards import JOKER, Card, card_str, parse_cards
from referee.hands import (
    HandError,
    HandValue,
    best5_key,
    class_floor,
    class_of,
    class_rank,
    evaluate,
    evaluate_many,
    omaha_key,
    pair_floor,
    winners,
)
from referee.hands.standard import key_from_cards


def cs(text: str) -> list[Card]:
    return parse_cards(text)


# --- exhaustive ------------------------------------------------------------------------------

EXPECTED_5 = {
    "royal_flush": 4, "straight_flush": 36, "four_of_a_kind": 624, "full_house": 3744,
    "flush": 5108, "straight": 10200, "three_of_a_kind": 54912, "two_pair": 123552,
    "one_pair": 1098240, "high_card": 1302540,
}


def test_all_2598960_five_card_hands_have_the_textbook_class_counts() -> None:
    by_key = Counter(map(best5_key, combinations(range(52), 5)))
    got: Counter[str] = Counter()
    for key, n in by_key.items():
        got[class_of("omaha", key)] += n
    assert got == EXPECTED_5
    assert sum(got.values()) == 2_598_960
    # the textbook number of distinct values: kickers are all taken into account
    assert len(by_key) == 7462


# --- against independent libraries --------------------------------------------------------

_TREYS_CLASS = {
    1: "straight_flush", 2: "four_of_a_kind", 3: "full_house", 4: "flush", 5: "straight",
    6: "three_of_a_kind", 7: "two_pair", 8: "one_pair", 9: "high_card",
}


def _treys() -> tuple[object, list[int]]:
    treys = pytest.importorskip("treys")
    return treys.Evaluator(), [treys.Card.new(card_str(Card(c))) for c in range(52)]


def _treys_class(ev: object, score: int) -> str:
    if score == 1:
        return "royal_flush"
    return _TREYS_CLASS[ev.get_rank_class(score)]  # type: ignore[attr-defined]


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


@pytest.mark.slow
def test_200000_random_seven_card_hands_agree_with_treys() -> None:
    ev, tc = _treys()
    rng = random.Random(20261129)
    prev_key = prev_score = None
    for _ in range(200_000):
        hand = rng.sample(range(52), 7)
        key = best5_key(hand)
        t = [tc[c] for c in hand]
        score = ev.evaluate(t[:2], t[2:])  # type: ignore[attr-defined]  # lower is better
        assert class_of("holdem_aa", key) == _treys_class(ev, score), [card_str(c) for c in hand]
        if prev_key is not None:
            assert _sign(key - prev_key) == _sign(prev_score - score)
        prev_key, prev_score = key, score


def _treys_omaha(ev: object, tc: list[int], hole: Sequence[int], board: Sequence[int]) -> int:
    return min(
        ev._five([tc[c] for c in (*h, *b)])  # type: ignore[attr-defined]
        for h in combinations(hole, 2)
        for b in combinations(board, 3)
    )


@pytest.mark.slow
def test_50000_random_omaha_deals_agree_with_treys() -> None:
    """Two players share a board; treys scores every 2 + 3 combination."""
    ev, tc = _treys()
    rng = random.Random(4)
    for _ in range(50_000):
        d = rng.sample(range(52), 13)
        a, b, board = d[:4], d[4:8], d[8:]
        ka, kb = omaha_key(a, board), omaha_key(b, board)
        sa, sb = _treys_omaha(ev, tc, a, board), _treys_omaha(ev, tc, b, board)
        assert class_of("omaha", ka) == _treys_class(ev, sa)
        assert class_of("omaha", kb) == _treys_class(ev, sb)
        assert _sign(ka - kb) == _sign(sb - sa), [card_str(c) for c in d]


_PK_CLASS = {
    "Straight flush": "straight_flush", "Four of a kind": "four_of_a_kind",
    "Full house": "full_house", "Flush": "flush", "Straight": "straight",
    "Three of a kind": "three_of_a_kind", "Two pair": "two_pair", "One pair": "one_pair",
    "High card": "high_card",
}


@pytest.mark.slow
def test_random_omaha_deals_agree_with_pokerkit() -> None:
    """pokerkit implements the 2 + 3 rule itself (treys above only scores five cards)."""
    pokerkit = pytest.importorskip("pokerkit")
    rng = random.Random(7)
    for _ in range(1500):
        d = rng.sample(range(52), 13)
        a, b, board = d[:4], d[4:8], d[8:]
        bt = "".join(card_str(Card(c)) for c in board)
        pa = pokerkit.OmahaHoldemHand.from_game("".join(card_str(Card(c)) for c in a), bt)
        pb = pokerkit.OmahaHoldemHand.from_game("".join(card_str(Card(c)) for c in b), bt)
        va, vb = evaluate("omaha", a, board), evaluate("omaha", b, board)
        for v, p in ((va, pa), (vb, pb)):
            label = _PK_CLASS[p.entry.label.value]
            assert (v.klass == "royal_flush" and label == "straight_flush") or v.klass == label
        assert _sign(va.key - vb.key) == _sign((pa > pb) - (pa < pb))
        # the cards shown make the hand: 2 hole + 3 board, and pokerkit agrees on them
        assert len([c for c in va.cards if c in a]) == 2
        assert len([c for c in va.cards if c in board]) == 3
        assert best5_key(va.cards) == va.key


# --- properties ----------------------------------------------------------------------------

hands7 = st.lists(st.integers(0, 51), min_size=5, max_size=7, unique=True)


@settings(max_examples=examples(400), deadline=None)
@given(hands7)
def test_fast_key_equals_the_reference_and_the_best_five_card_subset(cards: list[int]) -> None:
    key = best5_key(cards)
    assert key == key_from_cards(cards)
    assert key == max(best5_key(c) for c in combinations(cards, 5))


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(0, 51), min_size=9, max_size=9, unique=True))
def test_omaha_uses_exactly_two_hole_and_three_board_cards(d: list[int]) -> None:
    hole, board = d[:4], d[4:]
    expected = max(
        best5_key([*h, *b]) for h in combinations(hole, 2) for b in combinations(board, 3)
    )
    assert omaha_key(hole, board) == expected
    v = evaluate("omaha", [Card(c) for c in hole], [Card(c) for c in board])
    assert v.key == expected and best5_key(v.cards) == expected
    assert sum(c in hole for c in v.cards) == 2 and sum(c in board for c in v.cards) == 3


def test_omaha_two_plus_three_examples() -> None:
    # four hearts on the board and one in the hand: no flush in Omaha
    v = evaluate("omaha", cs("Ah Kc Qd 2s"), cs("3h 5h 7h 9h Jc"))
    assert v.klass == "high_card"
    # four aces in the hand play as a pair
    assert evaluate("omaha", cs("Ac Ad Ah As"), cs("2c 7d 9h Js 4c")).klass == "one_pair"
    # board trips + hand pair
    v = evaluate("omaha", cs("Kc Kd 2h 3s"), cs("Ah Ad As 7c 8d"))
    assert v.klass == "full_house"
    assert [card_str(c) for c in v.cards] == ["Ah", "Ad", "As", "Kc", "Kd"]
    # royal flush with exactly two hearts from the hand
    v = evaluate("omaha", cs("Ah Kh 2c 3d"), cs("Qh Jh Th 9h 8h"))
    assert v.klass == "royal_flush" and v.name == "ロイヤル・フラッシュ"


def test_holdem_aa_takes_the_best_five_of_all_with_a_three_to_five_card_board() -> None:
    hole = cs("As Kd")
    assert evaluate("holdem_aa", hole, cs("Ah Ad Kc")).klass == "full_house"
    assert evaluate("holdem_aa", hole, cs("2c 3h 4d 5s")).klass == "straight"
    v = evaluate("holdem_aa", hole, cs("2c 3h 4d 5s 9c"))
    assert v.klass == "straight"
    assert [card_str(c) for c in v.cards] == ["5s", "4d", "3h", "2c", "As"]
    # playing the board
    v = evaluate("holdem_aa", cs("2c 3d"), cs("Ts Js Qs Ks As"))
    assert v.klass == "royal_flush" and 0 not in v.cards


# --- helpers and ordering ---------------------------------------------------------------

def test_pair_floor_and_class_floor_thresholds() -> None:
    board = cs("9c 7d 2h")
    fours = evaluate("holdem_aa", cs("4c 4d"), board)
    threes = evaluate("holdem_aa", cs("3c 3d"), board)
    ace_high = evaluate("holdem_aa", cs("Ac Kd"), board)
    assert fours.key >= pair_floor("holdem_aa", 2) > threes.key
    assert ace_high.key < pair_floor("holdem_aa", 0)
    aces = evaluate("holdem_aa", cs("Ac Ad"), board)
    kings = evaluate("holdem_aa", cs("Kc Kd"), board)
    two_pair = evaluate("holdem_aa", cs("9d 7c"), board)
    assert aces.key >= pair_floor("holdem_aa", 12) > kings.key
    assert two_pair.key >= pair_floor("holdem_aa", 12)
    assert two_pair.key >= class_floor("holdem_aa", "two_pair") > aces.key
    assert class_rank("omaha", "royal_flush") == 9 and class_rank("omaha", "high_card") == 0
    with pytest.raises(ValueError):
        class_rank("omaha", "five_of_a_kind")


def test_kickers_break_ties_and_winners_lists_every_best_hand() -> None:
    board = cs("Ah Kd 8c 5s 2d")
    a = evaluate("holdem_aa", cs("Ac Qh"), board)
    b = evaluate("holdem_aa", cs("As Jh"), board)
    c = evaluate("holdem_aa", cs("Ad Qs"), board)
    assert a.klass == b.klass == "one_pair"
    assert a > b and a == c and a >= c and b < c and b <= a
    assert winners([b, a, c]) == [1, 2]
    assert winners([]) == []
    # wheel is the lowest straight, six-high beats it
    wheel = evaluate("holdem_aa", cs("Ac 2c"), cs("3d 4h 5s Kd Kh"))
    six = evaluate("holdem_aa", cs("6c 2c"), cs("3d 4h 5s Kd Kh"))
    assert wheel.klass == six.klass == "straight" and six > wheel


def test_hand_value_is_ordered_by_key() -> None:
    lo = HandValue("one_pair", "ワンペア", [], 1)
    hi = HandValue("two_pair", "ツーペア", [], 2)
    assert lo < hi and hi > lo and lo != hi and sorted([hi, lo]) == [lo, hi]
    assert {lo, HandValue("x", "y", [Card(1)], 1)} == {lo}


# --- validation ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "game,hole,board,fragment",
    [
        ("omaha", "Ah Kh Qd", "Ts 9s 8c 2h 3h", "4枚"),
        ("omaha", "Ah Kh Qd Jd", "Ts 9s 8c 2h", "5枚"),
        ("omaha", "Ah Kh Qd Jd", "Ts 9s 8c 2h Ah", "重複"),
        ("omaha", "Ah Kh Qd JK", "Ts 9s 8c 2h 3h", "ジョーカー"),
        ("holdem_aa", "Ah", "Ts 9s 8c", "2枚"),
        ("holdem_aa", "Ah Kh", "Ts 9s", "3〜5枚"),
        ("holdem_aa", "Ah Ah", "Ts 9s 8c", "重複"),
        ("seven", "Ah Kh Qd Jd Tc 9c", "", "7枚"),
        ("seven", "Ah Kh Qd Jd Tc 9c 8c", "2c", "ボードなし"),
        ("deuces", "Ah Kh Qd Jd", "", "5枚"),
    ],
)
def test_bad_hands_raise_hand_error(game: str, hole: str, board: str, fragment: str) -> None:
    with pytest.raises(HandError) as e:
        evaluate(game, cs(hole), cs(board))
    assert fragment in str(e.value) and "\n" not in str(e.value)


def test_evaluate_many_refuses_a_card_in_two_hands_of_a_one_deck_game() -> None:
    with pytest.raises(HandError, match="重複"):
        evaluate_many("omaha", [cs("Ah Kh Qd Jd"), cs("Ah 2c 3c 4c")], cs("Ts 9s 8c 2h 3h"))
    # six decks: identical cards in two hands are fine
    vals = evaluate_many("seven", [cs("Ah Ah Kd Qc Js 9h 2c"), cs("Ah Ah Kd Qc Js 9h 2c")])
    assert vals[0] == vals[1]
    with pytest.raises(HandError):
        evaluate("nope", cs("Ah Kh"))
    assert JOKER == 52
