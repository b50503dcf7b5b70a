"""highcard's registration: its one :class:`~referee.games.GameSpec` (docs/adding-a-game.md).

The registration line is ``register(SPEC)`` (:func:`referee.games.register`); the tests that
play highcard run it through the ``highcard`` fixture of ``tests/conftest.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from games.highcard.hands import CLASSES, best
from games.highcard.rules import HighcardDefinition
from referee.games import GameSpec, HandRules

if TYPE_CHECKING:
    from referee.analysis.hooks import GameAnalysis
    from referee.rules.base import Engine


def _engine() -> type[Engine]:
    from games.highcard.engine import HighcardEngine

    return HighcardEngine


def _made(holdings: Sequence[int], board: Sequence[int]) -> str | None:
    return "high_card" if len(holdings) == 1 else None


def _analysis() -> GameAnalysis:
    from games.highcard.analysis import analysis

    return analysis()


SPEC = GameSpec(
    id="highcard", folder=Path(__file__).resolve().parent, model=HighcardDefinition,
    engine=_engine,
    hands=HandRules(CLASSES, 1, best, lambda hole, board: hole == 1 and board == 0,
                    one_deck=True),
    made_class=_made, analysis=_analysis,
)
