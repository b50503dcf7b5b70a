"""The Omaha leak check reads the holder's class from the engines' fast key: it must agree with
the game registry's validated evaluation on every well-formed holding, and still refuse odd
ones the way the registry does (None, never an exception)."""

from __future__ import annotations

import random

import pytest

from referee.cards import JOKER, Card
from referee.flags import made_class
from referee.rules.registry import made_class as registry_made_class


@pytest.mark.parametrize("board_size", [3, 4, 5])
def test_omaha_fast_class_is_the_registry_class(board_size: int) -> None:
    rng = random.Random(board_size)
    for _ in range(1500):
        cards = [Card(c) for c in rng.sample(range(52), 4 + board_size)]
        hole, board = cards[:4], cards[4:]
        assert made_class("omaha", hole, board) == registry_made_class("omaha", hole, board)


def test_odd_omaha_holdings_fall_back_to_the_registry() -> None:
    hole = [Card(0), Card(5), Card(9), Card(13)]
    assert made_class("omaha", hole, []) is None  # no flop yet
    dup = [Card(0), Card(5), Card(9), Card(9)]
    board = [Card(20), Card(30), Card(40)]
    assert made_class("omaha", dup, board) == registry_made_class("omaha", dup, board)
    joker = [Card(0), Card(5), Card(9), Card(JOKER)]
    assert made_class("omaha", joker, board) == registry_made_class("omaha", joker, board)
