"""``referee analyze highcard``: the ante's return, exact (every pair of one-deck cards)."""

from __future__ import annotations

from itertools import permutations

from games.highcard.rules import HighcardRules
from referee.analysis.hooks import Bar, GameAnalysis
from referee.analysis.report import BetReport, Row
from referee.cards import rank_of
from referee.definitions import GameDefinition


def _ante(definition: GameDefinition, bar: Bar) -> BetReport:
    table = definition.section(HighcardRules).result_table
    counts = {"win": 0, "push": 0, "lose": 0}
    pairs = list(permutations(range(52), 2))
    for player, dealer in pairs:
        p, d = rank_of(player), rank_of(dealer)
        counts["win" if p > d else "push" if p == d else "lose"] += 1
    rows = [Row(r, counts[r] / len(pairs), counts[r] / len(pairs) * float(table[r]))
            for r in ("win", "push", "lose")]
    progress = bar("ante (exact)", len(pairs))
    if progress is not None:
        progress(len(pairs))
    return BetReport(bet="ante", ret=sum(r.contribution for r in rows), exact=True,
                     hands=len(pairs), rows=rows)


def analysis() -> GameAnalysis:
    return GameAnalysis(bets=("ante",), exact={"ante": _ante})
