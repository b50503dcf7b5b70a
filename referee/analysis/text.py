"""The human-readable ``referee analyze`` output: per bet a table of rows, the note on the
method, and the moderators' one-line summary in Japanese
(``referee/lang/messages/analysis.toml``)."""

from __future__ import annotations

from referee.analysis.report import BetReport, Report
from referee.lang.catalog import messages, text


def _pct(x: float) -> str:
    return f"{x * 100:.4f}%"


def _bet(game: str, b: BetReport) -> list[str]:
    how = ("exact" if b.exact else
           f"Monte Carlo, 95% CI {_pct(b.ci95[0])} .. {_pct(b.ci95[1])}" if b.ci95 else
           "Monte Carlo")
    lines = [f"{b.bet}: return {_pct(b.ret)}  house edge {_pct(b.house_edge)}  "
             f"({how}; {b.hands:,} hands)"]
    width = max([len(r.row) for r in b.rows] + [3])
    lines.append(f"  {'row':<{width}}  {'probability':>12}  {'contribution':>12}")
    for r in b.rows:
        lines.append(f"  {r.row:<{width}}  {r.probability:>12.8f}  {r.contribution:>12.8f}")
    if b.note:
        lines.append(f"  ({b.note})")
    if b.exact:
        detail = text("analysis_exact", hands=b.hands)
    else:
        lo, hi = b.ci95 if b.ci95 else (b.ret, b.ret)
        detail = text("analysis_mc", hands=b.hands, lo=_pct(lo), hi=_pct(hi))
    lines.append("  " + text("analysis_bet", game=game, bet=b.bet, ret=_pct(b.ret),
                              edge=_pct(b.house_edge), how=detail))
    return lines


def render(report: Report, seed: int) -> str:
    out = [f"{report.game} (seed {seed})"]
    for b in report.bets:
        out.append("")
        out += _bet(report.game, b)
    for note in report.notes:
        out.append(note)
    if f"analysis_{report.game}" in messages():  # the game's own note for moderators
        out.append(text(f"analysis_{report.game}"))
    return "\n".join(out)
