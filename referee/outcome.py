"""The unit of work between the referee service and whatever persists it.

The service is store-agnostic (sans-I/O, like the engines): for each input it returns an
:class:`Outcome` -- the input as it must be replayed (a live deal is drawn once and recorded in
it), the events it caused and the bank ledger entries. A persistence layer writes one outcome in
one transaction and can hand the inputs back in order, so a restart rebuilds every table by
running them again with persistence off. Penalties, flags, hands and the deuces bonus area are
derived from the events.

Store note (referee.store, additive): the store derives its tables from these event kinds --
``penalty``, ``flag``, ``flag_decided`` {``id``, ``decision``: ``confirmed``|``dismissed``} for
!confirm/!dismiss, ``rank`` {``player``, ``mark``} for rank marks ("" = 無印), ``bonus_area``,
``hand_start``/``hand_end``; ``LedgerEntry.event_index`` links a ledger row to its event. The
store also implements :class:`StoredState` (balances, rank marks, bonus area) for start-up.

Service note (referee.service, additive): ``Outcome.input`` is the input as received, a JSON
dict with ``kind`` ``message`` {``id room sender text time dm``} or
``directive`` {``id room name args``} or ``tick`` {``id room time``} (a live adapter's timer
driving the action clock); ``Outcome.drawn`` what it drew (``commits``, ``deal`` once a live
!deal drew cards, ``auto_deals`` [deal, …] when an ``auto=on`` table dealt by itself). The store
keeps :attr:`Outcome.record`, both in one dict, and ``Referee.rebuild(store.inputs())`` re-runs
them, taking what was drawn instead of drawing again. Service
event kinds besides docs/contracts.md §3: ``bank`` {``player delta balance reason``} (a !grant, a
buy-in or a ``# bank:`` opening balance; its ledger entry points at it), ``flag_decided`` (adds
``by``) and ``rank`` (adds ``previous``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from referee.events import Event, TableClosed, TableOpened


@dataclass(frozen=True)
class LedgerEntry:
    """One change of a bank balance; balances are the sums of these, nothing else."""

    player: str
    delta: int
    reason: str
    event_index: int | None = None  # index into Outcome.events of the event that caused it


#: What an input can draw (kept beside it, so a re-run takes it instead of drawing again): the
#: seeds committed to (``commits``), a live ``!deal``'s cards (``deal``) and the hands an
#: ``auto=on`` table dealt by itself (``auto_deals``).
DRAWN = ("commits", "deal", "auto_deals", "definition")


@dataclass
class Outcome:
    input_id: str
    room: str
    input: dict[str, Any]  # the input as received
    events: list[Event] = field(default_factory=list)
    ledger: list[LedgerEntry] = field(default_factory=list)
    drawn: dict[str, Any] = field(default_factory=dict)  # what it drew (keys of DRAWN)
    # When a hand ended: how to take the service's snapshot, (version, state). The store calls
    # it when it writes this input -- at once, or with group commit when the group is written
    # (the state then is the one after the group's last input, which is the seq it records).
    snapshot: Callable[[], tuple[str, bytes]] | None = None
    # A snapshot being taken (referee.service): rooms' parts pickled since the last save,
    # (seq, version, {room: part}) -- the rooms as they were right after input seq -- and,
    # when it is complete, its head (seq, version, head). Written with this input.
    snapshot_parts: tuple[int, str, dict[str, bytes]] | None = None
    snapshot_head: tuple[int, str, bytes] | None = None
    # Finished hands' pickles made by this input, (room, key, pickle): stored once each and
    # named by the rooms' parts; with a head, the keys its parts no longer name (deleted).
    snapshot_hands: list[tuple[str, int, bytes]] | None = None
    snapshot_drop: list[tuple[str, int]] | None = None

    @property
    def opened(self) -> list[str]:
        """The rooms whose table this input opened (``table_open`` events)."""
        return [e.room for e in self.events if isinstance(e, TableOpened)]

    @property
    def closed(self) -> list[str]:
        """The rooms whose table this input closed (``table_close``: ``!close`` after the last
        hand, or a table replaced by a ``# table:``)."""
        return [e.room for e in self.events if isinstance(e, TableClosed)]

    @property
    def record(self) -> dict[str, Any]:
        """The input's record as the store keeps it and a re-run reads it: the input with what
        it drew beside its own fields (docs/contracts.md, the input record)."""
        return {**self.input, **self.drawn} if self.drawn else self.input


class Persistence(Protocol):
    def is_processed(self, input_id: str) -> bool: ...

    def save(self, outcome: Outcome) -> None:
        """Write the outcome atomically (input id, input, events, ledger) or not at all."""

    def inputs(self) -> list[dict[str, Any]]:
        """Every saved input, in the order saved (for rebuilding tables after a restart)."""

    def latest_snapshot(self) -> tuple[int, str, bytes] | None:
        """(seq, version, state) of the newest snapshot, None when there is none."""

    def stream_inputs(self, after: int = 0) -> Iterable[dict[str, Any]]:
        """The inputs saved after seq ``after``, in order, read as they are consumed."""


class StoredState(Protocol):
    """What outlives a table, read back at start-up (implemented by ``referee.store.Store``)."""

    def balances(self) -> dict[str, int]:
        """Every player's bank balance (the sum of their ledger entries)."""

    def rank_marks(self) -> dict[str, str]:
        """Each player's latest rank mark from ``rank`` events ("" = no mark, 無印)."""

    def bonus_area(self, room: str | None = None) -> tuple[list[str], list[int]] | None:
        """The latest ``bonus_area`` (cards oldest first, markers) of ``room``, or of any room."""
