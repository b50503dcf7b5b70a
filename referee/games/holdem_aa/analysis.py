"""``holdem_aa``: the AA bet exactly, ante + call by Monte Carlo with the call decision estimated.

* **aa** (exact): the AA bet is settled on the player's 2 cards + the 3-card flop, i.e. on a
  uniformly random five-card hand: all 2,598,960 are counted by rank multiset (the suit
  assignments of each, the flushes apart) and each distinct key is paid by the engine's
  :func:`referee.games.holdem_aa.engine.aa_settle`. The figure assumes the
  player calls whenever the AA bet wins (a folded player's AA is lost; every winning AA hand --
  a pair of aces or better -- is a call anyway).
* **ante** (ante + call together, Monte Carlo): each simulated hand deals the player's 2 cards,
  the flop, the dealer's 2 and the turn and river. Folding loses the ante; calling puts in the
  call and is settled by the tables, so the player calls when the expected payout of ante +
  call exceeds the call's size (1 ante here). That expectation is estimated for every hand by
  an inner Monte Carlo over the unseen dealer cards, turn and river (``inner`` samples, and
  ``refine`` more when the estimate is within 3 standard errors of the threshold); the hand is
  then settled on its own, independent cards. The return is therefore unbiased for the strategy
  played, which is the optimal one except on hands the estimate misjudges -- hands within a few
  hundredths of an ante of indifference -- so it understates the optimal return by a little
  (an exact optimal figure would mean enumerating ~10^12 decision outcomes: hours here).
  Payouts come from the engine's own ``showdown_result`` / ``ante_call_settle``.

Stakes are one ante unit (``ante_unit``, 100 chips) so the table's rounding applies as in play.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from referee.analysis.batch import five_card_key_counts, standard_keys
from referee.analysis.hooks import Bar, GameAnalysis, MonteCarlo
from referee.analysis.report import BetReport, Row, Tally
from referee.definitions import GameDefinition
from referee.games.holdem_aa.engine import (
    Result,
    aa_settle,
    ante_call_settle,
    ante_row,
    dealer_qualifies,
    showdown_result,
)
from referee.games.holdem_aa.rules import HoldemAARules
from referee.hands import pair_floor
from referee.hands.names import STANDARD

AA_ORDER = ("royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush", "straight",
            "three_of_a_kind", "two_pair", "pair_of_aces")
RESULTS: tuple[Result, ...] = ("win", "dealer_fold", "push", "lose")
_CATS = STANDARD[::-1]  # category number (key >> 20) -> class id


def aa_exact(rules: HoldemAARules, progress: Callable[[int], None] | None = None) -> BetReport:
    """The AA bet over all 2,598,960 hole + flop hands, counted by rank multiset
    (:func:`referee.analysis.batch.five_card_key_counts`): every distinct key once."""
    uniq, counts = five_card_key_counts()
    n = int(counts.sum())
    if progress is not None:
        progress(n)
    stake = rules.ante_unit
    hits: dict[str, int] = {}
    paid: dict[str, int] = {}
    total = 0
    for key, c in zip(uniq.tolist(), counts.tolist(), strict=True):
        p, row = aa_settle(stake, key, rules)
        name = row or "lose"
        hits[name] = hits.get(name, 0) + c
        paid[name] = paid.get(name, 0) + p * c
        total += p * c
    order = [r for r in (*AA_ORDER, "lose") if r in hits]
    rows = [Row(r, hits[r] / n, paid[r] / (stake * n)) for r in order]
    return BetReport(bet="aa", ret=total / (stake * n), exact=True, hands=n, rows=rows,
                     note="exact over all 2,598,960 hole + flop hands; the player calls "
                     "whenever the AA bet wins")


def aa_mc(rules: HoldemAARules, hands: int, seed: int) -> BetReport:
    """The AA bet by Monte Carlo (random hole + flop hands, the same settlement): a check of the
    Monte Carlo machinery against :func:`aa_exact` (tests/test_analysis.py)."""
    rng = np.random.default_rng(seed)
    cards = _distinct(rng, np.full((hands, 1), -1, dtype=np.int64), 5)
    uniq, inverse = np.unique(standard_keys(cards), return_inverse=True)
    stake = rules.ante_unit
    settled = [aa_settle(stake, int(k), rules) for k in uniq]
    paid = np.array([p for p, _ in settled], dtype=np.float64)[inverse.reshape(-1)]
    tally = Tally()
    tally.add(np.full(hands, float(stake)), paid)
    return tally.report("aa", note="Monte Carlo check of the exact figure")


# --- ante + call ------------------------------------------------------------------------------


def _distinct(rng: np.random.Generator, known: npt.NDArray[np.int64], count: int
              ) -> npt.NDArray[np.int64]:
    """``count`` cards per row, distinct from each other and from the row's ``known`` cards
    (uniform: rejection sampling of whole rows)."""
    m = known.shape[0]
    out = rng.integers(0, 52, size=(m, count))
    todo = np.arange(m)
    while todo.size:
        cand = out[todo]
        bad = (cand[:, :, None] == known[todo][:, None, :]).any(axis=(1, 2))
        for i in range(count):
            for j in range(i + 1, count):
                bad |= cand[:, i] == cand[:, j]
        todo = todo[bad]
        out[todo] = rng.integers(0, 52, size=(todo.size, count))
    return out


class _Pay:
    """The engine's settlement as arrays: payout (ante + call, per ante unit) by result and
    player category, and the ante row's name."""

    def __init__(self, rules: HoldemAARules, call_antes: int = 1) -> None:
        unit = rules.ante_unit
        self.unit = unit
        self.call_antes = call_antes
        self.mult = np.zeros((len(RESULTS), len(_CATS)))
        self.rows: list[list[str]] = []
        for ri, res in enumerate(RESULTS):
            names = []
            for ci, klass in enumerate(_CATS):
                a, c = ante_call_settle(unit, unit * call_antes, res, klass, rules)
                self.mult[ri, ci] = (a + c) / unit
                row = ante_row(klass, res, rules)
                names.append(f"{res} {row}" if res in ("win", "dealer_fold") else row)
            self.rows.append(names)
        # the engine's result for every category pair is decided by keys; vectorised below
        self.floor = pair_floor("holdem_aa", rules.dealer_qualify_pair - 2)
        # sanity: the vectorised qualification is the engine's
        assert dealer_qualifies(self.floor, rules) and not dealer_qualifies(self.floor - 1, rules)
        assert showdown_result(2, 1, True) == "win" and showdown_result(1, 1, True) == "push"

    def result_index(self, pkey: npt.NDArray[np.int64], dkey: npt.NDArray[np.int64]
                     ) -> npt.NDArray[np.int64]:
        """Index into RESULTS, as :func:`showdown_result` decides."""
        qualified = dkey >= self.floor
        return np.where(~qualified, 1, np.where(pkey > dkey, 0, np.where(pkey == dkey, 2, 3)))

    def payout(self, pkey: npt.NDArray[np.int64], dkey: npt.NDArray[np.int64]
               ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        res = self.result_index(pkey, dkey)
        cat = pkey >> 20
        return self.mult[res, cat], res, cat


def _call_value(rng: np.random.Generator, pay: _Pay, known: npt.NDArray[np.int64], k: int
                ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(sum, sum of squares) of ``k`` sampled call payouts (per ante) of each row of ``known``
    (hole 2 + flop 3), a block of rows at a time (at most ~64k sampled deals in memory)."""
    step = max(1, (1 << 16) // k)
    if known.shape[0] > step:
        parts = [_call_value(rng, pay, known[i:i + step], k)
                 for i in range(0, known.shape[0], step)]
        return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]))
    m = known.shape[0]
    rep = np.repeat(known, k, axis=0)
    extra = _distinct(rng, rep, 4)  # dealer 2, turn, river
    board = np.concatenate([rep[:, 2:5], extra[:, 2:4]], axis=1)
    pkey = standard_keys(np.concatenate([rep[:, :2], board], axis=1))
    dkey = standard_keys(np.concatenate([extra[:, :2], board], axis=1))
    v, _, _ = pay.payout(pkey, dkey)
    v = v.reshape(m, k)
    return v.sum(axis=1), (v * v).sum(axis=1)


def ante_mc(
    rules: HoldemAARules, hands: int, seed: int, *, inner: int = 48, refine: int = 480,
    chunk: int = 2000, progress: Callable[[int], None] | None = None, call_antes: int = 1,
) -> BetReport:
    """Ante + call under the estimated optimal call/fold decision (module doc). ``call_antes``
    is the call's size in antes: 1 in this house game; 2 in the casino game (a check against
    Wizard of Odds' 2.16% house edge per ante, tests/test_analysis.py)."""
    rng = np.random.default_rng(seed)
    pay = _Pay(rules, call_antes)
    threshold = float(call_antes)
    tally = Tally()
    nres, ncat = len(RESULTS), len(_CATS)
    hit_counts = np.zeros((nres, ncat), dtype=np.int64)
    paid_sums = np.zeros((nres, ncat))
    folds = 0
    done = 0
    while done < hands:
        m = min(chunk, hands - done)
        cards = _distinct(rng, np.full((m, 1), -1, dtype=np.int64), 9)
        known = cards[:, :5]
        s, ss = _call_value(rng, pay, known, inner)
        mean = s / inner
        se = np.sqrt(np.maximum(ss / inner - mean**2, 0.0) / inner)
        close = np.abs(mean - threshold) < 3 * se + 1e-9
        if close.any():
            s2, _ = _call_value(rng, pay, known[close], refine)
            mean[close] = (s[close] + s2) / (inner + refine)
        call = mean > threshold
        board = np.concatenate([cards[:, 2:5], cards[:, 7:9]], axis=1)
        pkey = standard_keys(np.concatenate([cards[:, :2], board], axis=1))
        dkey = standard_keys(np.concatenate([cards[:, 5:7], board], axis=1))
        value, res, cat = pay.payout(pkey, dkey)
        paid = np.where(call, value, 0.0)
        staked = np.where(call, 1.0 + call_antes, 1.0)
        tally.add(staked, paid)
        np.add.at(hit_counts, (res[call], cat[call]), 1)
        np.add.at(paid_sums, (res[call], cat[call]), value[call])
        folds += int((~call).sum())
        done += m
        if progress is not None:
            progress(m)
    merged: dict[str, tuple[int, float]] = {}
    for ri in range(nres):
        for ci in range(ncat):
            if hit_counts[ri, ci]:
                name = pay.rows[ri][ci]
                h, p = merged.get(name, (0, 0.0))
                merged[name] = (h + int(hit_counts[ri, ci]), p + float(paid_sums[ri, ci]))
    for name, (h, p) in merged.items():
        tally.row(name, h, p)
    tally.row("fold", folds, 0.0)
    ante_rows = [r for r in STANDARD if r in rules.ante_table] + ["other"]
    order = [f"{res} {r}" for res in ("win", "dealer_fold") for r in ante_rows]
    order += ["push", "lose", "fold"]
    rep = tally.report("ante", order=order)
    return with_ante_note(rep, inner, refine)


def with_ante_note(rep: BetReport, inner: int = 48, refine: int = 480) -> BetReport:
    """``rep`` with the note on its method, house edge per initial ante and fold rate, read
    from its books (so that pooled runs get theirs right)."""
    assert rep.tally is not None
    staked = np.concatenate(rep.tally.staked)
    loss_per_ante = float(np.mean(staked)) * rep.house_edge if staked.size else 0.0
    fold = next((r.probability for r in rep.rows if r.row == "fold"), 0.0)
    rep.note = (f"Monte Carlo; the call decision estimated per hand by {inner} (+{refine} near "
                "indifference) inner samples of the unseen cards: slightly below the optimal "
                f"return; house edge per initial ante {loss_per_ante:.4%}; fold rate {fold:.2%}")
    return rep


def analysis() -> GameAnalysis:
    """``referee analyze holdem_aa``: ``aa`` exact, ``ante`` (ante + call) Monte Carlo with the
    call decision estimated per hand."""

    def monte_carlo(definition: GameDefinition, wanted: Sequence[str], bar: Bar
                    ) -> MonteCarlo | None:
        rules = definition.section(HoldemAARules)
        if "ante" not in wanted:
            return None

        def run(n: int, s: int) -> list[BetReport]:
            return [ante_mc(rules, n, s, progress=bar("ante", n))]
        return run

    def aa(definition: GameDefinition, bar: Bar) -> BetReport:
        return aa_exact(definition.section(HoldemAARules), bar("aa (exact)", 2_598_960))

    return GameAnalysis(bets=("ante", "aa"), default_hands=50_000, max_hands=2_000_000,
                        monte_carlo=monte_carlo, exact={"aa": aa}, finish=with_ante_note)
