"""Hand evaluation for the four games (docs/rules.md "Cards and hands", docs/contracts.md §1).

High level (validates, returns :class:`HandValue`)::

    evaluate(game, hole, board=()) -> HandValue
    evaluate_many(game, hands, board=()) -> list[HandValue]  # one deck: no card in two hands
    winners(values) -> list[int]

Fast level, for engines (no validation; ``int`` keys, higher = stronger, same game only; layout
in :mod:`referee.hands.names`)::

    best5_key(cards)          # omaha/holdem_aa: best 5 of 5..7 distinct cards
    omaha_key(hole, board)    # exactly 2 of 4 hole + 3 of 3..5 board
    seven_key(cards)          # seven: 5..7 cards, jokers allowed
    deuces_key(cards)         # deuces: 5 cards, jokers allowed
    class_of(game, key), class_rank(game, klass), class_floor(game, klass),
    pair_floor(game, rank), ja_name(game, klass)

e.g. "three of a kind or better": ``key >= class_floor("deuces", "three_of_a_kind")``;
"a pair of 4s or better": ``key >= pair_floor("holdem_aa", 2)``.
Game-specific rulings are in the docstrings of :mod:`.seven` and :mod:`.deuces`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.cards import JOKER, Card, card_str
from referee.hands.deuces import deuces_key
from referee.hands.names import (
    CLASSES,
    NAMES,
    class_floor,
    class_of,
    class_rank,
    ja_name,
    pair_floor,
)
from referee.hands.seven import SEVEN_CARD_CLASSES, seven_cards, seven_key
from referee.hands.standard import best5_cards, best5_key, omaha_cards, omaha_key
from referee.lang.catalog import text

__all__ = [
    "CLASSES", "NAMES", "SEVEN_CARD_CLASSES", "HandError", "HandValue", "best5_key",
    "class_floor", "class_of", "class_rank", "deuces_eval", "deuces_key", "evaluate",
    "evaluate_many", "ja_name", "omaha_key", "pair_floor", "seven_eval", "seven_key", "winners",
]

ONE_DECK_GAMES = ("omaha", "holdem_aa")


def _game_ja(game: str) -> str:
    """The game's name in the evaluators' errors (catalogue ``hands_game_GAME``)."""
    return text(f"hands_game_{game}")


class HandError(ValueError):
    """A hand that cannot be evaluated (wrong card count, duplicate in a one-deck game, joker
    where the game has none). One-line Japanese message."""


@dataclass(frozen=True, eq=False)
class HandValue:
    """An evaluated hand. Ordered by ``key`` (higher = stronger); compare within one game only."""

    klass: str
    name: str
    cards: list[Card]
    key: int

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __lt__(self, other: HandValue) -> bool:
        return self.key < other.key

    def __le__(self, other: HandValue) -> bool:
        return self.key <= other.key

    def __gt__(self, other: HandValue) -> bool:
        return self.key > other.key

    def __ge__(self, other: HandValue) -> bool:
        return self.key >= other.key


def _validate(game: str, hole: Sequence[Card], board: Sequence[Card]) -> None:
    if game not in CLASSES:
        raise HandError(text("hands_unknown_game", game=game))
    ja = _game_ja(game)
    for c in (*hole, *board):
        if not 0 <= c <= JOKER:
            raise HandError(text("card_bad_value", value=str(c)))
    n, b = len(hole), len(board)
    if (game == "omaha" and (n != 4 or b != 5)) \
            or (game == "holdem_aa" and (n != 2 or not 3 <= b <= 5)) \
            or (game == "seven" and (n != 7 or b)) or (game == "deuces" and (n != 5 or b)):
        raise HandError(text(f"hands_need_{game}", game=ja, hole=n, board=b))
    if game in ONE_DECK_GAMES:
        _check_one_deck(ja, [*hole, *board])


def _check_one_deck(ja: str, cards: Sequence[Card]) -> None:
    if JOKER in cards:
        raise HandError(text("hands_no_joker", game=ja))
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            raise HandError(text("hands_duplicate", game=ja, card=card_str(c)))
        seen.add(c)


def _display(klass: str, cards: Sequence[Card]) -> list[Card]:
    """Cards in reading order: bigger groups first, high to low; straights from the top
    (the wheel's ace last); jokers last."""
    jokers = [c for c in cards if c == JOKER]
    nat = [c for c in cards if c != JOKER]
    counts: dict[int, int] = {}
    for c in nat:
        counts[c >> 2] = counts.get(c >> 2, 0) + 1
    out = sorted(nat, key=lambda c: (-counts[c >> 2], -(c >> 2)))
    if "straight" in klass or "royal" in klass:
        ranks = {c >> 2 for c in nat}
        if 12 in ranks and 0 in ranks and 11 not in ranks:  # ace plays low
            out = [c for c in out if c >> 2 != 12] + [c for c in out if c >> 2 == 12]
    return out + jokers


def _value(game: str, key: int, cards: Sequence[Card]) -> HandValue:
    klass = class_of(game, key)
    return HandValue(klass, NAMES[game][klass], _display(klass, cards), key)


def evaluate(game: str, hole: Sequence[Card], board: Sequence[Card] = ()) -> HandValue:
    """Evaluate one hand. ``omaha``: 4 hole + 5 board, exactly 2 + 3; ``holdem_aa``: 2 hole +
    3..5 board, best 5 of all; ``seven``: 7 cards; ``deuces``: 5 cards.
    Raises :class:`HandError`."""
    _validate(game, hole, board)
    if game == "omaha":
        key, used = omaha_cards(hole, board)
    elif game == "holdem_aa":
        key, used = best5_cards([*hole, *board])
    elif game == "seven":
        key, used = seven_cards(hole)
    else:
        key, used = deuces_key(hole), list(hole)
    return _value(game, key, [Card(c) for c in used])


def evaluate_many(
    game: str, hands: Sequence[Sequence[Card]], board: Sequence[Card] = ()
) -> list[HandValue]:
    """Evaluate several hands sharing ``board``; in a one-deck game no card may appear twice
    across them."""
    values = [evaluate(game, h, board) for h in hands]
    if game in ONE_DECK_GAMES:
        _check_one_deck(_game_ja(game), [c for h in hands for c in h] + list(board))
    return values


def winners(hands: Sequence[HandValue]) -> list[int]:
    """Indices of the strongest hands (several on a tie); empty for no hands."""
    if not hands:
        return []
    best = max(h.key for h in hands)
    return [i for i, h in enumerate(hands) if h.key == best]


def seven_eval(cards: Sequence[Card]) -> HandValue:
    """A ``seven`` hand of 5..7 cards (5: a declared five-card hand), jokers allowed."""
    if not 5 <= len(cards) <= 7 or any(not 0 <= c <= JOKER for c in cards):
        raise HandError(text("hands_seven_count", game=_game_ja("seven"), count=len(cards)))
    key, used = seven_cards(cards)
    return _value("seven", key, [Card(c) for c in used])


def deuces_eval(cards: Sequence[Card]) -> HandValue:
    """A ``deuces`` hand of 5 cards (same as ``evaluate("deuces", cards)``)."""
    return evaluate("deuces", cards)
