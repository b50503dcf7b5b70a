"""What ``referee analyze`` reports, and the Monte Carlo estimator behind its intervals.

A bet's **return** is what the bet pays back (stake included) divided by what was staked on it,
as a fraction (0.9376, not 93.76); the **house edge** is ``1 - return`` (for a payout
that takes no stake of its own, ``-return``). A row's
**probability** is how often that row settled the bet; its **contribution** is the part of the
return it pays (the rows' contributions add up to the return).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Row:
    row: str
    probability: float
    contribution: float


@dataclass
class BetReport:
    bet: str
    ret: float
    exact: bool
    hands: int
    rows: list[Row]
    ci95: tuple[float, float] | None = None
    note: str = ""
    # a payout with no stake of its own (deuces' bonus area, returned per ante): what it gives
    # away is all the house's cost, so its house edge is ``-return``
    unstaked: bool = False
    # the running return after each hand (Monte Carlo) or the per-hand return distribution,
    # for --plot; not part of the JSON
    trace: npt.NDArray[np.float64] | None = field(default=None, repr=False)
    # the Monte Carlo books behind the figures, so that runs can be pooled (:func:`pool`)
    tally: Tally | None = field(default=None, repr=False)

    @property
    def half_width(self) -> float | None:
        """Half the width of the 95% interval (None when exact)."""
        return None if self.ci95 is None else (self.ci95[1] - self.ci95[0]) / 2

    @property
    def house_edge(self) -> float:
        return -self.ret if self.unstaked else 1.0 - self.ret

    def to_json(self) -> dict[str, Any]:
        return {
            "bet": self.bet,
            "return": self.ret,
            "house_edge": self.house_edge,
            "exact": self.exact,
            "ci95": list(self.ci95) if self.ci95 is not None else None,
            "hands": self.hands,
            "rows": [
                {"row": r.row, "probability": r.probability, "contribution": r.contribution}
                for r in self.rows
            ],
        }


@dataclass
class Report:
    game: str
    bets: list[BetReport]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "bets": [b.to_json() for b in self.bets]}


class Tally:
    """Monte Carlo books of one bet: per hand the chips staked and paid back, and per row how
    often it settled the bet and what it paid. The return is the ratio estimator
    ``sum(paid) / sum(staked)``; its 95% interval comes from the delta method
    (``var(paid - R * staked) / (n * mean(staked)**2)``)."""

    def __init__(self) -> None:
        self.staked: list[npt.NDArray[np.float64]] = []
        self.paid: list[npt.NDArray[np.float64]] = []
        self.row_hits: dict[str, int] = {}
        self.row_paid: dict[str, float] = {}
        self.settled = 0  # hands on which the bet was settled (the rows' denominator)

    def add(self, staked: Sequence[float] | npt.NDArray[np.float64],
            paid: Sequence[float] | npt.NDArray[np.float64]) -> None:
        self.staked.append(np.asarray(staked, dtype=np.float64))
        self.paid.append(np.asarray(paid, dtype=np.float64))

    def row(self, name: str, hits: int, paid: float) -> None:
        self.row_hits[name] = self.row_hits.get(name, 0) + hits
        self.row_paid[name] = self.row_paid.get(name, 0.0) + paid
        self.settled += hits

    def merge(self, other: Tally) -> Tally:
        """The books of both runs together (independent hands: the estimator pools them)."""
        out = Tally()
        out.staked = self.staked + other.staked
        out.paid = self.paid + other.paid
        for t in (self, other):
            for name, hits in t.row_hits.items():
                out.row(name, hits, t.row_paid[name])
        out.order = self.order
        return out

    order: Sequence[str] = ()

    def report(self, bet: str, note: str = "", order: Sequence[str] = ()) -> BetReport:
        self.order = order
        s = np.concatenate(self.staked) if self.staked else np.zeros(0)
        p = np.concatenate(self.paid) if self.paid else np.zeros(0)
        n = s.size
        total_s = float(s.sum())
        ret = float(p.sum()) / total_s if total_s else 0.0
        ci: tuple[float, float] | None = None
        if n > 1 and total_s:
            resid = p - ret * s
            se = float(np.sqrt(resid.var(ddof=1) / n)) / (total_s / n)
            ci = (ret - Z95 * se, ret + Z95 * se)
        names = [r for r in order if r in self.row_hits] + sorted(
            r for r in self.row_hits if r not in order)
        rows = [
            Row(r, self.row_hits[r] / self.settled if self.settled else 0.0,
                self.row_paid[r] / total_s if total_s else 0.0)
            for r in names
        ]
        with np.errstate(invalid="ignore", divide="ignore"):
            trace = np.cumsum(p) / np.cumsum(s) if n else None
        return BetReport(bet=bet, ret=ret, exact=False, hands=n, rows=rows, ci95=ci, note=note,
                         trace=trace, tally=self)


def pool(a: BetReport, b: BetReport) -> BetReport:
    """Two Monte Carlo reports of one bet from independent runs, as one report (the figures
    recomputed from the pooled books; note and flags of ``a``)."""
    if a.tally is None or b.tally is None:
        raise ValueError("only Monte Carlo reports can be pooled")
    merged = a.tally.merge(b.tally)
    if a.tally.settled == a.hands and b.tally.settled == b.hands:
        merged.settled = a.hands + b.hands  # rows counted per hand (the bonus area)
    out = merged.report(a.bet, note=a.note, order=a.tally.order)
    out.unstaked = a.unstaked
    out.hands = a.hands + b.hands
    return out
