"""One input's turn at the service: what the commands, the discipline and the directives act
through, instead of reaching into the service.

A :class:`Turn` is built by :class:`referee.service.Referee` for every input it processes. It
carries who spoke where (``sender``, ``room``, ``dm``, ``time``), collects what the input caused
(``events``, bank ``ledger`` entries, and ``drawn``: the cards and seeds drawn for it, which a
re-run takes instead of drawing again) and offers the few ways to cause something: :meth:`say`,
:meth:`emit`, :meth:`bank_change`, :meth:`set_rank`. Events that move points become ledger
entries in :meth:`emit`, once, whoever emits them.

:class:`Desk` is what a handler may read and ask of the service (its tables, bank, flags …),
typed here so that the handlers import this module, never the service.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from referee import definitions
from referee.definitions import GameDefinition
from referee.events import (
    BankChange,
    Event,
    HandEnd,
    Leave,
    Penalty,
    Phrase,
    RankChange,
    Say,
    TournamentEnd,
)
from referee.inputs import Input
from referee.outcome import LedgerEntry

if TYPE_CHECKING:
    from referee.bank import Bank
    from referee.history import HistoryBook
    from referee.rules import Deal
    from referee.table import Table

P = TypeVar("P")

# Event kinds emit() looks at (besides keeping the event): they move points or end a hand.
_RECORDED = frozenset({"hand_end", "leave", "penalty", "tournament_end"})


class Desk(Protocol):
    """The service as the handlers see it (implemented by :class:`referee.service.Referee`)."""

    tables: dict[str, Table]
    bank: Bank
    penalties: list[dict[str, Any]]
    ranks: dict[str, str]
    carried: dict[str, dict[str, Any]]
    history: HistoryBook

    def is_moderator(self, name: str) -> bool: ...

    def seated_names(self, room: str) -> set[str]: ...

    def table_chips(self, player: str) -> dict[str, int]: ...

    def penalised(self, entry: dict[str, Any]) -> None:
        """A penalty was emitted: keep its record (the newest ones only, see
        :meth:`referee.discipline.Discipline.remember_penalty`)."""
        ...

    def part(self, kind: type[P]) -> P:
        """The service's part of this type (its :class:`referee.discipline.Discipline`)."""
        ...

    def add_moderator(self, name: str) -> None: ...

    def configure(self, moderators: frozenset[str]) -> None: ...

    def open_table(self, turn: Turn, table: Table) -> None: ...

    def deal_now(self, turn: Turn, table: Table) -> None: ...

    def start_hand(self, turn: Turn, table: Table, deal: Deal) -> list[Event]: ...

    def hand_ended(self, turn: Turn, room: str, hand: int) -> None: ...

    def after(self, turn: Turn, table: Table) -> None: ...

    def clock_time(self, table: Table, now: float | None) -> float | None: ...


@dataclass(slots=True)
class Turn:
    """One input at the service (see the module docstring)."""

    desk: Desk
    input: Input  # as received
    room: str = ""
    sender: str = ""
    dm: bool = False
    time: float | None = None
    events: list[Event] = field(default_factory=list)
    ledger: list[LedgerEntry] = field(default_factory=list)
    drawn: dict[str, Any] = field(default_factory=dict)  # what this input drew (the outcome's)
    auto_used: int = 0  # automatic deals taken from the recorded ones so far
    commits_used: int = 0  # seeds taken from the recorded ones so far

    @property
    def reply_to(self) -> str:
        """Where an answer to the sender goes: privately when they wrote privately."""
        return self.sender if self.dm else "room"

    @property
    def table(self) -> Table | None:
        """The table of the input's room, if it has one now."""
        return self.desk.tables.get(self.room)

    def definition(self, game: str) -> GameDefinition:
        """The definition a table opened by this input runs under: the one recorded when the
        input first ran (a re-run takes it: a table keeps the definition it was opened with,
        whatever the file says later), else the file's as it is now, recorded here."""
        recorded = self.drawn.get("definition")
        if recorded is not None:
            return definitions.from_record(recorded)
        found = definitions.load(game)
        self.drawn["definition"] = definitions.to_record(found)
        return found

    def say(self, phrase: Phrase, to: str = "room") -> None:
        """Say ``phrase`` (a :func:`referee.events.line`: a catalogue key and its parameters,
        rendered at the turn's end) to the room or, with ``to``, to one player."""
        self.emit([Say.of(to, phrase)])

    def emit(self, events: Iterable[Event]) -> None:
        """Keep events; leave credits, prizes and penalty debits become ledger entries here."""
        out = self.events
        for ev in events:
            out.append(ev)
            if ev.event not in _RECORDED:
                continue  # nothing to record (most events: says, actions)
            idx = len(out) - 1
            if isinstance(ev, HandEnd):
                self.desk.hand_ended(self, self.room, ev.hand)
            elif isinstance(ev, TournamentEnd):  # the prizes go to the bank at once
                for player, pts in ev.prizes.items():
                    self.credit(player, pts, "prize", idx)
            elif isinstance(ev, Leave):
                if ev.bank:
                    self.credit(ev.player, ev.bank, "leave", idx)
            elif isinstance(ev, Penalty):
                self.desk.penalised({"player": ev.player, "kind": ev.kind,
                                     "points": ev.points, "room": self.room})
                if ev.points:
                    self.credit(ev.player, -ev.points, f"penalty:{ev.kind}", idx)

    def credit(self, player: str, delta: int, reason: str, idx: int | None) -> None:
        """A ledger entry (``delta`` may be negative) for the event at ``idx``."""
        entry = LedgerEntry(player=player, delta=delta, reason=reason, event_index=idx)
        self.desk.bank.apply(entry)
        self.ledger.append(entry)

    def bank_change(self, player: str, delta: int, reason: str, entry: str) -> int:
        """A ``bank`` event and its ledger entry (a !grant, a buy-in, a ``# bank:``); the new
        balance."""
        balance = self.desk.bank.balance(player) + delta
        self.emit([BankChange(player=player, delta=delta, balance=balance, reason=reason)])
        self.credit(player, delta, entry, len(self.events) - 1)
        return balance

    def set_rank(self, player: str, mark: str) -> None:
        ranks = self.desk.ranks
        prev = ranks.get(player, "")
        ranks[player] = mark
        self.emit([RankChange(player=player, mark=mark, previous=prev)])
