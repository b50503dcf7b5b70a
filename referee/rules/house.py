"""Shared machinery of the house-banked games (``holdem_aa``, ``seven``, ``deuces``).

Game-independent on purpose: every function takes plain numbers and the relevant ruling values
(never a game's rules model), so each engine passes its own ``games/*/definition.toml`` section in.

What lives here, and the rulings it implements (docs/rules.md, seeds):

* **Payouts** (:func:`pay`): a multiplier *includes* the stake (2x = the bet back plus the same
  again) and is exact (:class:`~decimal.Decimal`); the result is rounded to whole chips by the
  game's ``payout_rounding`` ruling (``down``: the house keeps the fraction; ``up``: the player
  gets it). :func:`bet_size` sizes bets quoted in antes (``seven``'s extra raise is 2.5x): always
  rounded down, so a bet never exceeds what the multiple allows.
* **Table options** (:func:`table_options`): ``ante=N`` (the table's ante unit) and
  ``lastslot=on|off``; anything else is an :class:`OptionError`.
* **Stakes** (:func:`check_ante`, :func:`allin_ante`): a posted ante must be a positive multiple of
  the table's ante unit (or, with ``ante_multiple = false``, any amount of at least one unit) and
  must leave the chips the game needs later (``cover`` antes in total: ``holdem_aa`` 2 = ante +
  call, ``seven`` 3 = ante + two calls). Whoever cannot (or will not) do that goes **all-in**:
  side bets come off first, then ``1/divisor`` of the rest, rounded down, is the ante; the
  remainder of the division is not bet.
* **Seats and bankruptcy** (:class:`HouseTable`): players are seated with table chips (1:1 bank
  points in the house games), remembered with the chips they sat down with (the last-slot joker
  effect restores to that), and leave with ``bank = chips``. After every hand a player below the
  game's ``bankrupt_below`` is bankrupt and stood up (a ``say`` and a ``leave`` event); nobody can
  sit down below it either.
* **Joker bonus** (:func:`joker_bonus`): a player who draws a joker is paid at once
  ``joker.ante`` x their ante and ``joker.bets`` x their action bets so far. In the **last slot**
  this is preceded by: if the player holds fewer points than when they sat down, their points
  are restored to that amount; otherwise they also receive ``joker.lastslot_extra`` x ante and
  x action bets. Ruling: "holds" counts the chips behind plus the bets on the table this hand
  (the bets are still the player's until settlement), so a player is not "restored" merely
  because their stake is out.
* **The action clock** (:class:`WaitClock`): the game definition's ``clock`` reminds the players
  the table waits for after ``remind_after`` seconds and applies the default after ``act_after``
  (each engine documents its defaults: sit the hand out, fold, declare the best hand).
* **The house's books** (:class:`HandBook`): every chip a player puts up (``staked``) and every chip
  the house hands back or pays (``paid``: settlements, joker bonuses, restores, compensations) is
  booked per player; the ``house`` event carries the totals and ``result = staked - paid``, so
  for every hand ``sum(stack changes) + result == 0`` (chips are conserved between players and
  house; a player who left during the hand counts with the chips their ``leave`` took away).
* **Removal** (the lead's ruling for every house game): a player removed from the table by a
  penalty forfeits to the house what they staked this hand and gets no dealing-mistake
  guarantee; their stake stays booked as staked, nothing is booked as paid to them.
* **Closing a hand** (:meth:`HouseTable.credit`, :meth:`HouseTable.close_hand`): payouts are
  credited and booked, then ``house``, ``hand_end`` and the bankruptcies/leaves, in that order,
  in every house game.

Events added here (docs/contracts.md §3 allows new kinds): ``joker`` (player, payout, restore, ante,
bets), ``house`` (hand, staked, paid, result), ``compensation`` (player, payout and the per-bet
breakdown: a dealing mistake's guaranteed payout).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any, Literal, Protocol

from referee.cards import Card, pretty
from referee.definitions import GameDefinition
from referee.events import Event, HandEnd, Leave, Phrase, Say, Settle, hand_name, joined, line
from referee.hands import NAMES
from referee.rules.base import Engine, IllegalAction, OptionError, SeatState
from referee.rules.clock import WaitClock
from referee.rules.voice import leave_line

Rounding = Literal["down", "up"]

#: Where a house game's hand stands: ``idle`` between hands, ``stakes`` while antes are posted,
#: then ``holdem_aa``'s ``decide`` (call or fold) or ``seven``'s ``round1``, ``round2`` and
#: ``declare`` (deuces has phases of its own, :mod:`referee.games.deuces.engine`).
Phase = Literal["idle", "stakes", "decide", "round1", "round2", "declare"]

__all__ = [
    "Compensation",
    "HandBook",
    "HouseEngine",
    "HousePlayer",
    "HouseResult",
    "HouseTable",
    "JokerBonus",
    "JokerEvent",
    "Phase",
    "Rounding",
    "WaitClock",
    "allin_ante",
    "allin_flag",
    "announce_compensation",
    "bet_size",
    "check_ante",
    "house_line",
    "joker_bonus",
    "joker_line",
    "names",
    "pay",
    "settlement_line",
    "show",
    "table_options",
]


def show(cards: list[Card]) -> str:
    """Cards as the room reads them (``A♠ K♦``)."""
    return " ".join(pretty(c) for c in cards)


# --- events ---------------------------------------------------------------------------------


class JokerEvent(Event):
    """A joker drawn by a player: ``payout`` chips paid at once (``restore`` of them by the
    last-slot restoration), ``ante`` / ``bets`` the stakes the multiples applied to."""

    event: Literal["joker"] = "joker"
    player: str
    payout: int
    restore: int = 0
    ante: int = 0
    bets: int = 0
    #: the last slot's extra multiples paid (what the room's line says was added)
    extra: int | None = None


class HouseResult(Event):
    """The house's books for one hand: chips staked by players, paid back to them, and the
    house's result (``staked - paid``; negative when the house lost)."""

    event: Literal["house"] = "house"
    hand: int
    staked: int
    paid: int
    result: int


