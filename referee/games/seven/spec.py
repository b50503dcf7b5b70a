"""Seven-card stud against the house with jokers (セブンカード), registered: the one
:class:`~referee.games.GameSpec` of this folder."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.games import GameSpec, HandRules
from referee.games.seven.hands import SEVEN, seven_cards
from referee.games.seven.rules import SevenDefinition
from referee.hands.names import class_of
from referee.resources import GRAMMAR

if TYPE_CHECKING:
    from referee.analysis.hooks import GameAnalysis
    from referee.rules.base import Engine


def _engine() -> type[Engine]:
    from referee.games.seven.engine import SevenEngine

    return SevenEngine


def _made(holdings: Sequence[int], board: Sequence[int]) -> str | None:
    return class_of("seven", seven_cards(holdings)[0]) if len(holdings) == 7 else None


def _analysis() -> GameAnalysis:
    from referee.games.seven.analysis import analysis

    return analysis()


def _voice() -> Callable[[Sequence[Any]], Any]:
    from referee.games.seven.voice import line

    return line


SPEC = GameSpec(
    id="seven", folder=Path(__file__).resolve().parent,
    grammar=GRAMMAR / "seven.lark", model=SevenDefinition, engine=_engine,
    hands=HandRules(SEVEN, 7, lambda hole, board: seven_cards(hole),
                    lambda hole, board: hole == 7 and board == 0),
    made_class=_made, analysis=_analysis,
    voice=_voice,
)
