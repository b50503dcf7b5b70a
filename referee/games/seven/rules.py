"""The ``[seven]`` section of ``definition.toml``: bets, the dealer's qualification and the
pay tables."""

from __future__ import annotations

from pydantic import Field, PositiveInt, model_validator

from referee.definitions import GameDefinition, Multiplier, Rounding, Strict, house_rows
from referee.games.seven.hands import SEVEN as SEVEN_CLASSES


class SevenRules(Strict):
    ante_unit: PositiveInt = 100
    ante_multiple: bool = True  # antes in multiples of the unit (false: any amount >= the unit)
    dealer_seat: PositiveInt = 6
    bets: dict[str, Multiplier]
    dq_max_pair: int = Field(3, ge=2, le=14)
    dq_needs_ace_or_king: bool = True
    dq_when_dealer_folds: bool = False  # the seed: a folded dealer hand means every player wins
    win_count_table: dict[str, Multiplier]
    win_count_dealer_seat: bool = True  # the dealer seat's hand counts as a player beaten
    result_table: dict[str, Multiplier]
    hand_table: dict[str, Multiplier]
    owner_short_table: dict[str, Multiplier]
    owner_short_table_applies: bool = True
    joker: dict[str, Multiplier]
    allin_divisor: PositiveInt = 3
    bankrupt_below: int = Field(30, ge=0)
    npc_first_min_rank: int = Field(7, ge=2, le=14)
    npc_ante_units: PositiveInt = 1  # an NPC antes this many table ante units
    mistake_payout: dict[str, Multiplier]
    payout_rounding: Rounding = "down"

    @model_validator(mode="after")
    def _tables(self) -> SevenRules:
        house_rows("bets", self.bets, required=(
            "call", "raise", "hyper_raise_ante", "hyper_raise_round", "extra_raise"))
        counts = sorted(int(k) for k in self.win_count_table if k.isdigit())
        if len(counts) != len(self.win_count_table) or counts != list(range(len(counts))):
            raise ValueError("win_count_table: rows must be the win counts 0, 1, 2, …")
        house_rows("result_table", self.result_table, required=("win", "lose", "push", "dq"))
        house_rows("hand_table", self.hand_table, allowed=SEVEN_CLASSES, required=("other",))
        house_rows("owner_short_table", self.owner_short_table, allowed=SEVEN_CLASSES)
        house_rows("joker", self.joker, required=("ante", "bets", "lastslot_extra"))
        house_rows("mistake_payout", self.mistake_payout, required=("ante", "call"))
        return self


class SevenDefinition(GameDefinition):
    """A seven definition file: the common keys and the ``[seven]`` section."""

    seven: SevenRules
