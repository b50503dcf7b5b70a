"""The ``[holdem_aa]`` section of ``definition.toml``: the ante, the AA bet and their pay tables."""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field, PositiveInt, model_validator

from referee.definitions import (
    STANDARD_CLASSES,
    GameDefinition,
    Multiplier,
    Rounding,
    Strict,
    house_rows,
)


class HoldemAARules(Strict):
    ante_unit: PositiveInt = 100
    ante_multiple: bool = True  # antes in multiples of the unit (false: any amount >= the unit)
    aa_max_ratio: Multiplier = Decimal(1)
    dealer_qualify_pair: int = Field(4, ge=2, le=14)
    call_table: dict[str, Multiplier]
    ante_table: dict[str, Multiplier]
    aa_table: dict[str, Multiplier]
    mistake_payout: dict[str, Multiplier]
    bankrupt_below: int = Field(20, ge=0)
    payout_rounding: Rounding = "down"

    @model_validator(mode="after")
    def _tables(self) -> HoldemAARules:
        house_rows("call_table", self.call_table, required=("win", "lose", "push", "dealer_fold"))
        house_rows("ante_table", self.ante_table, allowed=STANDARD_CLASSES,
                    required=("other", "push", "lose"))
        house_rows("aa_table", self.aa_table, allowed=(*STANDARD_CLASSES[:-2], "pair_of_aces"))
        house_rows("mistake_payout", self.mistake_payout, required=("ante", "aa", "call"))
        return self


class HoldemAADefinition(GameDefinition):
    """A holdem_aa definition file: the common keys and the ``[holdem_aa]`` section."""

    holdem_aa: HoldemAARules
