"""The referee service: one pipeline for every adapter (transcript replay, terminal, Matrix, IRC).

Sans-I/O like the engines: an adapter hands in an input (a chat message, or a transcript
directive) and gets back an :class:`~referee.outcome.Outcome` -- the events to print or send and
the bank ledger entries. The service owns what outlives a hand and spans tables: the tables per
room, the point bank (balances are the sum of the ledger, see :mod:`referee.bank`), the flags and
penalties, rank marks and the set of processed input ids (an input is applied at most once).

Inputs are typed (:mod:`referee.inputs`: ``Message | Directive | Tick``, built by the adapters
with those constructors); each runs as one :class:`~referee.turn.Turn`, through which the
commands, the discipline and the directives (all in :mod:`referee.registry`) act. The input
stays as received (``Outcome.input``); what it drew -- commitment seeds, a live deal's cards --
is the outcome's (``Outcome.drawn``). The store keeps both in one JSON record
(``Outcome.record``), which a restart re-runs, taking the draws instead of drawing again::

    {"kind": "message", "id", "room", "sender", "text", "time": float|None, "dm": bool,
     "edit": true,            # only for an edit's new text (judged, never acted on)
     "deal": {...}}           # "deal" only once a live !deal drew cards (replayed as recorded)
    {"kind": "directive", "id", "room", "name": "table"|"seat"|"departed"|…, "args": {...},
     "definition": {...}}     # a table's opening (!open too) records the definition it runs under
    {"kind": "tick", "id", "room", "time": float}   # the action clock, without a message

Message flow: clock tick → command (``!…``) | parse by the table's game → action (seated players
only; anyone else's action-looking message is ignored, never applied, to keep chat usable for
spectators) | chat → leak / interference checks. An engine's :class:`IllegalAction` becomes a
``rejected`` event plus a ``say`` to the room with the reason, and changes nothing.

Policies (docs/rules.md "hand information" / "interference"; the rulings made here):

* Leaks, interference, penalties and the moderators' decisions on them (``!confirm``,
  ``!dismiss``, ``!flags``, ``!penalty``, ``!penalties``) are :mod:`referee.discipline`'s: only a
  hidden card named in card notation is penalised at once, everything else is a flag; one
  penalty per player per hand; a penalty can be reversed. The pipeline hands it every chat
  message the parser marks ``hand_info`` (from seated players) or ``advice``; private messages
  to the bot are never leaks.
* Bank: every change is a ledger entry -- ``leave`` events credit their ``bank``, ``penalty``
  events debit their ``points`` (whoever emitted them), ``!grant``/``!sit``/``# bank:`` emit a
  ``bank`` event with their entry. Balances may go negative (a penalty larger than the bank).
* Live deals (``!deal``, or by themselves at a ``!open GAME auto=on`` table ``AUTO_DEAL_AFTER``
  seconds after a hand ends) come from a CSPRNG-shuffled shoe (or the engine's ``draw_deal``)
  and are drawn once (``deal`` / ``auto_deals`` in ``Outcome.drawn``); the deuces bonus area
  of a closed table carries over to the next ``!open deuces``.
"""

from __future__ import annotations

import hashlib
import pickle
import random
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, TypeVar

from referee import commands, resources
from referee.bank import Bank
from referee.cards import Shoe, card_str
from referee.dealing import deal_from_json, deal_to_json, draw_deal
from referee.directives import DirectiveError
from referee.discipline import Discipline, FlagRecord
from referee.events import (
    DealCommitment,
    DealReveal,
    Event,
    Phrase,
    Rejected,
    Say,
    TableClosed,
    TableOpened,
    joined,
    line,
)
from referee.fairness import DealRandom, Derived, PendingDeal, commitment, new_seed, shuffled_shoe
from referee.history import HistoryBook, hand_seats
from referee.inputs import Directive, Input, Message, from_record, record
from referee.lang import catalog, nearmiss, tags
from referee.lang.normalize import fold, nfkc
from referee.lang.reader import is_secret, read_command, redacted
from referee.lexicon import about_others, read
from referee.outcome import DRAWN, Outcome, Persistence
from referee.parse import (  # grammars load lazily
    guess,
    holds_action_words,
    other_games,
    parse,
    with_hand,
)
from referee.registry import DIRECTIVES, words
from referee.rules import Deal, IllegalAction, OptionError
from referee.rules.voice import phrase_text, refusal_text, rendered, typed_form
from referee.table import Table, TableView
from referee.turn import Turn


class SnapshotError(ValueError):
    """A snapshot that cannot be restored (other code version, unreadable): re-run instead."""


@cache
def snapshot_version() -> str:
    """The version a snapshot is valid for: a digest of the referee's code, its grammars and its
    vocabulary. Any change to them -- a new release -- makes older snapshots unusable, so a
    restart then re-runs the whole history once (loudly) and the next snapshot is taken with
    the new version. The game definition files are not in it: a table runs under the
    definition recorded when it was opened (:meth:`Turn.definition`), so an edited pay table
    changes neither a snapshot nor a re-run -- only the tables opened after the edit."""
    h = hashlib.sha256()
    package = resources.PACKAGE
    # The code, the grammars and every TOML file but the game definitions: vocabulary, the
    # catalogue, the hand names.
    files = sorted({*package.rglob("*.py"), *package.rglob("*.toml"),
                    *resources.GRAMMAR.rglob("*")})
    for f in files:
        if f.is_file() and f.name != "definition.toml":
            h.update(f.relative_to(package.parent).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:32]


P = TypeVar("P")

AUTO_DEAL_AFTER = 10.0  # seconds between a hand's end and the next automatic deal
# Messages that are legal moments to show cards (a fold with show, the showdown, declarations).
_SHOW_ACTIONS = {"fold", "open", "muck", "close", "discard", "play"}


