"""One property for every game: a refusal leaves no trace.

Random tables of each game (``referee.rules.create``) play random hands dealt by the engine's
own ``draw_deal``: random messages from a pool of phrasings read by the real parser (most of
them illegal at that moment), actions built on the cards a player holds, and the operations the
service applies (the clock, forced folds, removals, leaves, dealing mistakes, a second
``start_hand``). Whenever the engine raises IllegalAction its whole state -- everything
``pickle`` would store, which is what the service's snapshots store -- is exactly what it was
before the call.
"""

from __future__ import annotations

import pickle
import random
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.actions import Parsed, action
from referee.cards import Shoe, card_str, parse_cards
from referee.parse import parse
from referee.rules import create
from referee.rules.base import Engine, IllegalAction
from referee.rules.voice import refusal_text

GAMES = ["omaha", "holdem_aa", "seven", "deuces"]
NAMES = ["alice", "bob", "carol", "dave"]
CHIPS = {"omaha": 20_000, "holdem_aa": 2_000, "seven": 3_000, "deuces": 2_000}

# What players type, in every game (each game's parser reads what it can; chat is dropped).
PHRASES = [
    "アンティ100", "アンティ200", "アンティ 50", "アンティ", "アンティ100 AA50",
    "アンティ100 AA300",
    "オールイン", "オールイン AA50", "コール", "こ", "フォールド", "F", "チェック", "ベット400",
    "レイズ", "メイク600", "ポット", "オープン", "マック", "ハイパー", "ハイパーレイズ", "はい",
    "エクストラレイズ", "勝負", "交換なし", "As を捨てる", "As Kd 残す", "フラッシュ",
]


def parsed_pool(game: str) -> list[Parsed]:
    out = []
    for text in PHRASES:
        p = parse(text, game)
        if p.kind == "action":
            out.append(p)
    return out


POOLS = {game: parsed_pool(game) for game in GAMES}


def state(e: Engine) -> bytes:
    return pickle.dumps(e, protocol=pickle.HIGHEST_PROTOCOL)


def card_action(e: Engine, who: str, rng: random.Random) -> Parsed:
    """An action naming cards the player holds (a keep or a discard, one or two cards)."""
    held = [card_str(c) for c in (e.holdings(who) or [])]
    if not held:
        return action("fold")
    some = rng.sample(held, rng.randint(0, min(len(held), 5)))
    return rng.choice([
        action("play", keep=some), action("play", discard=some),
        action("discard", cards=rng.sample(held, min(2, len(held)))),
        action("discard", cards=[rng.choice(held)]), action("open", cards=some),
        action("fold", cards=some[:1]),
    ])


def operation(e: Engine, rng: random.Random, who: str, now: float) -> Callable[[], Any]:
    roll = rng.random()
    if roll < 0.35:
        return lambda: e.tick(now)
    if roll < 0.5:
        return lambda: e.force_fold(who)
    if roll < 0.6:
        return lambda: e.remove(who)
    if roll < 0.75:
        return lambda: e.leave(who)
    if roll < 0.85:
        return lambda: e.dealing_mistake(rng.choice(["nogame", "misdeal", "exposed", "bogus"]),
                                         rng.choice([None, who]))
    return lambda: e.start_hand(e.draw_deal(shoe(e, rng), rng))


def shoe(e: Engine, rng: random.Random) -> Shoe:
    return Shoe(decks=e.definition.decks, jokers=e.definition.jokers, rng=rng)


def play(game: str, seed: int) -> int:
    """Random hands of ``game``; returns how many refusals were checked."""
    rng = random.Random(seed)
    e = create(game, {})
    for i, name in enumerate(rng.sample(NAMES, rng.randint(2 if game == "omaha" else 1, 4))):
        e.sit(i + 1, name, CHIPS[game] * rng.choice([1, 1, 2]))
    deals = []
    if game == "deuces" and rng.random() < 0.6:
        # a transcript's deal: few kinds of cards (duplicates everywhere, the order to choose)
        # and a short shoe, so the dry run must find the refusals on draws
        pool = rng.sample(parse_cards("Ah Kd Qs Jc Th 2c 9s 5d"), rng.randint(3, 8))
        short = e.draw_deal(shoe(e, rng), rng)
        for name in short.hands:
            short.hands[name] = rng.choices(pool, k=5)
        short.dealer = rng.choices(pool, k=5)
        short.shoe = rng.choices(pool, k=rng.randint(0, 14))
        deals = [short]
    refused = 0
    now = 0.0
    for _ in range(2):
        deal = deals.pop() if deals else e.draw_deal(shoe(e, rng), rng)
        before = state(e)
        try:
            e.start_hand(deal)
        except IllegalAction:  # too few players left
            assert state(e) == before, f"{game}: a refused start changed the table"
            break
        for _ in range(80):
            if not e.in_hand:
                break
            now += rng.choice([0.0, 1.0, 5.0, 40.0, 80.0])
            who = rng.choice([*NAMES, "nobody"])
            pending = [n for n in NAMES if e.decision(n) is not None]
            if pending and rng.random() < 0.6:
                who = rng.choice(pending)
            roll = rng.random()
            if roll < 0.6:
                call: Callable[[], Any] = partial(e.act, who, rng.choice(POOLS[game]), now)
            elif roll < 0.8:
                call = partial(e.act, who, card_action(e, who, rng), now)
            else:
                call = operation(e, rng, who, now)
            before = state(e)
            try:
                call()
            except IllegalAction as err:
                refused += 1
                assert refusal_text(err.code, err.params)
                assert state(e) == before, f"{game}: a refusal changed the table ({err.code})"
        if e.in_hand:
            e.dealing_mistake("nogame")
    return refused


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_a_refusal_leaves_no_trace(game: str, seed: int) -> None:
    play(game, seed)


@pytest.mark.parametrize("game", GAMES)
def test_the_property_sees_refusals(game: str) -> None:
    assert sum(play(game, seed) for seed in range(5)) > 20  # the pool is mostly illegal
