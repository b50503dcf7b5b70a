"""What a game tells ``referee analyze`` (its :class:`~referee.games.GameSpec`'s ``analysis``):
its bets, how each is computed and how long a Monte Carlo run goes on."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from referee.analysis.report import BetReport
from referee.definitions import GameDefinition

#: ``(label, total) -> progress(done)`` or None: a progress bar per computation
Bar = Callable[[str, int], Callable[[int], None] | None]
#: ``(hands, seed) -> one report per simulated bet``
MonteCarlo = Callable[[int, int], list[BetReport]]


@dataclass(frozen=True)
class GameAnalysis:
    """A game's bets against the house and their methods (docs/analysis.md)."""

    #: the bets of the game's default report, in report order
    bets: tuple[str, ...] = ()
    #: bets reported only when asked for with ``--bet``
    extra_bets: tuple[str, ...] = ()
    #: Monte Carlo hands of the first run without ``--hands`` (later runs are sized from it)
    default_hands: int = 0
    #: where a run without ``--hands`` stops even short of the target interval
    max_hands: int = 0
    #: ``(definition, wanted bets, bar) -> runner``, or None when no wanted bet is simulated
    monte_carlo: Callable[[GameDefinition, Sequence[str], Bar], MonteCarlo | None] | None = None
    #: the bets computed exactly, each ``(definition, bar) -> report``
    exact: Mapping[str, Callable[[GameDefinition, Bar], BetReport]] = field(default_factory=dict)
    #: applied to each simulated bet's report (a note of the game's own)
    finish: Callable[[BetReport], BetReport] | None = None
    #: the report's note (a game without bets against the house says why)
    note: str = ""
