"""``deuces``: exhaustive class counts, the joker's limits, royal flushes natural and wild, five
of a kind, tie-breaks, and a brute-force reference over every card a wild card can be."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations, product

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cards import JOKER, Card, card_str, parse_cards
from referee.games.deuces.hands import DEUCES, deuces_key
from referee.hands import (
    HandValue,
    class_floor,
    class_of,
    evaluate,
    winners,
)


def ev(text: str) -> HandValue:
    return evaluate("deuces", parse_cards(text))


EXPECTED = {
    "natural_royal_flush": 4, "four_deuces": 48, "wild_royal_flush": 480, "five_of_a_kind": 624,
    "straight_flush": 2068, "four_of_a_kind": 31552, "full_house": 12672, "flush": 14472,
    "straight": 62232, "three_of_a_kind": 355080, "two_pair": 95040, "one_pair": 1225008,
    "high_card": 799680,
}


@pytest.mark.slow
def test_all_2598960_five_card_hands_have_the_deuces_wild_class_counts() -> None:
    by_key = Counter(map(deuces_key, combinations(range(52), 5)))
    got: Counter[str] = Counter()
    for key, n in by_key.items():
        got[class_of("deuces", key)] += n
    assert got == EXPECTED


def test_royal_flushes_and_four_deuces() -> None:
    natural = ev("Ts Js Qs Ks As")
    assert natural.klass == "natural_royal_flush" and natural.name == "ロイヤル・フラッシュ"
    four = ev("2c 2d 2h 2s 5d")
    assert four.klass == "four_deuces" and four.name == "フォー・デューシーズ"
    wild = ev("2s Js Qs Ks As")
    assert wild.klass == "wild_royal_flush"
    assert wild.name == "ロイヤル・フラッシュ・ウィズ・デュース"
    assert natural > four > wild
    assert ev("2c Jd Qd Kd Ad") == wild  # the deuce's suit does not matter
    assert ev("2c 2d Qs Ks As").klass == "wild_royal_flush"
    assert ev("JK Js Qs Ks As").klass == "wild_royal_flush"  # a joker royal is never natural
    assert ev("2c 2d 2h Ks As").klass == "wild_royal_flush"  # beats five aces


def test_five_of_a_kind() -> None:
    assert ev("2c Kd Kh Ks Kc").klass == "five_of_a_kind"
    assert ev("2c 2d 2h Kc Kd").klass == "five_of_a_kind"
    assert ev("2c 2d 2h Kc 9d").klass == "four_of_a_kind"  # the 9 cannot join
    natural = ev("As As Ad Ah Ac")  # six decks
    assert natural.klass == "five_of_a_kind"
    assert natural == ev("2c Ad Ah As Ac") > ev("2c Kd Kh Ks Kc")
    assert ev("2s Js Qs Ks As") > natural > ev("9h Th Jh Qh Kh")  # wild royal > 5K > SF
    assert ev("2c 3d 3h 3s 3c") < ev("2c 2d 4h 4s 4c")


def test_the_joker_never_stands_for_a_card_in_the_hand() -> None:
    # all four aces held: the joker cannot be an ace, so four aces with a king
    v = ev("Ac Ad Ah As JK")
    assert v.klass == "four_of_a_kind" and v == ev("Ac Ad Ah As Kc")
    assert ev("Ac Ad Ah As 2c").klass == "five_of_a_kind"  # a deuce can
    # with identical cards one suit is still free
    assert ev("As As Ad Ah JK").klass == "five_of_a_kind"
    # a deuce may be a third ace of hearts in the flush, the joker may not
    assert ev("Ah Ah Kh Qh 2c") > ev("Ah Ah Kh Qh JK")
    assert ev("Ah Ah Kh Qh JK") == ev("Ah Ah Kh Qh Jh")
    # the joker may be the missing deuce: four deuces
    assert ev("2c 2d 2h JK 9s").klass == "four_deuces"
    assert ev("2c 2c 2c JK 9s").klass == "four_deuces"
    # or fill the wheel's 2
    assert ev("Ac 3d 4h 5s JK").klass == "straight"
    # a royal needing a held card cannot be made
    assert ev("Ah Kh Qh Jh JK").klass == "wild_royal_flush"


def test_tie_breaks_use_the_best_natural_equivalent_hand() -> None:
    assert ev("2c 2d 2h 2s Ad") > ev("2c 2d 2h 2s Kd")  # four deuces: the fifth card
    assert ev("2c 2d 2h 2s 2c") == ev("2c 2d 2h 2s Ad") == ev("2c 2d 2h 2s JK")
    wheel, seven_high = ev("Ac 3d 4h 5s 2c"), ev("3c 4d 5h 6s 2c")
    assert wheel.klass == seven_high.klass == "straight" and seven_high > wheel
    assert ev("2c Kd Kh 9s 8c") > ev("2c Qd Qh As Kc")  # three kings > three queens
    a, b = ev("2c Ad 9h 7s 4c"), ev("Ac Ad 9h 7s 4c")  # a deuce pairs the ace
    assert a.klass == b.klass == "one_pair" and a == b
    assert winners([ev("2c Kd Qh 9s 7c"), a, b]) == [1, 2]
    assert ev("As As Ks Qs Js").klass == "flush"  # identical cards: no straight


def test_dealer_qualification_threshold() -> None:
    floor = class_floor("deuces", "three_of_a_kind")
    assert ev("2c Kd Kh 9s 8c").key >= floor > ev("Kc Kd 9h 9s 8c").key


# --- brute-force reference --------------------------------------------------------------

def _ref5(cards: Sequence[int], wild: bool) -> tuple[int, tuple[int, ...]]:
    """(category index in DEUCES, smaller = stronger; tiebreak) of five fixed cards."""
    ranks = sorted((c >> 2 for c in cards), reverse=True)
    cnt = Counter(ranks)
    groups = sorted(cnt.items(), key=lambda x: (x[1], x[0]), reverse=True)
    shape = [n for _, n in groups]
    tb = tuple(r for r, n in groups for _ in range(n))
    flush = len({c & 3 for c in cards}) == 1
    d = sorted(cnt, reverse=True)
    top = d[0] if len(d) == 5 and d[0] - d[4] == 4 else (3 if d == [12, 3, 2, 1, 0] else -1)
    if flush and top == 12:
        return DEUCES.index("wild_royal_flush" if wild else "natural_royal_flush"), ()
    if shape == [5]:
        return DEUCES.index("five_of_a_kind"), (ranks[0],)
    if flush and top >= 0:
        return DEUCES.index("straight_flush"), (top,)
    if shape[0] == 4:
        return DEUCES.index("four_of_a_kind"), tb
    if shape == [3, 2]:
        return DEUCES.index("full_house"), tb
    if flush:
        return DEUCES.index("flush"), tuple(ranks)
    if top >= 0:
        return DEUCES.index("straight"), (top,)
    name = {3: "three_of_a_kind", 2: "two_pair" if shape[:2] == [2, 2] else "one_pair"}
    return DEUCES.index(name.get(shape[0], "high_card")), tb


def _reference(cards: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """Try every card each joker can be (a card not held) and every rank each deuce can be.

    A deuce takes the suit of the hand's natural cards: suits only matter for a flush, which
    needs them all alike (with naturals of two suits any suit gives the same result)."""
    held = {c for c in cards if c != JOKER}
    deuces = [i for i, c in enumerate(cards) if c != JOKER and c >> 2 == 0]
    jokers = [i for i, c in enumerate(cards) if c == JOKER]
    wild = bool(deuces or jokers)
    best: tuple[int, tuple[int, ...]] | None = None
    free = [c for c in range(52) if c not in held]
    for jsubs in combinations(free, len(jokers)):
        twos = len(deuces) + sum(1 for c in jsubs if c >> 2 == 0)
        if twos >= 4:
            rest = [cards[i] for i in range(5) if i not in deuces and i not in jokers]
            rest += [c for c in jsubs if c >> 2 != 0]
            kick = rest[0] >> 2 if twos == 4 and rest else 12
            cand = (DEUCES.index("four_deuces"), (kick,))
        else:
            cand = None
            nat = [c for c in (*cards, *jsubs) if c != JOKER and c >> 2 != 0]
            suit = nat[0] & 3 if nat else 0
            for dsubs in product(range(suit, 52, 4), repeat=len(deuces)):
                hand = list(cards)
                for i, c in zip(jokers, jsubs, strict=True):
                    hand[i] = c
                for i, c in zip(deuces, dsubs, strict=True):
                    hand[i] = c
                r = _ref5(hand, wild)
                if cand is None or (r[0], tuple(-x for x in r[1])) < (
                    cand[0], tuple(-x for x in cand[1])
                ):
                    cand = r
        assert cand is not None
        if best is None or (cand[0], tuple(-x for x in cand[1])) < (
            best[0], tuple(-x for x in best[1])
        ):
            best = cand
    assert best is not None
    return best


_natural = st.integers(4, 51)
_few_wilds = st.lists(
    st.one_of(_natural, _natural, _natural, _natural, st.integers(0, 3), st.just(52)),
    min_size=5, max_size=5,
).filter(lambda h: sum(1 for c in h if c < 4 or c == 52) <= 2 and h.count(52) <= 1)
# crowded hands: few ranks and suits, so pairs, flushes and five of a kind show up
_crowded = st.lists(
    st.one_of(st.builds(lambda r, s: r * 4 + s, st.sampled_from([1, 2, 3, 8, 9, 10, 11, 12]),
                        st.integers(0, 1)), st.integers(0, 3)),
    min_size=5, max_size=5,
).filter(lambda h: sum(1 for c in h if c < 4) <= 2)


@settings(max_examples=examples(120), deadline=None)
@given(st.one_of(_few_wilds, _crowded), st.one_of(_few_wilds, _crowded))
def test_against_the_brute_force_reference(a: list[int], b: list[int]) -> None:
    ka, kb = deuces_key(a), deuces_key(b)
    ra, rb = _reference(a), _reference(b)
    assert class_of("deuces", ka) == DEUCES[ra[0]], [card_str(Card(c)) for c in a]
    assert class_of("deuces", kb) == DEUCES[rb[0]], [card_str(Card(c)) for c in b]
    stronger = (ra[0], tuple(-x for x in ra[1])) < (rb[0], tuple(-x for x in rb[1]))
    assert (ka == kb) == (ra == rb) and (ka > kb) == stronger


@pytest.mark.parametrize(
    "text",
    ["2c 2d 2h 9s 9d", "2c 2d 2h Ts Js", "2c 2d 2h 2s JK", "2c 2d JK 3s 3d",
     "2c 2d 2h 2s 2c", "2c 2d 2h 3h 7h", "2c 2c 2c 2c 5d"],
)
def test_many_wilds_against_the_reference(text: str) -> None:
    cards = parse_cards(text)
    key, ref = deuces_key(cards), _reference(cards)
    assert class_of("deuces", key) == DEUCES[ref[0]]
