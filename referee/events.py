"""Events: what the referee decided, in the shape of docs/contracts.md §3.

Every accepted change to a table is an event; replay prints them as JSON Lines, the store appends
them to the event log, and tables are rebuilt from them. Engines may add event kinds of their own
(subclass :class:`Event` with a new ``event`` literal); tests ignore kinds they do not know.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, final

from pydantic import BaseModel, ConfigDict, Field, SkipValidation
from pydantic_core import to_json as _to_json

#: A sentence as data: a catalogue key with its parameters (:func:`line`), pieces joined by a
#: separator (:func:`joined`), a hand class's name (:func:`hand_name`), or a plain value (a
#: player's name, cards, a figure). Engines, discipline and commands build these; the voice
#: (:func:`referee.rules.voice.phrase_text`) renders them, at the turn's boundary, so the event
#: log keeps the facts and never the Japanese.
Phrase = Any

#: The ``key`` of a ``say`` whose sentence is several phrases joined (``params``: ``sep`` and
#: ``items``), not one catalogue message.
JOIN = "join"


def line(key: str, /, **params: Any) -> dict[str, Any]:
    """Catalogue message ``key`` with ``params`` (each a :data:`Phrase`), not yet rendered."""
    return {"key": key, "params": params} if params else {"key": key}


def joined(sep: Phrase, items: Iterable[Phrase]) -> dict[str, Any]:
    """``items`` joined by ``sep`` (both phrases): a list, or pieces said one after another."""
    return {"join": sep, "items": list(items)}


def hand_name(game: str, klass: str) -> dict[str, Any]:
    """The name of hand class ``klass`` of ``game`` (:data:`referee.hands.NAMES`)."""
    return {"hand": game, "class": klass}


def game_name(game: str, short: bool = False) -> dict[str, Any]:
    """The name of ``game`` from its definition (「オマハ（PLO リングゲーム）」), or its ``short``
    form (「オマハ」)."""
    return {"game": game, "short": True} if short else {"game": game}


class Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    event: str

    @final
    def to_json(self) -> dict[str, Any]:
        """The event's JSON object: what :func:`event_json` writes, as a dict (the same compiled
        serializer; final, so that no kind serialises two ways)."""
        return self.model_dump(mode="json", exclude_none=True)


class HandStart(Event):
    event: Literal["hand_start"] = "hand_start"
    hand: int
    button: int


class ActionEvent(Event):
    event: Literal["action"] = "action"
    player: str
    action: str
    amount: int = 0
    to: int | None = None
    # the house games' stakes: the ante and AA bet of a holdem_aa stake, an all-in
    ante: int | None = None
    aa: int | None = None
    allin: bool | None = None
    # what the action tells the room: seven's two discards or deuces' kept cards (``cards``),
    # seven's declared hand (``hand``, a class code of referee.hands.NAMES)
    cards: list[str] | None = None
    hand: str | None = None


class Rejected(Event):
    """An action the table refused: ``code`` and ``params`` name the catalogue message that
    says why (tests and tools assert the code); ``reason`` is that message rendered for the
    player, filled in by the voice at the turn's boundary. The event log keeps the code and
    its parameters (:func:`fact_json`), never the rendered reason (older logs hold only it)."""

    event: Literal["rejected"] = "rejected"
    player: str
    text: str
    reason: str | None = None
    code: str | None = None
    params: dict[str, Any] | None = Field(default=None, exclude=True)


class FlyingAction(Event):
    event: Literal["flying_action"] = "flying_action"
    player: str
    action: str
    count: int


class Flag(Event):
    event: Literal["flag"] = "flag"
    id: int
    player: str
    kind: Literal["information_leak", "interference"]
    text: str
    confidence: Literal["high", "low"]


class Penalty(Event):
    event: Literal["penalty"] = "penalty"
    player: str
    kind: Literal[
        "flying_action_limit", "check_fa", "allin_fa", "information_leak", "interference"
    ]
    points: int = 0
    chips: int = 0


class Pot(Event):
    """A pot paid out. ``odd``: the chips that did not split evenly, given to ``odd_to`` (the
    first winner clockwise from the button); ``uncontested``: everyone else folded."""

    event: Literal["pot"] = "pot"
    index: int
    amount: int
    shares: dict[str, int]
    odd: int | None = None
    odd_to: str | None = None
    uncontested: bool | None = None


class Rake(Event):
    """The house's rake: ``amount`` taken from a ``pot`` of that many chips at ``percent``."""

    event: Literal["rake"] = "rake"
    amount: int
    pot: int | None = None
    percent: str | None = None


