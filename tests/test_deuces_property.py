"""``deuces`` over many random deals (live-style: ``draw_deal`` from a shuffled six-deck shoe):
chips are conserved between the players and the house, the bonus area stays a valid four-card
area, and refused actions change nothing."""

from __future__ import annotations

import random
from typing import Any

from examples import examples
from house_helpers import play_randomly  # tests/ is on sys.path (rootdir-less import)
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.actions import Parsed, action
from referee.cards import JOKER, Shoe, card_str
from referee.games.deuces.engine import DeucesEngine
from referee.rules import Deal, IllegalAction, create

NAMES = ["alice", "bob", "carol", "dave", "erin"]


def _decide(rng: random.Random, cards: list[str]) -> Any:
    roll = rng.random()
    if roll < 0.2:
        return action("fold")
    if roll < 0.6:
        return action("play", keep=rng.sample(cards, rng.randint(0, 5)))
    if roll < 0.9:
        return action("play", discard=rng.sample(cards, rng.randint(0, 5)))
    return action("play")


def _check_hand(events: list[dict[str, Any]], before: dict[str, int]) -> None:
    """Every chip that left a player is in a payout or in the house's result."""
    staked: dict[str, int] = {}
    received: dict[str, int] = {}
    for e in events:
        kind = e["event"]
        if kind == "action":
            staked[e["player"]] = staked.get(e["player"], 0) + e["amount"]
        elif kind in ("settle", "joker", "compensation"):
            received[e["player"]] = received.get(e["player"], 0) + e["payout"]
        elif kind == "bonus_payout":
            received[e["player"]] = received.get(e["player"], 0) + e["amount"]
    end = next(e for e in events if e["event"] == "hand_end")
    house = next(e for e in events if e["event"] == "house")
    for name, chips in before.items():
        assert end["stacks"][name] == chips - staked.get(name, 0) + received.get(name, 0), name
    assert house["staked"] == sum(staked.values())
    assert house["paid"] == sum(received.values())
    assert sum(before.values()) - sum(end["stacks"].values()) == house["result"]


def _check_area(e: DeucesEngine) -> None:
    cards, markers = e.bonus_area
    assert len(cards) <= 4 and len(set(cards)) == len(cards) and JOKER not in cards
    assert len(markers) == len(cards) and all(m >= 0 for m in markers)
    assert all(m == 0 for c, m in zip(cards, markers, strict=True) if c >> 2 == 0)


@settings(max_examples=examples(60), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(1, 5),
    hands=st.integers(1, 6),
    last_slot=st.booleans(),
)
def test_chips_are_conserved_over_random_deals(
    seed: int, players: int, hands: int, last_slot: bool
) -> None:
    rng = random.Random(seed)
    e = create("deuces", {"ante": "10", "lastslot": "on" if last_slot else "off"})
    assert isinstance(e, DeucesEngine)
    for i in range(players):
        e.sit(i + 1, NAMES[i], rng.choice([25, 60, 150, 1000, 5000]))
    for _ in range(hands):
        if not e.seated():
            break
        before = e.stacks()
        deal = e.draw_deal(Shoe(decks=6, jokers=1, rng=rng), rng)
        out = [x.to_json() for x in e.start_hand(deal)]
        for p in e.seated():
            if rng.random() < 0.5 or p.chips < 40:
                a = action("allin")
            else:
                a = action("ante", amount=10 * rng.randint(1, max(1, p.chips // 20 // 10)))
            out += [x.to_json() for x in e.act(p.name, a)]
        if rng.random() < 0.05:
            out += [x.to_json() for x in e.dealing_mistake("nogame")]
        while e.in_hand:
            chooser = e.to_act()
            if chooser is not None:  # several kinds duplicated: name one to remove first
                held = [card_str(c) for c in e.shown(chooser)]
                kinds = sorted({c for c in held if c != "JK" and held.count(c) > 1})
                assert len(kinds) > 1
                out += [x.to_json() for x in
                        e.act(chooser, action("play", discard=[rng.choice(kinds)]))]
                continue
            for p in e.seated():
                if not e.in_this_hand(p.name) or not e.in_hand:
                    continue
                cards = [card_str(c) for c in e.shown(p.name)]
                # a refused action (card not held, second decision) must leave no trace
                snapshot = (e.stacks(), e.bonus_area, e.shown(p.name))
                try:
                    out += [x.to_json() for x in e.act(p.name, _decide(rng, cards))]
                except IllegalAction:
                    assert (e.stacks(), e.bonus_area, e.shown(p.name)) == snapshot
            _check_area(e)
        _check_hand(out, before)
        _check_area(e)
        # bankrupt players were stood up
        assert all(p.chips >= 20 for p in e.seated())


@settings(max_examples=examples(80), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 5))
def test_random_play_with_penalties_and_dealing_mistakes(seed: int, players: int) -> None:
    """Random messages from random players, the clock, force_fold / remove often followed by a
    dealing mistake (house_helpers.play_randomly): refusals leave no trace, the books balance."""
    rng = random.Random(seed)
    e = create("deuces", {"ante": "10", "lastslot": rng.choice(["on", "off"])})
    assert isinstance(e, DeucesEngine)
    for i in range(players):
        e.sit(i + 1, NAMES[i], rng.choice([25, 60, 150, 1000]))

    def random_action(who: str, deal: Deal) -> Parsed:
        held = [card_str(c) for c in e.shown(who)] or ["2c", "3d", "4h", "5s", "6c"]
        return rng.choice([
            action("ante", amount=rng.choice([None, 10, 20, 50, 1000])),
            action("allin"), action("fold"), action("play"), action("call"),
            action("play", keep=rng.sample(held, rng.randint(0, len(held)))),
            action("play", discard=rng.sample(held, rng.randint(0, len(held)))),
            action("play", discard=[rng.choice(held)]),  # the duplicate-order choice
        ])

    play_randomly(
        e, rng, new_deal=lambda before: e.draw_deal(Shoe(decks=6, jokers=1, rng=rng), rng),
        random_action=random_action,
        snapshot=lambda: repr((e.table.players, e.area, e.flow.hand, e.button, e.clock, e.hand_no)),
        mistake_rate=0.03, paid_kinds=("settle", "compensation", "joker", "bonus_payout"),
    )
    _check_area(e)