class Compensation(Event):
    """A dealing mistake stopped the game: ``payout`` is what the player receives (stake
    included), ``bets`` the per-bet breakdown (``{"ante": 200, "call": 200}``)."""

    event: Literal["compensation"] = "compensation"
    player: str
    payout: int
    bets: dict[str, int]


def settlement_line(events: Sequence[Event], game: str | None = None) -> Say:
    """The room's one-line summary of the ``settle`` events among ``events`` (Japanese result
    words: 勝ち / 負け / 引き分け / ディーラーフォールド / ディスクオリファイ / フォールド), each
    with why when ``game`` is given and the settle names the hands compared (its ``hand`` and
    ``dealer_class``): 「aliceさん: 勝ち 600（ストレート 対 ワンペア）」."""
    names = NAMES.get(game or "", {})
    lines: list[Phrase] = []
    for e in events:
        if not isinstance(e, Settle):
            continue
        # a side bet's payout named apart: 「負け 400」 read as a loss of 400 when the AA paid
        item = line("settlement_item_aa" if e.aa else "settlement_item", player=e.player,
                    result=line(f"result_{e.result}"), payout=e.payout, aa=e.aa or 0)
        hand, dealer = e.hand or "", e.dealer_class or ""
        if names.get(hand) and names.get(dealer) and e.result != "fold":
            item = joined("", [item, line("settlement_why", hand=hand_name(game or "", hand),
                                          dealer=hand_name(game or "", dealer))])
        lines.append(item)
    return Say.of("room", line("settlement", lines=joined(" / ", lines)))


def allin_flag(allin: bool) -> dict[str, bool]:
    """The ``allin`` key of an ante's ``action`` event: present (true) only for an all-in, so the
    event reads back from its JSON as the very same event."""
    return {"allin": True} if allin else {}


def names(players: list[str]) -> Phrase:
    """The players a message addresses, as the room reads them (「aliceさん、bobさん」)."""
    return joined(line("house.names_sep"), [line("house.who", player=n) for n in players])


def announce_compensation(e: Compensation) -> Say:
    """A dealing mistake's guarantee to one player, with the figures: the total and
    the payout of every bet (「aliceさん: 保障配当 600（アンティ 200・AA 400）」)."""
    bets = joined(line("house.bets_sep"), [
        line("house.compensation_bet", bet=line(f"house.bet_{k}"), payout=v)
        for k, v in e.bets.items()
    ])
    return Say.of("room", line("house.compensation", player=e.player, payout=e.payout,
                                    bets=bets))


# --- arithmetic -----------------------------------------------------------------------------


