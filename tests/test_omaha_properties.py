"""Property tests: the betting arithmetic (side pots) and whole omaha tables driven at random.

The table driver throws anything at the engine -- actions in and out of turn (flying actions),
illegal amounts, operations, dealing mistakes -- and checks after every step that chips are
conserved (stacks + the middle + rake - house payments + chips that left = what was brought) and
that every refused action left the table exactly as it was.
"""

from __future__ import annotations

import random
from typing import Any

from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.actions import action
from referee.cards import Card
from referee.games.omaha.engine import OmahaEngine
from referee.rules import create
from referee.rules.base import Deal, IllegalAction
from referee.rules.betting import Betting, Seat
from referee.rules.voice import refusal_text

# --- side pots ---------------------------------------------------------------

seat_st = st.tuples(st.integers(0, 5000), st.booleans(), st.booleans())  # committed, folded, all-in


@given(st.lists(seat_st, min_size=2, max_size=8), st.integers(0, 300))
def test_side_pots_pay_each_player_what_they_matched(raw: list[tuple[int, bool, bool]],
                                                     dead: int) -> None:
    if all(f for _, f, _ in raw):
        raw[0] = (raw[0][0], False, raw[0][2])
    # a reachable end of betting: live players with chips behind all matched the top bet
    top_all = max(c for c, _, _ in raw)
    raw = [(top_all if not f and not allin else c, f, allin) for c, f, allin in raw]
    seats = [Seat(stack=0 if allin else 1000, committed=c, folded=f) for c, f, allin in raw]
    b = Betting(seats, 20, dead=dead)
    pots = b.pots()
    total = sum(s.committed for s in seats) + dead
    assert sum(p.amount for p in pots) == total
    assert all(p.amount >= 0 for p in pots)
    live = [j for j, s in enumerate(seats) if not s.folded]
    top = max(seats[j].committed for j in live)
    for j in live:
        c = seats[j].committed
        # what a player can win: everyone's chips up to their own contribution (+ dead money);
        # the biggest live contributor also wins what nobody live could match
        can_win = sum(p.amount for p in pots if j in p.eligible)
        if c == top:
            assert can_win == total
        else:
            assert can_win == sum(min(s.committed, c) for s in seats) + dead
    for p in pots:
        assert p.eligible and all(not seats[j].folded for j in p.eligible)


# --- betting rounds alone ---------------------------------------------------------------

@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(1, 3000), min_size=2, max_size=8), st.sampled_from(["pot", "no",
       "fixed"]), st.integers(0, 2**32 - 1))
def test_betting_rounds_conserve_chips_and_ranges_are_sane(stacks: list[int], limit: str,
                                                          seed: int) -> None:
    rng = random.Random(seed)
    n = len(stacks)
    b = Betting([Seat(x) for x in stacks], 20, limit)  # type: ignore[arg-type]
    total = sum(stacks)
    b.post(0 if n > 2 else 1, 10)
    b.post(1 if n > 2 else 0, 20)
    b.start_round((2 if n > 2 else 1) % n, 0, facing=20)
    for street in range(4):
        if street:
            b.end_round()
            if not b.betting_possible() or b.live_count() <= 1:
                break
            b.start_round(0, street)
        guard = 0
        while b.actors:
            guard += 1
            assert guard < 200
            i = b.to_act()
            assert i is not None
            o = b.options(i)
            s = b.seats[i]
            assert 0 <= o.call <= s.stack and not s.folded and s.stack > 0
            if o.can_raise:
                assert b.max_bet < o.min_to <= o.max_to <= s.stack + s.bet
                if limit == "pot":
                    assert o.max_to <= max(o.min_to, 2 * b.max_bet - s.bet + b.pot_total())
            r = rng.random()
            if o.call and r < 0.2:
                b.fold(i)
            elif o.can_raise and r < 0.6:
                b.raise_to(i, rng.choice([o.min_to, o.max_to, rng.randint(o.min_to, o.max_to)]))
            else:
                b.check_call(i)
            assert sum(x.stack for x in b.seats) + b.pot_total() == total
            assert all(x.stack >= 0 for x in b.seats)
    b.end_round()
    assert sum(p.amount for p in b.pots()) + sum(x.stack for x in b.seats) == total


# --- whole tables ---------------------------------------------------------------

def money(eng: OmahaEngine, left: int) -> int:
    total = eng.showdown.total_rake - eng.showdown.house_paid + left
    if eng.in_hand and eng.hand.bet is not None:
        in_hand = {p.name for p in eng.hand.players if not p.removed}
        total += sum(eng.hand.bet.seats[p.idx].stack for p in eng.hand.players if not p.removed)
        total += sum(s.chips for s in eng.seating.sitters.values() if s.name not in in_hand)
        total += eng.hand.bet.pot_total()
    else:
        total += sum(s.chips for s in eng.seating.sitters.values())
    return total


