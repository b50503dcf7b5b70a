"""``seven``: the 18 classes, their order, identical cards, jokers and tie-breaks; and a
property check against a small independent reference written from the class definitions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations, pairwise

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cards import JOKER, Card, card_str, parse_cards
from referee.games.seven.hands import SEVEN, SEVEN_CARD_CLASSES, seven_eval, seven_key
from referee.hands import (
    HandValue,
    class_of,
    evaluate,
    pair_floor,
    winners,
)


def ev(text: str) -> HandValue:
    return evaluate("seven", parse_cards(text))


# class id -> (strong example, weak example), strongest class first
EXAMPLES: dict[str, tuple[str, str]] = {
    "seven_straight_flush": ("8h 9h Th Jh Qh Kh Ah", "Ah 2h 3h 4h 5h 6h 7h"),
    "seven_of_a_kind": ("Ac Ac Ad Ah As As Ad", "2c 2d 2h 2s 2c 2d 2h"),
    "royal_flush": ("Ts Js Qs Ks As Ad Ac", "Ts Js Qs Ks As 2c 3d"),
    "straight_flush": ("9s Ts Js Qs Ks Kd Kc", "Ac 2c 3c 4c 5c 5d 5h"),
    "seven_straight": ("8c 9d Th Js Qc Kd Ah", "Ac 2d 3h 4s 5c 6d 7h"),
    "big_house": ("Ac Ad Ah As Kc Kd Kh", "2c 2d 2h 2s 3c 3d 3h"),
    "five_of_a_kind": ("Ac Ac Ad Ah As Kd Qh", "2c 2d 2h 2s 2c 3d 4h"),
    "seven_flush": ("Ah Ah Ah Ah Kh Kh Qh", "2h 2h 2h 3h 3h 4h 5h"),
    "middle_house": ("Ac Ad Ah Kc Kd Qc Qd", "2c 2d 2h 3c 3d 4c 4d"),
    "four_of_a_kind": ("Ac Ad Ah As Kc Kd Qh", "2c 2d 2h 2s 3c 3d 4h"),
    "full_house": ("Ac Ad Ah Kc Kd Kh Qs", "2c 2d 2h 3c 3d 4h 5s"),
    "flush": ("Ah Ah Ah Kh Qh 2c 3d", "2h 3h 4h 5h 7h 8c 9d"),
    "straight": ("Tc Jd Qh Ks Ac 2d 3h", "Ac 2d 3h 4s 5c Kd 9h"),
    "defective_house": ("Ac Ad Kc Kd Qc Qh Jd", "2c 2d 3c 3d 4h 4s 5c"),
    "three_of_a_kind": ("Ac Ad Ah Kc Qd 9h 8s", "2c 2d 2h 3c 4d 5h 7s"),
    "two_pair": ("Ac Ad Kc Kd Qh 9s 8h", "2c 2d 3c 3d 4h 5s 7h"),
    "one_pair": ("Ac Ad Kc Qd Jh 9s 8h", "2c 2d 3h 4s 5c 7d 8h"),
    "high_card": ("Ac Kd Qh Js 9c 8d 7h", "2c 3d 4h 5s 7c 8d 9h"),
}


def test_examples_cover_all_18_classes_in_contract_order() -> None:
    assert tuple(EXAMPLES) == SEVEN and len(SEVEN) == 18


@pytest.mark.parametrize("klass", SEVEN)
def test_each_class_is_recognised(klass: str) -> None:
    strong, weak = EXAMPLES[klass]
    for text in (strong, weak):
        v = ev(text)
        assert v.klass == klass, text
        assert len(v.cards) == (7 if klass in SEVEN_CARD_CLASSES else 5)
        assert Counter(v.cards) <= Counter(parse_cards(text))  # cards come from the hand
    assert ev(strong) >= ev(weak)


@pytest.mark.parametrize("upper,lower", list(pairwise(SEVEN)))
def test_the_weakest_of_each_class_beats_the_strongest_of_the_next(upper: str, lower: str) -> None:
    weak_upper, strong_lower = ev(EXAMPLES[upper][1]), ev(EXAMPLES[lower][0])
    assert weak_upper > strong_lower
    assert winners([strong_lower, weak_upper]) == [1]


def test_names_are_the_seeds_katakana() -> None:
    assert ev(EXAMPLES["seven_straight_flush"][0]).name == "７ストレート・フラッシュ"
    assert ev(EXAMPLES["defective_house"][0]).name == "ディフェクティブ・ハウス"
    assert ev(EXAMPLES["big_house"][0]).name == "ビッグ・ハウス"
    assert ev(EXAMPLES["middle_house"][0]).name == "ミドル・ハウス"


# --- identical cards (six decks) --------------------------------------------------------

def test_identical_cards() -> None:
    # seven identical cards: seven of a kind, not a seven flush
    assert ev("Ah Ah Ah Ah Ah Ah Ah").klass == "seven_of_a_kind"
    # five identical cards: five of a kind
    assert ev("Kh Kh Kh Kh Kh 2c 3d").klass == "five_of_a_kind"
    # six of a kind plays as five of a kind; ties with any other five kings
    assert ev("Kh Kh Kh Kh Kh Kh 3d") == ev("Kc Kd Kh Ks Kc 2d 4h")
    # a flush holding a pair beats the plain flush below it
    assert ev("Ah Ah Kh Qh Jh 2c 3d") > ev("Ah Kh Qh Jh 9h 2c 3d")
    assert ev("Ah Ah Kh Qh Jh 2c 3d").klass == "flush"
    # a 4+3 that is all one suit is a big house, a 3+2+2 of one suit a seven flush
    assert ev("Ah Ah Ah Ah Kh Kh Kh").klass == "big_house"
    assert ev("Ah Ah Ah Kh Kh Qh Qh").klass == "seven_flush"


def test_all_seven_shapes() -> None:
    assert ev("9c 9d 9h 9s 9c 9d 4h").klass == "five_of_a_kind"  # 6 + 1
    assert ev("9c 9d 9h 9s 9c 4d 4h").klass == "five_of_a_kind"  # 5 + 2
    assert ev("9c 9d 9h 9s 4c 4d 2h").klass == "four_of_a_kind"  # 4 + 2 + 1
    v = ev("9c 9d 9h 4s 4c 4d 2h")  # 3 + 3 + 1: the higher three and a pair of the other
    assert v.klass == "full_house"
    assert [card_str(c) for c in v.cards] == ["9c", "9d", "9h", "4s", "4c"]
    assert ev("9c 9d 9h 4s 4c 2d 2h").klass == "middle_house"  # 3 + 2 + 2
    assert ev("9c 9d 4h 4s 2c 2d Ah").klass == "defective_house"  # 2 + 2 + 2 + 1
    assert ev("9c 9d 4h 4s Kc 2d Ah").klass == "two_pair"  # 2 + 2 + 1 + 1 + 1


def test_seven_straights() -> None:
    wrap = ev("Ac 2d 3h 4s 5c 6d 7h")
    assert wrap.klass == "seven_straight"
    assert [card_str(c) for c in wrap.cards] == ["7h", "6d", "5c", "4s", "3h", "2d", "Ac"]
    assert ev("2c 3d 4h 5s 6c 7d 8h") > wrap  # the wrap is the lowest
    assert ev("8c 9d Th Js Qc Kd Ah") > ev("7c 8d 9h Ts Jc Qd Kh")
    # a straight flush inside a seven straight is the straight flush
    assert ev("2c 3c 4c 5c 6c 7d 8h").klass == "straight_flush"
    # no wrap past the ace: Q-K-A-2-3-4-5 is a five-card straight
    assert ev("Qc Kd Ah 2s 3c 4d 5h").klass == "straight"


# --- jokers: wild for any card, even one already held ------------------------------------

def test_jokers() -> None:
    assert ev("JK Ah Ah Ah Ah Ah Ah").klass == "seven_of_a_kind"
    v = ev("JK Ac Ad Ah As Kc Kd")  # big house (as a K) beats five of a kind (as an A)
    assert v.klass == "big_house" and JOKER in v.cards
    assert ev("JK 2h 3h 4h 5h 6h 8h").klass == "seven_straight_flush"
    wrap = ev("JK Ah 2h 3h 4h 5h 6h")
    assert wrap.klass == "seven_straight_flush" and wrap == ev("Ah 2h 3h 4h 5h 6h 7h")
    assert ev("JK 9c 9d Kc Kd 4h 4s") == ev("Kh 9c 9d Kc Kd 4h 4s")  # middle house K/9/4
    assert ev("JK Ac Kd Qh Js 9c 2d").klass == "straight"
    # a joker in a flush can be an ace already held
    assert ev("JK Ah Kh Qh 9h 2c 3d") == ev("Ah Ah Kh Qh 9h 2c 3d")
    assert seven_key(parse_cards("JK JK Ah Ah Ah Ah Ah")) == seven_key(
        parse_cards("Ah Ah Ah Ah Ah Ah Ah")
    )


# --- tie-breaks -----------------------------------------------------------------------------

def test_kickers_and_tie_breaks() -> None:
    # all seven cards count in a defective house, a seven flush, a middle/big house
    assert ev("Ac Ad Kc Kd Qc Qd 9h") > ev("Ac Ad Kc Kd Qc Qd 8h")
    assert ev("Ah Kh Qh Jh 9h 7h 3h") > ev("Ah Kh Qh Jh 9h 7h 2h")
    assert ev("3c 3d 3h 4c 4d 5c 5d") > ev("2c 2d 2h Ac Ad Kc Kd")  # the three first
    assert ev("3c 3d 3h 5c 5d 2c 2d") > ev("3c 3d 3h 4c 4d 2c 2d")  # then the higher pair
    assert ev("3c 3d 3h 5c 5d 4c 4d") > ev("3c 3d 3h 5c 5d 2c 2d")  # then the lower pair
    assert ev("3c 3d 3h 3s 2c 2d 2h") > ev("2c 2d 2h 2s Ac Ad Ah")  # the four first
    assert ev("3c 3d 3h 3s Ac Ad Ah") > ev("3c 3d 3h 3s Kc Kd Kh")
    # five-card classes: only the best five count
    a, b = ev("Ac Ad Kc Qd Jh 9s 8h"), ev("Ac Ad Kc Qd Jh 9s 2h")
    assert a == b and winners([a, b]) == [0, 1]
    assert ev("Ac Ad Kc Qd Jh 9s 8h") > ev("Ac Ad Kc Qd Th 9s 8h")
    assert ev("7c 7d 5h 5s Ac Kd 2h") > ev("7c 7d 5h 5s Qc Jd 2h")  # two pair kicker
    assert ev("Kc Kd Kh Ks Kc 2d 3h") > ev("Qc Qd Qh Qs Qc Ad Ah")  # five of a kind by rank


def test_seven_eval_takes_a_declared_five_card_hand() -> None:
    best = ev("Ac Ad Ah Kc Kd 2h 3s")
    declared = seven_eval(parse_cards("Ac Ad Ah Kc Kd"))
    weaker = seven_eval(parse_cards("Ac Ad Ah 2h 3s"))
    assert declared == best and weaker < best and declared.klass == "full_house"


def test_seven_disqualification_threshold() -> None:
    # "a pair of 3s or worse": below the floor of a pair of 4s
    assert ev("3c 3d 5h 7s 9c Jd Qh").key < pair_floor("seven", 2)
    assert ev("4c 4d 5h 7s 9c Jd Qh").key >= pair_floor("seven", 2)
    assert ev("2c 5d 7h 9s Jc Qd Kh").key < pair_floor("seven", 2)


# --- independent reference --------------------------------------------------------------

def _ref5(cards: Sequence[int]) -> tuple[int, ...]:
    """Seven's five-card order from first principles (category index from SEVEN, tiebreak)."""
    ranks = sorted((c >> 2 for c in cards), reverse=True)
    cnt = Counter(ranks)
    groups = sorted(cnt.items(), key=lambda x: (x[1], x[0]), reverse=True)
    shape = [n for _, n in groups]
    flush = len({c & 3 for c in cards}) == 1
    distinct = sorted(cnt, reverse=True)
    top = -1
    if len(distinct) == 5 and distinct[0] - distinct[4] == 4:
        top = distinct[0]
    elif distinct == [12, 3, 2, 1, 0]:
        top = 3
    tb = tuple(r for r, n in groups for _ in range(n))
    if flush and top == 12:
        return (SEVEN.index("royal_flush"),)
    if flush and top >= 0:
        return (SEVEN.index("straight_flush"), top)
    if shape == [5]:
        return (SEVEN.index("five_of_a_kind"), ranks[0])
    if shape[0] == 4:
        return (SEVEN.index("four_of_a_kind"), *tb)
    if shape == [3, 2]:
        return (SEVEN.index("full_house"), *tb)
    if flush:
        return (SEVEN.index("flush"), *ranks)
    if top >= 0:
        return (SEVEN.index("straight"), top)
    name = {3: "three_of_a_kind", 2: "two_pair" if shape[:2] == [2, 2] else "one_pair"}
    return (SEVEN.index(name.get(shape[0], "high_card")), *tb)