def pay(stake: int, multiplier: Decimal | int, rounding: Rounding = "down") -> int:
    """Chips paid back for ``stake`` at ``multiplier`` (stake included), rounded by the ruling."""
    if stake < 0:
        raise ValueError("a stake cannot be negative")
    exact = Decimal(stake) * Decimal(multiplier)
    mode = ROUND_FLOOR if rounding == "down" else ROUND_CEILING
    return int(exact.to_integral_value(rounding=mode))


def bet_size(ante: int, multiple: Decimal | int) -> int:
    """A bet quoted in antes (raise 2x, extra raise 2.5x), rounded down to whole chips."""
    return int((Decimal(ante) * Decimal(multiple)).to_integral_value(rounding=ROUND_FLOOR))


# --- options and stakes ---------------------------------------------------------------------


def table_options(options: dict[str, str], default_unit: int) -> tuple[int, bool]:
    """``(ante_unit, last_slot)`` from ``# table:`` / ``!open`` options; OptionError otherwise."""
    unit = default_unit
    last_slot = False
    for key, value in options.items():
        if key == "ante":
            if not value.isdigit() or int(value) <= 0:
                raise OptionError("house.option_ante", value=value)
            unit = int(value)
        elif key == "lastslot":
            if value not in ("on", "off"):
                raise OptionError("house.option_lastslot", value=value)
            last_slot = value == "on"
        else:
            raise OptionError("house.option_unknown", key=key)
    return unit, last_slot


def check_ante(
    amount: int | None,
    chips: int,
    unit: int,
    *,
    cover: int,
    side: int = 0,
    multiple: bool = True,
) -> int:
    """Validate a normal (not all-in) ante; returns it or raises IllegalAction (Japanese).

    ``cover`` is how many antes the player must be able to put in over the hand (ante + later
    bets); ``side`` chips of side bets (``holdem_aa``'s AA) come out of the same stack.
    """
    if amount is None:
        raise IllegalAction("house.ante_amount_needed", unit=unit)
    if amount <= 0:
        raise IllegalAction("house.ante_positive")
    if multiple and amount % unit:
        raise IllegalAction("house.ante_multiple", unit=unit)
    if not multiple and amount < unit:
        raise IllegalAction("house.ante_minimum", unit=unit)
    if amount * cover + side > chips:
        raise IllegalAction("house.ante_short", need=amount * cover + side, chips=chips)
    return amount


def allin_ante(chips: int, divisor: int, side: int = 0) -> int:
    """The all-in ante: side bets first, then ``1/divisor`` of the rest (remainder not bet)."""
    if side > chips:
        raise IllegalAction("house.side_over_chips")
    ante = (chips - side) // divisor
    if ante <= 0:
        raise IllegalAction("house.allin_zero")
    return ante


# --- joker ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class JokerBonus:
    restore: int  # chips added by the last-slot restoration
    extra: int  # the last-slot extra multiples
    normal: int  # the normal effect

    @property
    def payout(self) -> int:
        return self.restore + self.extra + self.normal


def joker_bonus(
    *,
    ante: int,
    bets: int,
    holding: int,
    sat_with: int,
    last_slot: bool,
    ante_mult: Decimal | int,
    bets_mult: Decimal | int,
    lastslot_extra: Decimal | int,
    rounding: Rounding = "down",
) -> JokerBonus:
    """What a joker pays. ``holding`` = chips behind + bets on the table (see module doc)."""
    restore = extra = 0
    if last_slot:
        if holding < sat_with:
            restore = sat_with - holding
        else:
            extra = pay(ante, lastslot_extra, rounding) + pay(bets, lastslot_extra, rounding)
    normal = pay(ante, ante_mult, rounding) + pay(bets, bets_mult, rounding)
    return JokerBonus(restore=restore, extra=extra, normal=normal)


def joker_line(ev: JokerEvent) -> Say:
    """The room is told what a joker paid (and why, in the last slot)."""
    say = [line("house.joker", player=ev.player, payout=ev.payout)]
    if ev.restore:
        say.append(line("house.joker_restore", restore=ev.restore))
    elif ev.extra:
        say.append(line("house.joker_extra"))
    return Say.of("room", joined("", say))


