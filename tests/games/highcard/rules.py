"""The ``[highcard]`` section of ``definition.toml`` and the game's definition model."""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field, PositiveInt, model_validator

from referee.definitions import GameDefinition, Multiplier, Rounding, Strict, house_rows


class HighcardRules(Strict):
    ante_unit: PositiveInt = 100
    bankrupt_below: int = Field(100, ge=0)
    result_table: dict[str, Multiplier]
    mistake_payout: dict[str, Multiplier] = Field(default_factory=lambda: {"ante": Decimal(1)})
    payout_rounding: Rounding = "down"

    @model_validator(mode="after")
    def _tables(self) -> HighcardRules:
        house_rows("result_table", self.result_table, required=("win", "push", "lose"))
        house_rows("mistake_payout", self.mistake_payout, required=("ante",))
        return self


class HighcardDefinition(GameDefinition):
    """A highcard definition file: the common keys and the ``[highcard]`` section."""

    highcard: HighcardRules
