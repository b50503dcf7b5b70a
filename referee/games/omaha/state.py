"""The omaha table's state, as plain data: who sits where, who is in the hand, a pending flying
action, the phase, the hand being played and the clock, and the plans an action is split into
(checked, then applied).

Kept apart from the engine's logic so every part of the engine (rounds, flying actions, the
showdown, dealing mistakes) reads the same small vocabulary -- each part is handed the one
:class:`Hand` and :class:`ActionClock` of its table --, and so the plans -- what
:meth:`~referee.rules.base.Engine._check_act` decided -- are values that cannot change between
the check and the apply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from referee.cards import Card, cards_str, pretty
from referee.events import ActionEvent, Phrase, Say, Shown
from referee.rules.betting import Betting
from referee.rules.clock import WaitClock

#: Where the table is: no hand yet (``idle``), a betting round (``betting``), hands being opened
#: (``showdown``), the hand settled (``over``: the winner of an uncontested pot may still show).
Phase = Literal["idle", "betting", "showdown", "over"]
#: The phases of a running hand (``in_hand``): ``betting`` and ``showdown``.
LIVE_PHASES: frozenset[Phase] = frozenset(("betting", "showdown"))
#: A betting decision, resolved from what the player typed.
Move = Literal["fold", "check", "call", "raise"]
#: What a player with a voided (β) flying action may still do.
Restriction = Literal["call_or_fold", "raise_or_fold"]
#: Why cards are shown (the ``shown`` event's ``why``).
ShownWhy = Literal["showdown", "open", "fold", "muck"]


_PRETTY = tuple(pretty(Card(c)) for c in range(53))  # every card's display, computed once


def show(cs: list[Card]) -> str:
    """Cards as the room reads them: ``A♥ K♦``."""
    return " ".join([_PRETTY[c] for c in cs])


def say(to: str, phrase: Phrase, cards: list[Card] | None = None) -> Say:
    """A message (a :func:`referee.events.line`); ``cards``: the cards a private one tells
    (the ``say`` event's ``cards``)."""
    return Say.of(to, phrase, None if cards is None else cards_str(cards))


def shown(player: str, cards: list[Card], why: ShownWhy, klass: str | None = None) -> Shown:
    """``shown``: what the room is told the player's cards are (before the sentence that
    announces them)."""
    return Shown(player=player, cards=cards_str(cards), why=why, hand_class=klass)


def action_event(player: str, act: str, paid: int | None = None, to: int = 0) -> ActionEvent:
    """``action``: without ``paid`` (fold, check, open, muck) only the player and the action."""
    if paid is None:
        return ActionEvent(player=player, action=act)
    return ActionEvent(player=player, action=act, amount=paid, to=to)


@dataclass(slots=True)
class Sitter:
    """A seat at the table, across hands."""

    seat: int
    name: str
    chips: int
    fa_count: int = 0
    bonus: int = 0  # hand bonus points earned this seating, credited on leaving
    newcomer: bool = False
    leaving: bool = False


@dataclass(slots=True)
class FlyingDeclaration:
    """A flying action waiting for the player's turn."""

    kind: Literal["check", "call", "raise"]
    to: int  # raise: the make; call: the bet it called
    chips: int  # reserved (not yet in the betting stack accounting)


@dataclass(slots=True)
class HandPlayer:
    """A player dealt into the current hand."""

    name: str
    seat: int
    idx: int  # index in Betting.seats (clockwise from the button's left)
    hole: list[Card]
    fa: FlyingDeclaration | None = None
    reserved: int = 0  # chips a voided (β) FA left in: they count towards the next action
    restrict: Restriction | None = None  # after a β flying action
    shown: list[Card] = field(default_factory=list)
    opened: bool = False
    mucked: bool = False
    removed: bool = False
    credit: int = 0  # house payments due at the end of the hand (exposed hand)
    dead: int = 0  # penalty chips this player put into the dead money this hand (misdeal rewind)


class Hand:
    """The hand being played, the one state the engine's parts share: the deal, the players
    dealt in, the betting, the board shown so far, the showdown's queue. :meth:`reset` at every
    deal; ``number`` counts the hands and outlives them."""

    def __init__(self) -> None:
        self.number = 0
        self.reset()

    def reset(self) -> None:
        """A new hand: nothing dealt, nothing bet (``number`` is the dealer's to count)."""
        self.phase: Phase = "idle"
        self.players: list[HandPlayer] = []
        self.pmap: dict[str, HandPlayer] = {}
        self.bet: Betting | None = None
        self.board: list[Card] = []
        self.spare: list[Card] = []  # the deal's shoe: replacements for burned cards
        self.shown_board = 0
        self.street = 0
        self.aggressor: int | None = None
        self.flop_seen = False
        self.sd_queue: list[int] = []
        self.winner_after_fold: str | None = None
        # the betting as the blinds left it, for a misdeal's rewind
        self.snapshot: list[tuple[int, int, int, bool]] = []
        self.snap_money: tuple[int, int, int] = (0, 0, 0)
        self.first_idx = 0
        self.keys: dict[int, int] = {}  # hand values by player index, computed once

    @property
    def live(self) -> bool:
        """Between the deal and the settling of the pots (the engine's ``in_hand``)."""
        return self.phase in LIVE_PHASES

    def b(self) -> Betting:
        """The hand's betting (there is one from the deal on)."""
        assert self.bet is not None
        return self.bet


@dataclass(slots=True)
class ActionClock:
    """The table's time as the engine last heard it (``now``: time comes only as an argument)
    and the wait for the player awaited, shared by the parts that start something new to
    await."""

    now: float | None = None
    wait: WaitClock = field(default_factory=WaitClock)

    def restart(self) -> None:
        """Something new is awaited: the wait starts now (or at the next clock reading)."""
        self.wait.restart(self.now)


# --- plans: what a checked action will do (Engine._check_act returns one, _apply_act runs it) ---

@dataclass(frozen=True, slots=True)
class TurnPlan:
    """The player to act bets, calls, checks or folds (``show``: cards shown with a fold)."""

    player: HandPlayer
    move: Move
    to: int
    show: tuple[Card, ...]
    now: float | None


@dataclass(frozen=True, slots=True)
class FlyingPlan:
    """A declaration before the player's turn. ``resolved``: the move it stands for when it is
    recorded; ``show``: cards shown with a flying fold."""

    player: HandPlayer
    action: str
    resolved: tuple[Move, int] | None
    show: tuple[Card, ...]
    now: float | None


@dataclass(frozen=True, slots=True)
class ShowdownPlan:
    """The player whose turn it is at the showdown opens or mucks (``show``: shown with a muck)."""

    player: HandPlayer
    open: bool
    show: tuple[Card, ...]
    now: float | None


@dataclass(frozen=True, slots=True)
class AfterFoldPlan:
    """The winner of an uncontested pot opens (``show``: the cards) or closes."""

    player: HandPlayer
    close: bool
    show: tuple[Card, ...]
    now: float | None


Plan = TurnPlan | FlyingPlan | ShowdownPlan | AfterFoldPlan

__all__ = [
    "LIVE_PHASES", "ActionClock", "AfterFoldPlan", "FlyingDeclaration", "FlyingPlan", "Hand",
    "HandPlayer", "Move",
    "Phase", "Plan", "Restriction", "ShowdownPlan", "Sitter", "TurnPlan",
    "action_event", "say", "show",
]
