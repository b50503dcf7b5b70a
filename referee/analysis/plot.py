"""``--plot FILE.png``: one panel per bet -- a Monte Carlo bet's running return with its final
95% interval (convergence), an exact bet's row contributions (where the return comes from)."""

from __future__ import annotations

from pathlib import Path

from referee.analysis.report import Report


def plot(report: Report, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    bets = report.bets or []
    fig, axes = plt.subplots(max(len(bets), 1), 1, figsize=(8, 3.2 * max(len(bets), 1)),
                             squeeze=False)
    for ax, b in zip(axes[:, 0], bets, strict=False):
        if b.exact or b.trace is None:
            names = [r.row for r in b.rows]
            ax.barh(names, [r.contribution for r in b.rows])
            ax.invert_yaxis()
            ax.set_xlabel("contribution to the return (fraction of the stake)")
            ax.set_title(f"{report.game} {b.bet}: return {b.ret:.4%} (exact)")
        else:
            y = b.trace
            x = np.arange(1, y.size + 1)
            ax.plot(x, y, lw=0.8)
            ax.axhline(b.ret, color="k", lw=0.6)
            if b.ci95 is not None:
                ax.axhspan(b.ci95[0], b.ci95[1], alpha=0.2, color="tab:orange",
                           label="final 95% CI")
                ax.legend(loc="upper right")
            ax.set_xscale("log")
            ax.set_xlabel("hands")
            ax.set_ylabel("running return")
            ax.set_title(f"{report.game} {b.bet}: return {b.ret:.4%} (Monte Carlo)")
    if not bets:
        axes[0, 0].text(0.5, 0.5, "no bets against the house", ha="center")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
