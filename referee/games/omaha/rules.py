"""The ``[omaha]`` section of ``definition.toml``: stakes, levels, rake and the table rulings."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import Field, PositiveInt, model_validator

from referee.definitions import (
    GameDefinition,
    Level,
    Multiplier,
    Rounding,
    Strict,
    TournamentDefaults,
)


class OmahaRules(Strict):
    rules: Literal["loj", "world"] = "loj"
    level: PositiveInt = 1
    limit: Literal["pot", "no", "fixed"] = "pot"
    ante: bool = False
    equal: bool = False
    chip_multiplier: PositiveInt = 10
    leave_rounding: Rounding = "up"
    levels: list[Level]
    rake_percent: Multiplier = Decimal(2)
    rake_min_pot: int = Field(500, ge=0)
    rake_cap: int = Field(500, ge=0)
    button_start: Literal["seat1", "random"] = "seat1"
    oversize_allin: Literal["refuse", "max_raise"] = "refuse"
    allin_fa_return: Rounding = "up"
    hand_bonus: dict[str, int]
    nogame_inactive_percent: int = Field(20, ge=0, le=100)
    nogame_inactive_cap: int = Field(300, ge=0)
    side_pot_open_order: Literal["last_first", "main_first"] = "last_first"
    # Max buy-in (the seed: all bank points 「ＭＡＸバイイン指定がある場合を除く」): bank points a
    # player brings at most; 0 = no limit. A table may set its own (``maxbuyin=P``).
    max_buyin: int = Field(0, ge=0)
    tournament: TournamentDefaults = Field(default_factory=lambda: TournamentDefaults())

    @model_validator(mode="after")
    def _levels(self) -> OmahaRules:
        numbers = [lv.level for lv in self.levels]
        if numbers != list(range(1, len(numbers) + 1)):
            raise ValueError("levels must be numbered 1, 2, 3, … in order")
        if self.level > len(numbers):
            raise ValueError(f"level {self.level} is not among the levels")
        return self


class OmahaDefinition(GameDefinition):
    """A omaha definition file: the common keys and the ``[omaha]`` section."""

    omaha: OmahaRules
