"""``referee analyze``: the return to player and house edge of every bet of a game
(docs/analysis.md). Needs the ``analysis`` extra (numpy, matplotlib, tqdm).

:func:`analyze` runs the right method per bet:

* ``holdem_aa``: ``aa`` exact (:mod:`.holdem`), ``ante`` (ante + call) Monte Carlo with the call
  decision estimated per hand;
* ``seven``: ``main`` Monte Carlo through the engine, NPC strategy (:mod:`.engine_mc`);
* ``deuces``: ``ante``, ``play``, ``bonus`` Monte Carlo through the engine, the single-deck
  optimal hold (:mod:`.draw`, :mod:`.engine_mc`); ``video_poker`` (only with ``--bet``): the
  ``player_table`` as single-deck deuces-wild video poker, exact, optimal hold;
* ``omaha``: no bets against the house (rake only): an empty report with a note.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from referee.analysis.report import BetReport, Report, Row
from referee.definitions import GameDefinition

__all__ = ["BETS", "DEFAULT_HANDS", "AnalysisError", "BetReport", "Report", "Row", "analyze"]

#: the bets of each game, in report order
BETS: dict[str, tuple[str, ...]] = {
    "holdem_aa": ("ante", "aa"),
    "seven": ("main",),
    "deuces": ("ante", "play", "bonus"),
    "omaha": (),
}
#: bets reported only when asked for with --bet (not part of a game's default report)
EXTRA_BETS: dict[str, tuple[str, ...]] = {"deuces": ("video_poker",)}
#: Monte Carlo hands when --hands is not given (a run of well under a minute or two here)
DEFAULT_HANDS: dict[str, int] = {"holdem_aa": 100_000, "seven": 10_000, "deuces": 20_000,
                                 "omaha": 0}

ProgressFactory = Callable[[str, int], Callable[[int], None]]


class AnalysisError(ValueError):
    """A request that cannot be analysed (unknown bet, bad hand count); one line."""


def analyze(
    definition: GameDefinition,
    bets: Sequence[str] = (),
    hands: int | None = None,
    seed: int = 1,
    progress: ProgressFactory | None = None,
) -> Report:
    """Analyse ``bets`` (all of the game's when empty) of ``definition``."""
    game = definition.id
    known = BETS[game] + EXTRA_BETS.get(game, ())
    for b in bets:
        if b not in known:
            raise AnalysisError(
                f"{game} has no bet '{b}'" + (f" (bets: {', '.join(known)})" if known else
                                             " (omaha has no bets against the house)"))
    wanted = [b for b in known if b in bets] if bets else list(BETS[game])
    n = DEFAULT_HANDS[game] if hands is None else hands
    if n <= 1 and game != "omaha":
        raise AnalysisError("--hands must be at least 2")

    def bar(label: str, total: int) -> Callable[[int], None] | None:
        return progress(label, total) if progress is not None else None

    report = Report(game=game, bets=[])
    if game == "holdem_aa":
        from referee.analysis.holdem import aa_exact, ante_mc

        rules = definition.holdem_aa
        assert rules is not None
        for b in wanted:
            if b == "aa":
                report.bets.append(aa_exact(rules, bar("aa (exact)", 2_598_960)))
            else:
                report.bets.append(ante_mc(rules, n, seed, progress=bar("ante", n)))
    elif game == "seven":
        from referee.analysis.engine_mc import seven_mc

        report.bets.append(seven_mc(definition, n, seed, bar("main", n)))
    elif game == "deuces":
        from referee.analysis.engine_mc import deuces_mc

        if any(b in wanted for b in BETS[game]):
            all_bets = deuces_mc(definition, n, seed, bar("deuces", n))
            report.bets = [r for r in all_bets if r.bet in wanted]
        if "video_poker" in wanted:
            report.bets.append(_video_poker(definition, bar("video_poker (exact)", 2_598_960)))
    else:
        report.notes.append("omaha has no bets against the house: the house only takes rake "
                            "(2% of pots of 500 or more, at most 500; games/omaha.toml)")
    return report


def _video_poker(definition: GameDefinition, progress: Callable[[int], None] | None
                 ) -> BetReport:
    from referee.analysis.draw import exact_result, table_key

    rules = definition.deuces
    assert rules is not None
    table = {k: float(v) for k, v in rules.player_table.items() if k != "other"}
    res = exact_result(table_key(table))
    if progress is not None:
        progress(res.hands)
    rows = [Row(k, res.rows[k], res.rows[k] * table[k]) for k in rules.player_table
            if k in res.rows]
    return BetReport(bet="video_poker", ret=res.ret, exact=True, hands=res.hands, rows=rows,
                     note="player_table as single-deck deuces-wild video poker (no dealer, "
                     "no bonus, no joker), optimal hold: full pay gives 100.7620%")
