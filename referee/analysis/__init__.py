"""``referee analyze``: the return to player and house edge of every bet of a game
(docs/analysis.md). Needs the ``analysis`` extra (numpy, matplotlib, tqdm).

Each game says what its bets are and how each is computed (its
:class:`~referee.analysis.hooks.GameAnalysis`, the ``analysis`` of its
:class:`~referee.games.GameSpec`): exact tables, Monte Carlo through the engine, or no bets
against the house at all (an empty report with the game's note).

Monte Carlo without ``hands``: runs of independent hands are pooled until every Monte Carlo
bet's 95% interval is at most +-0.5 points (:data:`TARGET`), or the game's ``max_hands`` have
been played (a note says which); with ``hands``: exactly that many, one run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from referee.analysis.hooks import GameAnalysis, MonteCarlo
from referee.analysis.report import BetReport, Report, Row, pool
from referee.definitions import GameDefinition
from referee.games import spec

__all__ = ["TARGET", "AnalysisError", "BetReport", "GameAnalysis", "Report", "Row", "analysis_of",
           "analyze"]

#: the 95% interval's half-width a Monte Carlo run without --hands goes on to (0.5 points)
TARGET = 0.005
ProgressFactory = Callable[[str, int], Callable[[int], None]]


class AnalysisError(ValueError):
    """A request that cannot be analysed (unknown bet, bad hand count); one line."""


def analysis_of(game: str) -> GameAnalysis:
    """What ``referee analyze`` runs for ``game`` (UnknownGame for a word that is no game)."""
    hooks = spec(game).analysis
    return cast(GameAnalysis, hooks()) if hooks is not None else GameAnalysis(
        note=f"{game} has no bets against the house")


def analyze(
    definition: GameDefinition,
    bets: Sequence[str] = (),
    hands: int | None = None,
    seed: int = 1,
    progress: ProgressFactory | None = None,
) -> Report:
    """Analyse ``bets`` (all of the game's when empty) of ``definition``."""
    game = definition.id
    how = analysis_of(game)
    known = how.bets + how.extra_bets
    for b in bets:
        if b not in known:
            from referee.lang.catalog import text

            raise AnalysisError(
                text("analyze.no_bet", game=definition.name, bet=b, bets=", ".join(known))
                if known else text("analyze.no_house_bets", game=definition.name, bet=b))
    wanted = [b for b in known if b in bets] if bets else list(how.bets)
    if hands is not None and hands <= 1 and known:
        from referee.lang.catalog import text

        raise AnalysisError(text("cli.hands_too_few"))

    def bar(label: str, total: int) -> Callable[[int], None] | None:
        return progress(label, total) if progress is not None else None

    report = Report(game=game, bets=[])
    if how.note:
        report.notes.append(how.note)
    mc = how.monte_carlo(definition, wanted, bar) if how.monte_carlo is not None else None
    simulated: list[BetReport] = []
    if mc is not None:
        simulated, note = _monte_carlo(mc, how, game, hands, seed)
        if note:
            report.notes.append(note)
    for b in wanted:
        if b in how.exact:
            report.bets.append(how.exact[b](definition, bar))
        else:
            rep = next(r for r in simulated if r.bet == b)
            report.bets.append(how.finish(rep) if how.finish is not None else rep)
    return report


def _monte_carlo(run: MonteCarlo, how: GameAnalysis, game: str, hands: int | None, seed: int
                 ) -> tuple[list[BetReport], str]:
    """``run`` once with ``hands``, or (``hands`` None) runs pooled until :data:`TARGET` or
    :data:`MAX_HANDS` (module doc); the later runs' seeds follow from ``seed``."""
    if hands is not None:
        return run(hands, seed), ""
    n = how.default_hands
    pooled = run(n, seed)
    done, part = n, 0
    while True:
        widest = max(r.half_width or 0.0 for r in pooled)
        if widest <= TARGET:
            return pooled, (f"Monte Carlo until every 95% interval is within "
                            f"+-{TARGET * 100:.1f} points: {done:,} hands")
        if done >= how.max_hands:
            return pooled, (f"Monte Carlo stopped at {done:,} hands (the cap for {game}) with "
                            f"an interval of +-{widest * 100:.2f} points; --hands N plays N "
                            "hands")
        # the interval narrows as 1/sqrt(hands): size the next run to reach the target
        need = int(done * (widest / TARGET) ** 2 * 1.05) - done
        more = max(min(need, how.max_hands - done), how.default_hands // 4)
        part += 1
        extra = run(more, seed * 1_000_003 + part)
        pooled = [pool(a, b) for a, b in zip(pooled, extra, strict=True)]
        done += more
