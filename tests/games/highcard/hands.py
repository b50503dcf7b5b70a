"""highcard's evaluator: one card, ranked by its rank alone (aces high); the key is the rank."""

from __future__ import annotations

from collections.abc import Sequence

from referee.cards import rank_of

CLASSES: tuple[str, ...] = ("high_card",)


def best(hole: Sequence[int], board: Sequence[int]) -> tuple[int, Sequence[int]]:
    """``(key, cards)`` of a one-card hand: the key is the card's rank, 0 (2) .. 12 (A)."""
    return rank_of(hole[0]), list(hole)