def house_line(so_far: Sequence[Event]) -> Say | None:
    """The room's line for a fact every house game shares that ends ``so_far``: a joker's
    payout, a dealing mistake's guarantee; None for the others (each house game's voice
    falls back to this)."""
    ev = so_far[-1]
    if isinstance(ev, JokerEvent):
        return joker_line(ev)
    if isinstance(ev, Compensation):
        return announce_compensation(ev)
    return None


# --- the books ------------------------------------------------------------------------------


@dataclass
class HandBook:
    """Per-player chips staked and paid back during one hand (see module doc)."""

    staked: dict[str, int] = field(default_factory=dict)
    paid: dict[str, int] = field(default_factory=dict)

    def stake(self, player: str, chips: int) -> None:
        self.staked[player] = self.staked.get(player, 0) + chips

    def pay(self, player: str, chips: int) -> None:
        self.paid[player] = self.paid.get(player, 0) + chips

    def event(self, hand: int) -> HouseResult:
        staked = sum(self.staked.values())
        paid = sum(self.paid.values())
        return HouseResult(hand=hand, staked=staked, paid=paid, result=staked - paid)


# --- the action clock -----------------------------------------------------------------------


# --- seats ----------------------------------------------------------------------------------


@dataclass
class HousePlayer:
    seat: int
    name: str
    chips: int  # chips behind (stakes on the table are not counted here)
    npc: bool = False
    sat_with: int = 0  # chips when seated: the last-slot joker restores to this
    leaving: bool = False  # leaves when the current hand ends


class HouseTable:
    """Seats of a house-banked table: sitting, leaving (now or after the hand), bankruptcy."""

    def __init__(self, seats: int, bankrupt_below: int, *, npc_allowed: bool) -> None:
        self.max_seats = seats
        self.bankrupt_below = bankrupt_below
        self.npc_allowed = npc_allowed
        self.players: dict[int, HousePlayer] = {}

    # queries
    def by_name(self, name: str) -> HousePlayer | None:
        for p in self.players.values():
            if p.name == name:
                return p
        return None

    def ordered(self) -> list[HousePlayer]:
        return [self.players[s] for s in sorted(self.players)]

    def states(self) -> list[SeatState]:
        return [SeatState(p.seat, p.name, p.chips, p.npc) for p in self.ordered()]

    def stacks(self) -> dict[str, int]:
        return {p.name: p.chips for p in self.ordered()}

    # changes
    def check_sit(self, seat: int, name: str, chips: int, npc: bool) -> None:
        if not 1 <= seat <= self.max_seats:
            raise IllegalAction("house.seat_range", seats=self.max_seats)
        if seat in self.players:
            raise IllegalAction("house.seat_taken", seat=seat, player=self.players[seat].name)
        if self.by_name(name) is not None:
            raise IllegalAction("house.already_seated", player=name)
        if npc and not self.npc_allowed:
            raise IllegalAction("house.no_npc")
        if chips < self.bankrupt_below:
            raise IllegalAction("house.sit_bankrupt", limit=self.bankrupt_below)

    def dealt_players(self, hands: dict[str, list[Card]], count: int) -> list[HousePlayer]:
        """The seated players, in seat order, once ``hands`` (a deal) gives each of them exactly
        ``count`` cards and nobody else any; IllegalAction otherwise."""
        players = self.ordered()
        if not players:
            raise IllegalAction("house.nobody_seated")
        names = [p.name for p in players]
        unknown = sorted(set(hands) - set(names))
        if unknown:
            raise IllegalAction("house.deal_strangers", players=", ".join(unknown))
        for n in names:
            if len(hands.get(n, [])) != count:
                raise IllegalAction("house.deal_count", player=n, count=count)
        return players

    def sit(self, seat: int, name: str, chips: int, npc: bool) -> list[Event]:
        self.check_sit(seat, name, chips, npc)
        self.players[seat] = HousePlayer(seat, name, chips, npc, sat_with=chips)
        if npc:
            return [Say.of("room", line("house.sat_npc", seat=seat, chips=chips))]
        return []  # the room's line is the service's, from its seated event

    def stand(self, name: str) -> list[Event]:
        """Remove a player now; ``leave`` credits the chips 1:1 to the bank."""
        p = self.by_name(name)
        if p is None:
            raise IllegalAction("house.not_seated", player=name)
        del self.players[p.seat]
        leave = Leave(player=p.name, chips=p.chips, bank=p.chips)
        return [leave, leave_line(leave)]

    def credit(self, book: HandBook, events: list[Event]) -> None:
        """Pay out the ``settle`` and ``compensation`` events: added to the player's chips and
        booked as paid by the house. Only a seated player can be paid: chips booked as paid to
        someone who already left would be credited to nobody and break the books (a removed
        player is folded, settles 0 and gets no guarantee; a leaving one stays seated until
        the hand ends)."""
        for e in events:
            if isinstance(e, (Settle, Compensation)):
                p = self.by_name(e.player)
                if p is None:
                    assert e.payout == 0, f"payout {e.payout} to {e.player}, who is not seated"
                    continue
                p.chips += e.payout
                book.pay(e.player, e.payout)

    def joker(
        self,
        name: str,
        book: HandBook,
        *,
        ante: int,
        bets: int,
        last_slot: bool,
        multipliers: Mapping[Any, Decimal | int],
        rounding: Rounding,
    ) -> tuple[JokerBonus, JokerEvent]:
        """Pay ``name`` for a joker at once (:func:`joker_bonus` with the game's ``joker``
        multipliers; ``holding`` counts the ``ante`` and ``bets`` on the table) and book it."""
        p = self.by_name(name)
        assert p is not None
        b = joker_bonus(
            ante=ante, bets=bets, holding=p.chips + ante + bets, sat_with=p.sat_with,
            last_slot=last_slot, ante_mult=multipliers["ante"], bets_mult=multipliers["bets"],
            lastslot_extra=multipliers["lastslot_extra"], rounding=rounding,
        )
        p.chips += b.payout
        book.pay(name, b.payout)
        return b, JokerEvent(player=name, payout=b.payout, restore=b.restore, ante=ante, bets=bets,
                             extra=b.extra or None)

    def close_hand(self, hand: int, book: HandBook) -> list[Event]:
        """The end of a hand: the house's books, ``hand_end`` with the stacks, then
        bankruptcies and pending leaves (:meth:`after_hand`)."""
        out: list[Event] = [book.event(hand), HandEnd(hand=hand, stacks=self.stacks())]
        return out + self.after_hand()

    def after_hand(self) -> list[Event]:
        """Bankruptcy and pending leaves, in seat order, after ``hand_end``."""
        out: list[Event] = []
        for p in self.ordered():
            if p.chips < self.bankrupt_below:
                out.append(Say.of("room", line("house.bankrupt", player=p.name,
                                                    limit=self.bankrupt_below, chips=p.chips)))
                out += self.stand(p.name)
            elif p.leaving:
                out += self.stand(p.name)
        return out


