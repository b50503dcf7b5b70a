"""The ``[deuces]`` section of ``definition.toml``: the bonus area, the pay tables and the
dealer's rules."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import Field, PositiveInt, model_validator

from referee.definitions import GameDefinition, Multiplier, Rounding, Strict
from referee.games.deuces.hands import DEUCES as DEUCES_CLASSES

DeucesClass = Literal[
    "natural_royal_flush", "four_deuces", "wild_royal_flush", "five_of_a_kind", "straight_flush",
    "four_of_a_kind", "full_house", "flush", "straight", "three_of_a_kind", "two_pair",
    "one_pair", "high_card",
]


def _at_least(klass: str) -> tuple[str, ...]:
    return DEUCES_CLASSES[: DEUCES_CLASSES.index(klass) + 1]


def _check_rows(
    name: str, table: dict[str, Decimal], need: tuple[str, ...], extra: set[str]
) -> None:
    unknown = set(table) - set(DEUCES_CLASSES) - extra
    if unknown:
        raise ValueError(f"{name}: unknown rows {sorted(unknown)}")
    missing = [k for k in (*need, *sorted(extra)) if k not in table]
    if missing:
        raise ValueError(f"{name}: missing rows {missing}")


class DeucesRules(Strict):
    ante_unit: PositiveInt = 100
    ante_multiple: bool = True
    bonus_decks: PositiveInt = 1
    bonus_area_size: PositiveInt = 4
    bonus_table: dict[str, Multiplier]
    dealer_table: dict[str, Multiplier]
    player_table: dict[str, Multiplier]
    dealer_qualify: DeucesClass = "three_of_a_kind"
    dealer_strategy: Literal["house_way_v1"] = "house_way_v1"
    dealer_duplicate_bonus: Literal["none", "players"] = "none"
    duplicate_choice: bool = True
    tie: Literal["push"] = "push"
    joker: dict[Literal["ante", "bets", "lastslot_extra"], Multiplier]
    allin_divisor: PositiveInt = 2
    bankrupt_below: int = Field(20, ge=0)
    mistake_payout: dict[Literal["ante", "play"], Multiplier]
    mistake_pays_folded: bool = True
    payout_rounding: Rounding = "down"

    @model_validator(mode="after")
    def _tables(self) -> DeucesRules:
        # The bonus table and the player's ante table pay from three of a kind up; the dealer's
        # table needs every class the dealer can qualify with and lose (a natural royal can't lose).
        _check_rows("bonus_table", self.bonus_table, _at_least("three_of_a_kind"), set())
        _check_rows("player_table", self.player_table, _at_least("three_of_a_kind"), {"other"})
        _check_rows(
            "dealer_table", self.dealer_table, _at_least(self.dealer_qualify)[1:], {"dealer_fold"}
        )
        for key in ("ante", "bets", "lastslot_extra"):
            if key not in self.joker:
                raise ValueError(f"joker: missing {key}")
        for key in ("ante", "play"):
            if key not in self.mistake_payout:
                raise ValueError(f"mistake_payout: missing {key}")
        return self


class DeucesDefinition(GameDefinition):
    """A deuces definition file: the common keys and the ``[deuces]`` section."""

    deuces: DeucesRules
