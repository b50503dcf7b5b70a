"""Lock-step check of the omaha engine against pokerkit (pot-limit Omaha, rake off; a shorter
no-limit run too, with pokerkit's parts composed into no-limit Omaha).

Random hands (2-8 players, random stacks, antes on or off, many all-ins) are played on both at
once: for every decision the engines must agree on whose turn it is, the call amount, whether a
raise is possible and its legal range; at the end the stacks must be identical. World rules give
odd chips to the first winner clockwise from the button, which is pokerkit's rule too (the lowest
player index), so split pots are compared exactly, none skipped.
"""

from __future__ import annotations

import random
import time
from decimal import Decimal

import pytest
from examples import QUICK
from pokerkit import Automation, OmahaHoldemHand, PotLimitOmahaHoldem
from pokerkit.games import NoLimitPokerMixin, OmahaHoldemMixin, UnfixedLimitHoldem

from referee.actions import action
from referee.cards import Card, card_str
from referee.definitions import load
from referee.games.omaha.engine import OmahaEngine
from referee.rules.base import Deal

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


class NoLimitOmaha(NoLimitPokerMixin, OmahaHoldemMixin, UnfixedLimitHoldem):
    """pokerkit has no ready-made no-limit Omaha; its parts compose into one."""

    hand_types = (OmahaHoldemHand,)


def _definition():  # type: ignore[no-untyped-def]
    d = load("omaha")
    assert d.omaha is not None
    return d.model_copy(update={"omaha": d.omaha.model_copy(update={"rake_percent": Decimal(0)})})


def _cs(cards: list[Card]) -> str:
    return "".join(card_str(c) for c in cards)


