"""Hand evaluation for every registered game (docs/rules.md "Cards and hands", docs/contracts.md
§1): each game's evaluator is its :class:`~referee.games.HandRules` (``spec(game).hands``).

High level (validates, returns :class:`HandValue`)::

    evaluate(game, hole, board=()) -> HandValue
    evaluate_many(game, hands, board=()) -> list[HandValue]  # one deck: no card in two hands
    winners(values) -> list[int]

Fast level, for engines (no validation; ``int`` keys, higher = stronger, same game only; layout
in :mod:`referee.hands.names`)::

    best5_key(cards)          # best 5 of 5..7 distinct cards (referee.hands.standard)
    omaha_key(hole, board)    # exactly 2 of 4 hole + 3 of 3..5 board
    (each game's own keys are in its folder: referee.games.GAME.hands)
    class_of(game, key), class_rank(game, klass), class_floor(game, klass),
    pair_floor(game, rank), ja_name(game, klass)

e.g. "three of a kind or better": ``key >= class_floor("deuces", "three_of_a_kind")``;
"a pair of 4s or better": ``key >= pair_floor("holdem_aa", 2)``.
Game-specific rulings are in the docstrings of the games' own ``hands`` modules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.cards import JOKER, Card, card_str
from referee.games import is_game, spec
from referee.hands.names import (
    NAMES,
    class_floor,
    class_of,
    class_rank,
    ja_name,
    pair_floor,
)
from referee.hands.standard import best5_key, omaha_key
from referee.lang.catalog import text

__all__ = [
    "NAMES", "HandError", "HandValue", "best5_key", "class_floor", "class_of", "class_rank",
    "evaluate", "evaluate_many", "hand_value", "ja_name", "omaha_key", "pair_floor", "winners",
]


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
    if not is_game(game):
        raise HandError(text("hands_unknown_game", game=game))
    hands = spec(game).hands
    ja = _game_ja(game)
    for c in (*hole, *board):
        if not 0 <= c <= JOKER:
            raise HandError(text("card_bad_value", value=str(c)))
    if not hands.fits(len(hole), len(board)):
        raise HandError(text(f"hands_need_{game}", game=ja, hole=len(hole), board=len(board)))
    if hands.one_deck:
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


def hand_value(game: str, key: int, cards: Sequence[int]) -> HandValue:
    """The :class:`HandValue` of a key a game's own evaluator computed over ``cards``."""
    return _value(game, key, [Card(c) for c in cards])


def evaluate(game: str, hole: Sequence[Card], board: Sequence[Card] = ()) -> HandValue:
    """Evaluate one hand by the game's evaluator (e.g. omaha: 4 hole + 5 board, exactly 2 + 3;
    holdem_aa: 2 hole + 3..5 board, best 5 of all). Raises :class:`HandError` (a game that is
    not registered included)."""
    _validate(game, hole, board)
    key, used = spec(game).hands.best(hole, board)
    return hand_value(game, key, used)


def evaluate_many(
    game: str, hands: Sequence[Sequence[Card]], board: Sequence[Card] = ()
) -> list[HandValue]:
    """Evaluate several hands sharing ``board``; in a one-deck game no card may appear twice
    across them."""
    values = [evaluate(game, h, board) for h in hands]
    if spec(game).hands.one_deck:
        _check_one_deck(_game_ja(game), [c for h in hands for c in h] + list(board))
    return values


def winners(hands: Sequence[HandValue]) -> list[int]:
    """Indices of the strongest hands (several on a tie); empty for no hands."""
    if not hands:
        return []
    best = max(h.key for h in hands)
    return [i for i, h in enumerate(hands) if h.key == best]