class Settle(Event):
    event: Literal["settle"] = "settle"
    player: str
    result: Literal["win", "lose", "push", "dealer_fold", "dq", "fold"]
    payout: int
    # the house games' breakdown: what each stake paid, the hand's class, seven's dealer-hand
    # owner (its win count) and a dealer that folded
    ante: int | None = None
    call: int | None = None
    aa: int | None = None
    bets: int | None = None
    hand: str | None = None
    wins: int | None = None
    dealer_hand: bool | None = None
    # seven's dealer-hand owner: the win-count multiplier (a decimal string) its wins paid
    multiplier: str | None = None
    dealer_fold: bool | None = None
    # holdem_aa / seven: the class of the dealer's hand the player's was compared with (a code
    # of referee.hands.NAMES, like ``hand``)
    dealer_class: str | None = None


class BonusArea(Event):
    event: Literal["bonus_area"] = "bonus_area"
    cards: list[str]
    markers: list[int]


class Say(Event):
    """A message the bot sends: ``to`` is ``room`` or a player's name (a private message).
    ``cards``: the cards a private message tells the player (their hand, a replacement), so
    that ``referee verify`` checks them without reading the text.

    The sentence is a fact: catalogue message ``key`` with ``params`` (:data:`Phrase` values;
    key :data:`JOIN`: several phrases joined). ``text`` is it rendered, filled in by the voice
    at the turn's boundary for the shells and the replay; the event log keeps key and params
    (:func:`fact_json`), never the text (older logs hold only the text)."""

    event: Literal["say"] = "say"
    to: str
    text: str | None = None
    cards: list[str] | None = None
    key: str | None = Field(default=None, exclude=True)
    # not copied (a phrase is never changed once made)
    params: SkipValidation[dict[str, Any] | None] = Field(default=None, exclude=True)

    @classmethod
    def of(cls, to: str, phrase: Phrase, cards: list[str] | None = None) -> Say:
        """The message that says ``phrase`` (a :func:`line` or :func:`joined`) to ``to``."""
        if isinstance(phrase, dict):
            if "key" in phrase:
                return cls(to=to, key=phrase["key"], params=phrase.get("params"), cards=cards)
            if "join" in phrase:
                return cls(to=to, key=JOIN, params={"sep": phrase["join"],
                                                    "items": phrase["items"]}, cards=cards)
        return cls(to=to, key=JOIN, params={"sep": "", "items": [phrase]}, cards=cards)


class Seated(Event):
    """A player sat down at the room's table with ``chips`` (the service, after the engine
    seated them): with ``hand_end`` stacks and ``leave``, what a player holds at a table."""

    event: Literal["seated"] = "seated"
    player: str
    seat: int
    chips: int


class Leave(Event):
    event: Literal["leave"] = "leave"
    player: str
    chips: int
    bank: int


class HandEnd(Event):
    event: Literal["hand_end"] = "hand_end"
    hand: int
    stacks: dict[str, int]


class LevelUp(Event):
    """A tournament's blinds rise (at the start of a hand)."""

    event: Literal["level_up"] = "level_up"
    level: int
    sb: int
    bb: int
    ante: int


class Eliminated(Event):
    """A tournament entrant out of chips, with their place."""

    event: Literal["eliminated"] = "eliminated"
    player: str
    place: int


class TournamentEnd(Event):
    """The last player standing: every entrant's place and the prizes paid to the bank."""

    event: Literal["tournament_end"] = "tournament_end"
    places: dict[str, int]
    prizes: dict[str, int]


