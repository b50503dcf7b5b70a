"""``seven`` hands: 7 cards from a six-deck shoe (identical cards happen) plus jokers.

Eighteen classes, strongest first (docs/rules.md; ids in :data:`referee.hands.names.SEVEN`). Classes
seven_straight_flush, seven_of_a_kind, seven_straight, big_house, seven_flush, middle_house and
defective_house use all 7 cards; the others are the best 5 of the 7.

Rulings made here (the seed's plain text first, docs/rules.md next):

* Shapes of the all-seven classes by rank counts: seven of a kind 7; big house 4+3; middle house
  3+2+2 (the seed's 「同一カード３枚」 is read as three of one *rank*, like every other line of
  the list); defective house 2+2+2+1 (「ワンペアが３つある」: three pairs, the 7th card is a
  kicker). Other shapes are five-card hands: 6+1, 5+2, 5+1+1 are five of a kind, 4+2+1 and
  4+1+1+1 four of a kind, 3+3+1 and 3+2+1+1 a full house (the higher three plus the best pair).
* Seven straight / seven straight flush: seven distinct consecutive ranks; the ace plays high
  (8..A) or low (A-2-…-7, the lowest).
* A hand takes the strongest class it satisfies, all-seven and five-card alike (so a 4+3 that is
  all one suit is a big house, a straight flush inside a seven straight is a straight flush).
* Identical cards count as different cards: a flush may hold a pair (Ah Ah Kh Qh Jh beats
  Ah Kh Qh Jh 9h: flushes compare their five ranks high to low, repeats included).
* Tie-breaks: five-card classes as in standard poker (five of a kind: its rank; straights: the top
  card; flush: five ranks); seven straight (flush): the top card; seven of a kind: the rank; big
  house: the four then the three; middle house: the three, then the higher and the lower pair;
  seven flush: all seven ranks high to low; defective house: the three pairs high to low, then the
  odd card.
* A joker is wild for ANY card, even one already held (docs/rules.md): the hand is the best over
  every card the joker can be; it is shown as ``JK`` among the cards that make the hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations, combinations_with_replacement

from referee.cards import JOKER
from referee.hands import HandError, HandValue, hand_value
from referee.hands.core import best_of, categories, straight_top
from referee.hands.names import pack
from referee.lang.catalog import text

SEVEN: tuple[str, ...] = (
    "seven_straight_flush", "seven_of_a_kind", "royal_flush", "straight_flush", "seven_straight",
    "big_house", "five_of_a_kind", "seven_flush", "middle_house", "four_of_a_kind", "full_house",
    "flush", "straight", "defective_house", "three_of_a_kind", "two_pair", "one_pair", "high_card",
)
"""``seven`` class ids, strongest first (docs/contracts.md §1)."""

_CAT = {name: len(SEVEN) - 1 - i for i, name in enumerate(SEVEN)}

#: the classes that use all seven cards
SEVEN_CARD_CLASSES = frozenset({
    "seven_straight_flush", "seven_of_a_kind", "seven_straight", "big_house", "seven_flush",
    "middle_house", "defective_house",
})
_FIVE_ORDER = tuple(c for c in SEVEN if c not in SEVEN_CARD_CLASSES)


def _seven_card_key(cards: Sequence[int]) -> int:
    """Key of the best all-seven class of 7 natural cards, 0 if none."""
    counts: dict[int, int] = {}
    for c in cards:
        counts[c >> 2] = counts.get(c >> 2, 0) + 1
    shape = sorted(counts.values(), reverse=True)
    # ranks ordered by (count, rank), highest first
    groups = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    one_suit = len({c & 3 for c in cards}) == 1
    run = straight_top(frozenset(counts), 7) if len(counts) == 7 else -1
    if run >= 0 and one_suit:
        return pack(7, _CAT["seven_straight_flush"], (run,))
    if shape == [7]:
        return pack(7, _CAT["seven_of_a_kind"], (groups[0],))
    if run >= 0:
        return pack(7, _CAT["seven_straight"], (run,))
    if shape == [4, 3]:
        return pack(7, _CAT["big_house"], tuple(groups))
    if one_suit:
        return pack(7, _CAT["seven_flush"], tuple(sorted((c >> 2 for c in cards), reverse=True)))
    if shape == [3, 2, 2]:
        return pack(7, _CAT["middle_house"], tuple(groups))
    if shape == [2, 2, 2, 1]:
        return pack(7, _CAT["defective_house"], tuple(groups))
    return 0


@lru_cache(maxsize=65536)
def _natural_key(cards: tuple[int, ...]) -> int:
    """Best key of 5..7 natural cards (sorted tuple, for the cache)."""
    name, tb = best_of(categories(cards), _FIVE_ORDER)
    best = pack(7, _CAT[name], tb)
    if len(cards) == 7:
        best = max(best, _seven_card_key(cards))
    return best


def _substitutions(cards: Sequence[int]) -> list[list[int]]:
    """Every natural hand the jokers can turn ``cards`` into (jokers may repeat held cards)."""
    jokers = [i for i, c in enumerate(cards) if c == JOKER]
    if not jokers:
        return [list(cards)]
    out = []
    for subs in combinations_with_replacement(range(52), len(jokers)):
        hand = list(cards)
        for i, s in zip(jokers, subs, strict=True):
            hand[i] = s
        out.append(hand)
    return out


def seven_key(cards: Sequence[int]) -> int:
    """Key of a ``seven`` hand of 5..7 cards (7 normally; 5 for a declared five-card hand);
    jokers allowed."""
    if JOKER not in cards:
        return _natural_key(tuple(sorted(cards)))
    return max(_natural_key(tuple(sorted(h))) for h in _substitutions(cards))


def seven_cards(cards: Sequence[int]) -> tuple[int, list[int]]:
    """Key of a ``seven`` hand and the cards that make it: all 7 for an all-seven class,
    else the best five (a joker shown as the joker)."""
    key = seven_key(cards)
    for hand in _substitutions(cards):
        if _natural_key(tuple(sorted(hand))) != key:
            continue
        if len(cards) == 7 and _seven_card_key(hand) == key:
            return key, list(cards)
        for idx in combinations(range(len(cards)), 5):
            if _natural_key(tuple(sorted(hand[i] for i in idx))) == key:
                return key, [cards[i] for i in idx]
    raise AssertionError("no cards make the best key")  # pragma: no cover


def seven_eval(cards: Sequence[int]) -> HandValue:
    """A ``seven`` hand of 5..7 cards (5: a declared five-card hand), jokers allowed."""
    if not 5 <= len(cards) <= 7 or any(not 0 <= c <= JOKER for c in cards):
        raise HandError(text("hands_seven_count", game=text("hands_game_seven"),
                             count=len(cards)))
    key, used = seven_cards(cards)
    return hand_value("seven", key, used)
