"""Class ids (docs/contracts.md §1), their Japanese names (as the seeds write them), the key layout.

Every evaluator returns an ``int`` key, higher = stronger, comparable only within one game::

    key = category << (4 * width) | tiebreak nibbles (most significant first)

``category`` is the class's position counted from the weakest (0 = high_card); ``width`` is 5
for the five-card games (``omaha``, ``holdem_aa``, ``deuces``) and 7 for ``seven`` (a seven-card
class may need all 7 ranks to break a tie; five-card classes there leave the last two nibbles 0).
Nibbles are card ranks 0..12 (2..A), as in :mod:`referee.cards`.
That layout lets engines test thresholds with one integer comparison, see :func:`class_floor`
and :func:`pair_floor`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Mapping

from referee.games import game_ids, is_game, spec

STANDARD: tuple[str, ...] = (
    "royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush", "straight",
    "three_of_a_kind", "two_pair", "one_pair", "high_card",
)


def _names(game: str) -> dict[str, str]:
    """The game's ``hands.toml`` ``[names]``, checked: every class of the game has a name."""
    hands = spec(game).hands
    path = spec(game).folder / "hands.toml"
    with path.open("rb") as f:
        given = tomllib.load(f).get("names", {})
    if set(given) != set(hands.classes) or not all(isinstance(v, str) for v in given.values()):
        raise ValueError(f"{path}: [names] must name exactly {hands.classes}")
    return {k: given[k] for k in hands.classes}


class _Names(Mapping[str, dict[str, str]]):
    """Japanese display name per game and class id, exactly as the seeds' ranking lists write
    them (the katakana in parentheses): data, each game's ``hands.toml`` ``[names]``, read once
    per registered game."""

    def __init__(self) -> None:
        self._cache: dict[object, dict[str, str]] = {}

    def __getitem__(self, game: str) -> dict[str, str]:
        if not is_game(game):
            raise KeyError(game)  # a Mapping's miss (``NAMES.get(game, {})``)
        key = spec(game)
        if key not in self._cache:
            self._cache[key] = _names(game)
        return self._cache[key]

    def __iter__(self) -> Iterator[str]:
        return iter(game_ids())

    def __len__(self) -> int:
        return len(game_ids())


NAMES: Mapping[str, dict[str, str]] = _Names()


def _check_game(game: str) -> tuple[str, ...]:
    return spec(game).hands.classes


def class_rank(game: str, klass: str) -> int:
    """Strength of a class within its game: 0 for high_card, higher = stronger."""
    classes = _check_game(game)
    if klass not in classes:
        raise ValueError(f"{game} has no hand class {klass!r}")
    return len(classes) - 1 - classes.index(klass)


def class_of(game: str, key: int) -> str:
    """The class id a key belongs to."""
    classes = _check_game(game)
    return classes[len(classes) - 1 - (key >> (4 * spec(game).hands.width))]


def class_floor(game: str, klass: str) -> int:
    """The smallest key of ``klass``: ``key >= class_floor(g, k)`` means "``k`` or better"."""
    return class_rank(game, klass) << (4 * spec(game).hands.width)


def pair_floor(game: str, rank: int) -> int:
    """The smallest key of a pair of ``rank`` (0..12 = 2..A): ``key >= pair_floor(g, r)`` means
    "a pair of r or better" (holdem_aa: dealer qualifies with ``pair_floor('holdem_aa', 2)``,
    the AA bet with ``pair_floor('holdem_aa', 12)``; seven's DQ "a pair of 3s or worse" is
    ``key < pair_floor('seven', 2)``)."""
    if not 0 <= rank <= 12:
        raise ValueError(f"rank out of range: {rank}")
    w = 4 * spec(game).hands.width
    return class_floor(game, "one_pair") | rank << (w - 4)


def pack(game_width: int, category: int, tiebreak: tuple[int, ...]) -> int:
    """Build a key from a category number and up to ``game_width`` tiebreak ranks."""
    key = category
    for i in range(game_width):
        key = key << 4 | (tiebreak[i] if i < len(tiebreak) else 0)
    return key


def ja_name(game: str, klass: str) -> str:
    """The Japanese name of a class, as the game's seed writes it."""
    return NAMES[game][klass]
