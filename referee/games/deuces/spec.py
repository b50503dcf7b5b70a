"""Deuces wild against the house with the bonus area (デュースボーナス), registered: the one
:class:`~referee.games.GameSpec` of this folder."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.games import GameSpec, HandRules
from referee.games.deuces.hands import DEUCES, deuces_key
from referee.games.deuces.rules import DeucesDefinition
from referee.hands.names import class_of
from referee.resources import GRAMMAR

if TYPE_CHECKING:
    from referee.analysis.hooks import GameAnalysis
    from referee.rules.base import Engine


def _engine() -> type[Engine]:
    from referee.games.deuces.engine import DeucesEngine

    return DeucesEngine


def _made(holdings: Sequence[int], board: Sequence[int]) -> str | None:
    return class_of("deuces", deuces_key(holdings)) if len(holdings) == 5 else None


def _analysis() -> GameAnalysis:
    from referee.games.deuces.analysis import analysis

    return analysis()


def _voice() -> Callable[[Sequence[Any]], Any]:
    from referee.games.deuces.voice import line

    return line


SPEC = GameSpec(
    id="deuces", folder=Path(__file__).resolve().parent,
    grammar=GRAMMAR / "deuces.lark", model=DeucesDefinition, engine=_engine,
    hands=HandRules(DEUCES, 5, lambda hole, board: (deuces_key(hole), list(hole)),
                    lambda hole, board: hole == 5 and board == 0),
    made_class=_made, analysis=_analysis,
    voice=_voice,
)
