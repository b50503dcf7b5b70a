"""The dealer's discards in ``deuces``: the house way (docs/rules.md: a fixed, documented strategy).

The seed only says the dealer discards before the players' duplicates are checked and is
refilled last. The bot plays the dealer by a named strategy (``dealer_strategy`` in the game's
``definition.toml``) so a community can see -- and later change -- exactly what the house does.
Strategies are pure functions ``hand -> kept cards`` (a sub-multiset of the hand; the rest is
discarded).

``house_way_v1`` (wild = every 2 and the joker; "natural" = any other card):

1. A made hand better than three of a kind (straight, flush, full house, four of a kind and up):
   keep all five.
2. Three of a kind: keep the wilds and the natural cards of the trips' rank (the most frequent
   natural rank, the higher one on a tie); discard the other cards.
3. Otherwise (at most one wild is possible here: one wild and a pair would already be trips):
   a. a natural pair: keep the higher pair only;
   b. four cards to a flush, wilds counting: keep them;
   c. four cards to a straight (four distinct ranks within five consecutive ranks, ace low
      A-3-4-5 with the wild slot as the 2, wilds counting): keep them (the highest window);
   d. otherwise keep the wilds only (none: draw five).

Identical cards (the 6-deck shoe) are treated like any other card here; the duplicate check after
the refill replaces them anyway.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from referee.cards import JOKER, Card, rank_of, suit_of
from referee.games.deuces.hands import DEUCES as DEUCES_CLASSES

Strategy = Callable[[list[Card]], list[Card]]

_DEUCE = 0  # rank index of the 2
_ACE = 12


def is_wild(card: Card) -> bool:
    return card == JOKER or rank_of(card) == _DEUCE


def _made_class(hand: list[Card]) -> str:
    from referee.hands import evaluate

    return str(evaluate("deuces", list(hand)).klass)


def house_way_v1(hand: list[Card]) -> list[Card]:
    """The cards the dealer keeps (see the module docstring)."""
    klass = _made_class(hand)
    order = DEUCES_CLASSES.index
    if order(klass) < order("three_of_a_kind"):
        return list(hand)
    wilds = [c for c in hand if is_wild(c)]
    naturals = [c for c in hand if not is_wild(c)]
    counts = Counter(rank_of(c) for c in naturals)
    if klass == "three_of_a_kind":
        if not counts:  # cannot happen (three wilds make four of a kind), kept for safety
            return wilds
        best = max(counts, key=lambda r: (counts[r], r))
        return wilds + [c for c in naturals if rank_of(c) == best]
    pairs = [r for r, n in counts.items() if n >= 2]
    if pairs:
        top = max(pairs)
        return [c for c in naturals if rank_of(c) == top][:2]
    suits = Counter(suit_of(c) for c in naturals)
    if suits:
        suit, n = max(suits.items(), key=lambda kv: (kv[1], -kv[0]))
        if n + len(wilds) >= 4:
            return wilds + [c for c in naturals if suit_of(c) == suit][: 4 - len(wilds)]
    straight = _straight_draw(naturals, len(wilds))
    if straight is not None:
        return wilds + straight
    return wilds


def _straight_draw(naturals: list[Card], wilds: int) -> list[Card] | None:
    """Natural cards (one per rank) completing four to a straight with the wilds, highest first."""
    # Windows of five ranks by their lowest rank index; 2s are wild, so a window holding rank 0
    # (the 2) can only be filled by a wild there. The wheel is A(12), 2, 3, 4, 5.
    windows: list[set[int]] = [{12, 0, 1, 2, 3}] + [set(range(lo, lo + 5)) for lo in range(0, 9)]
    by_rank: dict[int, Card] = {}
    for c in naturals:
        by_rank.setdefault(rank_of(c), c)
    for window in reversed(windows):
        inside = [by_rank[r] for r in sorted(window) if r in by_rank and r != _DEUCE]
        if len(inside) + wilds >= 4:
            return inside[: 4 - wilds]
    return None


STRATEGIES: dict[str, Strategy] = {"house_way_v1": house_way_v1}


def strategy(name: str) -> Strategy:
    """The dealer strategy named in the definition (the loader only admits known names)."""
    return STRATEGIES[name]