class HandSeats(Event):
    """Right after ``hand_start`` (the service): who was dealt in, from which seat, with the
    chips they had before antes and blinds, and the stakes -- what a hand history needs that
    the other events do not say (all of it public at the table)."""

    event: Literal["hand_seats"] = "hand_seats"
    hand: int
    game: str
    seats: list[dict[str, Any]]
    stakes: dict[str, int] = {}
    limit: str = ""
    # the table the hand was dealt at (``table_open``'s id): with ``hand`` and ``game`` the
    # hand's one identity across the database (hand numbers restart at every table)
    table: int | None = None


class Posted(Event):
    """A forced bet put in as a hand starts, before any action: an ante (``ante``), the small
    or the big blind (``sb``, ``bb``), or the big blind a player seated since the table's last
    hand posts to come in (``newcomer_bb``); ``amount``: the chips posted (at most the stack).
    Right after ``hand_seats``, in the order they were posted. Logs from before this kind have
    none: their readers infer the posts from ``hand_seats`` (referee.records.replay)."""

    event: Literal["posted"] = "posted"
    player: str
    kind: Literal["ante", "sb", "bb", "newcomer_bb"]
    amount: int


class DealCommitment(Event):
    """Before any card of a randomly dealt hand: SHA-256 of the server seed (docs/fairness.md)."""

    event: Literal["deal_commitment"] = "deal_commitment"
    hand: int
    sha256: str


class DealReveal(Event):
    """After ``hand_end``: the seed, the entropy and the deck in shoe order (card strings). The
    service adds ``sha256``, ``dealt`` (the deal as recorded: hands in seat order, dealer,
    board, spare ``shoe``, ``dice``; deuces' first bonus area as ``bonus``), and when used
    ``bonus_deck`` and ``dice``."""

    event: Literal["deal_reveal"] = "deal_reveal"
    hand: int
    seed: str
    entropy: str
    deck: list[str]
    sha256: str | None = None
    game: str | None = None
    decks: int | None = None
    jokers: int | None = None
    dealt: dict[str, Any] | None = None
    bonus_deck: list[str] | None = None
    dice: list[int] | None = None


# --- what the room was shown: the records (history, console, verify) read these, never the
# sentences that announce them -------------------------------------------------------------------


class BoardDealt(Event):
    """Board cards turned face up: ``street`` (``flop``, ``turn``, ``river``), the new
    ``cards`` and the whole ``board`` so far (card strings)."""

    event: Literal["board"] = "board"
    street: Literal["flop", "turn", "river"]
    cards: list[str]
    board: list[str]


class Shown(Event):
    """Cards shown to the room. ``player`` is a player's name or ``dealer`` (the house games'
    dealer hand); ``why``: ``showdown`` (opened at the showdown), ``open`` (the winner's OPEN
    after everyone folded), ``fold`` (a fold with cards shown), ``muck`` (a muck with cards
    shown), ``deal`` (dealt face up: seven), ``result`` (a house game's hands at the
    settlement). ``seat``: the seat dealt to, when the deal names it; ``hand_class``: the class
    the shown cards make (a code of :data:`referee.hands.NAMES`), when the room is told."""

    event: Literal["shown"] = "shown"
    player: str
    cards: list[str]
    why: Literal["showdown", "open", "fold", "muck", "deal", "result"]
    seat: int | None = None
    hand_class: str | None = None
    #: a house dealer's hand at the settlement: whether it qualified (False: the dealer folds)
    qualified: bool | None = None


class Mucked(Event):
    """A player gave up their hand at the showdown without showing it all (see ``shown``)."""

    event: Literal["muck"] = "muck"
    player: str


class TableOpened(Event):
    """A table opened in ``room`` (``!open`` or a ``# table:`` directive): ``table`` numbers
    the tables of the database in the order they opened (a hand is ``table`` + its number)."""

    event: Literal["table_open"] = "table_open"
    table: int
    room: str
    game: str
    options: dict[str, str] = {}


class TableClosed(Event):
    """The table closed (``!close`` after its last hand, or replaced by a ``# table:``)."""

    event: Literal["table_close"] = "table_close"
    table: int
    room: str


