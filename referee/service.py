"""The referee service: one pipeline for every adapter (transcript replay, terminal, Matrix, IRC).

Sans-I/O like the engines: an adapter hands in an input (a chat message, or a transcript
directive) and gets back an :class:`~referee.outcome.Outcome` -- the events to print or send and
the bank ledger entries. The service owns what outlives a hand and spans tables: the tables per
room, the point bank (balances are the sum of the ledger, see :mod:`referee.bank`), the flags and
penalties, rank marks and the set of processed input ids (an input is applied at most once).

Inputs are plain JSON dicts so a store can keep them and a restart can replay them::

    {"kind": "message", "id", "room", "sender", "text", "time": float|None, "dm": bool,
     "deal": {...}}           # "deal" only once a live !deal drew cards (replayed as recorded)
    {"kind": "directive", "id", "room", "name": "table"|"seat"|…, "args": {...}}
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
  and are recorded in the input (``deal`` / ``auto_deals``); the deuces bonus area of a closed
  table carries over to the next ``!open deuces``.
"""

from __future__ import annotations

import hashlib
import pickle
import random
import secrets
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

from referee import guide
from referee.actions import Parsed
from referee.bank import Bank
from referee.cards import JOKER, Card, Shoe, card_str, parse_cards
from referee.definitions import GAME_IDS
from referee.discipline import Discipline, FlagDecided, FlagRecord  # noqa: F401 (re-exported)
from referee.events import DealCommitment, DealReveal, Event, Leave, Penalty, Rejected, Say
from referee.fairness import DealRandom, Derived, PendingDeal, commitment, new_seed, shuffled_shoe
from referee.history import HistoryBook, hand_seats
from referee.inputs import Input, record
from referee.lang import catalog, nearmiss
from referee.lang.normalize import fold
from referee.outcome import Incoming, LedgerEntry, Outcome, Persistence
from referee.rules import Deal, Engine, IllegalAction, OptionError, create

# --- events added by the service (CONTRACTS §3 allows new kinds; the store derives from them) ---


class RankChange(Event):
    event: Literal["rank"] = "rank"
    player: str
    mark: str
    previous: str = ""


class BankChange(Event):
    """A moderator's !grant (or a # bank: directive): the ledger entry points at this event."""

    event: Literal["bank"] = "bank"
    player: str
    delta: int
    balance: int
    reason: str


class SnapshotError(ValueError):
    """A snapshot that cannot be restored (other code version, unreadable): re-run instead."""


@cache
def snapshot_version() -> str:
    """The version a snapshot is valid for: a digest of the referee's code, its grammars and the
    game definitions. Any change to them -- a new release, an edited pay table -- makes older
    snapshots unusable, so a restart then re-runs the whole history once (loudly) and the next
    snapshot is taken with the new version."""
    h = hashlib.sha256()
    root = Path(__file__).resolve().parent.parent
    files = sorted(
        [*Path(__file__).resolve().parent.rglob("*.py"), *(root / "grammar").rglob("*"),
         *(root / "games").glob("*.toml"), *Path(__file__).resolve().parent.rglob("*.toml")]
    )
    for f in files:
        if f.is_file():
            h.update(f.relative_to(root).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:32]


class DirectiveError(ValueError):
    """A transcript/terminal directive the table cannot take (the adapter adds the line number)."""


@dataclass
class Table:
    room: str
    game: str
    options: dict[str, str]
    engine: Engine
    closing: bool = False
    auto: bool = False  # deal the next hand by itself (``!open GAME auto=on``)
    ended_at: float | None = None  # time of the input that ended the last hand
    # The action clock (``!clock off|on``): while paused no tick reaches the engine; the engine
    # sees "clock time" = input time minus the paused time, so a pause neither runs out a turn
    # nor leaves a deadline in the past at resume.
    paused: bool = False
    paused_at: float | None = None  # input time of the !clock off (None: not known yet)
    paused_total: float = 0.0
    last_time: float | None = None  # the latest input time seen at this table
    # Commit–reveal dealing (referee.fairness, docs/fairness.md): ``live`` tables (``!open``)
    # commit to the next hand's seed as soon as a hand can be dealt; ``fair`` is that pending
    # commitment (it collects the room's messages as entropy), ``dealt`` the running hand's.
    live: bool = False
    fair: PendingDeal | None = None
    dealt: PendingDeal | None = None


@dataclass(slots=True)
class _Ctx:
    """What one input produced so far."""

    input: dict[str, Any]
    events: list[Event] = field(default_factory=list)
    ledger: list[LedgerEntry] = field(default_factory=list)
    auto_used: int = 0  # automatic deals taken from input["auto_deals"] so far
    commits_used: int = 0  # seeds taken from input["commits"] so far


# Aliases that also stand for an argument (``!時計停止`` = ``!clock off``).
ALIAS_ARGS = {"時計停止": ["off"], "時計再開": ["on"]}  # keyed by the typed (NFKC) name

MODERATOR_COMMANDS = {
    "open", "close", "deal", "grant", "penalty", "confirm", "dismiss", "nogame", "misdeal",
    "exposed", "lastslot", "rank", "clock", "flags",
}

# Commands that act on a table (a private message must name it or come from a seated player).
TABLE_COMMANDS = frozenset({
    "status", "close", "sit", "leave", "deal", "nogame", "misdeal", "exposed", "lastslot", "clock",
    "rules", "hand",
})