@cache
def _yes_words() -> tuple[frozenset[str], str]:
    """The short yeses to the table's question and the punctuation that may trail them
    (``grammar/commands.toml`` ``[confirm]``)."""
    confirm = words()["confirm"]
    return (frozenset(nfkc(w).strip().lower() for w in confirm["yes"]),
            nfkc(confirm["trailing"]))


def _copied(value: Any) -> Any:
    """A recorded draw, copied: a re-run appends to its own list, never to the record's."""
    return list(value) if isinstance(value, list) else value


#: Rooms pickled per input, besides the input's own, while a snapshot is being taken
#: (:meth:`Referee._capture_some`): a snapshot of N changed tables is spread over N / this
#: many inputs instead of stalling one reply for all of them.
PARTS_PER_INPUT = 4


class Tables(dict[str, Table]):
    """The tables by room. Getting, replacing or removing a room's table during an input tells
    the service (``touch``): its snapshots are per room and only of the rooms that changed, and
    a room about to change while a snapshot is being taken is pickled first. Walks over every
    table (``items``, ``values``, iteration) are for reading only and tell nothing."""

    __slots__ = ("touch",)

    def __init__(self) -> None:
        super().__init__()
        self.touch: Callable[[str], None] | None = None

    def get(self, room: str, default: Any = None) -> Any:
        if self.touch is not None:
            self.touch(room)
        return dict.get(self, room, default)

    def __getitem__(self, room: str) -> Table:
        if self.touch is not None:
            self.touch(room)
        return dict.__getitem__(self, room)

    def __setitem__(self, room: str, table: Table) -> None:
        if self.touch is not None:
            self.touch(room)
        dict.__setitem__(self, room, table)

    def __delitem__(self, room: str) -> None:
        if self.touch is not None:
            self.touch(room)
        dict.__delitem__(self, room)

    def pop(self, room: str, *default: Any) -> Any:
        if self.touch is not None:
            self.touch(room)
        return dict.pop(self, room, *default)

    def __reduce__(self) -> Any:
        return (dict, (dict(self),))  # a plain dict: the hook is the live service's wiring


@dataclass
class _Taking:
    """A snapshot being taken: the state right after input ``seq``. The service-wide part
    (``head``) was pickled then; the rooms in ``pending`` are pickled before they next change,
    or a few per input until none is left (:meth:`Referee._capture_some`)."""

    seq: int
    version: str
    head: bytes
    pending: set[str]
    parts: dict[str, bytes] = field(default_factory=dict)  # pickled, not yet handed to the store
    # finished hands' keys no longer kept before ``seq``: no part at or after it names them
    dropped: list[tuple[str, int]] = field(default_factory=list)


