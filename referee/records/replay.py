"""A hand step by step, as the room saw it: the console's hand replayer reads these steps.

:class:`HandReplay` is an :class:`~referee.records.visitor.EventVisitor`: fed a room's typed
events, it keeps, per finished hand, the seats and stacks before the deal and one
:class:`Step` per thing that happened at the table -- the blinds and antes posted, each action
with the pot after it, each street's board, each hand shown, each pot paid (side pots apart),
the rake, the house games' settlements, and the flags and penalties raised while the hand ran
-- each with every player's stack and the pot after it.

Only what the room was shown is read: ``board`` and ``shown`` events (a ``shown`` names its
cards; the dealer's hand of a house game is one too), never a deal, a private message or an
``exposed`` event. Blinds and antes are the ``posted`` events that follow ``hand_seats``. A log
written before that kind has none: there they are inferred from the hand's ``hand_seats``
stakes, posted from the button's left (heads-up: the button posts the small blind), a newcomer's
big blind besides, each capped by the stack -- and a ``posted`` event, when one comes, replaces
what was inferred. The test over every transcript checks that the stacks so computed end where
``hand_end`` says, and that the inference gives what the events say.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.events import (
    ActionEvent,
    BoardDealt,
    Exposed,
    Flag,
    FlyingActionVoid,
    HandEnd,
    HandSeats,
    HandStart,
    HouseTopup,
    Leave,
    Misdeal,
    NoGame,
    Penalty,
    Posted,
    Pot,
    Rake,
    Returned,
    Seated,
    Settle,
    Shown,
    TableOpened,
)
from referee.records.visitor import Entry, EventVisitor
from referee.rules.house import Compensation, HouseResult, JokerEvent


@dataclass(slots=True)
class Step:
    """One moment of a hand: what happened (``kind``: ``post``, ``action``, ``board``,
    ``shown``, ``pot``, ``rake``, ``settle``, ``flag``, ``penalty``, ``topup``, ``returned``,
    ``nogame``) with its event's fields, and the table after it."""

    kind: str
    data: dict[str, Any]
    pot: int
    stacks: dict[str, int]
    board: list[str]
    shown: dict[str, list[str]]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "data": self.data, "pot": self.pot,
                "stacks": dict(self.stacks), "board": list(self.board),
                "shown": {k: list(v) for k, v in self.shown.items()}}


@dataclass(slots=True)
class ReplayedHand:
    room: str
    hand: int
    button: int
    game: str = ""
    table: int | None = None
    seats: list[tuple[int, str, int]] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    end_stacks: dict[str, int] | None = None
    # the table as it stands
    pot: int = 0
    staked: dict[str, int] = field(default_factory=dict)  # this hand's stakes per player
    pending: dict[str, int] = field(default_factory=dict)  # a voided flying action's chips
    left: set[str] = field(default_factory=set)  # players who left during the hand
    # the hand's books: chips players put in (net of what came back unused), chips paid to
    # them (pots, settlements, the house's payments), and the rake
    stakes: int = 0
    payouts: int = 0
    rake: int = 0
    stacks: dict[str, int] = field(default_factory=dict)
    board: list[str] = field(default_factory=list)
    shown: dict[str, list[str]] = field(default_factory=dict)

    def step(self, kind: str, data: dict[str, Any]) -> None:
        self.steps.append(Step(kind, data, self.pot, dict(self.stacks), list(self.board),
                               {k: list(v) for k, v in self.shown.items()}))

    def put(self, player: str, chips: int) -> None:
        """``player`` puts ``chips`` in the pot."""
        self.stacks[player] = self.stacks.get(player, 0) - chips
        self.staked[player] = self.staked.get(player, 0) + chips
        self.stakes += chips
        self.pot += chips

    def pay(self, player: str, chips: int) -> None:
        """The pot pays ``player`` ``chips``."""
        self.stacks[player] = self.stacks.get(player, 0) + chips
        self.payouts += chips
        self.pot -= chips

    def paid(self, player: str, chips: int) -> None:
        """The house pays ``player`` ``chips`` (not from the pot)."""
        self.stacks[player] = self.stacks.get(player, 0) + chips
        self.payouts += chips

    def to_json(self) -> dict[str, Any]:
        return {"room": self.room, "hand": self.hand, "button": self.button, "game": self.game,
                "table": self.table,
                "seats": [{"seat": s, "player": n, "chips": c} for s, n, c in self.seats],
                "steps": [s.to_json() for s in self.steps]}


def _fields(ev: Any) -> dict[str, Any]:
    return {k: v for k, v in ev.to_json().items() if k != "event"}


_RANK = {"ante": 0, "sb": 1, "bb": 2, "newcomer_bb": 3}
"""The order a hand's ``post`` step names the posts in (seat order within a kind)."""


def posting_order(seats: list[tuple[int, str, int]], button: int) -> list[str]:
    """Who posts the small blind, then the big blind: from the button's left; heads-up the
    button posts the small blind."""
    ordered = sorted(seats)
    left = [n for s, n, _ in ordered if s > button] + [n for s, n, _ in ordered if s <= button]
    if len(left) == 2:
        return [left[1], left[0]]
    return left