def _ref7(cards: Sequence[int]) -> tuple[int, ...]:
    """Best of the all-seven classes and every five-card subset; smaller category = stronger."""
    options = [_ref5(c) for c in combinations(cards, 5)]
    cnt = Counter(c >> 2 for c in cards)
    shape = sorted(cnt.values(), reverse=True)
    groups = tuple(sorted(cnt, key=lambda r: (cnt[r], r), reverse=True))
    flush = len({c & 3 for c in cards}) == 1
    d = sorted(cnt)
    run = -1
    if len(d) == 7 and d[6] - d[0] == 6:
        run = d[6]
    elif d == [0, 1, 2, 3, 4, 5, 12]:
        run = 5
    if run >= 0:
        options.append((SEVEN.index("seven_straight_flush" if flush else "seven_straight"), run))
    if flush:
        options.append((SEVEN.index("seven_flush"), *sorted((c >> 2 for c in cards), reverse=True)))
    named = {(7,): "seven_of_a_kind", (4, 3): "big_house", (3, 2, 2): "middle_house",
             (2, 2, 2, 1): "defective_house"}
    if tuple(shape) in named:
        options.append((SEVEN.index(named[tuple(shape)]), *groups))
    # strongest: smallest category, then largest tiebreak
    return min(options, key=lambda o: (o[0], tuple(-x for x in o[1:])))