HELP = {
    "open": "!open GAME [key=value…] [auto=on] — このルームにテーブルを開きます"
    "（auto=on で自動配札）（モデレーター）",
    "close": "!close — 現在のハンドの後にテーブルを閉じ、全員を精算します（モデレーター）",
    "sit": "!sit [席番号] （!着席） — バンクからバイインして着席します",
    "leave": "!leave （!退席） — 現在のハンドの後に退席し、チップをバンクに戻します",
    "deal": "!deal — 次のハンドを配ります（モデレーター）",
    "bank": "!bank [@user] — バンク残高（他人の残高はモデレーターのみ）",
    "penalties": "!penalties [@user] — ペナルティ記録（他人の記録はモデレーターのみ）",
    "grant": "!grant @user N [理由] — バンクにNポイントを付与（負で減算）します（モデレーター）",
    "penalty": "!penalty @user KIND — ペナルティを科します（information_leak / interference）"
    "（モデレーター）",
    "confirm": catalog.text("help_confirm"),
    "dismiss": catalog.text("help_dismiss"),
    "flags": catalog.text("help_flags"),
    "nogame": "!nogame — ノーゲーム（ディーリングミスの手続き）（モデレーター）",
    "misdeal": "!misdeal @user — 誤配布の手続き（モデレーター）",
    "exposed": "!exposed @user|board — 手札（またはボードのカード）が見えたときの手続き"
    "（モデレーター）",
    "lastslot": "!lastslot on|off — ラス枠のジョーカー効果を切り替えます（モデレーター）",
    "rank": "!rank @user MARK — ランク印を設定します（- で無印）（モデレーター）",
    "status": "!status （!状況） — テーブルの状況（ゲーム、ハンド、手番、チップ）",
    "clock": "!clock off|on （!時計停止 / !時計再開） — アクションの持ち時間を停止・再開します"
    "（停止中の時間は数えません）（モデレーター）",
    "rules": "!rules （!ルール） — このテーブルのゲームの簡単なルールと配当表",
    "help": "!help [コマンド] — 使い方（テーブルではそのゲームのアクションも）",
    "hand": catalog.text("help_hand"),
}

AUTO_DEAL_AFTER = 10.0  # seconds between a hand's end and the next automatic deal
# Event kinds _emit records something for (besides keeping the event).
_EMIT_KINDS = frozenset({"hand_end", "bonus_area", "leave", "penalty", "tournament_end"})
# Messages that are legal moments to show cards (a fold with show, the showdown, declarations).
_SHOW_ACTIONS = {"fold", "open", "muck", "close", "discard", "play"}


def command_name(name: str) -> str:
    """Aliases live in grammar/commands.lark only; the parser reads them."""
    from referee.parse import command_name as canonical

    return canonical(name)


def _parse(text: str, game: str) -> Parsed:
    from referee.parse import parse  # imported on first use: the parser loads its grammars

    global _parse
    _parse = parse
    return parse(text, game)


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip()


_BANG: dict[str, bool] = {}


def _is_bang(head: str) -> bool:
    """``head`` (one character) reads as ``!`` after NFKC; memoised, asked of every message."""
    known = _BANG.get(head)
    if known is None:
        known = _BANG[head] = _nfkc(head) == "!"
    return known


def _user(arg: str) -> str:
    return arg[1:] if arg.startswith("@") and len(arg) > 1 else arg


def _points(n: int) -> str:
    return f"{n:,}P"


def deal_to_json(deal: Deal) -> dict[str, Any]:
    return {
        "hands": {k: [card_str(c) for c in v] for k, v in deal.hands.items()},
        "board": [card_str(c) for c in deal.board],
        "dealer": [card_str(c) for c in deal.dealer],
        "shoe": [card_str(c) for c in deal.shoe],
        "dice": list(deal.dice),
    }


_CARD_OF: dict[str, Card] = {card_str(Card(i)): Card(i) for i in range(52)} | {"JK": JOKER}


def deal_from_json(data: dict[str, Any]) -> Deal:
    def cards(xs: Iterable[str]) -> list[Card]:
        xs = list(xs)
        try:
            return [_CARD_OF[x] for x in xs]  # canonical strings: the common, fast case
        except KeyError:
            return parse_cards(" ".join(xs))

    return Deal(
        hands={k: cards(v) for k, v in data.get("hands", {}).items()},
        board=cards(data.get("board", [])),
        dealer=cards(data.get("dealer", [])),
        shoe=cards(data.get("shoe", [])),
        dice=[int(d) for d in data.get("dice", [])],
    )


def draw_deal(engine: Engine, rng: random.Random, shoe: Shoe | None = None) -> Deal:
    """A live deal from a freshly shuffled shoe of the game's decks and jokers (or ``shoe``,
    already in order: the commit–reveal deck).

    The engine sizes the deal (:meth:`~referee.rules.base.Engine.draw_deal`: its deal plan, or
    a deal of its own).
    """
    d = engine.definition
    if shoe is None:
        shoe = Shoe(decks=d.decks, jokers=d.jokers, rng=rng)
    return engine.draw_deal(shoe, rng)


