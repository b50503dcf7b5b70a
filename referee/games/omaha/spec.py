"""Pot-limit Omaha, registered: the one :class:`~referee.games.GameSpec` of this folder."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.games import GameSpec, HandRules
from referee.games.omaha.rules import OmahaDefinition, OmahaRules
from referee.hands.names import STANDARD, class_of
from referee.hands.standard import best5_key, omaha_cards, omaha_key
from referee.resources import GRAMMAR

if TYPE_CHECKING:
    from referee.analysis.hooks import GameAnalysis
    from referee.definitions import GameDefinition
    from referee.rules.base import Engine


def _engine() -> type[Engine]:
    from referee.games.omaha.engine import OmahaEngine

    return OmahaEngine


def _made(holdings: Sequence[int], board: Sequence[int]) -> str | None:
    """Exactly two hole cards with three of the board: the best such five."""
    if len(board) < 3 or len(holdings) < 2:
        return None
    cards = [*holdings, *board]
    if len(holdings) == 4 and len(set(cards)) == len(cards) and all(0 <= c < 52 for c in cards):
        return class_of("omaha", omaha_key(holdings, board))  # the engines' fast key
    return class_of("omaha", max(best5_key([*two, *three])
                                 for two in itertools.combinations(holdings, 2)
                                 for three in itertools.combinations(board, 3)))


def _multiplier(m: Decimal) -> str:
    return format(m.normalize(), "f") if m == m.to_integral_value() else str(m)


def _summary(definition: GameDefinition, options: Mapping[str, str]) -> dict[str, Any]:
    """``rules_summary_omaha``: the table's level's blinds, the ante, the rake, the chips."""
    from referee.events import line

    rules = definition.section(OmahaRules)
    lv = rules.levels[int(options.get("level", rules.level)) - 1]
    return {"sb": lv.sb, "bb": lv.bb,
            "ante": line("rules_ante", ante=lv.ante) if rules.ante else "",
            "rake_percent": _multiplier(Decimal(rules.rake_percent)),
            "rake_min_pot": rules.rake_min_pot, "rake_cap": rules.rake_cap,
            "mult": rules.chip_multiplier}


def _analysis() -> GameAnalysis:
    from referee.analysis.hooks import GameAnalysis

    return GameAnalysis(note="omaha has no bets against the house: the house only takes rake "
                        "(2% of pots of 500 or more, at most 500; games/omaha/definition.toml)")


def _voice() -> Callable[[Sequence[Any]], Any]:
    from referee.games.omaha.voice import line

    return line


SPEC = GameSpec(
    id="omaha", folder=Path(__file__).resolve().parent,
    grammar=GRAMMAR / "omaha.lark", model=OmahaDefinition, engine=_engine,
    hands=HandRules(STANDARD, 5, omaha_cards, lambda hole, board: hole == 4 and board == 5,
                    one_deck=True),
    made_class=_made, summary=_summary, analysis=_analysis, phh=True,
    action_words={"raise": "make"}, total_actions=frozenset({"bet", "raise", "allin"}),
    voice=_voice,
)
