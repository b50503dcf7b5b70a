"""Monte Carlo of ``seven`` by running the engine itself (:func:`seven_mc`): every simulated
hand is a real hand of :class:`~referee.games.seven.engine.SevenEngine`, dealt by its own
``draw_deal``, played by the NPC rule of the seed (call the first action with a card of rank 7
or higher, the second with ace-high or better, never raise, declare the best hand), settled by
the engine; the figures are read from the events it emits (docs/analysis.md).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from referee.actions import action
from referee.analysis.hooks import Bar, GameAnalysis, MonteCarlo
from referee.analysis.report import BetReport, Tally
from referee.cards import Shoe, card_str
from referee.definitions import GameDefinition
from referee.events import Event, Settle
from referee.games.seven.hands import SEVEN as SEVEN_CLASSES
from referee.games.seven.rules import SevenRules
from referee.rules.house import HouseResult, JokerEvent

if TYPE_CHECKING:
    from referee.games.seven.engine import SevenEngine

Progress = Callable[[int], None] | None
BIG = 10**12  # chips per seat: nobody goes all-in or bankrupt


def _extra(e: Event, name: str) -> object:
    """A field a game adds to a shared kind (a settle's ``ante``…), None when absent."""
    return getattr(e, name, None)


def _seven_call_all(engine: SevenEngine, ante: int) -> list[Event]:
    """Play every waiting seat of a ``seven`` hand as "call every hand": ante ``ante``, call
    both actions (never raise, never fold), declare the best hand."""
    from referee.games.seven.hands import SEVEN_CARD_CLASSES, seven_eval

    out: list[Event] = []
    while engine.pending():
        player = engine.pending()[0]
        step = engine.decision(player)
        if step == "stake":
            out += engine.act(player, action("ante", amount=ante))
        elif step == "declare":
            cards = engine.holdings(player)
            best = seven_eval(cards)
            if best.klass in SEVEN_CARD_CLASSES:
                out += engine.act(player, action("discard", hand=best.klass))
            else:
                rest = list(cards)
                for c in best.cards:
                    rest.remove(c)
                out += engine.act(player, action("discard", cards=[card_str(c) for c in rest]))
        else:
            out += engine.act(player, action("call"))
    return out


def seven_mc(definition: GameDefinition, hands: int, seed: int,
             progress: Progress = None, call_all: bool = False) -> BetReport:
    """``main`` (every seat by the NPC rule), or with ``call_all`` ``always_call``: the same
    five seats, each calling every action (never folding), the dealer seat as before."""
    from referee.games.seven.engine import SevenEngine

    rules = definition.section(SevenRules)
    rng = random.Random(seed)
    engine = SevenEngine(definition, {})
    seats = [s for s in range(1, definition.seats.max + 1) if s != rules.dealer_seat][:5]
    for seat in seats:
        engine.sit(seat, f"npc{seat}", BIG, npc=not call_all)
    ante = engine.ante_unit * rules.npc_ante_units
    tally = Tally()
    staked_all: list[float] = []
    paid_all: list[float] = []
    for i in range(hands):
        shoe = Shoe(decks=definition.decks, jokers=definition.jokers, rng=rng)
        events = engine.start_hand(engine.draw_deal(shoe, rng))
        if call_all:
            events += _seven_call_all(engine, ante)
        for e in events:
            if isinstance(e, HouseResult):
                staked_all.append(e.staked)
                paid_all.append(e.paid)
            elif isinstance(e, JokerEvent):
                tally.row("joker", 0, e.payout)
            elif isinstance(e, Settle):
                payout = e.payout
                if _extra(e, "dealer_hand"):
                    klass = str(_extra(e, "hand"))
                    wins = int(str(_extra(e, "wins")))
                    short = rules.owner_short_table_applies and klass in rules.owner_short_table
                    name = f"owner {klass} (short table)" if short else f"owner {wins} wins"
                elif e.result == "win":
                    klass = str(_extra(e, "hand"))
                    row = klass if klass in rules.hand_table else "other"
                    name = f"win {row}" + (" (dealer folded)" if _extra(e, "dealer_fold") else "")
                else:
                    name = e.result
                tally.row(name, 1, payout)
        if progress is not None and (i + 1) % 100 == 0:
            progress(100)
    if progress is not None:
        progress(hands % 100)
    tally.add(staked_all, paid_all)
    # joker rows count no hands (they pay on top of the hand's own result)
    rows_order = [f"win {c}" for c in (*SEVEN_CLASSES, "other")]
    way = "every seat calls every action" if call_all else "NPC rule for every seat"
    rep = tally.report("always_call" if call_all else "main", order=rows_order,
                       note=f"Monte Carlo through the engine; {len(seats)} seats and the "
                       f"dealer seat, {way}; per hand: the players' stakes pooled")
    rep.hands = hands
    return rep


# --- deuces ------------------------------------------------------------------------------


def analysis() -> GameAnalysis:
    """``referee analyze seven``: ``main`` Monte Carlo through the engine, NPC strategy;
    ``always_call`` (only with ``--bet``): the same seats calling every action."""

    def monte_carlo(definition: GameDefinition, wanted: Sequence[str], bar: Bar) -> MonteCarlo:
        def run(n: int, s: int) -> list[BetReport]:
            return [seven_mc(definition, n, s, bar(b, n), call_all=b == "always_call")
                    for b in wanted]
        return run

    return GameAnalysis(bets=("main",), extra_bets=("always_call",), default_hands=5_000,
                        max_hands=200_000, monte_carlo=monte_carlo)
