"""The games: one folder per game, and the registry, the one list of them.

A game is the folder ``referee/games/GAME/`` (or any package outside referee, as the tests'
``tests/games/highcard/``): its definition (``definition.toml``), its messages
(``messages.toml``), its hand names (``hands.toml``), the model of its definition's own section,
its evaluator, its engine, its analysis and its ``spec.py``, which puts them together in one
:class:`GameSpec`. :func:`register` is the registration; the built-in games are registered from
:data:`BUILTIN` on first use. Every other list of games (``GameId``, ``!open``, the command
line's ``--game`` choices, the catalogue's files, the analysis) is read from here, and a lookup
of any other word raises :class:`UnknownGame`: nothing falls through to another game.

This module sits in the core and imports nothing of the layers that ask it: a spec holds its
definition model, engine and analysis as objects the registry does not look into (a spec names
its engine and analysis through functions that import them on first use); each layer reads its
own part typed (:func:`referee.definitions.model_for`, :func:`referee.rules.registry.create`,
:func:`referee.analysis.analysis_of`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["BUILTIN", "GameSpec", "HandRules", "UnknownGame", "folders", "game_ids", "games",
           "is_game", "listed_ids", "on_change", "register", "spec", "unregister"]

#: The games shipped with referee, each ``referee/games/GAME/spec.py`` (its ``SPEC``), in the
#: order every list of games is shown.
BUILTIN: tuple[str, ...] = ("omaha", "holdem_aa", "seven", "deuces")

#: ``(holdings, board) -> class id`` of the best hand the holder makes now, or None when the
#: game cannot tell yet (no board, an incomplete hand).
MadeClass = Callable[[Sequence[int], Sequence[int]], "str | None"]


class UnknownGame(ValueError):
    """A word that names no registered game; the message is one line listing the games."""

    def __init__(self, game: object) -> None:
        self.game = game
        super().__init__(f"unknown game '{game}' (known: {', '.join(game_ids())})")


@dataclass(frozen=True)
class HandRules:
    """How a game ranks hands: what :func:`referee.hands.evaluate` runs for it."""

    #: class ids, strongest first (docs/contracts.md §1)
    classes: tuple[str, ...]
    #: key width in rank nibbles (:mod:`referee.hands.names`)
    width: int
    #: ``(hole, board) -> (key, cards used)``, for a holding :attr:`fits` accepts
    best: Callable[[Sequence[int], Sequence[int]], tuple[int, Sequence[int]]]
    #: ``(hole count, board count) -> bool``: the holdings the evaluator takes (else the
    #: catalogue's ``hands_need_GAME`` refuses)
    fits: Callable[[int, int], bool]
    #: one 52-card deck: no joker, no card twice
    one_deck: bool = False


@dataclass(frozen=True, eq=False)
class GameSpec:
    """Everything the rest of the program needs to know about one game."""

    id: str
    #: the game's folder: ``definition.toml``, ``messages.toml``, ``hands.toml``
    folder: Path
    #: the model of the game's definition file: a
    #: :class:`~referee.definitions.GameDefinition` with one field of its own, the ``[GAME]``
    #: section (named by the game's id)
    model: type[Any]
    #: the engine class (a :class:`~referee.rules.base.Engine`), imported on first use (most
    #: commands need no engine)
    engine: Callable[[], type[Any]]
    hands: HandRules
    #: which class a holding makes now, for the leak judgement
    made_class: MadeClass
    #: ``!rules``' first line: the catalogue's ``rules_summary_GAME`` filled with these fields
    #: (default: the integer fields of the game's section, the table's ``ante`` option as
    #: ``ante_unit``)
    summary: Callable[[Any, Mapping[str, str]], dict[str, Any]] | None = None
    #: ``referee analyze``'s bets and methods (a
    #: :class:`~referee.analysis.hooks.GameAnalysis`), imported on first use (numpy)
    analysis: Callable[[], Any] | None = None
    #: hand histories in the Poker Hand History format (pokerkit's PHH) exist for this game
    phh: bool = False
    #: the room's word for an ``action`` event's id where it is not the id's own
    #: (omaha's raise is a メイク: ``{"raise": "make"}``)
    action_words: Mapping[str, str] = field(default_factory=dict)
    #: actions whose line names the total put in (``to``), not the chips added
    total_actions: frozenset[str] = frozenset()
    #: the players' grammar (``%import common`` of ``referee/grammar/``): the folder's
    #: ``grammar.lark`` unless given (the built-in games' are ``referee/grammar/GAME.lark``)
    grammar: Path | None = None
    #: the game's bets named like a rank run (holdem_aa's ``AA``): the leak judgement does not
    #: take them for a holding
    rank_run_bets: frozenset[str] = frozenset()
    #: the game's own room lines rendered from its fact events (the folder's ``voice.line``:
    #: ``(the events of one input up to the fact) -> Say | None``), imported on first use; the
    #: lines every game shares are :mod:`referee.rules.voice`'s
    voice: Callable[[], Callable[[Sequence[Any]], Any]] | None = None

    @property
    def grammar_file(self) -> Path:
        return self.grammar if self.grammar is not None else self.folder / "grammar.lark"


_registered: dict[str, GameSpec] = {}
_builtin_loaded = False
#: called after every change of the registry (caches derived from it: the catalogue, the
#: definitions' models)
_listeners: list[Callable[[], None]] = []


#: built-in games loaded one by one before the registry was needed whole (:func:`spec` of one
#: game: ``referee parse --game omaha`` needs omaha's spec, not the other games' modules)
_loaded_alone: dict[str, GameSpec] = {}


def _builtin(game: str) -> GameSpec:
    found = _loaded_alone.get(game)
    if found is None:
        found = importlib.import_module(f"referee.games.{game}.spec").SPEC
        if not isinstance(found, GameSpec) or found.id != game:
            raise RuntimeError(f"referee/games/{game}/spec.py: SPEC is not the {game} game")
        _loaded_alone[game] = found
    return found


def _ensure() -> dict[str, GameSpec]:
    global _builtin_loaded
    if not _builtin_loaded:
        _builtin_loaded = True
        for game in BUILTIN:
            _registered.setdefault(game, _builtin(game))
    return _registered


def register(game: GameSpec) -> GameSpec:
    """Add ``game`` to the registry (the one registration line of a game); a second game
    under the same id is a programming error."""
    known = _ensure()
    if known.get(game.id, game) is not game:
        raise RuntimeError(f"game '{game.id}' is registered twice")
    known[game.id] = game
    _changed()
    return game


def unregister(game: str) -> None:
    """Take ``game`` out of the registry (a test's own game, when the test ends)."""
    if _ensure().pop(game, None) is not None:
        _changed()


def on_change(listener: Callable[[], None]) -> None:
    """Call ``listener`` whenever a game is registered or unregistered."""
    _listeners.append(listener)


def _changed() -> None:
    for listener in _listeners:
        listener()


def games() -> dict[str, GameSpec]:
    """Every registered game, by id, built-in games first."""
    return dict(_ensure())


def game_ids() -> tuple[str, ...]:
    """The ids of every registered game."""
    return tuple(_ensure())


def listed_ids() -> tuple[str, ...]:
    """The same ids as :func:`game_ids` without loading the built-in games' specs (their
    engines' and definitions' modules): what ``referee --help`` lists."""
    return tuple(_registered) if _builtin_loaded else BUILTIN


def folders() -> tuple[Path, ...]:
    """Every registered game's folder, in the registry's order, without loading the built-in
    games' specs while nothing has been registered or unregistered (a built-in game's folder is
    ``referee/games/GAME``): the catalogue reads each folder's ``messages.toml``, and a
    command that only speaks must not import every game's engine and definitions for it."""
    if not _builtin_loaded:
        here = Path(__file__).resolve().parent
        return tuple(here / game for game in BUILTIN)
    return tuple(g.folder for g in _registered.values())


def is_game(game: object) -> bool:
    """Whether ``game`` is the id of a registered game."""
    if not _builtin_loaded:  # nothing registered or unregistered yet: the built-in games
        return game in BUILTIN
    return isinstance(game, str) and game in _registered


def spec(game: object) -> GameSpec:
    """The game ``game``; :class:`UnknownGame` for any other word."""
    if not _builtin_loaded and game in BUILTIN:
        return _builtin(str(game))  # this game's modules only
    found = _ensure().get(game) if isinstance(game, str) else None
    if found is None:
        raise UnknownGame(game)
    return found
