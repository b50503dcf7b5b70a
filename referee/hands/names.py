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

from referee.lang import vocab

STANDARD: tuple[str, ...] = (
    "royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush", "straight",
    "three_of_a_kind", "two_pair", "one_pair", "high_card",
)
SEVEN: tuple[str, ...] = (
    "seven_straight_flush", "seven_of_a_kind", "royal_flush", "straight_flush", "seven_straight",
    "big_house", "five_of_a_kind", "seven_flush", "middle_house", "four_of_a_kind", "full_house",
    "flush", "straight", "defective_house", "three_of_a_kind", "two_pair", "one_pair", "high_card",
)
DEUCES: tuple[str, ...] = (
    "natural_royal_flush", "four_deuces", "wild_royal_flush", "five_of_a_kind", "straight_flush",
    "four_of_a_kind", "full_house", "flush", "straight", "three_of_a_kind", "two_pair", "one_pair",
    "high_card",
)

#: class ids per game, strongest first (docs/contracts.md §1 order)
CLASSES: dict[str, tuple[str, ...]] = {
    "omaha": STANDARD, "holdem_aa": STANDARD, "seven": SEVEN, "deuces": DEUCES,
}

#: key width in rank nibbles per game
WIDTH: dict[str, int] = {"omaha": 5, "holdem_aa": 5, "seven": 7, "deuces": 5}


def _names() -> dict[str, dict[str, str]]:
    """``grammar/hands.toml`` ``[names]``, checked: every class of every game has a name."""
    names = vocab.load("hands.toml")["names"]
    out: dict[str, dict[str, str]] = {}
    for game, classes in CLASSES.items():
        given = names.get(game, {})
        if set(given) != set(classes) or not all(isinstance(v, str) for v in given.values()):
            raise ValueError(f"hands.toml: [names.{game}] must name exactly {classes}")
        out[game] = {k: given[k] for k in classes}
    return out

#: Japanese display name per game and class id, exactly as the seeds' ranking lists write them
#: (the katakana in parentheses): data, ``grammar/hands.toml`` ``[names.GAME]``.
NAMES: dict[str, dict[str, str]] = _names()


def _check_game(game: str) -> tuple[str, ...]:
    try:
        return CLASSES[game]
    except KeyError:
        raise ValueError(f"unknown game: {game!r}") from None


def class_rank(game: str, klass: str) -> int:
    """Strength of a class within its game: 0 for high_card, higher = stronger."""
    classes = _check_game(game)
    if klass not in classes:
        raise ValueError(f"{game} has no hand class {klass!r}")
    return len(classes) - 1 - classes.index(klass)


def class_of(game: str, key: int) -> str:
    """The class id a key belongs to."""
    classes = _check_game(game)
    return classes[len(classes) - 1 - (key >> (4 * WIDTH[game]))]


def class_floor(game: str, klass: str) -> int:
    """The smallest key of ``klass``: ``key >= class_floor(g, k)`` means "``k`` or better"."""
    return class_rank(game, klass) << (4 * WIDTH[game])


def pair_floor(game: str, rank: int) -> int:
    """The smallest key of a pair of ``rank`` (0..12 = 2..A): ``key >= pair_floor(g, r)`` means
    "a pair of r or better" (holdem_aa: dealer qualifies with ``pair_floor('holdem_aa', 2)``,
    the AA bet with ``pair_floor('holdem_aa', 12)``; seven's DQ "a pair of 3s or worse" is
    ``key < pair_floor('seven', 2)``)."""
    if not 0 <= rank <= 12:
        raise ValueError(f"rank out of range: {rank}")
    w = 4 * WIDTH[game]
    return class_floor(game, "one_pair") | rank << (w - 4)


def pack(game_width: int, category: int, tiebreak: tuple[int, ...]) -> int:
    """Build a key from a category number and up to ``game_width`` tiebreak ranks."""
    key = category
    for i in range(game_width):
        key = key << 4 | (tiebreak[i] if i < len(tiebreak) else 0)
    return key


def ja_name(game: str, klass: str) -> str:
    """The Japanese name of a class, as the game's seed writes it."""
    _check_game(game)
    return NAMES[game][klass]