class Referee:
    """Every table the bot runs, the bank, flags and penalties; see the module docstring."""

    def __init__(
        self,
        moderators: Iterable[str] = (),
        persistence: Persistence | None = None,
        rng: random.Random | None = None,
        unique_ids: bool = False,
    ) -> None:
        """``unique_ids``: the caller guarantees every input id it gives is new (a transcript
        run without persistence: its ids are the file's lines), so the ids need not be kept
        in memory to apply each input once -- they would grow with the run."""
        self.moderators: set[str] = set(moderators)
        self._configured = frozenset(self.moderators)  # the rest came from inputs (# moderator:)
        # The adapter's configuration as the inputs recorded it (``config`` directives, see
        # :meth:`record_configuration`): a re-run without the adapter gets it from the log.
        self.recorded_moderators: frozenset[str] = frozenset()
        self.configurations = 0  # config inputs so far (their ids)
        self.persistence = persistence
        self.rng: random.Random = rng if rng is not None else secrets.SystemRandom()
        self.tables: dict[str, Table] = Tables()
        self.bank = Bank()
        self.discipline = Discipline()
        self.flags: dict[int, FlagRecord] = self.discipline.flags
        self.penalties: list[dict[str, Any]] = []
        self.ranks: dict[str, str] = {}
        self.processed: set[str] = set()
        # What outlives a table, per game (:meth:`Engine.carried`: the deuces bonus area outlives
        # tables and sessions, docs/rules.md): the last one seen at a hand's end or a close, so
        # a table opened later starts from it. Taken as inputs run, so a rebuild restores it too.
        self.carried: dict[str, dict[str, Any]] = {}
        self._track_processed = True  # off while a rebuild re-runs inputs a store already has
        self._unique_ids = unique_ids
        self._rebuilding = False  # a rebuild: an input without recorded seeds commits nothing
        # Finished hands, public parts only (``!hand N``; referee.history).
        self.history = HistoryBook()
        self.tables_opened = 0  # the last table_open's number
        self._table_listeners: list[Callable[[TableOpened | TableClosed], None]] = []
        self._stale = False  # a save failed and the state is not yet the store's again
        # Snapshots per room (:meth:`snapshot`): the rooms changed since the last one began,
        # the one being taken, and whether an input is running (only inputs change tables).
        self._dirty: set[str] = set()
        self._taking: _Taking | None = None
        self._turning = False
        self._dropped: list[tuple[str, int]] = []  # hands' keys dropped since the last begin
        self._wire()

    # --- entry points ----------------------------------------------------------------------
    def is_processed(self, input_id: str) -> bool:
        if input_id in self.processed:
            return True
        return self.persistence is not None and self.persistence.is_processed(input_id)

    def process(self, given: Input | dict[str, Any]) -> Outcome | None:
        """Apply one input once: ``None`` if it was already processed, else its Outcome (saved
        to the persistence, if any, before it is returned). ``given`` is a typed input
        (:mod:`referee.inputs`) or a stored record (a rebuild re-runs those)."""
        if isinstance(given, dict):  # a stored record: the input, and what it drew
            inp, drawn = from_record(given), {k: _copied(given[k]) for k in DRAWN if k in given}
        else:
            inp, drawn = given, {}
        if isinstance(inp, Message) and is_secret(inp.text):
            # a secret typed where the referee reads it: kept (and answered) without the secret
            inp = replace(inp, text=redacted(inp.text))
        input_id, room = inp.id, inp.room
        if self._stale:
            self.reload()  # a failed save left the state unknown: the store's first
        if input_id in self.processed or (
            self.persistence is not None and self.persistence.is_processed(input_id)
        ):
            return None
        self._turning = True
        self._touch(room)  # its table and its history may change
        try:
            # The kinds by frequency (a transcript, a chat: messages), positional arguments:
            # the replay's hot path.
            if isinstance(inp, Message):
                turn = Turn(self, inp, room, inp.sender, inp.dm, inp.time, drawn=drawn)
                self._message(turn, inp)
            elif isinstance(inp, Directive):
                turn = Turn(self, inp, room, drawn=drawn)
                self._directive(turn, inp.name, dict(inp.args))
            else:
                turn = Turn(self, inp, room, time=inp.time, drawn=drawn)
                self._tick(turn, room, inp.time)
        finally:
            self._turning = False
        if self.persistence is None and self._track_processed and not self._unique_ids:
            self.processed.add(input_id)  # with persistence, the store knows (an index)
        hands: list[tuple[str, int, bytes]] = []
        if turn.events:
            # The turn's boundary: its sentences are rendered here, once (the voice), for the
            # shells; the store keeps their keys and parameters (events.fact_json). A say
            # remembered whole by the voice (an acknowledgement, a prompt) is rendered already.
            events = turn.events
            for i, ev in enumerate(events):
                if (isinstance(ev, Say) and ev.text is None) or type(ev) is Rejected:
                    events[i] = rendered(ev)
            history = self.history
            history.record(room, turn.events, turn.time)
            if history.made or history.dropped:
                hands, dropped = history.drain()
                if self.persistence is not None:
                    self._dropped.extend(dropped)
            if self._table_listeners and not self._rebuilding:
                for ev in turn.events:
                    if isinstance(ev, (TableOpened, TableClosed)):
                        for listener in self._table_listeners:
                            listener(ev)
        outcome = Outcome(input_id, room, record(inp), turn.events, turn.ledger, turn.drawn)
        if self.persistence is not None:
            if hands:
                outcome.snapshot_hands = hands
            self._save(outcome)
        return outcome

    def _save(self, outcome: Outcome) -> None:
        """Save ``outcome`` with the snapshot parts taken since the last save; begin a snapshot
        after a hand's end when the store says one is due."""
        store = self.persistence
        assert store is not None
        ended = any(e.event == "hand_end" for e in outcome.events)
        if ended:
            outcome.snapshot = self._last_snapshot  # a closing store's last one
        taking = self._taking
        if taking is not None:
            self._capture_some(taking)
            if taking.parts:
                outcome.snapshot_parts = (taking.seq, taking.version, taking.parts)
                taking.parts = {}
            if not taking.pending:
                outcome.snapshot_head = (taking.seq, taking.version, taking.head)
                outcome.snapshot_drop = taking.dropped
                self._taking = None
        try:
            store.save(outcome)
            # the ledger is the store's: memory keeps none of it (a year of buy-ins, cash-outs
            # and penalties would otherwise stay in Bank.ledger), only the balances
            self.bank.ledger.clear()
        except Exception:
            # Save, or it did not happen: the game goes back to exactly what the store
            # holds (a full disk, a read-only file, a figure SQLite cannot hold), and the
            # caller tells the sender to send it again. Until that succeeds no input is
            # taken (:attr:`_stale`).
            self._stale = True
            self.reload()
            raise
        if ended and self._taking is None:
            due = getattr(store, "snapshot_due", None)
            seq = due(len(self.tables)) if callable(due) else None
            if seq is not None:
                self._begin(seq)

    def reload(self) -> None:
        """Become exactly what the persistence holds: its newest usable snapshot and the inputs
        saved after it, re-run -- what a restart does, without restarting. The wiring (the
        store, the random source, the configured moderators, the table listeners) stays."""
        store = self.persistence
        if store is None:
            return
        fresh = Referee(self._configured, rng=self.rng, unique_ids=self._unique_ids)
        after, _ = fresh.restore_latest(store)
        fresh.persistence = store
        fresh.rebuild(store.stream_inputs(after))
        listeners = self._table_listeners
        for key, value in vars(fresh).items():
            setattr(self, key, value)
        self._table_listeners = listeners
        self._stale = False
        self._wire()

    def _tick(self, turn: Turn, room: str, now: float) -> None:
        table = self.tables.get(room)
        if table is not None:
            clock_now = self.clock_time(table, now)
            if table.paused or clock_now is None:
                return  # a paused clock: no reminder, no default action
            turn.emit(table.engine.tick(clock_now))
            self.after(turn, table)

    @staticmethod
    def clock_time(table: Table, now: float | None) -> float | None:
        """The time the engine sees: ``now`` minus the time the clock was paused (frozen at the
        pause while it lasts), so engine deadlines skip the pause."""
        if now is not None:
            table.last_time = now if table.last_time is None else max(table.last_time, now)
            if table.paused and table.paused_at is None:
                table.paused_at = now
        if table.paused:
            return None if table.paused_at is None else table.paused_at - table.paused_total
        return None if now is None else now - table.paused_total

    def wants_tick(self, room: str) -> bool:
        """Whether a live adapter's timer should tick this table: a hand is running (someone is
        awaited: a turn, the stakes, a showdown) and the clock is not paused."""
        t = self.tables.get(room)
        return t is not None and not t.paused and t.engine.in_hand

    def rebuild(self, inputs: Iterable[dict[str, Any]]) -> None:
        """Re-run saved inputs with persistence off: the same state as when they were saved.

        With a persistence to come back to, the inputs' ids are not collected (the store knows
        them): a restart's memory does not grow with the history it re-runs."""
        saved, self.persistence = self.persistence, None
        self._track_processed = saved is None
        self._rebuilding = True
        try:
            for inp in inputs:
                try:
                    self.process(inp)
                except DirectiveError:
                    # saved inputs ran once; one refused now (a changed rule) must not stop the
                    # restart of every other table
                    if self._track_processed:
                        self.processed.add(str(inp["id"]))
        finally:
            self.persistence = saved
            self._track_processed = True
            self._rebuilding = False
            if saved is not None:
                self.bank.ledger.clear()  # the store holds it (see _save)

    # --- snapshots --------------------------------------------------------------------------------
    # A snapshot is the service-wide state (the head: bank balances, flags, penalties, rank
    # marks, what outlives a table) and one part per room (its table and its hand history),
    # each pickled on its own: the store keeps every room's newest part, so a snapshot writes
    # only the rooms that changed since the one before, and a room's part is pickled when that
    # room is about to change or a few per input -- never all tables within one reply.
    # What a snapshot leaves out: the construction's wiring (store, random source, configured
    # moderators), the processed ids and the bank's ledger (the store keeps both), the rooms
    # (their parts) and the snapshots' own bookkeeping.
    _NOT_SNAPSHOTTED = frozenset(
        {"persistence", "rng", "moderators", "_configured", "processed", "bank",
         "_track_processed", "_rebuilding", "_unique_ids", "_table_listeners", "_stale",
         "tables", "history", "_dirty", "_taking", "_turning", "_dropped"}
    )

    def _wire(self) -> None:
        """Let the tables tell which rooms an input touches (:class:`Tables`)."""
        if isinstance(self.tables, Tables):
            self.tables.touch = self._touch

    def _touch(self, room: str) -> None:
        """During an input: ``room`` may change. Pickled first when the snapshot being taken
        still needs it as it was; then part of the next snapshot."""
        if not self._turning:
            return  # an adapter's query between inputs: nothing changes
        taking = self._taking
        if taking is not None and room in taking.pending:
            self._capture(taking, room)
        self._dirty.add(room)

    def _part(self, room: str) -> bytes:
        """One room's part: its table (None: none now) and its hand history."""
        return pickle.dumps((dict.get(self.tables, room), self.history.room_state(room)),
                            protocol=pickle.HIGHEST_PROTOCOL)

    def _capture(self, taking: _Taking, room: str) -> None:
        taking.pending.discard(room)
        taking.parts[room] = self._part(room)

    def _capture_some(self, taking: _Taking) -> None:
        """A few of the rooms still to pickle (any: each is as it was at the snapshot's seq)."""
        pending = taking.pending
        for _ in range(min(PARTS_PER_INPUT, len(pending))):
            self._capture(taking, next(iter(pending)))

    def _head(self) -> bytes:
        state = {k: v for k, v in vars(self).items() if k not in self._NOT_SNAPSHOTTED}
        state["bank_balances"] = self.bank.balances()
        state["named_moderators"] = sorted(
            self.moderators - self._configured - self.recorded_moderators)
        return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)

    def _begin(self, seq: int) -> None:
        """Begin the snapshot of the state right after input ``seq`` (just saved): the head
        now, the rooms changed since the last snapshot as they come (:meth:`_touch`)."""
        self._taking = _Taking(seq, snapshot_version(), self._head(), self._dirty,
                               dropped=self._dropped)
        self._dirty, self._dropped = set(), []

    def _rooms(self) -> set[str]:
        return set(self.tables) | self.history.rooms()

    def snapshot(self) -> tuple[str, bytes]:
        """(version, state): everything the service needs to go on as if it had re-run every
        input so far -- the tables (engines, seats, clocks, carried-over state such as the
        deuces bonus area), flags, penalties, rank marks and bank balances; every room's part
        (a whole snapshot, which replaces every part the store holds). ``version`` names the
        code and definitions it was taken with (:func:`snapshot_version`); a snapshot is only
        ever restored by the very same version, so it is exactly what a full re-run gives.

        Pickle, because the state is the engines' own objects; the bytes never leave the
        referee's own database, which is trusted like the code."""
        return self._bundle(self._rooms(), whole=True)

    def _last_snapshot(self) -> tuple[str, bytes]:
        """The snapshot a closing store saves after its last input: the parts of the rooms
        changed since the last whole one (the store keeps the others' parts)."""
        changed = set(self._dirty)
        dropped = list(self._dropped)
        if self._taking is not None:
            changed |= self._taking.pending | set(self._taking.parts)
            dropped += self._taking.dropped
        return self._bundle(changed, whole=False, dropped=dropped)

    def _bundle(self, rooms: Iterable[str], whole: bool,
                dropped: list[tuple[str, int]] | None = None) -> tuple[str, bytes]:
        rooms = sorted(rooms)
        bundle = {"head": self._head(), "parts": {r: self._part(r) for r in rooms},
                  "hands": {r: self.history.room_hands(r) for r in rooms}, "whole": whole,
                  "dropped": dropped or []}
        return snapshot_version(), pickle.dumps(bundle, protocol=pickle.HIGHEST_PROTOCOL)

    def restore_latest(self, store: Persistence) -> tuple[int, str | None]:
        """Go on from ``store``'s newest snapshot when it can be used: (the seq it was taken
        after, None); (0, why not) when there is none usable -- every input is then to re-run."""
        snap = store.latest_snapshot()
        if snap is None:
            return 0, None
        seq, version, state = snap
        try:
            self.restore(version, state)
        except SnapshotError as e:
            return 0, f"snapshot after input {seq} not used ({e}): re-running every input"
        return seq, None

    def restore(self, version: str, state: bytes) -> None:
        """Go on from a :meth:`snapshot` (its head and every room's part); SnapshotError (and
        nothing changed) when it was taken by other code or definitions, or cannot be read."""
        if version != snapshot_version():
            raise SnapshotError("taken by another version of the code or game definitions")
        try:
            bundle = pickle.loads(state)
            data = pickle.loads(bundle["head"])
            balances = dict(data.pop("bank_balances"))
            named = set(data.pop("named_moderators"))
            parts = {str(room): pickle.loads(part) for room, part in bundle["parts"].items()}
            hands: dict[str, dict[int, bytes]] = bundle["hands"]
            tables, history = Tables(), HistoryBook()
            for room, (table, kept) in parts.items():
                if table is not None:
                    dict.__setitem__(tables, room, table)
                history.set_room(room, kept, hands.get(room, {}))
        except Exception as e:  # any unreadable blob: the caller re-runs everything instead
            raise SnapshotError(f"unreadable ({type(e).__name__}: {e})") from None
        if not isinstance(data, dict) or "tables_opened" not in data:
            raise SnapshotError("not a service snapshot")
        bank = Bank()
        bank.restore(balances)
        for key, value in data.items():
            setattr(self, key, value)
        self.tables, self.history = tables, history
        self.bank = bank
        self.moderators = set(self._configured) | self.recorded_moderators | named
        self._dirty, self._taking, self._dropped = set(), None, []
        self._wire()

    # --- state queries ---------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """A comparable snapshot (tests: a rebuild reaches the same state)."""
        return {
            "balances": self.bank.balances(),
            "ledger": self._ledger_rows(),
            "tables": {
                room: {
                    "game": t.game, "options": t.options, "closing": t.closing,
                    "auto": t.auto, "ended_at": t.ended_at,
                    "clock": (t.paused, t.paused_at, t.paused_total),
                    "hand": t.engine.hand_no, "in_hand": t.engine.in_hand,
                    "stacks": t.engine.stacks(),
                    "seated": [(s.seat, s.name, s.chips, s.npc) for s in t.engine.seated()],
                    # the pending commitment as the room knows it (never the seed: state is
                    # printed by referee check)
                    "commitment": None if t.fair is None else (
                        t.fair.hand, commitment(t.fair.seed), len(t.fair.lines)),
                }
                for room, t in sorted(self.tables.items())
            },
            "flags": {i: (f.player, f.kind, f.confidence, f.status) for i, f in self.flags.items()},
            "penalties": list(self.penalties),
            # what the memory horizon forgot, and the charged keys it still keeps
            "forgotten": (self.discipline.open_forgotten, self.discipline.penalties_forgotten,
                          self.discipline.penalties_dropped),
            "charged": sorted(self.discipline.charged),
            "ranks": dict(self.ranks),
            "carried": self.carried,
            "moderators": sorted(self.moderators),
            "processed": sorted(self._processed_ids()),
        }

    def _ledger_rows(self) -> list[tuple[str, int, str]]:
        """The whole ledger: the store's when there is one (after a snapshot the bank holds only
        the entries since), else the bank's own."""
        stored = getattr(self.persistence, "ledger", None)
        if callable(stored):
            return [(r["player"], r["delta"], r["reason"]) for r in stored()]
        return [(e.player, e.delta, e.reason) for e in self.bank.ledger]

    def _processed_ids(self) -> set[str]:
        """Every input id this referee would refuse as done: its own, and its store's (which
        holds them instead of memory, see :meth:`process`)."""
        listed = getattr(self.persistence, "input_ids", None)
        return self.processed | set(listed()) if callable(listed) else set(self.processed)

    def table_chips(self, player: str) -> dict[str, int]:
        """The chips ``player`` holds at each room's table (not yet in the bank)."""
        return {room: t.engine.stacks()[player] for room, t in sorted(self.tables.items())
                if player in t.engine.stacks()}

    def record_configuration(self) -> Outcome | None:
        """Save the adapter's configuration (the moderators it was started with) as an input,
        when it differs from what the inputs last recorded: the state a full re-run needs
        (``referee check --snapshots``, ``referee verify``) is then in the log itself. The
        adapters call it once the store's inputs are re-run (:func:`referee.adapters.resume`)."""
        given = frozenset(self._configured)
        if given == self.recorded_moderators:
            return None
        return self.process(Directive(f"config:{self.configurations + 1}", "", "config",
                                      {"moderators": sorted(given)}))

    # --- what adapters read (no engine: referee.table.TableView) -------------------------------
    def on_table(self, listener: Callable[[TableOpened | TableClosed], None]) -> None:
        """Call ``listener`` with every table opened or closed from now on (not by a rebuild's
        re-run): how an adapter learns a table closed, whoever's input closed it."""
        self._table_listeners.append(listener)

    def rooms(self) -> list[str]:
        """The rooms that have a table, sorted."""
        return sorted(self.tables)

    def balances(self) -> dict[str, int]:
        """Every player's bank balance."""
        return self.bank.balances()

    def has_table(self, room: str) -> bool:
        return room in self.tables

    def question_asked_by(self, room: str) -> str | None:
        """The input whose answer holds the table's open question to the awaited player (a
        Matrix reaction to that answer is a yes), None when there is none."""
        t = self.tables.get(room)
        return t.question[3] if t is not None and t.question is not None else None

    def back_lines(self) -> dict[str, str]:
        """What each table's room is told when the bot comes back after a stop: that it is
        back, and the table as ``!status`` tells it (whom it waits for). A rendering of the
        state, not an input: nothing is saved."""
        return {room: phrase_text(line("back_online", status=commands.status_line(t, None)))
                for room, t in sorted(self.tables.items())}

    def table_view(self, room: str) -> TableView | None:
        t = self.tables.get(room)
        return t.view() if t is not None else None

    def seated_rooms(self, player: str) -> list[str]:
        """The rooms where ``player`` sits at the table, sorted."""
        return [room for room, t in sorted(self.tables.items()) if t.engine.is_seated(player)]

    def is_moderator(self, name: str) -> bool:
        return name in self.moderators

    def seated_names(self, room: str) -> set[str]:
        t = self.tables.get(room)
        return set(t.engine.stacks()) if t else set()  # stacks(): cheaper than seated()

    # --- what the handlers ask of the service (referee.turn.Desk) ----------------------------
    def part(self, kind: type[P]) -> P:
        """The service's part of type ``kind`` (its discipline)."""
        if isinstance(self.discipline, kind):
            return self.discipline
        raise KeyError(kind.__name__)

    def penalised(self, entry: dict[str, Any]) -> None:
        self.discipline.remember_penalty(self.penalties, entry)

    def add_moderator(self, name: str) -> None:
        self.moderators.add(name)

    def configure(self, moderators: frozenset[str]) -> None:
        """A ``config`` input: the moderators the adapter was started with."""
        self.configurations += 1
        self.moderators = (self.moderators - self.recorded_moderators) | moderators
        self.recorded_moderators = moderators

    def hand_ended(self, turn: Turn, room: str, hand: int) -> None:
        """A ``hand_end`` was emitted: when it ended (the automatic deal waits from there),
        what outlives it, and the deal's reveal."""
        t = self.tables.get(room)
        if t is None:
            return
        t.ended_at = turn.time
        self._carry_over(t)
        if t.dealt is not None and t.dealt.hand == hand:
            self._reveal(turn, t)

    def _carry_over(self, table: Table) -> None:
        carried = table.engine.carried()
        if carried is not None:
            self.carried[table.game] = carried

    def after(self, turn: Turn, table: Table) -> None:
        """Between hands: a closing table cashes everyone out; an automatic one deals."""
        if table.engine.in_hand:
            return
        if not table.closing:
            if table.live and self.tables.get(table.room) is table and (
                    table.fair is None or turn.commits_used < len(turn.drawn.get("commits", []))):
                # a seed this input drew when it first ran is used again (the record is what
                # was announced), whatever the pending commitment is now
                self._commit(turn, table)
            self._auto_deal(turn, table)
            return
        for s in list(table.engine.seated()):
            try:
                turn.emit(table.engine.leave(s.name))
            except IllegalAction:
                pass
        self._carry_over(table)
        if self.tables.get(table.room) is table:
            del self.tables[table.room]
        turn.emit([TableClosed(table=table.id, room=table.room)])
        turn.say(line("closed"))

    def open_table(self, turn: Turn, table: Table) -> None:
        """Seat ``table`` in its room with the next table number, and say so in a
        ``table_open`` event (a table the room had is closed first: a directive replaces it)."""
        old = self.tables.get(table.room)
        if old is not None:
            turn.emit([TableClosed(table=old.id, room=old.room)])
        self.tables_opened += 1
        table.id = self.tables_opened
        self.tables[table.room] = table
        options = dict(table.options)
        if table.auto:
            options["auto"] = "on"
        turn.emit([TableOpened(table=table.id, room=table.room, game=table.game,
                               options=options)])

    # --- commit–reveal dealing (referee.fairness, docs/fairness.md) ---------------------------
    def _commit(self, turn: Turn, table: Table) -> None:
        """Announce the next hand's commitment. The seed is drawn into the outcome (a rebuild
        takes it from there) and goes nowhere else until the reveal."""
        recorded: list[str] = turn.drawn.get("commits", [])
        used = turn.commits_used
        if used < len(recorded):
            seed = str(recorded[used])
        elif self._rebuilding:
            return  # an input saved before commitments existed: none was announced
        else:
            seed = new_seed(self.rng)
            turn.drawn["commits"] = [*recorded, seed]
        turn.commits_used += 1
        hand = table.engine.hand_no + 1
        table.fair = PendingDeal(seed=seed, hand=hand)
        sha = commitment(seed)
        turn.emit([DealCommitment(hand=hand, sha256=sha)])
        turn.say(line("deal_commitment", hand=str(hand), sha256=sha))

    def _fair_deal(self, turn: Turn, table: Table, recorded: Deal | None) -> Deal:
        """The deal of a randomly dealt hand: the deck from the pending commitment's seed and
        the entropy collected since it was announced (committing now, with this input as the
        only entropy, if nothing is pending). ``recorded``: the deal saved in the input (a
        rebuild), used as it is."""
        eng = table.engine
        pending = table.fair
        if pending is None or pending.hand != eng.hand_no + 1:
            self._commit(turn, table)
            pending = table.fair
            inp = turn.input
            if pending is not None and isinstance(inp, Message) and not inp.dm:
                pending.add(inp.id, inp.sender, inp.text)
        if pending is None:  # a rebuilt input from before commitments
            return recorded if recorded is not None else draw_deal(eng, self.rng)
        table.live = True  # it deals randomly: from now on, commit as soon as a hand can start
        d = eng.definition
        entropy = pending.entropy()
        shoe = Shoe(decks=d.decks, jokers=d.jokers, rng=random.Random(0))
        shoe.cards = shuffled_shoe(pending.seed, entropy, d.decks, d.jokers)
        deck = [card_str(c) for c in shoe.cards]
        rng = DealRandom(pending.seed, entropy)
        deal = draw_deal(eng, rng, shoe)
        pending.derived = Derived(deck=deck, bonus_deck=rng.bonus_deck, dice=rng.dice)
        deal = recorded if recorded is not None else deal
        dealt = deal_to_json(deal)
        if rng.bonus_deck:  # deuces' first bonus area comes from the bonus deck
            dealt["bonus"] = dealt.pop("board")
        pending.deal = dealt
        table.fair, table.dealt = None, pending
        return deal

    def deal_now(self, turn: Turn, table: Table) -> None:
        """``!deal``: the next hand, from the commitment (or, re-run, as the input recorded)."""
        if table.engine.in_hand:
            raise IllegalAction("deal_in_hand")
        recorded = turn.drawn.get("deal")
        deal = self._fair_deal(turn, table, deal_from_json(recorded) if recorded else None)
        try:
            events = self.start_hand(turn, table, deal)
        except IllegalAction:
            # not dealt (too few players …): the announced commitment still waits, so the
            # room is not sealed a second, different deck for the same hand
            table.fair, table.dealt = table.dealt, None
            raise
        turn.drawn["deal"] = deal_to_json(deal)  # a rebuild deals exactly these cards again
        # Each engine tells players their cards when its rules say so (holdem_aa only after
        # the stakes: an AA bet must be placed blind), so nothing is sent here.
        turn.emit(events)

    def start_hand(self, turn: Turn, table: Table, deal: Deal) -> list[Event]:
        """``start_hand``, with a ``hand_seats`` event after ``hand_start`` (referee.history)."""
        before = table.engine.stacks()
        events = table.engine.start_hand(deal)
        at = next((i for i, e in enumerate(events) if e.event == "hand_start"), None)
        if at is not None:
            events.insert(at + 1, hand_seats(table.engine, before, table.id))
        return events

    def _reveal(self, turn: Turn, table: Table) -> None:
        """After ``hand_end``: the seed, the entropy and the deck (``deal_reveal``, contracts §3),
        and the seed in the room, so anyone can check the commitment and re-derive the deck."""
        p, table.dealt = table.dealt, None
        if p is None or p.derived is None:
            return
        d = table.engine.definition
        extra: dict[str, Any] = {"sha256": commitment(p.seed), "game": d.id, "decks": d.decks,
                                 "jokers": d.jokers, "dealt": p.deal}
        if p.derived.bonus_deck:
            extra["bonus_deck"] = p.derived.bonus_deck
        if p.derived.dice:
            extra["dice"] = p.derived.dice
        turn.emit([DealReveal(hand=p.hand, seed=p.seed, entropy=p.entropy(),
                              deck=p.derived.deck, **extra)])
        turn.say(line("deal_reveal", hand=str(p.hand), seed=p.seed,
                              messages=len(p.lines)))

    def _auto_deal(self, turn: Turn, table: Table) -> None:
        """Deal the next hand of an ``auto`` table once ``AUTO_DEAL_AFTER`` seconds passed since
        the last one ended (time from the inputs, so a rebuild deals at the same input; the
        pause lets a winner open or close). The cards are drawn into the outcome."""
        if not table.auto or self.tables.get(table.room) is not table:
            return
        now = turn.time
        if now is not None and table.ended_at is not None:
            if now - table.ended_at < AUTO_DEAL_AFTER:
                return
        recorded: list[dict[str, Any]] = turn.drawn.setdefault("auto_deals", [])
        used = turn.auto_used
        pending = table.fair
        deal = self._fair_deal(turn, table, deal_from_json(recorded[used])
                               if used < len(recorded) else None)
        try:
            events = self.start_hand(turn, table, deal)
        except IllegalAction:
            table.fair, table.dealt = pending, None  # not dealt: the commitment still waits
            if not recorded:
                del turn.drawn["auto_deals"]
            return  # not ready (too few players): the next input tries again
        if used == len(recorded):
            recorded.append(deal_to_json(deal))
        turn.auto_used += 1
        turn.emit(events)

    # --- directives (referee.directives) -------------------------------------------------------
    def _directive(self, turn: Turn, name: str, args: dict[str, Any]) -> None:
        run = DIRECTIVES.get(name)
        if run is None:
            raise DirectiveError(f"unknown directive '{name}'")
        try:
            run(turn, args)
        except IllegalAction as e:
            raise DirectiveError(refusal_text(e.code, e.params)) from None
        except OptionError as e:
            raise DirectiveError(refusal_text(e.code, e.params)) from None

    # --- messages ----------------------------------------------------------------------------
    def _message(self, turn: Turn, said: Message) -> None:
        room, sender, text, now, dm = said.room, said.sender, said.text, said.time, said.dm
        table = self.tables.get(room)
        if table is not None and not dm and table.fair is not None:
            table.fair.add(said.id, sender, text)  # entropy for the next deal
        if table is not None and now is not None:
            self._tick(turn, room, now)
            table = self.tables.get(room)
        if said.edit:  # what the room now reads: judged, never acted on
            if table is not None and not dm:
                self._judge(turn, table, sender, text, parse(text, table.game))
            return
        cmd = read_command(text)
        if cmd is not None:
            commands.run(turn, cmd)
            return
        if table is None:
            if dm and any(w in text for w in words()["private"]["cards"]):
                # asked for one's cards with no single table to ask it of: say why, as a
                # command would (referee.routing chose none)
                turn.say(line("private_cards_which", sender=sender), to=sender)
            return
        parsed = parse(text, table.game)
        if parsed.kind == "chat":  # 「たけし: クローズで」 typed by たけし: their own name first
            own = tags.without_own_name(text, sender)
            parsed = parse(own, table.game) if own is not None else parsed
        if parsed.kind == "chat" and not dm:  # 「7捨て」: the one 7 the writer holds
            held = [card_str(c) for c in table.engine.holdings(sender)]
            parsed = with_hand(text, table.game, held) or parsed
        if dm:
            if parsed.kind == "action" and sender in self.seated_names(room):
                turn.say(line("action_in_private"), to=sender)
                return
            self._dm(turn, table, sender, nfkc(text))
            return
        seated = table.engine.is_seated(sender)
        asked = table.question
        if asked is not None and asked[0] == sender:
            table.question = None  # a question holds for the asked player's next line
            if parsed.kind != "action" and self._confirmed(table, sender, text, asked, now):
                parsed = asked[2]  # a short yes to the question: exactly what it offered
        # An action word inside advice (コールしなよ) is never the speaker's own action.
        if parsed.kind == "action" and seated and not parsed.advice:
            try:
                at = self.clock_time(table, now)
                events = table.engine.act(sender, parsed, at)
            except IllegalAction as e:
                turn.emit(_refused(sender, text, e))
                return
            turn.emit(events)
            if parsed.hand_info and parsed.action not in _SHOW_ACTIONS:
                self.discipline.check_leak(turn, table, sender, text)
            self.after(turn, table)
            return
        flagged = self._judge(turn, table, sender, text, parsed)
        # advice on someone else's decision is judged first; a message about someone else
        # gets no near-miss reply (it was not the speaker's own action) -- unless the table
        # waits for the speaker: then a line with action words is never left unanswered
        if parsed.kind == "chat" and not flagged and (
                self._awaits(table, sender) or not about_others(text, table.game)):
            self._say_unread(turn, table, sender, text)
        self.after(turn, table)

    def _judge(self, turn: Turn, table: Table, sender: str, text: str, parsed: Any) -> bool:
        """The house rules on a line that is no action of the speaker's: hand talk and
        interference. True when it was flagged as interference."""
        # a leak is the speaker's own hidden hand (parsed.hand_info); a story about a finished
        # hand or a hope that names a card is still judged against what they hold now
        if table.engine.is_seated(sender) and (parsed.hand_info or read(text, table.game).cards):
            self.discipline.check_leak(turn, table, sender, text)
        flagged = False
        if parsed.advice or parsed.kind == "action":  # 「レイズして」 from a spectator parses
            flagged = self.discipline.check_interference(turn, table, sender, text)  # as one
        return flagged

    def _say_unread(self, turn: Turn, table: Table, sender: str, text: str) -> None:
        """A near miss: the player the table waits for wrote action words that are no action
        (「コールかなぁ」), or a command word without its ``!`` (「退席」). Say what was not read
        and what is accepted, instead of letting the clock run out in silence."""
        norm = fold(text)
        word = nearmiss.command_word(norm)
        if word is not None:
            turn.say(line("command_hint", player=sender, word=word))
            return
        decision = table.engine.decision(sender) if table.engine.is_seated(sender) else None
        if decision is None:
            return
        others = other_games(text, table.game)
        if others:  # 「ＨＲ」 at an omaha turn: seven's word, refused with its code
            e = IllegalAction("other_game_word", text=catalog.excerpt(text),
                              games=joined(line("games_sep"),
                                           [line(f"hands_game_{g}") for g in others]),
                              game=line(f"hands_game_{table.game}"),
                              examples=self._examples(table.game, decision))
            turn.emit(_refused(sender, text, e))
            return
        meant = guess(text, table.game)
        if meant is not None and table.engine.can(sender, meant, self.clock_time(table, None)):
            said = line("near_miss_guess", player=sender, text=catalog.excerpt(text),
                                action=typed_form(table.game, meant))
            table.question = (sender, table.engine.hand_no, meant, turn.input.id)
            return turn.say(said)
        if meant is None and not holds_action_words(text, table.game):
            return  # (a slip of an action word that cannot be played now is answered too)
        turn.say(line("near_miss", player=sender, text=catalog.excerpt(text),
                              examples=self._examples(table.game, decision)))

    @staticmethod
    def _examples(game: str, decision: str) -> Phrase:
        """What the decision accepts, as examples to type (per game where it differs)."""
        key = f"examples_{game}_{decision}"
        return line(key if key in catalog.messages() else f"examples_{decision}")

    @staticmethod
    def _awaits(table: Table, player: str) -> bool:
        """Whether the table waits for ``player``'s decision now."""
        eng = table.engine
        return eng.in_hand and eng.is_seated(player) and eng.decision(player) is not None

    def _confirmed(self, table: Table, sender: str, text: str,
                   asked: tuple[str, int, Any, str], now: float | None) -> bool:
        """Whether ``text`` is the asked player's short yes to the table's question, asked in
        this hand and still possible (a spectator's 「はい」 confirms nothing)."""
        player, hand, meant, _ = asked
        if sender != player or hand != table.engine.hand_no or not table.engine.in_hand:
            return False
        yes, trailing = _yes_words()
        said = nfkc(text).strip().lower().rstrip(trailing)
        return said in yes and table.engine.can(sender, meant, self.clock_time(table, now))

    def _dm(self, turn: Turn, table: Table, sender: str, text: str) -> None:
        """A private message to the bot: players may ask for their own cards, privately."""
        if any(w in text for w in words()["private"]["cards"]):
            held = table.engine.holdings(sender)
            if held:
                from referee.cards import pretty

                turn.emit([Say.of(sender, line(
                    "private_cards", cards=" ".join(pretty(c) for c in held)),
                    cards=[card_str(c) for c in held])])
            elif table.engine.in_hand and table.engine.is_seated(sender):
                turn.say(line("private_not_dealt"), to=sender)
            else:
                turn.say(line("private_not_in_hand"), to=sender)


def _refused(player: str, said: str, e: IllegalAction) -> list[Event]:
    """A refused action: the ``rejected`` fact (its code and parameters) and the room's line
    that says why (both rendered at the turn's end)."""
    return [Rejected(player=player, text=said, code=e.code, params=e.params or None),
            Say.of("room", line("action_refused", player=player,
                                reason=line(e.code, **e.params)))]
