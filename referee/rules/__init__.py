"""Game engines: pure state machines, one per game. No I/O, no clock, no randomness of their own."""

from __future__ import annotations

from referee.definitions import GameDefinition
from referee.rules.base import Deal, Engine, IllegalAction, OptionError

__all__ = ["Deal", "Engine", "IllegalAction", "OptionError", "create"]


def create(game: str, options: dict[str, str] | None = None,
           definition: GameDefinition | None = None) -> Engine:
    """A new table of ``game`` with ``# table:`` / ``!open`` options (``rules=world level=3``),
    under ``definition`` when given (else its file's); the game registry
    (:mod:`referee.rules.registry`) knows the engines."""
    from referee.rules.registry import create as make

    return make(game, options, definition)
