"""Game definition files (``games/*.toml``): stakes, seats, decks, pay tables and every
*(config)* ruling of docs/rules.md, validated by pydantic so a bad file is refused with the file,
the key and the reason -- never half-loaded.

Multipliers are read as :class:`~decimal.Decimal` (TOML floats are parsed with
``parse_float=Decimal``) so 3.5x stays exact; payouts are rounded by each game's
``payout_rounding`` ruling.
"""

from __future__ import annotations

import tomllib
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, PositiveInt, ValidationError, model_validator

from referee import resources

GAMES_DIR = resources.GAMES
#: Every game a ``games/*.toml`` file may define. The game registry
#: (:mod:`referee.rules.registry`) gives each its engine, evaluator and grammar; every other
#: list of games is derived from these two.
GameId = Literal["omaha", "holdem_aa", "seven", "deuces"]
GAME_IDS: tuple[str, ...] = get_args(GameId)

Multiplier = Annotated[Decimal, Field(ge=0)]
Rounding = Literal["down", "up"]


class DefinitionError(ValueError):
    """A definition file that cannot be used; the message names the file and the key."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Seats(_Strict):
    standard: PositiveInt
    max: PositiveInt

    @model_validator(mode="after")
    def _order(self) -> Seats:
        if self.standard > self.max:
            raise ValueError("standard must not exceed max")
        return self


class Penalties(_Strict):
    """Bank points taken by the house-rule penalties (omaha seed; applied by every table)."""

    information_leak: int = Field(1000, ge=0)
    interference: int = Field(5000, ge=0)
    flying_action_limit: PositiveInt = 3


class Clock(_Strict):
    """Action clock: a reminder, then check-if-possible-else-fold. Seconds; 0 disables."""

    remind_after: int = Field(60, ge=0)
    act_after: int = Field(120, ge=0)
    showdown_default: Literal["open", "muck"] = "open"


class Level(_Strict):
    level: PositiveInt
    sb: PositiveInt
    bb: PositiveInt
    ante: PositiveInt


class TournamentDefaults(_Strict):
    """What a ``tournament=on`` table uses unless its options say otherwise."""

    stack: PositiveInt = 10000  # starting chips (tournament chips, not bank chips)
    entry: int = Field(0, ge=0)  # bank points each entrant pays into the prize pool
    level_hands: int = Field(10, ge=0)  # blinds rise every N hands (0: by minutes instead)
    level_minutes: int = Field(0, ge=0)
    payouts: list[PositiveInt] = Field(default_factory=lambda: [65, 35])

    @model_validator(mode="after")
    def _check(self) -> TournamentDefaults:
        if sum(self.payouts) != 100:
            raise ValueError("payouts must add up to 100 (percent of the prize pool)")
        return self


class OmahaRules(_Strict):
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


STANDARD_CLASSES = (
    "royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush", "straight",
    "three_of_a_kind", "two_pair", "one_pair", "high_card",
)
"""``omaha`` / ``holdem_aa`` class ids, strongest first (docs/contracts.md §1)."""

SEVEN_CLASSES = (
    "seven_straight_flush", "seven_of_a_kind", "royal_flush", "straight_flush", "seven_straight",
    "big_house", "five_of_a_kind", "seven_flush", "middle_house", "four_of_a_kind", "full_house",
    "flush", "straight", "defective_house", "three_of_a_kind", "two_pair", "one_pair", "high_card",
)
"""``seven`` class ids, strongest first (docs/contracts.md §1)."""


def _house_rows(
    name: str, table: dict[str, Decimal], *, allowed: tuple[str, ...] = (),
    required: tuple[str, ...] = (),
) -> None:
    """A pay table may hold only known rows and must hold the rows the engine reads."""
    unknown = sorted(set(table) - set(allowed) - set(required))
    if unknown:
        raise ValueError(f"{name}: unknown rows {unknown}")
    missing = [k for k in required if k not in table]
    if missing:
        raise ValueError(f"{name}: missing rows {missing}")


class HoldemAARules(_Strict):
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
        _house_rows("call_table", self.call_table, required=("win", "lose", "push", "dealer_fold"))
        _house_rows("ante_table", self.ante_table, allowed=STANDARD_CLASSES,
                    required=("other", "push", "lose"))
        _house_rows("aa_table", self.aa_table, allowed=(*STANDARD_CLASSES[:-2], "pair_of_aces"))
        _house_rows("mistake_payout", self.mistake_payout, required=("ante", "aa", "call"))
        return self


class SevenRules(_Strict):
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
        _house_rows("bets", self.bets, required=(
            "call", "raise", "hyper_raise_ante", "hyper_raise_round", "extra_raise"))
        counts = sorted(int(k) for k in self.win_count_table if k.isdigit())
        if len(counts) != len(self.win_count_table) or counts != list(range(len(counts))):
            raise ValueError("win_count_table: rows must be the win counts 0, 1, 2, …")
        _house_rows("result_table", self.result_table, required=("win", "lose", "push", "dq"))
        _house_rows("hand_table", self.hand_table, allowed=SEVEN_CLASSES, required=("other",))
        _house_rows("owner_short_table", self.owner_short_table, allowed=SEVEN_CLASSES)
        _house_rows("joker", self.joker, required=("ante", "bets", "lastslot_extra"))
        _house_rows("mistake_payout", self.mistake_payout, required=("ante", "call"))
        return self


DEUCES_CLASSES = (
    "natural_royal_flush", "four_deuces", "wild_royal_flush", "five_of_a_kind", "straight_flush",
    "four_of_a_kind", "full_house", "flush", "straight", "three_of_a_kind", "two_pair",
    "one_pair", "high_card",
)
"""``deuces`` class ids, strongest first (docs/contracts.md §1)."""

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


class DeucesRules(_Strict):
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


class GameDefinition(_Strict):
    id: GameId
    name: str
    decks: PositiveInt
    jokers: int = Field(0, ge=0)
    seats: Seats
    penalties: Penalties = Penalties()
    clock: Clock = Clock()
    omaha: OmahaRules | None = None
    holdem_aa: HoldemAARules | None = None
    seven: SevenRules | None = None
    deuces: DeucesRules | None = None

    @property
    def rules(self) -> BaseModel:
        """The game's own section (``[omaha]``, ``[seven]``…): its pay tables and rules."""
        section: BaseModel = getattr(self, self.id)
        return section

    @model_validator(mode="after")
    def _section(self) -> GameDefinition:
        present = [g for g in GAME_IDS if getattr(self, g) is not None]
        if present != [self.id]:
            raise ValueError(f"a '{self.id}' file needs exactly the [{self.id}] section")
        return self


def _format(err: ValidationError) -> str:
    first = err.errors()[0]
    key = ".".join(str(p) for p in first["loc"]) or "(file)"
    return f"{key}: {first['msg']}"


def load_file(path: Path) -> GameDefinition:
    try:
        with path.open("rb") as f:
            data = tomllib.load(f, parse_float=Decimal)
    except OSError as e:
        raise DefinitionError(f"{path}: cannot read: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise DefinitionError(f"{path}: not valid TOML: {e}") from None
    try:
        return GameDefinition.model_validate(data)
    except ValidationError as e:
        raise DefinitionError(f"{path}: {_format(e)}") from None


@cache
def load(game: str, games_dir: Path = GAMES_DIR) -> GameDefinition:
    """The definition of ``game`` from ``games/GAME.toml`` (cached: files are read once)."""
    if game not in GAME_IDS:
        raise DefinitionError(f"unknown game '{game}' (known: {', '.join(GAME_IDS)})")
    return load_file(games_dir / f"{game}.toml")
