"""``deuces`` hands: five cards, every 2 wild, jokers wild, six-deck shoe (identical cards happen).

Classes, strongest first (ids in :data:`referee.hands.names.DEUCES`): natural royal flush > four
deuces > royal flush with deuce(s) > five of a kind > straight flush > four of a kind > full house
> flush > straight > three of a kind > two pair > one pair > high card.

Rulings made here:

* A hand is worth the best *natural-equivalent* hand its wild cards can make: each deuce may
  stand for any card at all (including one held -- six decks make a sixth ace possible), and
  that hand's standard tie-break decides between hands of one class (e.g. 2 + A K 9 7 suited
  is an ace-high flush with ranks A A K 9 7). A deuce may also fill the 2 of the wheel
  A-2-3-4-5 (docs/rules.md).
* A joker may stand for any card NOT physically in the hand (nor one another joker stands for).
  Standing for a deuce it is a 2 (it can complete four deuces: 2 2 2 + JK; it can fill the
  wheel's 2) but not a further wild card -- otherwise the "not a card in the hand" rule would
  be void. A royal flush made with a joker is the wild royal, never the natural one.
* Four deuces: the fifth card is the kicker (a fifth deuce or a joker counts as an ace).
* Natural royal flush: T J Q K A of one suit with no deuce and no joker.

Fast path (no joker): every card maps to a base-6 digit (deuces to digit 0, rank r to digit r)
plus a suit bit set (deuces: all four suits); the digit sum and the AND of the suit sets (all
naturals of one suit?) identify the hand's value, memoised on first sight.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations, combinations_with_replacement

from referee.cards import JOKER
from referee.hands.core import categories
from referee.hands.names import pack

DEUCES: tuple[str, ...] = (
    "natural_royal_flush", "four_deuces", "wild_royal_flush", "five_of_a_kind", "straight_flush",
    "four_of_a_kind", "full_house", "flush", "straight", "three_of_a_kind", "two_pair", "one_pair",
    "high_card",
)
"""``deuces`` class ids, strongest first (docs/contracts.md §1)."""

_CAT = {name: len(DEUCES) - 1 - i for i, name in enumerate(DEUCES)}
# five-card categories of core.categories() in deuces order (royal resolved afterwards)
_ORDER = (
    "royal_flush", "five_of_a_kind", "straight_flush", "four_of_a_kind", "full_house", "flush",
    "straight", "three_of_a_kind", "two_pair", "one_pair", "high_card",
)
_ORDER_INDEX = {name: i for i, name in enumerate(_ORDER)}

DIGIT: list[int] = [1 if c >> 2 == 0 else 6 ** (c >> 2) for c in range(52)]
SUITSET: list[int] = [0xF if c >> 2 == 0 else 1 << (c & 3) for c in range(52)]
_MEMO: dict[int, int] = {}


@lru_cache(maxsize=65536)
def _core(naturals: tuple[int, ...], wilds: int, joker: bool) -> int:
    """Key of ``naturals`` (card ints; rank 0 here is a joker standing for a 2, not wild) plus
    ``wilds`` deuces; ``joker``: a joker is involved (no natural royal)."""
    fixed2 = sum(1 for c in naturals if c >> 2 == 0)
    if wilds + fixed2 >= 4:
        if wilds + fixed2 >= 5:
            kick = 12 if wilds else 0
        else:
            kick = max(c >> 2 for c in naturals)
        return pack(5, _CAT["four_deuces"], (kick,))
    suit = naturals[0] & 3
    best_rank = len(_ORDER)
    best_tb: tuple[int, ...] = ()
    for wild_ranks in combinations_with_replacement(range(13), wilds):
        hand = [*naturals, *(r * 4 + suit for r in wild_ranks)]
        found = categories(hand)
        for i, name in enumerate(_ORDER):
            if name in found:
                if i < best_rank or (i == best_rank and found[name] > best_tb):
                    best_rank, best_tb = i, found[name]
                break
    name = _ORDER[best_rank]
    if name == "royal_flush":
        name = "wild_royal_flush" if wilds or joker else "natural_royal_flush"
    return pack(5, _CAT[name], best_tb)


def _joker_key(cards: Sequence[int]) -> int:
    held = set(cards)
    wilds = sum(1 for c in cards if c != JOKER and c >> 2 == 0)
    naturals = [c for c in cards if c != JOKER and c >> 2 != 0]
    free = [c for c in range(52) if c not in held]
    best = 0
    for subs in combinations(free, cards.count(JOKER)):
        best = max(best, _core(tuple(sorted([*naturals, *subs])), wilds, True))
    return best


def deuces_key(cards: Sequence[int]) -> int:
    """Key of a five-card ``deuces`` hand (jokers allowed)."""
    if JOKER in cards:
        return _joker_key(cards)
    a, b, c, d, e = cards
    dg, ss = DIGIT, SUITSET
    k = (dg[a] + dg[b] + dg[c] + dg[d] + dg[e]) << 1 | (
        1 if ss[a] & ss[b] & ss[c] & ss[d] & ss[e] else 0
    )
    v = _MEMO.get(k)
    if v is None:
        wilds = sum(1 for x in cards if x >> 2 == 0)
        v = _MEMO[k] = _core(tuple(sorted(x for x in cards if x >> 2 != 0)), wilds, False)
    return v
