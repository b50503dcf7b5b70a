"""Game definition files (``games/*/definition.toml``): stakes, seats, decks, pay tables and every
*(config)* ruling of docs/rules.md, validated by pydantic so a bad file is refused with the file,
the key and the reason -- never half-loaded.

Multipliers are read as :class:`~decimal.Decimal` (TOML floats are parsed with
``parse_float=Decimal``) so 3.5x stays exact; payouts are rounded by each game's
``payout_rounding`` ruling.
"""

from __future__ import annotations

import json
import tomllib
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, cast

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PositiveInt,
    ValidationError,
    model_validator,
)

from referee import games


def _registered(game: str) -> str:
    if not games.is_game(game):
        raise ValueError(str(games.UnknownGame(game)))
    return game


#: The id of a registered game (:mod:`referee.games`, the one list of games).
GameId = Annotated[str, AfterValidator(_registered)]

Multiplier = Annotated[Decimal, Field(ge=0)]
Rounding = Literal["down", "up"]


class DefinitionError(ValueError):
    """A definition file that cannot be used; the message names the file and the key."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Seats(Strict):
    standard: PositiveInt
    max: PositiveInt

    @model_validator(mode="after")
    def _order(self) -> Seats:
        if self.standard > self.max:
            raise ValueError("standard must not exceed max")
        return self


class Penalties(Strict):
    """Bank points taken by the house-rule penalties (omaha seed; applied by every table)."""

    information_leak: int = Field(1000, ge=0)
    interference: int = Field(5000, ge=0)
    flying_action_limit: PositiveInt = 3


class Clock(Strict):
    """Action clock: a reminder, then check-if-possible-else-fold. Seconds; 0 disables."""

    remind_after: int = Field(60, ge=0)
    act_after: int = Field(120, ge=0)
    showdown_default: Literal["open", "muck"] = "open"


class Level(Strict):
    level: PositiveInt
    sb: PositiveInt
    bb: PositiveInt
    ante: PositiveInt


class TournamentDefaults(Strict):
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


STANDARD_CLASSES = (
    "royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush", "straight",
    "three_of_a_kind", "two_pair", "one_pair", "high_card",
)
"""``omaha`` / ``holdem_aa`` class ids, strongest first (docs/contracts.md §1)."""

def house_rows(
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


Section = TypeVar("Section", bound=BaseModel)


class GameDefinition(Strict):
    """A game's definition file. Each game's file also has the game's own section
    (``[GAME]``), a field of the game's subclass of this model (its
    :class:`~referee.games.GameSpec`'s ``model``): :func:`validate` picks the subclass by the
    file's ``id``."""

    id: GameId
    name: str
    decks: PositiveInt
    jokers: int = Field(0, ge=0)
    seats: Seats
    penalties: Penalties = Penalties()
    clock: Clock = Clock()

    @property
    def rules(self) -> BaseModel:
        """The game's own section (``[GAME]``): its pay tables and rules."""
        section = getattr(self, self.id, None)  # the game's model's one field of its own
        if not isinstance(section, BaseModel):
            raise TypeError(f"{self.id}: the definition has no [{self.id}] section")
        return section

    def section(self, model: type[Section]) -> Section:
        """The game's own section as ``model`` (the engine's typed view of it)."""
        found = self.rules
        if not isinstance(found, model):
            raise TypeError(f"{self.id}: the [{self.id}] section is not {model.__name__}")
        return found


def model_for(game: str) -> type[GameDefinition]:
    """The definition model of ``game`` (its GameSpec's; UnknownGame for a game that is not
    registered)."""
    model = cast("type[GameDefinition]", games.spec(game).model)
    if game not in model.model_fields:
        raise RuntimeError(f"{model.__name__} has no [{game}] section field")
    return model


def validate(data: dict[str, Any]) -> GameDefinition:
    """A definition file's data, validated by its game's model (ValidationError, or
    UnknownGame for an ``id`` that is no registered game)."""
    return model_for(str(data.get("id"))).model_validate(data)


