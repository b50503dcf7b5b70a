"""Test helpers shared by the house-banked engines' tests (holdem_aa, seven): reading events,
the definition-table checks, and the books that every hand must balance."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.actions import Parsed
from referee.definitions import GAMES_DIR, DefinitionError, load_file
from referee.events import Event
from referee.rules.base import Deal, IllegalAction
from referee.rules.house import HouseEngine


def ev(events: list[Event], kind: str) -> list[dict[str, Any]]:
    """The ``kind`` events, as JSON objects."""
    return [e.to_json() for e in events if e.event == kind]


def settle(events: list[Event]) -> dict[str, dict[str, Any]]:
    """The ``settle`` events by player."""
    return {e["player"]: e for e in ev(events, "settle")}


def assert_tables_checked(tmp_path: Path, game: str, breaks: list[tuple[str, str]]) -> None:
    """Each ``(broken games/<game>.toml text, key)``: loading it fails naming ``key``."""
    f = tmp_path / f"{game}.toml"
    for broken, key in breaks:
        f.write_text(broken, encoding="utf-8")
        with pytest.raises(DefinitionError, match=key):
            load_file(f)


def definition_text(game: str) -> str:
    return (GAMES_DIR / f"{game}.toml").read_text(encoding="utf-8")


def assert_books_balance(
    out: list[Event], before: dict[str, int], paid_kinds: tuple[str, ...]
) -> None:
    """One hand's events ``out``: the stacks plus the house's result add up to ``before``, and
    the house's books are every action's amount staked and every ``paid_kinds`` payout paid."""
    house = ev(out, "house")[0]
    end = ev(out, "hand_end")[0]["stacks"]
    assert sum(end.values()) + house["result"] == sum(before.values())
    paid = sum(x["payout"] for kind in paid_kinds for x in ev(out, kind))
    staked = sum(a["amount"] for a in ev(out, "action"))
    assert (house["staked"], house["paid"]) == (staked, paid)


def play_randomly(
    e: HouseEngine,
    rng: random.Random,
    *,
    new_deal: Callable[[dict[str, int]], Deal],
    random_action: Callable[[str, Deal], Parsed],
    snapshot: Callable[[], str],
    mistake_rate: float,
    paid_kinds: tuple[str, ...],
) -> None:
    """Up to three hands of random messages from random players (most of them illegal at that
    moment; ``random_action(player, deal)``), the clock, and now and then (``mistake_rate``) a
    dealing mistake: a refused action changes nothing (``snapshot``), the books balance."""
    now = 0.0
    for _ in range(3):
        if not e.stacks():
            break
        before = e.stacks()
        deal = new_deal(before)
        out = e.start_hand(deal)
        while e.in_hand:
            now += rng.choice([1.0, 5.0, 70.0])
            roll = rng.random()
            if roll < mistake_rate:
                out += e.dealing_mistake("nogame")
                break
            if roll < 0.1:
                out += e.tick(now)
                continue
            who = rng.choice([*before, "nobody"])
            act = random_action(who, deal)
            snap = snapshot()
            try:
                out += e.act(who, act, now)
            except IllegalAction as err:
                assert err.reason
                assert snapshot() == snap
        assert_books_balance(out, before, paid_kinds)