# --- the engine skeleton of holdem_aa and seven ---------------------------------------------


class _Part(Protocol):
    """A player's part in the current hand, as :class:`HouseEngine` needs to see it."""

    posted: bool
    folded: bool


class HouseSeats(Engine):
    """A house-banked table's seats, the one way every house game keeps them: the
    :class:`HouseTable` (seats, stacks, bankruptcy), the table's ante unit and last-slot
    option, and the action clock. :class:`HouseEngine` and deuces' engine are built on it."""

    def __init__(
        self,
        definition: GameDefinition,
        options: dict[str, str],
        *,
        ante_unit: int,
        bankrupt_below: int,
        npc_allowed: bool,
    ) -> None:
        super().__init__(definition, options)
        self.ante_unit, self.last_slot = table_options(options, ante_unit)
        self.table = HouseTable(definition.seats.max, bankrupt_below, npc_allowed=npc_allowed)
        self.clock = WaitClock()

    def sit(self, seat: int, name: str, chips: int, npc: bool = False) -> list[Event]:
        return self.table.sit(seat, name, chips, npc)

    def stacks(self) -> dict[str, int]:
        return self.table.stacks()

    def seated(self) -> list[SeatState]:
        return self.table.states()


class HouseEngine(HouseSeats):
    """What ``holdem_aa`` and ``seven`` do alike: seats on a :class:`HouseTable`, a ``phase``
    (``"idle"`` between hands, ``"stakes"`` while antes are posted), the books, the action clock
    and its defaults, leaving, the dealing-mistake guarantee and the end of a hand. The game
    supplies its part-of-hand lookup and the steps that differ (the ``_`` hooks below).

    ``deuces`` sits on :class:`HouseSeats` only: its hand has phases and steps of its own
    (duplicate checks, refill); the seats, books, stakes and words are shared (module doc
    there).

    Like every engine, both games validate, then apply: ``_check_act`` reads the state and
    returns a plan or refuses, ``_apply_act`` carries the plan out (Engine.act).
    """

    def __init__(
        self,
        definition: GameDefinition,
        options: dict[str, str],
        *,
        ante_unit: int,
        bankrupt_below: int,
        npc_allowed: bool,
    ) -> None:
        super().__init__(definition, options, ante_unit=ante_unit,
                         bankrupt_below=bankrupt_below, npc_allowed=npc_allowed)
        self.phase: Phase = "idle"
        self.book = HandBook()

    # --- hooks -----------------------------------------------------------------------------
    @abstractmethod
    def _part(self, name: str) -> _Part | None:
        """``name``'s part in the current hand (None: not in it)."""

    @abstractmethod
    def _drop(self, name: str) -> None:
        """Take ``name`` (who has not posted) out of the current hand."""

    @abstractmethod
    def _advance(self) -> list[Event]:
        """Move the hand on as far as nobody needs to be asked."""

    @abstractmethod
    def _awaited(self) -> Phrase:
        """What the reminder asks the awaited players to do (after the stakes)."""

    @abstractmethod
    def _time_out(self, waiting: list[str]) -> list[Event]:
        """The clock's default for ``waiting`` after the stakes."""

    @abstractmethod
    def _guarantees(self) -> list[tuple[str, dict[str, int]]]:
        """The dealing-mistake payouts per player, per bet (module doc of the game)."""

    @abstractmethod
    def pending(self) -> list[str]:
        """Players the table is waiting for, in order."""

    @abstractmethod
    def _clear_hand(self) -> None:
        """Forget the finished hand's parts."""

    # --- seating ---------------------------------------------------------------------------
    def leave(self, name: str) -> list[Event]:
        """Between hands, or before posting, at once; after posting, when the hand ends."""
        p = self.table.by_name(name)
        if p is None:
            raise IllegalAction("house.not_seated", player=name)
        part = self._part(name)
        if self.phase == "idle" or part is None:
            return self.table.stand(name)
        if self.phase == "stakes" and not part.posted:
            self._drop(name)
            out = self.table.stand(name)
            return out + self._advance()
        p.leaving = True
        return [Say.of("room", line("house.leaves_after", player=name))]

    # --- the clock -------------------------------------------------------------------------
    def tick(self, now: float) -> list[Event]:
        """The action clock (``clock`` in the definition; restarted whenever anyone acts): a
        reminder to the players awaited, then the default -- a player who has not posted sits
        this hand out; after the stakes, the game's ``_time_out``."""
        if self.phase == "idle":
            return []
        c = self.definition.clock
        due = self.clock.due(now, c.remind_after, c.act_after)
        waiting = self.pending()
        if due is None or not waiting:
            return []
        who = names(waiting)
        if due == "remind":
            what = line("house.remind_stake") if self.phase == "stakes" else self._awaited()
            return [Say.of("room", line("house.remind", who=who, what=what))]
        self.clock.restart(now)
        out: list[Event] = [Say.of("room", line("house.timed_out", who=who))]
        if self.phase == "stakes":
            for n in waiting:
                self._drop(n)
            out.append(Say.of("room", line("house.sits_out", who=who)))
            return out + self._advance()
        return out + self._time_out(waiting)

    # --- the end of a hand -----------------------------------------------------------------
    def dealing_mistake(self, kind: str, player: str | None = None) -> list[Event]:
        return self.compensate()

    def compensate(self) -> list[Event]:
        """Stop the game and pay every posted player the guaranteed payouts."""
        if self.phase == "idle":
            raise IllegalAction("house.no_hand")
        out: list[Event] = [Say.of("room", line("house.mistake"))]
        for name, bets in self._guarantees():
            c = Compensation(player=name, payout=sum(bets.values()), bets=bets)
            out += [c, announce_compensation(c)]
        return out + self._finish(out)

    def _finish(self, so_far: list[Event]) -> list[Event]:
        """Credit the payouts in ``so_far``, close the books, end the hand."""
        self.table.credit(self.book, so_far)
        self.phase = "idle"
        self._clear_hand()
        return self.table.close_hand(self.hand_no, self.book)

    # --- queries ---------------------------------------------------------------------------
    @property
    def in_hand(self) -> bool:
        return self.phase != "idle"