def play_one(rng: random.Random, definition: object, limit: str = "pot") -> dict[str, int]:
    """Play one random hand on both engines; assert agreement; return counters."""
    n = rng.randint(2, 8)
    level = rng.randint(1, 7)
    ante_on = rng.random() < 0.4
    eng = OmahaEngine(definition, {  # type: ignore[arg-type]
        "rules": "world", "level": str(level), "ante": "on" if ante_on else "off",
        "limit": limit})
    sb, bb, ante = eng.settings.sb, eng.settings.bb, eng.settings.ante
    stacks = []
    for _ in range(n):
        r = rng.random()
        if r < 0.35:
            stacks.append(rng.randint(ante + bb + 1, ante + 6 * bb))
        elif r < 0.7:
            stacks.append(rng.randint(ante + bb + 1, 40 * bb))
        else:
            stacks.append(rng.randint(ante + bb + 1, 300 * bb))
    names = [f"p{i}" for i in range(n)]
    # seat k+1 holds names[k]; button on the last seat so names[0] is left of the button
    for k, nm in enumerate(names):
        eng.sit(k + 1, nm, stacks[k])
    eng.set_button(n)
    # pokerkit index order = clockwise from the button's left (heads-up: BB first, button second)
    deck = [Card(c) for c in range(52)]
    rng.shuffle(deck)
    holes = [deck[4 * i : 4 * i + 4] for i in range(n)]
    board = deck[4 * n : 4 * n + 5]
    events = eng.start_hand(Deal(hands=dict(zip(names, holes, strict=True)), board=board))

    if limit == "pot":
        st = PotLimitOmahaHoldem.create_state(
            AUTOMATIONS, True, ante, (sb, bb), bb, tuple(stacks), n
        )
    else:
        st = NoLimitOmaha(AUTOMATIONS, True, ante, (sb, bb), bb)(tuple(stacks), n)
    for i in range(n):
        st.deal_hole(_cs(holes[i]))
    dealt = 0
    decisions = 0
    while st.status:
        if st.can_deal_board():
            k = 3 if dealt == 0 else 1
            st.deal_board(_cs(board[dealt : dealt + k]))
            dealt += k
            continue
        actor = st.actor_index
        if actor is None:
            raise AssertionError("pokerkit stuck without an actor")
        who = eng.to_act()
        assert who == names[actor], (who, names[actor])
        o = eng.options_for(who)
        call = st.checking_or_calling_amount
        assert o.call == call, (o, call)
        pk_raise = st.can_complete_bet_or_raise_to()
        assert o.can_raise == pk_raise, (o, pk_raise)
        if pk_raise:
            lo = st.min_completion_betting_or_raising_to_amount
            hi = st.max_completion_betting_or_raising_to_amount
            assert (o.min_to, o.max_to) == (lo, hi), (o, lo, hi)
        decisions += 1
        r = rng.random()
        if call and r < 0.2:
            st.fold()
            events += eng.act(who, action("fold"))
        elif pk_raise and r < 0.55:
            r2 = rng.random()
            if r2 < 0.3:
                to = o.max_to
                events += eng.act(who, action("raise", pot=True))
            elif r2 < 0.45:
                to = o.min_to
                events += eng.act(who, action("raise", to=to))
            elif r2 < 0.6 and o.max_to == st.stacks[actor] + st.bets[actor]:
                to = o.max_to
                events += eng.act(who, action("allin"))
            else:
                to = rng.randint(o.min_to, o.max_to)
                events += eng.act(who, action("raise", to=to))
            st.complete_bet_or_raise_to(to)
        else:
            st.check_or_call()
            events += eng.act(who, action("call" if call else "check"))
    # the engine waits for open/muck decisions at the showdown: everyone opens
    while eng.in_hand:
        who = eng.to_act()
        assert who is not None, "engine stuck"
        events += eng.act(who, action("open"))
    final = eng.stacks()
    ours = [final.get(nm, 0) for nm in names]
    theirs = list(st.stacks)
    odd_pots = sum(
        1 for ev in events
        if ev.event == "pot" and len(ev.shares) > 1  # type: ignore[attr-defined]
        and ev.amount % len(ev.shares)  # type: ignore[attr-defined]
    )
    if odd_pots:
        assert sum(ours) == sum(theirs)
        assert all(abs(a - b) <= odd_pots for a, b in zip(ours, theirs, strict=True))
    else:
        assert ours == theirs, (final, st.stacks)
    allins = sum(1 for ev in events if ev.event == "action"
                 and ev.action == "allin")  # type: ignore[attr-defined]
    return {"decisions": decisions, "showdown": int(sum(st.statuses) > 1), "allins": allins,
            "odd_chip_hands": int(odd_pots > 0), "differs": int(ours != theirs)}


def _run(count: int, seed: int, limit: str = "pot") -> dict[str, int]:
    rng = random.Random(seed)
    definition = _definition()
    totals = {"decisions": 0, "showdown": 0, "hands": 0, "odd_chip_hands": 0, "differs": 0,
              "allins": 0}
    for _ in range(count):
        out = play_one(rng, definition, limit)
        totals["hands"] += 1
        for k, v in out.items():
            totals[k] += v
    return totals


# Hands per quick lock-step run: 150 in the full run, 40 in the quick loop (the first 40 of
# seed 7 already hold an odd-chip split and dozens of all-ins).
QUICK_HANDS = 40 if QUICK else 150


def test_lockstep_quick() -> None:
    totals = _run(QUICK_HANDS, seed=7)
    assert totals["hands"] == QUICK_HANDS and totals["decisions"] > 3 * QUICK_HANDS
    assert totals["allins"] > QUICK_HANDS // 3 and totals["odd_chip_hands"] >= 1


def test_lockstep_no_limit_quick() -> None:
    totals = _run(QUICK_HANDS, seed=11, limit="no")
    assert totals["hands"] == QUICK_HANDS and totals["allins"] > QUICK_HANDS // 3


@pytest.mark.slow
def test_lockstep_2000_hands() -> None:
    t0 = time.perf_counter()
    totals = _run(2000, seed=20261129)
    print(f"lock-step: {totals} in {time.perf_counter() - t0:.1f}s")
    assert totals["hands"] == 2000 and totals["allins"] > 1000