class Referee:
    """Every table the bot runs, the bank, flags and penalties; see the module docstring."""

    def __init__(
        self,
        moderators: Iterable[str] = (),
        persistence: Persistence | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.moderators: set[str] = set(moderators)
        self._configured = frozenset(self.moderators)  # the rest came from inputs (# moderator:)
        self.persistence = persistence
        self.rng: random.Random = rng if rng is not None else secrets.SystemRandom()
        self.tables: dict[str, Table] = {}
        self.bank = Bank()
        self.discipline = Discipline(self)
        self.flags: dict[int, FlagRecord] = self.discipline.flags
        self.penalties: list[dict[str, Any]] = []
        self.ranks: dict[str, str] = {}
        self.processed: set[str] = set()
        # The deuces bonus area outlives tables and sessions (docs/rules.md): the last one seen, so
        # a table opened later starts from it. Derived from events, so a rebuild restores it too.
        self.bonus_area: tuple[list[str], list[int]] | None = None
        self._track_processed = True  # off while a rebuild re-runs inputs a store already has
        self._rebuilding = False  # a rebuild: an input without recorded seeds commits nothing
        # Finished hands, public parts only (``!hand N``; referee.history).
        self.history = HistoryBook()

    # --- entry points ----------------------------------------------------------------------
    def handle(self, incoming: Incoming) -> list[Event]:
        """One chat message; the events it caused ([] if already processed)."""
        out = self.process(
            {
                "kind": "message", "id": incoming.id, "room": incoming.room,
                "sender": incoming.sender, "text": incoming.text, "time": incoming.time,
                "dm": incoming.dm,
            }
        )
        return out.events if out is not None else []

    def directive(self, input_id: str, room: str, name: str, args: dict[str, Any]) -> list[Event]:
        """A transcript/terminal directive (``# seat``, ``# deal`` …); raises DirectiveError."""
        out = self.process(
            {"kind": "directive", "id": input_id, "room": room, "name": name, "args": args}
        )
        return out.events if out is not None else []

    def is_processed(self, input_id: str) -> bool:
        if input_id in self.processed:
            return True
        return self.persistence is not None and self.persistence.is_processed(input_id)

    def process(self, given: Input | dict[str, Any]) -> Outcome | None:
        """Apply one input once: ``None`` if it was already processed, else its Outcome (saved
        to the persistence, if any, before it is returned). ``given`` is a typed input
        (:mod:`referee.inputs`) or a stored record (a rebuild re-runs those)."""
        inp = given if isinstance(given, dict) else record(given)
        input_id = str(inp["id"])
        if input_id in self.processed or (
            self.persistence is not None and self.persistence.is_processed(input_id)
        ):
            return None
        ctx = _Ctx(input=dict(inp))
        room = str(inp.get("room", ""))
        kind = inp.get("kind")
        if kind == "directive":
            self._directive(ctx, room, str(inp["name"]), dict(inp.get("args", {})))
        elif kind == "tick":
            self._tick(ctx, room, float(inp["time"]))
        else:
            self._message(ctx, room)
        if self.persistence is None and self._track_processed:
            self.processed.add(input_id)  # with persistence, the store knows (an index)
        if ctx.events:
            self.history.record(room, ctx.events, inp.get("time"))
        outcome = Outcome(input_id=input_id, room=room, input=ctx.input, events=ctx.events,
                          ledger=ctx.ledger)
        if self.persistence is not None:
            if any(e.event == "hand_end" for e in ctx.events):
                outcome.snapshot = self.snapshot  # taken when saved (group commit: its end)
            self.persistence.save(outcome)
        return outcome

    def tick(self, input_id: str, room: str, now: float) -> list[Event]:
        """The action clock with no message (a live adapter's timer): reminders and timeouts.
        Saved like any input, so a rebuild times out the same players."""
        out = self.process({"kind": "tick", "id": input_id, "room": room, "time": now})
        return out.events if out is not None else []

    def _tick(self, ctx: _Ctx, room: str, now: float) -> None:
        table = self.tables.get(room)
        if table is not None:
            clock_now = self._clock_time(table, now)
            if table.paused or clock_now is None:
                return  # a paused clock: no reminder, no default action
            self._emit(ctx, table.engine.tick(clock_now))
            self._after(ctx, table)

    @staticmethod
    def _clock_time(table: Table, now: float | None) -> float | None:
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

    def clock_paused(self, room: str) -> bool:
        t = self.tables.get(room)
        return t is not None and t.paused

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

    # --- snapshots (issue 21) -----------------------------------------------------------------
    # What a snapshot leaves out: the wiring given at construction (the store, the random
    # source, the configured moderators -- the moderators that inputs named are kept), the
    # processed ids (the store has them) and the bank's ledger (the store keeps it; the balances
    # are enough to go on).
    _NOT_SNAPSHOTTED = frozenset(
        {"persistence", "rng", "moderators", "_configured", "processed", "bank",
         "_track_processed", "_rebuilding"}
    )

    def snapshot(self) -> tuple[str, bytes]:
        """(version, state): everything the service needs to go on as if it had re-run every
        input so far -- the tables (engines, seats, clocks, carried-over state such as the
        deuces bonus area), flags, penalties, rank marks and bank balances. ``version`` names
        the code and definitions it was taken with (:func:`snapshot_version`); a snapshot is
        only ever restored by the very same version, so it is exactly what a full re-run gives.

        Pickle, because the state is the engines' own objects; the bytes never leave the
        referee's own database, which is trusted like the code."""
        state = {k: v for k, v in vars(self).items() if k not in self._NOT_SNAPSHOTTED}
        state["bank_balances"] = self.bank.balances()
        state["named_moderators"] = sorted(self.moderators - self._configured)
        return snapshot_version(), pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)

    def restore(self, version: str, state: bytes) -> None:
        """Go on from a :meth:`snapshot`; SnapshotError (and nothing changed) when it was taken
        by other code or definitions, or cannot be read."""
        if version != snapshot_version():
            raise SnapshotError("taken by another version of the code or game definitions")
        try:
            data = pickle.loads(state)
            balances = dict(data.pop("bank_balances"))
            named = set(data.pop("named_moderators"))
        except Exception as e:  # any unreadable blob: the caller re-runs everything instead
            raise SnapshotError(f"unreadable ({type(e).__name__}: {e})") from None
        if not isinstance(data, dict) or not isinstance(data.get("tables"), dict):
            raise SnapshotError("not a service snapshot")
        bank = Bank()
        bank.restore(balances)
        for key, value in data.items():
            setattr(self, key, value)
        self.discipline.ref = self  # not pickled (see Discipline.__getstate__)
        self.bank = bank
        self.moderators = set(self._configured) | named

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
            "ranks": dict(self.ranks),
            "bonus_area": self.bonus_area,
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

    def is_moderator(self, name: str) -> bool:
        return name in self.moderators

    def seated_names(self, room: str) -> set[str]:
        t = self.tables.get(room)
        return set(t.engine.stacks()) if t else set()  # stacks(): cheaper than seated()

    # --- emitting ----------------------------------------------------------------------------
    def _emit(self, ctx: _Ctx, events: Iterable[Event]) -> None:
        """Record events; leave credits and penalty debits become ledger entries here, once."""
        out = ctx.events
        for ev in events:
            out.append(ev)
            if ev.event not in _EMIT_KINDS and not isinstance(ev, (Leave, Penalty)):
                continue  # nothing to record (most events: says, actions)
            idx = len(out) - 1
            if ev.event == "hand_end":
                t = self.tables.get(str(ctx.input.get("room", "")))
                if t is not None:
                    now = ctx.input.get("time")
                    t.ended_at = float(now) if now is not None else None
                    if t.dealt is not None and t.dealt.hand == getattr(ev, "hand", None):
                        self._reveal(ctx, t)
            elif ev.event == "bonus_area":
                self.bonus_area = (list(getattr(ev, "cards", [])),
                                   [int(m) for m in getattr(ev, "markers", [])])
            if ev.event == "tournament_end":  # the prizes go to the bank at once
                for player, pts in dict(getattr(ev, "prizes", {})).items():
                    self._ledger(ctx, str(player), int(pts), "prize", idx)
            elif isinstance(ev, Leave) or ev.event == "leave":
                pts = int(getattr(ev, "bank", 0) or 0)
                if pts:
                    self._ledger(ctx, str(getattr(ev, "player", "")), pts, "leave", idx)
            elif isinstance(ev, Penalty) or ev.event == "penalty":
                pts = int(getattr(ev, "points", 0) or 0)
                player = str(getattr(ev, "player", ""))
                self.penalties.append(
                    {"player": player, "kind": str(getattr(ev, "kind", "")), "points": pts,
                     "room": ctx.input.get("room", "")}
                )
                if pts:
                    self._ledger(ctx, player, -pts, f"penalty:{getattr(ev, 'kind', '')}", idx)

    def _ledger(self, ctx: _Ctx, player: str, delta: int, reason: str, idx: int | None) -> None:
        entry = LedgerEntry(player=player, delta=delta, reason=reason, event_index=idx)
        self.bank.apply(entry)
        ctx.ledger.append(entry)

    def _say(self, ctx: _Ctx, text: str, to: str = "room") -> None:
        self._emit(ctx, [Say(to=to, text=text)])

    def _after(self, ctx: _Ctx, table: Table) -> None:
        """Between hands: a closing table cashes everyone out; an automatic one deals."""
        if table.engine.in_hand:
            return
        if not table.closing:
            if table.live and table.fair is None and self.tables.get(table.room) is table:
                self._commit(ctx, table)
            self._auto_deal(ctx, table)
            return
        for s in list(table.engine.seated()):
            try:
                self._emit(ctx, table.engine.leave(s.name))
            except IllegalAction:
                pass
        area: Any = getattr(table.engine, "bonus_area", None)  # deuces: a property
        if callable(area):
            area = area()
        if isinstance(area, tuple) and area and area[0]:
            self.bonus_area = ([card_str(c) for c in area[0]], [int(m) for m in area[1]])
        if self.tables.get(table.room) is table:
            del self.tables[table.room]
        self._say(ctx, "テーブルを閉じました。ありがとうございました。")

    # --- commit–reveal dealing (referee.fairness, docs/fairness.md) ---------------------------
    def _commit(self, ctx: _Ctx, table: Table) -> None:
        """Announce the next hand's commitment. The seed is recorded in the input (a rebuild
        takes it from there) and goes nowhere else until the reveal."""
        recorded: list[str] = ctx.input.get("commits", [])
        used = ctx.commits_used
        if used < len(recorded):
            seed = str(recorded[used])
        elif self._rebuilding:
            return  # an input saved before commitments existed: none was announced
        else:
            seed = new_seed(self.rng)
            ctx.input["commits"] = [*recorded, seed]
        ctx.commits_used += 1
        hand = table.engine.hand_no + 1
        table.fair = PendingDeal(seed=seed, hand=hand)
        sha = commitment(seed)
        self._emit(ctx, [DealCommitment(hand=hand, sha256=sha)])
        self._say(ctx, catalog.text("deal_commitment", hand=str(hand), sha256=sha))

    def _fair_deal(self, ctx: _Ctx, table: Table, recorded: Deal | None) -> Deal:
        """The deal of a randomly dealt hand: the deck from the pending commitment's seed and
        the entropy collected since it was announced (committing now, with this input as the
        only entropy, if nothing is pending). ``recorded``: the deal saved in the input (a
        rebuild), used as it is."""
        eng = table.engine
        pending = table.fair
        if pending is None or pending.hand != eng.hand_no + 1:
            self._commit(ctx, table)
            pending = table.fair
            inp = ctx.input
            if pending is not None and inp.get("kind") == "message" and not inp.get("dm"):
                pending.add(str(inp.get("id", "")), str(inp.get("sender", "")),
                            str(inp.get("text", "")))
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

    def _start_hand(self, ctx: _Ctx, table: Table, deal: Deal) -> list[Event]:
        """``start_hand``, with a ``hand_seats`` event after ``hand_start`` (referee.history)."""
        before = table.engine.stacks()
        events = table.engine.start_hand(deal)
        at = next((i for i, e in enumerate(events) if e.event == "hand_start"), None)
        if at is not None:
            events.insert(at + 1, hand_seats(table.engine, before))
        return events

    def _reveal(self, ctx: _Ctx, table: Table) -> None:
        """After ``hand_end``: the seed, the entropy and the deck (CONTRACTS §3 ``deal_reveal``),
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
        self._emit(ctx, [DealReveal(hand=p.hand, seed=p.seed, entropy=p.entropy(),
                                    deck=p.derived.deck, **extra)])
        self._say(ctx, catalog.text("deal_reveal", hand=str(p.hand), seed=p.seed,
                                    messages=len(p.lines)))

    def _auto_deal(self, ctx: _Ctx, table: Table) -> None:
        """Deal the next hand of an ``auto`` table once ``AUTO_DEAL_AFTER`` seconds passed since
        the last one ended (time from the inputs, so a rebuild deals at the same input; the
        pause lets a winner open or close). The cards are recorded in the input."""
        if not table.auto or self.tables.get(table.room) is not table:
            return
        now = ctx.input.get("time")
        if now is not None and table.ended_at is not None:
            if float(now) - table.ended_at < AUTO_DEAL_AFTER:
                return
        recorded: list[dict[str, Any]] = ctx.input.setdefault("auto_deals", [])
        used = ctx.auto_used
        pending = table.fair
        deal = self._fair_deal(ctx, table, deal_from_json(recorded[used])
                               if used < len(recorded) else None)
        try:
            events = self._start_hand(ctx, table, deal)
        except IllegalAction:
            table.fair, table.dealt = pending, None  # not dealt: the commitment still waits
            if not recorded:
                del ctx.input["auto_deals"]
            return  # not ready (too few players): the next input tries again
        if used == len(recorded):
            recorded.append(deal_to_json(deal))
        ctx.auto_used += 1
        self._emit(ctx, events)

    # --- directives ----------------------------------------------------------------------------
    def _table(self, room: str) -> Table:
        t = self.tables.get(room)
        if t is None:
            raise DirectiveError("no table: a '# table:' line must come first")
        return t

    def _directive(self, ctx: _Ctx, room: str, name: str, args: dict[str, Any]) -> None:
        try:
            self._directive_inner(ctx, room, name, args)
        except IllegalAction as e:
            raise DirectiveError(e.reason) from None
        except OptionError as e:
            raise DirectiveError(str(e)) from None

    def _directive_inner(self, ctx: _Ctx, room: str, name: str, args: dict[str, Any]) -> None:
        if name == "table":
            game = str(args["game"])
            if game not in GAME_IDS:
                raise DirectiveError(f"unknown game '{game}'")
            # A directive sets the scene: it replaces whatever table the room had (a transcript
            # run against a database that an earlier transcript left mid-hand must not fail).
            options = {str(k): str(v) for k, v in dict(args.get("options", {})).items()}
            self.tables[room] = Table(room, game, options, create(game, options))
        elif name == "moderator":
            self.moderators.add(str(args["name"]))
        elif name == "bank":
            player, points = str(args["name"]), int(args["points"])
            delta = points - self.bank.balance(player)
            ev = BankChange(player=player, delta=delta, balance=points, reason="transcript")
            self._emit(ctx, [ev])
            self._ledger(ctx, player, delta, "opening balance", len(ctx.events) - 1)
        elif name == "rank":
            self._set_rank(ctx, str(args["name"]), str(args.get("mark", "")))
        elif name == "seat":
            t = self._table(room)
            self._emit(ctx, t.engine.sit(int(args["seat"]), str(args["name"]),
                                         int(args["chips"]), bool(args.get("npc", False))))
        elif name == "button":
            self._table(room).engine.set_button(int(args["seat"]))
        elif name == "bonus":
            cards = parse_cards(" ".join(args.get("cards", [])))
            markers = args.get("markers")
            self._table(room).engine.set_bonus_area(
                cards, [int(m) for m in markers] if markers is not None else None
            )
        elif name == "deal":
            t = self._table(room)
            deal = deal_from_json(args)
            seated = self.seated_names(room)
            for player in deal.hands:
                if player not in seated:
                    raise DirectiveError(f"'{player}' is not seated at this table")
            self._emit(ctx, self._start_hand(ctx, t, deal))
            self._after(ctx, t)
        else:
            raise DirectiveError(f"unknown directive '{name}'")

    # --- messages ----------------------------------------------------------------------------
    def _message(self, ctx: _Ctx, room: str) -> None:
        inp = ctx.input
        sender, text = str(inp.get("sender", "")), str(inp.get("text", ""))
        now = inp.get("time")
        dm = bool(inp.get("dm", False))
        table = self.tables.get(room)
        if table is not None and not dm and table.fair is not None:
            table.fair.add(str(inp.get("id", "")), sender, text)  # entropy for the next deal
        if table is not None and now is not None:
            self._tick(ctx, room, float(now))
            table = self.tables.get(room)
        head = text.lstrip()[:1]
        if head in ("!", "！") or (head and not head.isascii() and _is_bang(head)):
            self._command(ctx, room, sender, _nfkc(text)[1:], dm)
            return
        if table is None:
            return
        parsed = _parse(text, table.game)
        if parsed.kind == "command":
            self._command(ctx, room, sender, _nfkc(text).lstrip("!"), dm)
            return
        if dm:
            if parsed.kind == "action" and sender in self.seated_names(room):
                self._say(ctx, "アクションはテーブルのルームで宣言してください"
                               "（個別メッセージでは受け付けません）。", to=sender)
                return
            self._dm(ctx, table, sender, _nfkc(text))
            return
        seated = table.engine.is_seated(sender)
        # An action word inside advice (「コールしなよ」) is about someone else's action: never
        # apply it as the speaker's own.
        if parsed.kind == "action" and seated and not parsed.advice:
            try:
                at = self._clock_time(table, float(now) if now is not None else None)
                events = table.engine.act(sender, parsed, at)
            except IllegalAction as e:
                self._emit(ctx, [Rejected(player=sender, text=text, reason=e.reason),
                                 Say(to="room", text=f"{sender}さん: {e.reason}")])
                return
            self._emit(ctx, events)
            if parsed.hand_info and parsed.action not in _SHOW_ACTIONS:
                self.discipline.check_leak(ctx, table, sender, text)
            self._after(ctx, table)
            return
        if parsed.hand_info and seated:
            self.discipline.check_leak(ctx, table, sender, text)
        if parsed.advice or parsed.kind == "action":  # 「レイズして」 from a spectator parses
            self.discipline.check_interference(ctx, table, sender, text)  # as an action
        if parsed.kind == "chat":
            self._say_unread(ctx, table, sender, text)
        self._after(ctx, table)

    def _say_unread(self, ctx: _Ctx, table: Table, sender: str, text: str) -> None:
        """A near miss: the player the table waits for wrote action words that are no action
        (「コールかなぁ」), or a command word without its ``!`` (「退席」). Say what was not read
        and what is accepted, instead of letting the clock run out in silence."""
        norm = fold(text)
        word = nearmiss.command_word(norm)
        if word is not None:
            self._say(ctx, catalog.text("command_hint", player=sender, word=word))
            return
        decision = table.engine.decision(sender) if table.engine.is_seated(sender) else None
        if decision is None or not nearmiss.mentions_action(norm):
            return
        msgs = catalog.messages()
        key = f"examples_{table.game}_{decision}"
        examples = msgs[key] if key in msgs else msgs[f"examples_{decision}"]
        self._say(ctx, catalog.text("near_miss", player=sender, text=catalog.excerpt(text),
                                    examples=examples))

    def _dm(self, ctx: _Ctx, table: Table, sender: str, text: str) -> None:
        """A private message to the bot: players may ask for their own cards, privately."""
        if any(w in text for w in ("手札", "ハンド", "カード", "hand")):
            held = table.engine.holdings(sender)
            if held:
                from referee.cards import pretty

                self._say(ctx, "あなたの手札: " + " ".join(pretty(c) for c in held), to=sender)
            elif table.engine.in_hand and sender in self.seated_names(table.room):
                self._say(ctx, "まだカードは配られていません。", to=sender)
            else:
                self._say(ctx, "現在のハンドに参加していません。", to=sender)

    def _set_rank(self, ctx: _Ctx, player: str, mark: str) -> None:
        prev = self.ranks.get(player, "")
        self.ranks[player] = mark
        self._emit(ctx, [RankChange(player=player, mark=mark, previous=prev)])

    # --- commands ------------------------------------------------------------------------------
    def _command(self, ctx: _Ctx, room: str, sender: str, body: str, dm: bool) -> None:
        parts = body.split()
        reply_to = sender if dm else "room"
        if not parts:
            self._say(ctx, "コマンドが空です。!help で使い方を表示します。", to=reply_to)
            return
        name = command_name(parts[0])
        args = ALIAS_ARGS.get(parts[0], []) + parts[1:]
        handler = getattr(self, f"_cmd_{name}", None)
        if handler is None:
            self._say(ctx, f"「!{catalog.excerpt(parts[0])}」というコマンドはありません。"
                           "!help で一覧を表示します。",
                      to=reply_to)
            return
        if name in MODERATOR_COMMANDS and not self.is_moderator(sender):
            self._say(ctx, f"{sender}さん: 「!{parts[0]}」はモデレーター専用のコマンドです。"
                           "権限がないため実行しませんでした。", to=reply_to)
            return
        if dm and self._private_refusal(ctx, room, sender, name, reply_to):
            return
        table = self.tables.get(room)
        try:
            handler(ctx, room, sender, args, reply_to)
        except IllegalAction as e:
            self._say(ctx, f"{sender}さん: {e.reason}", to=reply_to)
        except OptionError as e:
            self._say(ctx, f"{sender}さん: テーブル設定が不正です: {e}", to=reply_to)
        if table is not None:
            self._after(ctx, table)

    def _private_refusal(self, ctx: _Ctx, room: str, sender: str, name: str, to: str) -> bool:
        """A command typed in a private message: ``room`` is the table referee.routing chose
        (or not a table when none could be); a table is never opened from one."""
        from referee.lang.catalog import text

        if name == "open":
            self._say(ctx, text("private_open_refused", sender=sender), to=to)
            return True
        if name in TABLE_COMMANDS and room not in self.tables:
            self._say(ctx, text("private_no_table", sender=sender, command=name), to=to)
            return True
        return False

    def _need_table(self, room: str) -> Table:
        t = self.tables.get(room)
        if t is None:
            raise IllegalAction("このルームにはテーブルがありません（!open で開きます）")
        return t

    def _cmd_help(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        if args:
            key = command_name(args[0].lstrip("!"))
            unknown = f"「{catalog.excerpt(args[0])}」というコマンドはありません。"
            self._say(ctx, HELP.get(key, unknown), to=to)
            return
        lines = [catalog.text("help_commands", commands=" ".join(f"!{k}" for k in HELP))]
        table = self.tables.get(room)
        if table is not None:  # and what this table's game accepts
            lines.append(guide.actions(table.engine.definition))
        self._say(ctx, "\n".join(lines), to=to)

    def _cmd_rules(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        """!rules: the table's game in short, and its pay tables as the definition has them."""
        t = self._need_table(room)
        self._say(ctx, "\n".join(guide.rules(t.engine.definition, t.options)), to=to)

    def _cmd_status(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        t = self._need_table(room)
        eng = t.engine
        parts = [eng.definition.name]
        if eng.in_hand:
            parts.append(f"ハンド#{eng.hand_no} 進行中")
            turn = eng.to_act()
            if turn:
                parts.append(f"手番: {turn}")
        else:
            parts.append("ハンド間" + ("（終了処理中）" if t.closing else ""))
        stacks = eng.stacks()
        seats = "・".join(
            f"{s.seat}番 {s.name} {stacks.get(s.name, s.chips):,}" for s in eng.seated()
        )
        parts.append(seats or "着席なし")
        parts.extend(eng.status(ctx.input.get("time")))
        self._say(ctx, " / ".join(parts), to=to)

    def _cmd_open(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        if not args:
            raise IllegalAction("ゲームを指定してください: " + " ".join(GAME_IDS))
        game = args[0]
        if game not in GAME_IDS:
            raise IllegalAction(f"未知のゲームです: {game}（{' '.join(GAME_IDS)}）")
        if room in self.tables:
            raise IllegalAction("このルームにはすでにテーブルがあります（!close で閉じます）")
        options: dict[str, str] = {}
        for kv in args[1:]:
            if "=" not in kv:
                raise IllegalAction(f"オプションは key=value の形で指定してください: {kv}")
            k, v = kv.split("=", 1)
            options[k] = v
        auto = options.pop("auto", "off")
        if auto not in ("on", "off"):
            raise IllegalAction("auto は on か off です")
        engine = create(game, options)
        if game == "deuces" and self.bonus_area is not None:
            cards, markers = self.bonus_area
            engine.set_bonus_area(parse_cards(" ".join(cards)), markers)
        self.tables[room] = Table(room, game, options, engine, auto=auto == "on", live=True)
        self._say(ctx, f"{engine.definition.name} のテーブルを開きました。!sit で着席できます。"
                  + ("（2人以上でハンドを自動で配ります）" if auto == "on" else ""))

    def _cmd_close(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        t = self._need_table(room)
        t.closing = True
        if t.engine.in_hand:
            self._say(ctx, "このハンドの終了後にテーブルを閉じます。")
        # _command calls _after, which cashes everyone out when no hand is running

    def _cmd_sit(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        t = self._need_table(room)
        if t.closing:
            raise IllegalAction("このテーブルは終了処理中です")
        eng = t.engine
        if sender in self.seated_names(room):
            raise IllegalAction("すでに着席しています")
        taken = {s.seat for s in eng.seated()}
        if args:
            try:
                seat = int(args[0])
            except ValueError:
                raise IllegalAction(f"席番号が読めません: {args[0]}") from None
            if not 1 <= seat <= eng.definition.seats.max:
                raise IllegalAction(f"席番号は 1〜{eng.definition.seats.max} です")
            if seat in taken:
                raise IllegalAction(f"{seat}番席は埋まっています")
        else:
            free = [n for n in range(1, eng.definition.seats.max + 1) if n not in taken]
            if not free:
                raise IllegalAction("空席がありません")
            seat = free[0]
        points = self.bank.balance(sender)
        # what the bank pays and the chips it buys (a max buy-in, a tournament's entry: a free
        # one seats a player with no points); raises before anything changes
        buy = eng.buy_in(max(points, 0))
        chips = buy.chips
        if chips <= 0:
            raise IllegalAction(f"バンク残高がありません（{_points(points)}）")
        events = eng.sit(seat, sender, chips)
        self._emit(ctx, events)
        if buy.points:  # (a free tournament takes nothing)
            self._emit(ctx, [BankChange(player=sender, delta=-buy.points,
                                        balance=points - buy.points, reason=buy.reason)])
            self._ledger(ctx, sender, -buy.points, buy.reason, len(ctx.events) - 1)
        if not any(e.event == "say" for e in events):
            self._say(ctx, f"{sender}さんが{seat}番席に着席しました（チップ {chips:,}）。")

    def _cmd_leave(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        t = self._need_table(room)
        if sender not in self.seated_names(room):
            raise IllegalAction("着席していません")
        events = t.engine.leave(sender)
        self._emit(ctx, events)
        if not any(e.event in ("leave", "say") for e in events):
            self._say(ctx, f"{sender}さんはこのハンドの終了後に退席します。")

    def _cmd_deal(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        t = self._need_table(room)
        if t.engine.in_hand:
            raise IllegalAction("ハンドの進行中です")
        recorded = ctx.input.get("deal")
        deal = self._fair_deal(ctx, t, deal_from_json(recorded) if recorded else None)
        events = self._start_hand(ctx, t, deal)
        ctx.input["deal"] = deal_to_json(deal)  # a rebuild deals exactly these cards again
        # Each engine tells players their cards when its rules say so (holdem_aa only after
        # the stakes: an AA bet must be placed blind), so nothing is sent here.
        self._emit(ctx, events)

    def _target(self, sender: str, args: list[str], to: str, what: str) -> str:
        if args:
            target = _user(args[0])
            if target != sender and not self.is_moderator(sender):
                raise IllegalAction(f"他の人の{what}はモデレーターのみ確認できます")
            return target
        return sender

    def _cmd_bank(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        who = self._target(sender, args, to, "バンク残高")
        self._say(ctx, f"{who}さんのバンク残高: {_points(self.bank.balance(who))}", to=to)

    def _cmd_penalties(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        who = self._target(sender, args, to, "ペナルティ記録")
        self._say(ctx, self.discipline.penalties_of(who), to=to)

    def _cmd_grant(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        if len(args) < 2:
            raise IllegalAction("使い方: " + HELP["grant"])
        who = _user(args[0])
        try:
            n = int(args[1].replace(",", ""))
        except ValueError:
            raise IllegalAction(f"ポイント数が読めません: {args[1]}") from None
        reason = " ".join(args[2:]) or "grant"
        bal = self.bank.balance(who) + n
        self._emit(ctx, [BankChange(player=who, delta=n, balance=bal, reason=reason)])
        self._ledger(ctx, who, n, f"grant:{reason}", len(ctx.events) - 1)
        self._say(ctx, f"{who}さんのバンクに{_points(n)}（{reason}）。残高 {_points(bal)}", to=to)

    def _cmd_penalty(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        self.discipline.cmd_penalty(ctx, room, sender, args, to, "使い方: " + HELP["penalty"])

    def _cmd_confirm(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        self.discipline.cmd_confirm(ctx, room, sender, args, to)

    def _cmd_dismiss(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        self.discipline.cmd_dismiss(ctx, room, sender, args, to)

    def _cmd_flags(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        self.discipline.cmd_flags(ctx, room, sender, args, to)

    def _mistake(self, ctx: _Ctx, room: str, kind: str, args: list[str]) -> None:
        t = self._need_table(room)
        player = _user(args[0]) if args else None
        if kind != "nogame" and player is None:
            raise IllegalAction("対象のプレイヤーを @user で指定してください")
        self._emit(ctx, t.engine.dealing_mistake(kind, player))

    def _cmd_nogame(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        self._mistake(ctx, room, "nogame", [])

    def _cmd_misdeal(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        self._mistake(ctx, room, "misdeal", args)

    def _cmd_exposed(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        self._mistake(ctx, room, "exposed", args)

    def _cmd_lastslot(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        t = self._need_table(room)
        if not args or args[0].lower() not in ("on", "off"):
            raise IllegalAction("使い方: " + HELP["lastslot"])
        on = args[0].lower() == "on"
        self._emit(ctx, t.engine.set_last_slot(on))
        self._say(ctx, "ラス枠を開始しました。" if on else "ラス枠を終了しました。")

    def _cmd_clock(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        t = self._need_table(room)
        word = args[0].lower() if args else ""
        word = {"停止": "off", "再開": "on"}.get(word, word)
        if word not in ("on", "off"):
            raise IllegalAction("使い方: " + HELP["clock"])
        now = ctx.input.get("time")
        at = float(now) if now is not None else t.last_time
        if word == "off":
            if t.paused:
                raise IllegalAction("持ち時間はすでに停止しています")
            t.paused, t.paused_at = True, at
            self._say(ctx, "持ち時間を停止しました（!clock on で再開します）。")
            return
        if not t.paused:
            raise IllegalAction("持ち時間は停止していません")
        if at is not None and t.paused_at is not None and at > t.paused_at:
            t.paused_total += at - t.paused_at
        t.paused, t.paused_at = False, None
        self._say(ctx, "持ち時間を再開しました。")

    def _cmd_hand(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        """A finished hand of this room, built from what the room saw (referee.history)."""
        from referee.history import hand_command

        for line in hand_command(self.history, room, args):
            self._say(ctx, line, to=to)

    def _cmd_rank(self, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
        if len(args) < 2:
            raise IllegalAction("使い方: " + HELP["rank"])
        who, mark = _user(args[0]), "" if args[1] in ("-", "無印") else args[1]
        self._set_rank(ctx, who, mark)
        self._say(ctx, f"{who}さんのランク印を「{mark or '無印'}」にしました。", to=to)

