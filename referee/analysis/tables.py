"""A game definition with ``--set key=value`` changes, validated like the definition files.

Keys are dotted paths into the game's ``definition.toml``:
``holdem_aa.aa_table.royal_flush=250``; the game's own section may be left out
(``aa_table.royal_flush=250``), and so may the ``GAME.`` prefix of top-level keys
(``jokers=2``). Values are TOML values (``3.5``, ``true``, ``"text"``; a bare word is read as a
string). A key must exist, or be a new row of an existing table (a pay-table row the file does
not have yet); the changed file is then validated by the same pydantic models, so a bad value is
refused naming the key and the reason.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from referee import games
from referee.definitions import (
    DefinitionError,
    GameDefinition,
    file_problem,
    validate,
    validation_line,
)
from referee.lang.catalog import text as say


def _value(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}", parse_float=Decimal)["v"]
    except tomllib.TOMLDecodeError:
        return text


def _path(data: dict[str, Any], game: str, key: str) -> list[str]:
    parts = key.split(".")
    if any(not p for p in parts):
        raise DefinitionError(say("analyze.set_not_key", key=key))
    if parts[0] not in data and isinstance(data.get(game), dict) and parts[0] in data[game]:
        return [game, *parts]
    if parts[0] == game and len(parts) == 1:
        raise DefinitionError(say("analyze.set_section", key=key))
    return parts


def definition(game: str, changes: Sequence[str] = (), path: Path | None = None
               ) -> GameDefinition:
    """The game's ``definition.toml`` (or the file at ``path``) with ``changes``
    (``key=value`` strings) applied and validated."""
    if not games.is_game(game):
        raise DefinitionError(str(games.UnknownGame(game)))
    if path is None:
        path = games.spec(game).folder / "definition.toml"
    try:
        with path.open("rb") as f:
            data: dict[str, Any] = tomllib.load(f, parse_float=Decimal)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise DefinitionError(file_problem(path, e)) from None
    data = copy.deepcopy(data)
    for change in changes:
        key, eq, text = change.partition("=")
        key = key.strip()
        if not eq or not key:
            raise DefinitionError(say("analyze.set_format", change=change))
        parts = _path(data, game, key)
        node: Any = data
        for i, p in enumerate(parts[:-1]):
            if not isinstance(node, dict) or p not in node or not isinstance(node[p], dict):
                raise DefinitionError(say("analyze.set_unknown", key=key,
                                           known=".".join(parts[:i + 1])))
            node = node[p]
        last = parts[-1]
        # a new key is allowed only inside a table of rows (a pay table), never a new setting
        if last not in node and len(parts) < 3:
            raise DefinitionError(say("analyze.set_unknown", key=key, known=key))
        if last in node and isinstance(node[last], dict):
            raise DefinitionError(say("analyze.set_table", key=key))
        node[last] = _value(text.strip())
    try:
        return validate(data)
    except ValidationError as e:
        raise DefinitionError(validation_line(e, "--set: ")) from None
