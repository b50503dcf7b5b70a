"""Casino Hold'em with the AA side bet, registered: the one
:class:`~referee.games.GameSpec` of this folder."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.games import GameSpec, HandRules
from referee.games.holdem_aa.rules import HoldemAADefinition
from referee.hands.names import STANDARD, class_of
from referee.hands.standard import best5_cards, best5_key
from referee.resources import GRAMMAR

if TYPE_CHECKING:
    from referee.analysis.hooks import GameAnalysis
    from referee.rules.base import Engine


def _engine() -> type[Engine]:
    from referee.games.holdem_aa.engine import HoldemAAEngine

    return HoldemAAEngine


def _made(holdings: Sequence[int], board: Sequence[int]) -> str | None:
    if len(board) < 3 or len(holdings) != 2:
        return None
    return class_of("holdem_aa", best5_key([*holdings, *board]))


def _best(hole: Sequence[int], board: Sequence[int]) -> tuple[int, Sequence[int]]:
    return best5_cards([*hole, *board])


def _analysis() -> GameAnalysis:
    from referee.games.holdem_aa.analysis import analysis

    return analysis()


def _voice() -> Callable[[Sequence[Any]], Any]:
    from referee.games.holdem_aa.voice import line

    return line


SPEC = GameSpec(
    id="holdem_aa", folder=Path(__file__).resolve().parent,
    grammar=GRAMMAR / "holdem_aa.lark", model=HoldemAADefinition,
    engine=_engine,
    hands=HandRules(STANDARD, 5, _best, lambda hole, board: hole == 2 and 3 <= board <= 5,
                    one_deck=True),
    made_class=_made, analysis=_analysis, rank_run_bets=frozenset({"AA"}),
    voice=_voice,
)