six_deck_hand = st.lists(st.integers(0, 51), min_size=7, max_size=7)
# hands biased towards the rare shapes: few ranks, few suits
dense_hand = st.lists(
    st.builds(lambda r, s: r * 4 + s, st.integers(0, 3), st.integers(0, 1)), min_size=7, max_size=7
)
runny_hand = st.lists(
    st.builds(
        lambda r, s: r * 4 + s, st.sampled_from([0, 1, 2, 3, 4, 5, 6, 12]), st.integers(0, 1)
    ),
    min_size=7, max_size=7,
)


@settings(max_examples=examples(300), deadline=None)
@given(st.one_of(six_deck_hand, dense_hand, runny_hand), st.one_of(six_deck_hand, dense_hand))
def test_against_the_reference(a: list[int], b: list[int]) -> None:
    ka, kb = seven_key(a), seven_key(b)
    ra, rb = _ref7(a), _ref7(b)
    assert class_of("seven", ka) == SEVEN[ra[0]], [card_str(Card(c)) for c in a]
    assert class_of("seven", kb) == SEVEN[rb[0]], [card_str(Card(c)) for c in b]
    ordered_ref = (ra[0], tuple(-x for x in ra[1:])) < (rb[0], tuple(-x for x in rb[1:]))
    same_ref = ra == rb
    assert (ka == kb) == same_ref and (ka > kb) == ordered_ref


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.integers(0, 51), min_size=6, max_size=6))
def test_a_joker_is_the_best_of_all_52_cards(six: list[int]) -> None:
    with_joker = seven_key([*six, JOKER])
    assert with_joker == max(seven_key([*six, c]) for c in range(52))
