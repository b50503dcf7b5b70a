"""Test helpers shared by the house-banked engines' tests (holdem_aa, seven, deuces): reading
events, the definition-table checks, the books that every hand must balance, random play."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from event_helpers import of as ev

from referee.actions import Parsed
from referee.definitions import DefinitionError, load_file, path_of
from referee.events import Event
from referee.rules.base import Deal, Engine, IllegalAction
from referee.rules.voice import refusal_text


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
    return path_of(game).read_text(encoding="utf-8")


def assert_books_balance(
    out: list[Event], before: dict[str, int], paid_kinds: tuple[str, ...]
) -> None:
    """One hand's events ``out``: the stacks at the end, the chips taken away by players who left
    during the hand and the house's result add up to ``before``, and the house's books are every
    action's amount staked and every ``paid_kinds`` payout (``payout``, or ``amount`` for a
    bonus) paid."""
    house = ev(out, "house")[0]
    kinds = [e.event for e in out]
    during = out[: kinds.index("hand_end")]  # leaves after it (bankruptcy) are in the stacks
    left = sum(x["chips"] for x in ev(during, "leave"))
    end = ev(out, "hand_end")[0]["stacks"]
    assert sum(end.values()) + left + house["result"] == sum(before.values())
    paid = sum(x.get("payout", x.get("amount", 0)) for kind in paid_kinds for x in ev(out, kind))
    staked = sum(a["amount"] for a in ev(out, "action"))
    assert (house["staked"], house["paid"]) == (staked, paid)


def play_randomly(
    e: Engine,
    rng: random.Random,
    *,
    new_deal: Callable[[dict[str, int]], Deal],
    random_action: Callable[[str, Deal], Parsed],
    snapshot: Callable[[], str],
    mistake_rate: float,
    paid_kinds: tuple[str, ...],
    penalty_rate: float = 0.06,
) -> None:
    """Up to three hands of random messages from random players (most of them illegal at that
    moment; ``random_action(player, deal)``), the clock, penalties (``remove`` of a seated
    player, which must always succeed, or ``force_fold`` of a random name; ``penalty_rate``),
    often followed at once by a dealing mistake, and now and then (``mistake_rate``) a dealing
    mistake on its own: a refused action or operation changes nothing (``snapshot``), the books
    balance."""
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
                out += e.dealing_mistake(rng.choice(["nogame", "misdeal"]))
                break
            if roll < mistake_rate + 0.1:
                out += e.tick(now)
                continue
            who = rng.choice([*before, "nobody"])
            snap = snapshot()
            try:
                penalty = roll < mistake_rate + 0.1 + penalty_rate
                removing = penalty and rng.random() < 0.5 and e.is_seated(who)
                if not penalty:
                    out += e.act(who, random_action(who, deal), now)
                    # most interesting: removing a player who has just put chips in
                    penalty = removing = (
                        e.in_hand and e.is_seated(who) and rng.random() < 3 * penalty_rate
                    )
                    snap = snapshot()
                if penalty:
                    out += (e.remove if removing else e.force_fold)(who)
                    if e.in_hand and rng.random() < 0.5:  # the sequence that broke the books
                        out += e.dealing_mistake(rng.choice(["nogame", "misdeal"]))
                        break
            except IllegalAction as err:
                assert not removing, f"a seated player must always be removable: {err.code}"
                assert refusal_text(err.code, err.params)
                assert snapshot() == snap
        assert_books_balance(out, before, paid_kinds)