class HandReplay(EventVisitor):
    """Every finished hand's steps, per room (see the module docstring)."""

    def __init__(self, keep: bool = True) -> None:
        self.open: dict[str, ReplayedHand] = {}
        self.done: list[ReplayedHand] = []
        self.keep = keep  # False: finished hands are the caller's (read from ``open``), not kept
        self.last: ReplayedHand | None = None  # the hand that finished last (kept or not)
        self.room = ""
        # room -> players seated since the table's last hand (None: no hand dealt there yet)
        self.newcomers: dict[str, set[str] | None] = {}
        # room -> the table after the blinds and antes (a misdeal takes the betting back there)
        self.posted: dict[str, tuple[int, dict[str, int], dict[str, int]]] = {}
        # room -> the hand's ``posted`` events so far (None: none yet, the posts are inferred)
        self.typed: dict[str, list[Posted] | None] = {}
        self.stakes: dict[str, dict[str, int]] = {}  # room -> the hand's stakes (hand_seats)

    def begin_input(self, entry: Entry) -> None:
        self.room = entry.room

    def _hand(self) -> ReplayedHand | None:
        return self.open.get(self.room)

    def visit_table_open(self, ev: TableOpened) -> None:
        self.newcomers[self.room] = None

    def visit_seated(self, ev: Seated) -> None:
        waiting = self.newcomers.get(self.room)
        if waiting is not None:
            waiting.add(ev.player)

    def visit_hand_start(self, ev: HandStart) -> None:
        self.open[self.room] = ReplayedHand(self.room, ev.hand, ev.button)

    def visit_hand_seats(self, ev: HandSeats) -> None:
        if (h := self._hand()) is None:
            return
        h.game, h.table = ev.game, ev.table
        h.seats = [(int(x["seat"]), str(x["player"]), int(x["chips"])) for x in ev.seats]
        h.stacks = {n: c for _, n, c in h.seats}
        ante, sb, bb = (int(ev.stakes.get(k, 0)) for k in ("ante", "sb", "bb"))
        posted: dict[str, int] = {}
        if ante:
            for _, name, _ in sorted(h.seats):
                paid = min(ante, h.stacks[name])
                h.put(name, paid)
                posted[name] = paid
        order = posting_order(h.seats, h.button)
        # a player who sat down since the table's last hand posts a big blind to come in (in
        # the small blind's seat, instead of the small blind)
        newcomers = self.newcomers.get(self.room) or set()
        blinds = [(n, b) for i, (n, b) in enumerate(zip(order, (sb, bb), strict=False))
                  if not (i == 0 and n in newcomers)]
        blinds += [(n, bb) for _, n, _ in sorted(h.seats) if n in newcomers and n not in order[1:2]]
        self.newcomers[self.room] = set()
        for name, blind in blinds:
            if blind:
                paid = min(blind, h.stacks[name])
                h.put(name, paid)
                posted[name] = posted.get(name, 0) + paid
        self.posted[self.room] = (h.pot, dict(h.stacks), dict(h.staked))
        self.typed[self.room] = None
        self.stakes[self.room] = {k: v for k, v in ev.stakes.items() if v}
        if posted:
            h.step("post", {"posted": posted, **self.stakes[self.room]})

    def visit_posted(self, ev: Posted) -> None:
        """A forced bet as the log says it (right after ``hand_seats``): the first undoes what
        was inferred there; the hand's one ``post`` step names every post so far, antes first,
        then the small blind, the big blind and the newcomers' big blinds (as inferred)."""
        if (h := self._hand()) is None:
            return
        typed = self.typed.get(self.room)
        if typed is None:
            h.stacks = {n: c for _, n, c in h.seats}
            h.pot = h.stakes = 0
            h.staked = {}
            if h.steps and h.steps[-1].kind == "post":
                h.steps.pop()
            typed = self.typed[self.room] = []
        typed.append(ev)
        h.put(ev.player, ev.amount)
        seat = {n: s for s, n, _ in h.seats}
        posted: dict[str, int] = {}
        for p in sorted(typed, key=lambda p: (_RANK[p.kind], seat.get(p.player, 0))):
            posted[p.player] = posted.get(p.player, 0) + p.amount
        self.posted[self.room] = (h.pot, dict(h.stacks), dict(h.staked))
        if h.steps and h.steps[-1].kind == "post":
            h.steps.pop()
        h.step("post", {"posted": posted, **self.stakes.get(self.room, {})})

    def visit_action(self, ev: ActionEvent) -> None:
        if (h := self._hand()) is not None:
            already = h.pending.pop(ev.player, 0)
            h.put(ev.player, max(0, ev.amount - already))
            h.step("action", _fields(ev))

    def visit_fa_void(self, ev: FlyingActionVoid) -> None:
        """A flying action that could not stand: the chips it had put up stay in the pot."""
        if (h := self._hand()) is not None:
            h.put(ev.player, ev.chips)
            # the player's next action counts them among what it puts in
            h.pending[ev.player] = h.pending.get(ev.player, 0) + ev.chips
            h.step("fa_void", _fields(ev))

    def visit_misdeal(self, ev: Misdeal) -> None:
        """A misdeal: the betting goes back to where the blinds left it (the burned cards are
        not read)."""
        if (h := self._hand()) is not None and self.room in self.posted:
            _, stacks, _ = self.posted[self.room]
            for player, before in stacks.items():
                if player in h.left:
                    continue  # a player who left forfeits what they put in
                back = before - h.stacks.get(player, 0)
                h.pot -= back
                h.stakes -= back
                h.stacks[player] = before
            h.pending.clear()
            h.step("misdeal", {"player": ev.player})

    def visit_leave(self, ev: Leave) -> None:
        if (h := self._hand()) is not None:
            h.left.add(ev.player)

    def visit_house(self, ev: HouseResult) -> None:
        """A house game's books for the hand: whatever is still on the table (a player who left
        with stakes out) goes to the house."""
        if (h := self._hand()) is not None:
            h.pot -= sum(h.staked.values())
            h.staked.clear()
            h.step("house", _fields(ev))

    def visit_returned(self, ev: Returned) -> None:
        if (h := self._hand()) is not None:
            h.pay(ev.player, ev.amount)
            h.payouts -= ev.amount  # never staked: it came back unused
            h.stakes -= ev.amount
            h.step("returned", _fields(ev))

    def visit_board(self, ev: BoardDealt) -> None:
        if (h := self._hand()) is not None:
            h.board = list(ev.board)
            h.step("board", _fields(ev))

    def visit_shown(self, ev: Shown) -> None:
        if (h := self._hand()) is not None:
            h.shown[ev.player] = list(ev.cards)
            h.step("shown", _fields(ev))
        elif ev.why == "open" and self.last is not None and self.last.room == self.room:
            last = self.last  # the winner's OPEN after the hand's end
            last.shown[ev.player] = list(ev.cards)
            last.step("shown", _fields(ev))

    def visit_house_topup(self, ev: HouseTopup) -> None:
        if (h := self._hand()) is not None:
            h.pot += ev.amount
            h.step("topup", _fields(ev))

    def visit_rake(self, ev: Rake) -> None:
        if (h := self._hand()) is not None:
            h.pot -= ev.amount
            h.rake += ev.amount
            h.step("rake", _fields(ev))

    def visit_pot(self, ev: Pot) -> None:
        if (h := self._hand()) is not None:
            for player, share in ev.shares.items():
                h.pay(player, share)
            h.step("pot", _fields(ev))

    def visit_settle(self, ev: Settle) -> None:
        if (h := self._hand()) is not None:
            # a house game: the house takes the player's stakes off the table and pays
            h.pot -= h.staked.pop(ev.player, 0)
            h.paid(ev.player, ev.payout)
            h.step("settle", _fields(ev))

    def visit_nogame(self, ev: NoGame) -> None:
        """A void hand: the house takes the pot and pays each player what ``payments`` says."""
        if (h := self._hand()) is not None:
            h.pot = 0
            h.staked.clear()
            for player, back in ev.payments.items():
                h.paid(player, back)
            h.step("nogame", _fields(ev))

    def visit_compensation(self, ev: Compensation) -> None:
        """A house game stopped by a dealing mistake: the stakes go back with what it pays."""
        if (h := self._hand()) is not None:
            h.pot -= h.staked.pop(ev.player, 0)
            h.paid(ev.player, ev.payout)
            h.step("compensation", _fields(ev))

    def visit_joker(self, ev: JokerEvent) -> None:
        if (h := self._hand()) is not None:
            h.paid(ev.player, ev.payout)
            h.step("joker", _fields(ev))

    def visit_bonus_payout(self, ev: Any) -> None:
        """A bonus area's payout (a game's own kind: ``player`` and ``amount``)."""
        if (h := self._hand()) is not None:
            h.paid(ev.player, int(ev.amount))
            h.step("bonus", {"player": ev.player, "amount": int(ev.amount)})

    def visit_exposed(self, ev: Exposed) -> None:
        """An exposed hand paid for (its cards are not read here)."""
        if (h := self._hand()) is not None:
            h.paid(ev.player, ev.chips)
            h.step("exposed", {"player": ev.player, "chips": ev.chips})

    def visit_flag(self, ev: Flag) -> None:
        if (h := self._hand()) is not None:
            # what was said is the console's flags page's to show (a private message is not)
            h.step("flag", {"id": ev.id, "player": ev.player, "kind": ev.kind})

    def visit_penalty(self, ev: Penalty) -> None:
        if (h := self._hand()) is not None:
            if ev.chips:  # the chips forfeit go to the pot
                h.put(ev.player, ev.chips)
            h.step("penalty", _fields(ev))

    def visit_hand_end(self, ev: HandEnd) -> None:
        if (h := self.open.pop(self.room, None)) is not None:
            h.end_stacks = dict(ev.stacks)
            self.last = h
            if self.keep:
                self.done.append(h)