# --- the service's own kinds (docs/contracts.md §3 allows new kinds; the store derives from them)


class RankChange(Event):
    """``!rank`` / ``# rank:``: a player's rank mark ("" = 無印)."""

    event: Literal["rank"] = "rank"
    player: str
    mark: str
    previous: str = ""


class BankChange(Event):
    """A moderator's !grant, a buy-in or a ``# bank:`` directive: the ledger entry points at
    this event."""

    event: Literal["bank"] = "bank"
    player: str
    delta: int
    balance: int
    reason: str


REFEREE = "referee"
"""The ``by`` of a decision the referee took itself (:class:`FlagDecided`)."""


class FlagDecided(Event):
    """``!confirm`` / ``!dismiss`` of a flag (``by``: the moderator, or :data:`REFEREE`)."""

    event: Literal["flag_decided"] = "flag_decided"
    id: int
    decision: Literal["confirmed", "dismissed"]
    by: str


class PenaltyReversed(Event):
    """``!dismiss`` of a charged flag: the points go back (its ledger entry points here)."""

    event: Literal["penalty_reversed"] = "penalty_reversed"
    player: str
    kind: str
    points: int
    flag: int


# --- omaha's own kinds --------------------------------------------------------------------------


class FlyingActionApplied(Event):
    """A flying action (FA) applied at the player's turn."""

    event: Literal["fa_applied"] = "fa_applied"
    player: str
    action: str


class FlyingActionVoid(Event):
    """A flying action that could not stand at the player's turn (``chips`` it had put up)."""

    event: Literal["fa_void"] = "fa_void"
    player: str
    action: str
    chips: int


class Returned(Event):
    """An uncalled bet returned to the player."""

    event: Literal["returned"] = "returned"
    player: str
    amount: int


class HandBonus(Event):
    """A hand bonus (bank points, credited when the player leaves) for making ``hand``."""

    event: Literal["hand_bonus"] = "hand_bonus"
    player: str
    hand: str
    bank: int


class HouseTopup(Event):
    """LOJ rules: chips the house adds to pot ``index`` so every winner gets the rounded-up
    share."""

    event: Literal["house_topup"] = "house_topup"
    index: int
    amount: int


class Misdeal(Event):
    """``!misdeal @p``: the player's hand is burned and replaced."""

    event: Literal["misdeal"] = "misdeal"
    player: str
    burned: list[str]


class NoGame(Event):
    """``!nogame``: the hand is void; ``payments`` is what each player gets back."""

    event: Literal["nogame"] = "nogame"
    pot: int
    payments: dict[str, int]


class Exposed(Event):
    """``!exposed @p``: the player's exposed hand (now shown) and the ``chips`` paid for it."""

    event: Literal["exposed"] = "exposed"
    player: str
    cards: list[str]
    chips: int


class Burned(Event):
    """``!exposed board``: an exposed board card burned and replaced."""

    event: Literal["burned"] = "burned"
    card: str


def fact_json(ev: Event) -> str:
    """The event as the event log keeps it: :func:`event_json`, except that a ``say`` or a
    ``rejected`` keeps its sentence's catalogue key and parameters instead of the rendered
    Japanese."""
    if isinstance(ev, Say) and ev.key is not None:
        out: dict[str, Any] = {"event": "say", "to": ev.to, "key": ev.key}
        if ev.params:
            out["params"] = ev.params
        if ev.cards is not None:
            out["cards"] = ev.cards
        return _to_json(out).decode()
    if isinstance(ev, Rejected) and ev.code is not None:
        rej: dict[str, Any] = {"event": "rejected", "player": ev.player, "text": ev.text,
                               "code": ev.code}
        if ev.params:
            rej["params"] = ev.params
        return _to_json(rej).decode()
    return event_json(ev)


def event_json(ev: Event) -> str:
    """The event as compact JSON: the one serialisation of an event, which the replay prints and
    the store saves. It is pydantic's compiled serializer of the event's class, for every kind
    (no kind is spelled out by hand); :meth:`Event.to_json` is the same serializer's dict."""
    return type(ev).__pydantic_serializer__.to_json(ev, exclude_none=True).decode()
