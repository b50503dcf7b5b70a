"""Test helpers shared by the house-banked engines' tests (holdem_aa, seven): reading events,
the definition-table checks, and the books that every hand must balance."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.definitions import GAMES_DIR, DefinitionError, load_file
from referee.events import Event


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