def fingerprint(eng: OmahaEngine) -> Any:
    b = eng.hand.bet
    money_ = None
    if b is not None:
        money_ = ([(s.stack, s.bet, s.committed, s.folded) for s in b.seats], b.collected, b.dead,
                  b.max_bet, list(b.actors), b.increment, sorted(b.acted), list(b.short_allins))
    players = [(p.name, p.fa, p.restrict, p.reserved, list(p.hole), list(p.shown), p.opened)
               for p in eng.hand.players]
    sitters = [(s.seat, s.name, s.chips, s.fa_count, s.bonus) for s in eng.seating.sitters.values()]
    h = eng.hand
    return (money_, players, sitters, h.phase, h.street, list(h.board), h.shown_board,
            list(h.sd_queue), eng.showdown.total_rake, eng.showdown.house_paid)


ACTIONS = ["fold", "check", "call", "raise", "raise_pot", "raise_none", "bet", "allin", "open",
           "muck"]


def random_action(rng: random.Random, eng: OmahaEngine, who: str) -> Any:
    name = rng.choice(ACTIONS)
    if name == "raise":
        o = eng.options_for(who) if who in eng.hand.pmap else None
        if o is not None and o.can_raise and rng.random() < 0.7:
            return action("raise", to=rng.randint(o.min_to, o.max_to))
        return action("raise", to=rng.randint(1, 20000))
    if name == "raise_pot":
        return action("raise", pot=True)
    if name == "raise_none":
        return action("raise")
    if name == "bet":
        return action("bet", amount=rng.randint(1, 5000))
    return action(name)  # type: ignore[arg-type]


def drive(seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    opts = {"rules": rng.choice(["loj", "world"]), "level": str(rng.randint(1, 3)),
            "limit": rng.choice(["pot", "pot", "no", "fixed"]),
            "ante": rng.choice(["on", "off"])}
    eng = create("omaha", opts)
    assert isinstance(eng, OmahaEngine)
    n = rng.randint(2, 8)
    brought = 0
    left = 0
    for k in range(n):
        chips = rng.choice([rng.randint(30, 400), rng.randint(100, 20000)])
        eng.sit(k + 1, f"p{k}", chips)
        brought += chips
    stats = {"refused": 0, "fa": 0, "hands": 0}
    for _hand in range(3):
        players = [s.name for s in eng.seated() if s.chips > 0]
        if len(players) < 2:
            break
        deck = [Card(c) for c in range(52)]
        rng.shuffle(deck)
        hands = {nm: deck[4 * i: 4 * i + 4] for i, nm in enumerate(players)}
        rest = deck[4 * len(players):]
        eng.start_hand(Deal(hands=hands, board=rest[:5], shoe=rest[5:]))
        stats["hands"] += 1
        for _step in range(200):
            if not eng.in_hand:
                break
            assert eng.to_act() is not None, "a running hand with nobody to act"
            assert money(eng, left) == brought
            r = rng.random()
            before = fingerprint(eng)
            events = []
            try:
                if r < 0.03:
                    kind = rng.choice(["misdeal", "nogame", "exposed", "exposed_board"])
                    who = rng.choice(list(eng.hand.pmap))
                    if kind == "exposed_board":
                        events = eng.dealing_mistake("exposed")
                    else:
                        events = eng.dealing_mistake(kind, who)
                elif r < 0.05:
                    who = rng.choice([s.name for s in eng.seated()])
                    events = (eng.force_fold if rng.random() < 0.5 else eng.remove)(who)
                else:
                    current = eng.to_act()
                    assert current is not None
                    seated = [s.name for s in eng.seated()]
                    who = current if rng.random() < 0.8 else rng.choice(seated)
                    events = eng.act(who, random_action(rng, eng, who))
            except IllegalAction as e:
                assert refusal_text(e.code, e.params)
                assert fingerprint(eng) == before, "refused, yet the table changed"
                stats["refused"] += 1
                continue
            for ev in events:
                ev.to_json()
                if ev.event == "leave":
                    left += ev.chips  # type: ignore[attr-defined]
                if ev.event == "flying_action":
                    stats["fa"] += 1
                if ev.event == "hand_end":
                    end: dict[str, int] = ev.stacks  # type: ignore[attr-defined]
                    now = eng.stacks()
                    assert all(end[k] == v for k, v in now.items() if k in end)
            assert money(eng, left) == brought
        # finish the hand: everyone to act folds / opens
        guard = 0
        while eng.in_hand:
            guard += 1
            assert guard < 100
            who = eng.to_act()
            assert who is not None
            if eng.hand.phase == "showdown":
                events = eng.act(who, action("open"))
            else:
                events = eng.act(who, action("fold"))
            left += sum(ev.chips for ev in events if ev.event == "leave")  # type: ignore[attr-defined]
        assert money(eng, left) == brought
    assert all(v >= 0 for v in eng.stacks().values())
    return stats


@settings(max_examples=examples(150), deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_random_tables_conserve_chips_and_refusals_change_nothing(seed: int) -> None:
    drive(seed)


def test_driver_exercises_flying_actions_and_refusals() -> None:
    totals = {"refused": 0, "fa": 0, "hands": 0}
    for seed in range(40):
        for k, v in drive(seed).items():
            totals[k] += v
    assert totals["fa"] > 50 and totals["refused"] > 200 and totals["hands"] >= 80
