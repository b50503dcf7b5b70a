"""What ``!help`` and ``!rules`` say about a table's game: its actions with examples, its short
rules and its pay tables, read from the game's definition (``games/GAME/definition.toml``) so that a
changed pay table is shown as it is played: as phrases (catalogue keys and their figures), which
the voice renders. The wording is the catalogue's (``referee/lang/messages/guide.toml``); hand
names are the seeds' (``referee.hands.NAMES``)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from referee.definitions import GameDefinition
from referee.events import Phrase, game_name, hand_name, joined, line
from referee.games import spec
from referee.hands import NAMES
from referee.lang.catalog import messages


def actions(definition: GameDefinition) -> Phrase:
    """The line of ``!help`` listing what the game's players type."""
    return line("help_actions", game=game_name(definition.id),
                actions=line(f"help_actions_{definition.id}"))


def _multiplier(m: Decimal) -> str:
    return format(m.normalize(), "f") if m == m.to_integral_value() else str(m)


def _row(game: str, row: str) -> Phrase:
    if row.isdigit():
        return line("row_wins", count=int(row))
    if f"row_{row}" in messages():
        return line(f"row_{row}")
    return hand_name(game, row) if row in NAMES[game] else row


def _tables(game: str, rules: Any) -> list[Phrase]:
    out: list[Phrase] = []
    for name, value in rules:
        if not (name.endswith("_table") or name == "hand_bonus") or not isinstance(value, dict):
            continue
        if name == "hand_bonus":  # bank points, not a multiplier
            items = [line("rules_row_points", row=_row(game, str(r)), points=int(v))
                     for r, v in value.items()]
        else:
            items = [line("rules_row", row=_row(game, str(r)), multiplier=_multiplier(Decimal(v)))
                     for r, v in value.items()]
        out.append(line("rules_table", title=line(f"table_{name}"), rows=joined(" / ", items)))
    return out


def rules(definition: GameDefinition, options: dict[str, str] | None = None) -> list[Phrase]:
    """The lines of ``!rules``: the game in short, then every pay table of its definition."""
    game = definition.id
    rules_model: Any = definition.rules
    own = spec(game).summary
    if own is not None:
        summary = line(f"rules_summary_{game}", **own(definition, options or {}))
    else:
        fields = {k: v for k, v in rules_model if isinstance(v, int)}
        if "ante" in (options or {}) and "ante_unit" in fields:  # the table's own unit
            fields["ante_unit"] = int((options or {})["ante"])
        summary = line(f"rules_summary_{game}", **fields)
    return [summary, *_tables(game, rules_model)]
