"""The game registry: one :class:`GameSpec` per game, from which every list of games is derived.

A game is its definition file (``games/GAME.toml``, validated by
:class:`~referee.definitions.GameDefinition`), its grammar (``grammar/GAME.lark``, found by the
parser under the game's id), its engine class and how the leak judgement reads the class a
holding makes now. The
service, the adapters and the command line ask the registry (or the engine's capabilities in
:mod:`referee.rules.base`) and never name a game; adding a fifth game is the list of files in
``docs/adding-a-game.md``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, get_args

from referee import definitions
from referee.cards import Card
from referee.definitions import GAME_IDS, GameDefinition
from referee.events import Event
from referee.hands import evaluate
from referee.lang.catalog import text
from referee.rules.base import Engine, OptionError

__all__ = ["GameSpec", "create", "event_types", "games", "parse_event", "spec"]

#: ``(holdings, board) -> class id`` of the best hand the holder makes now, or None when the
#: game cannot tell yet (no board, an incomplete hand).
MadeClass = Callable[[Sequence[Card], Sequence[Card]], "str | None"]


@dataclass(frozen=True)
class GameSpec:
    """Everything the rest of the program needs to know about one game."""

    id: str
    engine: type[Engine]
    made_class: MadeClass
    #: Hand histories in the Poker Hand History format (pokerkit's PHH) exist for this game.
    phh: bool = False

    @property
    def definition(self) -> GameDefinition:
        return definitions.load(self.id)  # looked up at call time (tests patch it)

    @property
    def name(self) -> str:
        """The game's display name (the definition's ``name``)."""
        return self.definition.name

    def create(self, options: dict[str, str] | None = None) -> Engine:
        """A new table with ``# table:`` / ``!open`` options."""
        return self.engine(self.definition, dict(options or {}))


def _omaha_made(holdings: Sequence[Card], board: Sequence[Card]) -> str | None:
    # exactly two hole cards with three of the board: the best such five
    if len(board) < 3 or len(holdings) < 2:
        return None
    return max(evaluate("holdem_aa", list(two), list(three))
               for two in itertools.combinations(holdings, 2)
               for three in itertools.combinations(board, 3)).klass


def _holdem_made(holdings: Sequence[Card], board: Sequence[Card]) -> str | None:
    if len(board) < 3 or len(holdings) != 2:
        return None
    return evaluate("holdem_aa", list(holdings), list(board)).klass


def _whole_hand(size: int, game: str) -> MadeClass:
    def made(holdings: Sequence[Card], board: Sequence[Card]) -> str | None:
        return evaluate(game, list(holdings), []).klass if len(holdings) == size else None
    return made


@cache
def games() -> dict[str, GameSpec]:
    """Every game, by id, in the order of :data:`~referee.definitions.GAME_IDS` (engines are
    imported on first use: most commands need no engine)."""
    from referee.rules.deuces import DeucesEngine
    from referee.rules.holdem_aa import HoldemAAEngine
    from referee.rules.omaha import OmahaEngine
    from referee.rules.seven import SevenEngine

    specs = [
        GameSpec("omaha", OmahaEngine, _omaha_made, phh=True),
        GameSpec("holdem_aa", HoldemAAEngine, _holdem_made),
        GameSpec("seven", SevenEngine, _whole_hand(7, "seven")),
        GameSpec("deuces", DeucesEngine, _whole_hand(5, "deuces")),
    ]
    out = {s.id: s for s in specs}
    if tuple(out) != GAME_IDS:  # a game in one list and not the other: a programming error
        raise RuntimeError(f"registry {tuple(out)} != definitions {GAME_IDS}")
    return out


def spec(game: str) -> GameSpec:
    """The game ``game``; OptionError (catalogue ``game_unknown``) for any other word."""
    try:
        return games()[game]
    except KeyError:
        raise OptionError(text("game_unknown", game=game, games=" ".join(GAME_IDS))) from None


def create(game: str, options: dict[str, str] | None = None) -> Engine:
    """A new table of ``game`` (see :meth:`GameSpec.create`)."""
    return spec(game).create(options)


def made_class(game: str, holdings: Sequence[Card], board: Sequence[Card]) -> str | None:
    """The best class ``holdings`` make now with ``board`` in ``game``, or None when it cannot
    be judged (an evaluator refusing an odd holding never breaks the table)."""
    try:
        return spec(game).made_class(holdings, board)
    except Exception:  # an evaluator refusing an odd holding (HandError…) never breaks a table
        return None


@cache
def event_types() -> dict[str, type[Event]]:
    """The closed set of event kinds: every :class:`~referee.events.Event` class of
    :mod:`referee.events` and of the games' engines, by its ``event`` literal. A kind spelled
    by two classes, or a class without a single literal kind, is a programming error."""
    games()  # the engines' modules define their kinds
    out: dict[str, type[Event]] = {}
    todo = list(Event.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if not cls.__module__.startswith("referee."):
            continue  # a test's own shapes (tests/event_helpers.py), not the referee's kinds
        field = cls.model_fields.get("event")
        kinds = get_args(field.annotation) if field is not None else ()
        if len(kinds) != 1:
            raise RuntimeError(f"{cls.__qualname__}: an event class names exactly one kind")
        kind = str(kinds[0])
        if out.get(kind, cls) is not cls:
            raise RuntimeError(f"event kind {kind!r}: {out[kind].__qualname__} and "
                               f"{cls.__qualname__}")
        out[kind] = cls
    return out


def parse_event(data: dict[str, Any]) -> Event:
    """The typed event of a JSON dict (the store's, the replay's); ValueError if its kind is
    unknown or its fields do not fit."""
    cls = event_types().get(str(data.get("event")))
    if cls is None:
        raise ValueError(f"unknown event kind: {data.get('event')!r}")
    return cls.model_validate(data)
