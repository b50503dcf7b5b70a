"""``referee analyze``: the return to player and house edge of every bet of a game
(docs/analysis.md). Needs the ``analysis`` extra (numpy, matplotlib, tqdm).

:func:`analyze` runs the right method per bet:

* ``holdem_aa``: ``aa`` exact (:mod:`.holdem`), ``ante`` (ante + call) Monte Carlo with the call
  decision estimated per hand;
* ``seven``: ``main`` Monte Carlo through the engine, NPC strategy (:mod:`.engine_mc`);
  ``always_call`` (only with ``--bet``): the same seats calling every action;
* ``deuces``: ``ante``, ``play``, ``bonus`` and their ``total`` Monte Carlo through the engine,
  the single-deck optimal hold (:mod:`.draw`, :mod:`.engine_mc`); ``video_poker`` (only with
  ``--bet``): the ``player_table`` as single-deck deuces-wild video poker, exact, optimal hold;
* ``omaha``: no bets against the house (rake only): an empty report with a note.

Monte Carlo without ``hands``: runs of independent hands are pooled until every Monte Carlo
bet's 95% interval is at most +-0.5 points (:data:`TARGET`), or :data:`MAX_HANDS` hands have been
played (a note says which); with ``hands``: exactly that many, one run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from referee.analysis.report import BetReport, Report, Row, pool
from referee.definitions import GameDefinition

__all__ = ["BETS", "DEFAULT_HANDS", "MAX_HANDS", "TARGET", "AnalysisError", "BetReport", "Report",
           "Row", "analyze"]

#: the bets of each game, in report order
BETS: dict[str, tuple[str, ...]] = {
    "holdem_aa": ("ante", "aa"),
    "seven": ("main",),
    "deuces": ("ante", "play", "bonus", "total"),
    "omaha": (),
}
#: bets reported only when asked for with --bet (not part of a game's default report)
EXTRA_BETS: dict[str, tuple[str, ...]] = {"deuces": ("video_poker",), "seven": ("always_call",)}
#: the 95% interval's half-width a Monte Carlo run without --hands goes on to (0.5 points)
TARGET = 0.005
#: Monte Carlo hands of the first run without --hands (the later runs are sized from it)
DEFAULT_HANDS: dict[str, int] = {"holdem_aa": 50_000, "seven": 5_000, "deuces": 10_000,
                                 "omaha": 0}
#: where a run without --hands stops even short of TARGET: deuces' jackpot rows narrow its
#: interval so slowly that +-0.5 points would take millions of engine hands (docs/analysis.md)
MAX_HANDS: dict[str, int] = {"holdem_aa": 2_000_000, "seven": 200_000, "deuces": 100_000,
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
    if hands is not None and hands <= 1 and game != "omaha":
        raise AnalysisError("--hands must be at least 2")

    def bar(label: str, total: int) -> Callable[[int], None] | None:
        return progress(label, total) if progress is not None else None

    report = Report(game=game, bets=[])
    mc: MonteCarlo | None = None
    if game == "holdem_aa":
        from referee.analysis.holdem import aa_exact, ante_mc, with_ante_note

        rules = definition.holdem_aa
        assert rules is not None
        if "ante" in wanted:
            def mc(n: int, s: int) -> list[BetReport]:
                return [ante_mc(rules, n, s, progress=bar("ante", n))]
    elif game == "seven":
        from referee.analysis.engine_mc import seven_mc

        def mc(n: int, s: int) -> list[BetReport]:
            return [seven_mc(definition, n, s, bar(b, n), call_all=b == "always_call")
                    for b in wanted]
    elif game == "deuces":
        from referee.analysis.engine_mc import deuces_mc

        if any(b in wanted for b in BETS[game]):
            def mc(n: int, s: int) -> list[BetReport]:
                return [r for r in deuces_mc(definition, n, s, bar("deuces", n))
                        if r.bet in wanted]
    else:
        report.notes.append("omaha has no bets against the house: the house only takes rake "
                            "(2% of pots of 500 or more, at most 500; games/omaha.toml)")
    simulated: list[BetReport] = []
    if mc is not None:
        simulated, note = _monte_carlo(mc, game, hands, seed)
        if note:
            report.notes.append(note)
    for b in wanted:
        if game == "holdem_aa" and b == "aa":
            assert definition.holdem_aa is not None
            report.bets.append(aa_exact(definition.holdem_aa, bar("aa (exact)", 2_598_960)))
        elif game == "deuces" and b == "video_poker":
            report.bets.append(_video_poker(definition, bar("video_poker (exact)", 2_598_960)))
        else:
            rep = next(r for r in simulated if r.bet == b)
            report.bets.append(with_ante_note(rep) if game == "holdem_aa" else rep)
    return report


MonteCarlo = Callable[[int, int], list[BetReport]]


def _monte_carlo(run: MonteCarlo, game: str, hands: int | None, seed: int
                 ) -> tuple[list[BetReport], str]:
    """``run`` once with ``hands``, or (``hands`` None) runs pooled until :data:`TARGET` or
    :data:`MAX_HANDS` (module doc); the later runs' seeds follow from ``seed``."""
    if hands is not None:
        return run(hands, seed), ""
    n = DEFAULT_HANDS[game]
    pooled = run(n, seed)
    done, part = n, 0
    while True:
        widest = max(r.half_width or 0.0 for r in pooled)
        if widest <= TARGET:
            return pooled, (f"Monte Carlo until every 95% interval is within "
                            f"+-{TARGET * 100:.1f} points: {done:,} hands")
        if done >= MAX_HANDS[game]:
            return pooled, (f"Monte Carlo stopped at {done:,} hands (the cap for {game}) with "
                            f"an interval of +-{widest * 100:.2f} points; --hands N plays N "
                            "hands")
        # the interval narrows as 1/sqrt(hands): size the next run to reach the target
        need = int(done * (widest / TARGET) ** 2 * 1.05) - done
        more = max(min(need, MAX_HANDS[game] - done), DEFAULT_HANDS[game] // 4)
        part += 1
        extra = run(more, seed * 1_000_003 + part)
        pooled = [pool(a, b) for a, b in zip(pooled, extra, strict=True)]
        done += more


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