def validation_line(err: ValidationError, where: str = "") -> str:
    """A validation error as one Japanese line: the setting's dotted name and what is wrong
    with it (pydantic's English said by its error type, the common ones by name)."""
    from referee.lang.catalog import text

    first = err.errors()[0]
    key = ".".join(str(p) for p in first["loc"]) or "(file)"
    kind, ctx = str(first.get("type", "")), dict(first.get("ctx") or {})
    details = {"decimal_parsing": "definition.detail_number",
               "float_parsing": "definition.detail_number",
               "int_parsing": "definition.detail_whole",
               "int_from_float": "definition.detail_whole",
               "missing": "definition.detail_missing",
               "extra_forbidden": "definition.detail_unknown",
               "bool_parsing": "definition.detail_bool"}
    if kind in details:
        detail = text(details[kind])
    elif kind in ("greater_than_equal", "greater_than") and ("ge" in ctx or "gt" in ctx):
        limit = str(ctx.get("ge", ctx.get("gt")))
        detail = text("definition.detail_at_least" if "ge" in ctx else "definition.detail_above",
                      limit=limit)
    elif kind == "literal_error":
        detail = text("definition.detail_choice", choices=str(ctx.get("expected", "")))
    else:
        detail = text("definition.detail_other", detail=str(first.get("msg", "")))
    return text("definition.invalid", where=where, key=key, detail=detail)


def file_problem(path: Path, e: OSError | tomllib.TOMLDecodeError) -> str:
    from referee.lang.catalog import file_error, text

    if isinstance(e, OSError):
        return file_error(path, e)
    import re

    at = re.search(r"line (\d+), column (\d+)", str(e))
    return text("definition.not_toml", path=str(path), at=text(
        "config.toml_at", line=at.group(1), column=at.group(2)) if at else "")


def load_file(path: Path) -> GameDefinition:
    try:
        with path.open("rb") as f:
            data = tomllib.load(f, parse_float=Decimal)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise DefinitionError(file_problem(path, e)) from None
    try:
        return validate(data)
    except ValidationError as e:
        raise DefinitionError(validation_line(e, f"{path}: ")) from None
    except games.UnknownGame as e:
        from referee.lang.catalog import text

        raise DefinitionError(text("definition.unknown_id", path=str(path),
                                   game=str(e.game))) from None


def load(game: str) -> GameDefinition:
    """The definition of ``game`` from its folder's ``definition.toml`` as the file is now (read
    again only when it changed: an edit applies to the next table opened, without a restart);
    DefinitionError for a game that is not registered."""
    try:
        path = path_of(game)
    except games.UnknownGame as e:
        raise DefinitionError(str(e)) from None
    try:
        st = path.stat()
        stamp = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = (0, 0)  # load_file names the file and why it cannot be read
    return _load(path, stamp)


def _typed(word: str) -> str:
    from referee.lang.normalize import fold, nfkc

    return fold(nfkc(word)).replace(" ", "")


def short_name(game: str) -> str:
    """A game's name without its parenthesised gloss: 「オマハ」 of 「オマハ（PLO リングゲーム）」,
    what a moderator types."""
    from referee.lang.normalize import nfkc

    return nfkc(load(game).name).split("(")[0].strip()


def game_of(word: str) -> str | None:
    """The game a person named: its id (``omaha``), its definition's name (「オマハ（PLO リング
    ゲーム）」) or that name's short form (「オマハ」), in any width or case; None when it names
    no game. Every place a game is typed (``!open``, ``# table:``, ``--game``) reads it here."""
    if games.is_game(word):
        return word
    typed = _typed(word)
    if not typed:
        return None
    for game in games.game_ids():
        if typed in (_typed(load(game).name), _typed(short_name(game))):
            return game
    return None


def game_names() -> str:
    """The games as a moderator may type them, for a refusal that lists them."""
    return " / ".join(short_name(g) for g in games.listed_ids())


@lru_cache(maxsize=64)
def _load(path: Path, stamp: tuple[int, int]) -> GameDefinition:
    return load_file(path)


def to_record(definition: GameDefinition) -> dict[str, Any]:
    """The definition as JSON, as a table's opening input records it: a table runs under the
    definition it was opened with, also when its inputs are re-run after the file changed."""
    return definition.model_dump(mode="json", by_alias=True)


def from_record(data: dict[str, Any]) -> GameDefinition:
    """A recorded definition (:func:`to_record`), validated again."""
    try:
        return _from_json(json.dumps(data, sort_keys=True))
    except ValidationError as e:
        raise DefinitionError(f"recorded definition: {validation_line(e)}") from None


@lru_cache(maxsize=64)
def _from_json(text: str) -> GameDefinition:
    return validate(json.loads(text))


def path_of(game: str) -> Path:
    """Where ``game``'s definition file is (UnknownGame for any other word)."""
    return games.spec(game).folder / "definition.toml"
