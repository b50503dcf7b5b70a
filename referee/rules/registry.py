"""The games as the rules layer sees them: a table of a game (:func:`create`), the leak
judgement's reading of a holding (:func:`made_class`) and the closed set of event kinds.

The one list of games is :mod:`referee.games` (each game's folder and its
:class:`~referee.games.GameSpec`); the service, the adapters and the command line ask it (or
the engine's capabilities in :mod:`referee.rules.base`) and never name a game; adding a game
is the folder described in ``docs/adding-a-game.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, cast, get_args

from referee import definitions
from referee import games as registry
from referee.cards import Card
from referee.events import Event, Say
from referee.games import GameSpec, UnknownGame
from referee.rules.base import Engine, OptionError

__all__ = ["GameSpec", "create", "event_types", "games", "parse_event", "spec"]


def games() -> dict[str, GameSpec]:
    """Every registered game, by id."""
    return registry.games()


def spec(game: str) -> GameSpec:
    """The game ``game``; OptionError (catalogue ``game_unknown``) for any other word."""
    try:
        return registry.spec(game)
    except UnknownGame:
        raise OptionError("game_unknown", game=game,
                          games=" ".join(registry.game_ids())) from None


def create(game: str, options: dict[str, str] | None = None,
           definition: definitions.GameDefinition | None = None) -> Engine:
    """A new table of ``game`` with ``# table:`` / ``!open`` options, under ``definition``
    (the one recorded when the table was opened) or else its file's as it is now."""
    engine = cast("type[Engine]", spec(game).engine())
    return engine(definition if definition is not None else definitions.load(game),
                  dict(options or {}))


def made_class(game: str, holdings: Sequence[Card], board: Sequence[Card]) -> str | None:
    """The best class ``holdings`` make now with ``board`` in ``game``, or None when it cannot
    be judged (an evaluator refusing an odd holding never breaks the table)."""
    try:
        return spec(game).made_class(holdings, board)
    except Exception:  # an evaluator refusing an odd holding (HandError…) never breaks a table
        return None


def event_types() -> dict[str, type[Event]]:
    return _event_types(tuple(registry.games().values()))


@cache
def _event_types(specs: tuple[GameSpec, ...]) -> dict[str, type[Event]]:
    """The closed set of event kinds: every :class:`~referee.events.Event` class of
    :mod:`referee.events` and of the games' engines, by its ``event`` literal. A kind spelled
    by two classes, or a class without a single literal kind, is a programming error."""
    for game in specs:
        game.engine()  # the engines' modules define their kinds
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
    if cls is Say and data.get("text") is None and data.get("key") is None:
        raise ValueError("a say needs its text (as shown) or its key (as the log keeps it)")
    return cls.model_validate(data)
