"""The contract between the referee service and a game engine.

An engine is a deterministic state machine: the same inputs (seatings, explicit deals, parsed
actions, operations and clock ticks) always give the same events. That is what makes the store's
event log enough to rebuild a table after a crash, and what makes a transcript replay exercise the
same code as the live bot. Every method validates before it mutates: one that raises leaves the
table exactly as it was.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from referee.actions import Parsed
from referee.cards import Card, Shoe
from referee.definitions import GameDefinition
from referee.events import Event, Phrase

#: A decision the table awaits from one player: the betting turn (``bet``), opening or mucking
#: at the showdown (``showdown``), showing after everyone else folded (``after_fold``), the
#: house games' stake (``stake``), call-or-fold (``decide``), seven's action rounds (``round1``,
#: ``round2``) and discard declaration (``declare``), deuces' keep-or-throw (``play``) and the
#: order of its duplicates (``duplicate``). The service names it when it cannot read a message.
Decision = Literal[
    "bet", "showdown", "after_fold", "stake", "decide", "round1", "round2", "declare", "play",
    "duplicate",
]


class IllegalAction(Exception):
    """An action or operation the table cannot accept now.

    ``code`` names a message of the catalogue (``referee/lang/messages/*.toml``) and ``params``
    (each a :data:`~referee.events.Phrase`) fill it in: a fact, which the voice renders where
    the refusal is delivered (:func:`referee.rules.voice.refusal_text`). Tests assert the code;
    tests/test_catalogue_only.py checks that every code raised names a message.
    """

    def __init__(self, code: str, /, **params: Any) -> None:
        self.code = code
        self.params = params
        super().__init__(code)


class OptionError(ValueError):
    """A table option (``# table:`` line, ``!open`` arguments) that is unknown or out of range:
    a catalogue ``code`` and its ``params``, rendered by the voice where it is told (as
    :class:`IllegalAction`)."""

    def __init__(self, code: str, /, **params: Any) -> None:
        self.code = code
        self.params = params
        super().__init__(code)


@dataclass
class Deal:
    """Every card (and die) one hand will use, fixed before it starts.

    Transcripts give it explicitly (``# deal:``); the live service draws it from a shuffled
    :class:`~referee.cards.Shoe` and stores it, so a restart replays the very same hand.
    ``hands`` are in the order dealt to each player; ``shoe`` is the order cards leave the shoe
    for replacements and draws; ``dealer`` is the house's hand (``seven``: the dealer seat's).
    """

    hands: dict[str, list[Card]] = field(default_factory=dict)
    board: list[Card] = field(default_factory=list)
    dealer: list[Card] = field(default_factory=list)
    shoe: list[Card] = field(default_factory=list)
    dice: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class BuyIn:
    """What sitting down moves: ``points`` taken from the bank (the ledger's ``reason``), and
    the ``chips`` the player gets at the table."""

    points: int
    chips: int
    reason: str = "buy_in"


@dataclass(frozen=True)
class DealPlan:
    """Cards a live deal needs: per player, for the house (dealer), the board, a spare shoe for
    replacements and draws, and dice. :meth:`Engine.draw_deal` deals from it."""

    per_player: int
    dealer: int = 0
    board: int = 0
    spare: int = 0
    dice: int = 0


@dataclass(frozen=True, slots=True)
class Offer:
    """One action the table accepts from a player now, with its chips: the turn prompt lists
    exactly an engine's offers and its check accepts exactly them (one place decides both)."""

    action: str  # a parsed action's name: check, call, raise, hyper_raise, extra_raise, fold, …
    chips: int = 0  # what it puts in (a call, a fixed-size raise); 0 for a check or a fold
    min_to: int = 0  # a make's range (omaha's raise), both totals
    max_to: int = 0


@dataclass
class SeatState:
    seat: int
    name: str
    chips: int
    npc: bool = False


class Engine(ABC):
    """One table of one game. Subclasses implement the rules; the service drives them."""

    game: str
    #: What :meth:`draw_deal` deals by default (engines with a deal of their own override it).
    deal_plan: ClassVar[DealPlan] = DealPlan(0)

    def __init__(self, definition: GameDefinition, options: dict[str, str]) -> None:
        self.definition = definition
        self.options = dict(options)
        self.hand_no = 0
        self.last_slot = False

    # --- seating -------------------------------------------------------------------------
    @abstractmethod
    def sit(self, seat: int, name: str, chips: int, npc: bool = False) -> list[Event]:
        """Seat a player with ``chips`` at the table (already converted from bank points)."""

    @abstractmethod
    def leave(self, name: str) -> list[Event]:
        """Stand a player up (after the current hand if they are in it); emits ``leave``."""

    def buy_in_chips(self, bank_points: int) -> int:
        """Table chips for ``bank_points`` brought from the bank (omaha: ×10 unless equal-value)."""
        return bank_points

    def buy_in(self, bank_points: int) -> BuyIn:
        """What ``!sit`` takes from a bank of ``bank_points`` and brings to the table: every
        point by default (omaha: up to a max buy-in; a tournament: its entry, for its stack).
        Raises IllegalAction when the bank cannot pay."""
        return BuyIn(bank_points, self.buy_in_chips(bank_points))

    def status(self, now: float | None = None) -> list[Phrase]:
        """Extra lines for ``!status`` (a tournament's level, blinds, players left…)."""
        return []

    def set_button(self, seat: int) -> None:
        """``# button: N``: the button seat for the next hand."""
        raise IllegalAction("engine_no_button")

    def set_bonus_area(self, cards: list[Card], markers: list[int] | None = None) -> None:
        """``# bonus:`` (deuces only): the bonus area, oldest first."""
        raise IllegalAction("engine_no_bonus_area")

    # --- capabilities (the service asks these; it never names a game) ----------------------
    def draw_deal(self, shoe: Shoe, rng: random.Random) -> Deal:
        """A live deal for the players seated now, from ``shoe`` (already shuffled) by
        :attr:`deal_plan`; ``rng`` throws the dice."""
        plan = self.deal_plan
        deal = Deal()
        for s in self.seated():
            deal.hands[s.name] = shoe.draw(plan.per_player)
        deal.dealer = shoe.draw(plan.dealer)
        deal.board = shoe.draw(plan.board)
        deal.shoe = shoe.draw(min(plan.spare, len(shoe)))
        deal.dice = [rng.randint(1, 6) for _ in range(plan.dice)]
        return deal

    def carried(self) -> dict[str, Any] | None:
        """State this table hands on to the next table of its game when it closes (deuces: the
        bonus area, as JSON-ready data), or None."""
        return None

    def carry(self, data: dict[str, Any]) -> None:
        """Take over what a closed table of this game handed on (:meth:`carried`)."""
        return None

    def stakes(self) -> dict[str, int]:
        """The blinds and ante of the hand being played (``sb``, ``bb``, ``ante``), for its
        history; {} in games without them."""
        return {}

    def history_seats(self) -> list[SeatState]:
        """The players a hand history lists: everyone seated (the house games: they stake by
        message); omaha: the players dealt in."""
        return self.seated()

    def at_showdown(self) -> bool:
        """Cards are being opened (a leak judged then is judged as table talk at a showdown)."""
        return False

    # --- the hand ------------------------------------------------------------------------
    @abstractmethod
    def start_hand(self, deal: Deal) -> list[Event]:
        """Start the next hand with these cards (antes and blinds posted where the game does)."""

    def act(self, player: str, action: Parsed, now: float | None = None) -> list[Event]:
        """Apply a player's parsed action (resolved against the state); raises IllegalAction.

        The transaction, the same for every game: :meth:`_check_act` only reads the state and
        either refuses (IllegalAction) or returns a plan; :meth:`_apply_act` carries the plan
        out and cannot refuse. So a refused action leaves no trace."""
        plan = self._check_act(player, action, now)
        return self._apply_act(plan)

    def can(self, player: str, action: Parsed, now: float | None = None) -> bool:
        """Whether :meth:`act` would accept ``action`` now (the check alone: nothing changes)."""
        try:
            self._check_act(player, action, now)
        except IllegalAction:
            return False
        return True

    def _check_act(self, player: str, action: Parsed, now: float | None) -> Any:
        """Validate ``action`` against the state, without changing it; returns the plan."""
        raise NotImplementedError

    def _apply_act(self, plan: Any) -> list[Event]:
        """Carry out a plan :meth:`_check_act` returned (never raises IllegalAction)."""
        raise NotImplementedError

    def tick(self, now: float) -> list[Event]:
        """The action clock: reminders and default actions due at ``now`` (seconds)."""
        return []

    # --- operations decided outside the engine (moderators, the leak/interference pipeline) ---
    def force_fold(self, player: str) -> list[Event]:
        raise IllegalAction("engine_no_force_fold")

    def remove(self, player: str) -> list[Event]:
        """Remove from the table at once (after a forced fold); emits ``leave``."""
        raise IllegalAction("engine_no_remove")

    def dealing_mistake(self, kind: str, player: str | None = None) -> list[Event]:
        """``!nogame`` / ``!misdeal @p`` / ``!exposed @p``: the game's dealing-mistake procedure."""
        raise IllegalAction("engine_no_mistake")

    def set_last_slot(self, on: bool) -> list[Event]:
        self.last_slot = on
        return []

    # --- queries ---------------------------------------------------------------------------
    @property
    @abstractmethod
    def in_hand(self) -> bool:
        """A hand is running (between ``hand_start`` and ``hand_end``)."""

    @abstractmethod
    def stacks(self) -> dict[str, int]:
        """Chips at the table of every seated player."""

    @abstractmethod
    def seated(self) -> list[SeatState]:
        """Seated players in seat order."""

    def is_seated(self, name: str) -> bool:
        """``name`` has a seat here (asked on every message: engines may answer without
        building :meth:`stacks`)."""
        return name in self.stacks()

    def to_act(self) -> str | None:
        """Whose turn it is, if any one player's."""
        return None

    def decision(self, player: str) -> Decision | None:
        """The decision the table awaits from ``player`` now (None: nothing is asked of them)."""
        return None

    def offers(self, player: str) -> tuple[Offer, ...]:
        """What ``player``'s turn accepts now, in the prompt's order (() when nothing is asked
        of them one by one): the prompt renders these and the check refuses any other."""
        return ()

    def holdings(self, player: str) -> list[Card]:
        """The cards ``player`` holds now ([] if none): the one answer to "what is my hand",
        after every replacement (a deuces duplicate removed is no longer held)."""
        return []

    def held_this_hand(self, player: str) -> list[Card]:
        """Every card ``player`` has held at any time this hand (leak detection: a card
        replaced was still seen); the current hand where no card is ever replaced."""
        return self.holdings(player)

    def shown(self, player: str) -> list[Card]:
        """Cards ``player`` has legally shown this hand (these may be talked about)."""
        return []

    def board_cards(self) -> list[Card]:
        """Community cards face up to everyone now (leak checks judge hand-class claims on them)."""
        return []

    def in_this_hand(self, player: str) -> bool:
        """Dealt into the current hand (folded or not)."""
        return bool(self.holdings(player))
