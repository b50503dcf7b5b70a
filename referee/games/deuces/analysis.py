"""Monte Carlo of ``deuces`` by running the engine itself.

Every simulated hand is a real hand of :class:`~referee.games.seven.engine.SevenEngine` /
:class:`~referee.games.deuces.engine.DeucesEngine`, dealt by the engine's own ``draw_deal`` from a
freshly shuffled shoe of the game's decks and jokers (``random.Random(seed)``, so ``--seed``
reproduces a run), played by the strategy below, settled by the engine. The figures are read
from the events the engine emits: ``house`` (chips staked and paid back, the house's books),
``settle``, ``joker`` and ``bonus_payout``. Nothing of the settlement is re-implemented.

* **seven, bet ``main``** (everything a player stakes: ante and action bets): five NPC seats
  (seats 1-5) and the dealer seat, every seat playing the NPC rule of the seed (call the first
  action with a card of rank 7 or higher, the second with ace-high or better, never raise,
  declare the best hand); the die picks the dealer hand among the six. Return = chips paid back
  to the five players / chips they staked, joker bonuses included (a row of their own).
* **deuces, bets ``ante``, ``play``, ``bonus``**: one player against the dealer (house way),
  the bonus area carried from hand to hand as at a real table (starting from four random cards).
  The player always plays and holds what maximises the expected ante pay (``player_table``) as
  in single-deck video poker with the same table (the exact optimal-hold table of
  :mod:`referee.games.deuces.draw`; a joker is looked up as a deuce not in the hand). ``ante``: the
  ante's settlement (the player's hand by ``player_table``, push 1x) plus the joker bonus on the
  ante, per ante staked; ``play``: the added bet's settlement (by the dealer's hand) plus the
  joker bonus on it, per added bet staked; ``bonus``: bonus-area payouts per ante staked -- the
  bonus takes no stake of its own, so its "house edge" is minus what it gives away; ``total``:
  everything paid back (the three above) per chip staked on the ante and the added bet.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from referee.actions import action
from referee.analysis.hooks import Bar, GameAnalysis, MonteCarlo
from referee.analysis.report import BetReport, Row, Tally
from referee.cards import Card, Shoe, card_str
from referee.definitions import GameDefinition
from referee.events import Settle
from referee.games.deuces.rules import DeucesRules
from referee.rules.house import JokerEvent, pay

if TYPE_CHECKING:
    pass

Progress = Callable[[int], None] | None
BIG = 10**12  # chips per seat: nobody goes all-in or bankrupt


def deuces_mc(definition: GameDefinition, hands: int, seed: int, progress: Progress = None,
              hold: Callable[[list[Card]], list[Card]] | None = None) -> list[BetReport]:
    from referee.games.deuces.draw import optimal_hold
    from referee.games.deuces.engine import BonusPayout, DeucesEngine, Showdown

    rules = definition.section(DeucesRules)
    chooser = hold or optimal_hold({k: float(v) for k, v in rules.player_table.items()
                                    if k != "other"})
    rng = random.Random(seed)
    # the default duplicate order (the player's choice of order changes no payout's odds)
    definition = definition.model_copy(
        update={"deuces": rules.model_copy(update={"duplicate_choice": False})})
    engine = DeucesEngine(definition, {})
    engine.sit(1, "p", BIG)
    unit = rules.ante_unit
    rnd = rules.payout_rounding
    ante_t, play_t, bonus_t = Tally(), Tally(), Tally()
    ante_staked: list[float] = []
    ante_paid: list[float] = []
    play_staked: list[float] = []
    play_paid: list[float] = []
    bonus_paid: list[float] = []
    for i in range(hands):
        shoe = Shoe(decks=definition.decks, jokers=definition.jokers, rng=rng)
        deal = engine.draw_deal(shoe, rng)
        events = engine.start_hand(deal)
        events += engine.act("p", action("ante", amount=unit))
        a_paid = p_paid = b_paid = 0.0
        bet = 0
        if engine.decision("p") == "play":
            keep = chooser(engine.holdings("p"))
            events += engine.act("p", action("play", keep=[card_str(c) for c in keep]))
            bet = unit
        if engine.in_hand:  # pragma: no cover - one player who has played: the hand is over
            raise RuntimeError(f"the deuces hand waits for {engine.decision('p')}")
        pclass = dclass = ""
        for e in events:
            if isinstance(e, Showdown):
                if e.player == "p":
                    pclass = e.klass
                else:
                    dclass = e.klass
            elif isinstance(e, JokerEvent):
                # the joker pays on the ante and on the added bet (if made when drawn)
                a_part = pay(e.ante, rules.joker["ante"], rnd)
                a_paid += a_part
                p_paid += e.payout - a_part
                ante_t.row("joker", 0, a_part)
                if e.payout - a_part:
                    play_t.row("joker", 0, e.payout - a_part)
            elif isinstance(e, BonusPayout):
                b_paid += e.amount
                bonus_t.row(e.klass, 1, e.amount)
            elif isinstance(e, Settle) and e.player == "p":
                if e.result in ("win", "dealer_fold"):
                    mult = rules.player_table.get(pclass, rules.player_table["other"])
                    ante_p = pay(unit, mult, rnd)
                elif e.result == "push":
                    ante_p = unit
                else:
                    ante_p = 0
                play_p = e.payout - ante_p
                a_paid += ante_p
                p_paid += play_p
                arow = (pclass if pclass in rules.player_table else "other") \
                    if e.result in ("win", "dealer_fold") else e.result
                ante_t.row(arow if e.result != "dealer_fold" else f"{arow} (dealer folded)", 1,
                           ante_p)
                play_t.row(f"win, dealer {dclass}" if e.result == "win" else e.result, 1, play_p)
        ante_staked.append(unit)
        ante_paid.append(a_paid)
        play_staked.append(bet)
        play_paid.append(p_paid)
        bonus_paid.append(b_paid)
        if progress is not None and (i + 1) % 100 == 0:
            progress(100)
    if progress is not None:
        progress(hands % 100)
    ante_t.add(ante_staked, ante_paid)
    play_t.add(play_staked, play_paid)
    bonus_t.add(ante_staked, bonus_paid)
    bonus_t.settled = hands
    total_t = Tally()
    total_t.add(np.add(ante_staked, play_staked), np.add(np.add(ante_paid, play_paid),
                                                         bonus_paid))
    for name, part in (("ante", ante_paid), ("play", play_paid), ("bonus", bonus_paid)):
        total_t.row(name, 0, float(np.sum(part)))
    total_t.settled = hands
    note = ("Monte Carlo through the engine; one player, always plays, holds for the best "
            "expected ante pay (single-deck optimal hold); the bonus area carried over")
    order = [c for c in rules.player_table]
    reports = [ante_t.report("ante", note=note, order=order),
               play_t.report("play", note=note),
               bonus_t.report("bonus", note=note + "; per ante staked (no stake of its own)"),
               total_t.report("total", note=note + "; everything paid back (ante, added bet, "
                              "bonus area) per chip staked on the ante and the added bet",
                              order=("ante", "play", "bonus"))]
    for r in reports:
        r.hands = hands
    reports[2].unstaked = True
    return reports


__all__ = ["analysis", "deuces_mc"]


def _video_poker(definition: GameDefinition, progress: Callable[[int], None] | None
                 ) -> BetReport:
    from referee.games.deuces.draw import exact_result, table_key

    rules = definition.section(DeucesRules)
    table = {k: float(v) for k, v in rules.player_table.items() if k != "other"}
    res = exact_result(table_key(table))
    if progress is not None:
        progress(res.hands)
    rows = [Row(k, res.rows[k], res.rows[k] * table[k]) for k in rules.player_table
            if k in res.rows]
    return BetReport(bet="video_poker", ret=res.ret, exact=True, hands=res.hands, rows=rows,
                     note="player_table as single-deck deuces-wild video poker (no dealer, "
                     "no bonus, no joker), optimal hold: full pay gives 100.7620%")


def analysis() -> GameAnalysis:
    """``referee analyze deuces``: ``ante``, ``play``, ``bonus`` and their ``total`` Monte Carlo
    through the engine, the single-deck optimal hold; ``video_poker`` (only with ``--bet``):
    the ``player_table`` as single-deck deuces-wild video poker, exact, optimal hold."""
    bets = ("ante", "play", "bonus", "total")

    def monte_carlo(definition: GameDefinition, wanted: Sequence[str], bar: Bar
                    ) -> MonteCarlo | None:
        if not any(b in wanted for b in bets):
            return None

        def run(n: int, s: int) -> list[BetReport]:
            return [r for r in deuces_mc(definition, n, s, bar("deuces", n)) if r.bet in wanted]
        return run

    def video_poker(definition: GameDefinition, bar: Bar) -> BetReport:
        return _video_poker(definition, bar("video_poker (exact)", 2_598_960))

    # deuces' jackpot rows narrow the interval so slowly that +-0.5 points would take millions
    # of engine hands (docs/analysis.md): a run without --hands stops at 100,000
    return GameAnalysis(bets=bets, extra_bets=("video_poker",), default_hands=10_000,
                        max_hands=100_000, monte_carlo=monte_carlo,
                        exact={"video_poker": video_poker})
