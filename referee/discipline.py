"""Discipline: leak and interference flags, penalties, and the moderators' decisions on them.

The service (:mod:`referee.service`) hands every chat message that the parser marks ``hand_info``
or ``advice`` to :meth:`Discipline.check_leak` / :meth:`Discipline.check_interference`, and the
moderator commands ``!confirm``, ``!dismiss``, ``!flags``, ``!penalty`` and ``!penalties`` here.
The rulings (docs/rules.md "When the referee acts alone", "Hand information",
"Interference"):

* **Leak** (a seated player dealt into the running hand; spectators hold no cards and private
  messages to the bot are never leaks): :func:`referee.flags.judge_leak` decides. Only a hidden
  card named in certain card notation is penalised at once (forced fold, removal, the
  definition's ``information_leak`` points); during the showdown -- the proper moment to show --
  every claim is only a ``low`` flag. Everything else is a flag with a priority for a moderator.
* **Interference** (anyone but a moderator, during a hand): always a flag for a moderator
  (``high`` when it names or addresses someone or is plain critique, else ``low``). Not a flag:
  a player thinking aloud about their own decision, naming nobody -- on their own turn
  (「降りたほうがいいかな」), or musing about their own play while dealt in (「〜かな」「〜かも」).
  Hurrying (「早くアクションしてください」) is not advice at all (:mod:`referee.lexicon`).
* **One penalty per player per hand** for leaks and interference: a later flag of the same hand,
  automatic or confirmed (an older pending flag confirmed after an automatic penalty too), is
  recorded -- confirmed, in the log -- but not charged, and the room is told so.
* **Reversible**: ``!dismiss ID`` on a confirmed or automatic flag that was charged returns the
  points (a ``penalty_reversed`` event with a reversing ledger entry, so ``referee records
  ledger`` shows both) and gives a demoted rank mark back; the forced fold and the removal stand,
  and the room message says so.
* A flag confirmed after its hand is over: the points and the removal apply (a removal during a
  later hand folds that hand, as any removal does).
* **What the service remembers** (its memory horizon, docs/contracts.md "Memory horizon"): the
  newest :data:`FLAGS_KEPT` flags, whatever their state, and the newest :data:`PENALTIES_KEPT`
  penalties; a charged (room, hand, player) only while that hand is the room's current one or
  a remembered undecided flag may still charge it. A year of a thousand tables would otherwise
  keep every flag and penalty ever raised in memory and in every snapshot's head. The whole
  record stays in the event log, which the moderators' console and ``referee records`` read.
  A chat command about something older says so and where to look, with its code
  (``flag_forgotten`` for ``!confirm`` / ``!dismiss``; ``flags_forgotten`` beside what
  ``!flags`` still lists; ``penalties_forgotten`` / ``penalties_forgotten_only`` for
  ``!penalties``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from referee.cards import Card
from referee.definitions import Penalties
from referee.events import (  # noqa: F401
    REFEREE,
    Event,
    Flag,
    FlagDecided,
    Penalty,
    PenaltyReversed,
    Phrase,
    joined,
    line,
)
from referee.flags import LeakVerdict, judge_leak
from referee.lang.catalog import excerpt, messages
from referee.lang.normalize import fold, nfkc
from referee.lexicon import read
from referee.registry import command, target, user_arg
from referee.rules import IllegalAction
from referee.turn import Turn

if TYPE_CHECKING:
    from referee.table import Table

Kind = Literal["information_leak", "interference"]
Priority = Literal["high", "low"]
PENALTY_KINDS = ("information_leak", "interference")

#: The flags kept in memory, the newest (module doc): a flag older than these cannot be
#: confirmed or dismissed from the chat; the console shows it.
FLAGS_KEPT = 1000
#: The penalties kept in memory for ``!penalties``, the newest of all players' (module doc).
PENALTIES_KEPT = 1000


@dataclass
class FlagRecord:
    id: int
    room: str
    player: str
    kind: Kind
    text: str  # an excerpt (all that !flags ever shows): not a 10,000-character line kept
    confidence: Priority
    status: Literal["open", "confirmed", "dismissed"] = "open"
    hand: int = 0  # the hand it was raised in (0: no hand)
    charged: bool = False  # a penalty was taken for it (and not reversed)
    points: int = 0
    penalty_index: int | None = None  # the penalty's number (Referee.penalties, from 0)
    demoted_from: str = ""  # the rank mark taken by the penalty


def leak_judgement(said: str, game: str, holdings: Sequence[Card], shown: Sequence[Card],
                   board: Sequence[Card], showdown: bool = False) -> LeakVerdict | None:
    """The leak verdict on a dealt-in player's message while a hand runs (see the module
    docstring); at the showdown nothing is automatic and every flag is ``low``."""
    v = judge_leak(said, game, holdings, shown, board)
    if v is None or not showdown:
        return v
    return LeakVerdict("low", False)


def interference_priority(said: str, game: str, *, to_act: bool, dealt: bool) -> Priority | None:
    """The priority of an interference flag on a non-moderator's message while a hand runs, or
    ``None``: not advice, or the speaker thinking aloud about their own play -- on their own
    turn, or (dealt into the hand) musing 〜かな about it -- naming nobody. On their own turn
    advice is still about someone else when it asks why they did something, judges an action
    already taken (「そこはコールでしょ」 right after a fold), puts the speaker in someone
    else's place (「私なら…」) or criticises."""
    r = read(said, game)
    if not r.advice:
        return None
    if not r.addressed and not r.aimed and (
            (to_act and not (r.why or r.critique)) or (dealt and r.self_talk)):
        return None  # (on one's own turn, "why did you …", 「そこはコールでしょ」, 「私なら…」
        # and critique are still about someone else's decision)
    return "high" if (r.addressed or r.critique) else "low"


def penalty_name(kind: str) -> Phrase:
    """A penalty kind's name, as the room reads it (its id when the catalogue names none)."""
    key = f"penalty_name_{kind}"
    return line(key) if key in messages() else kind


def penalty_kind(word: str) -> str | None:
    """The penalty kind a moderator typed: its id (``interference``) or its Japanese name
    (干渉行為, ハンド情報の公開) from the catalogue; None when it names no kind."""
    typed = fold(nfkc(word)).replace(" ", "")
    for kind in PENALTY_KINDS:
        name = messages().get(f"penalty_name_{kind}", kind)
        if typed in (kind, fold(nfkc(name)).replace(" ", "")):
            return kind
    return None


def _priority(p: str) -> Phrase:
    return line(f"priority_{p}")


class Discipline:
    """The flags and the one-penalty-per-hand ledger of a :class:`~referee.service.Referee`."""

    def __init__(self) -> None:
        self.flags: dict[int, FlagRecord] = {}  # the newest FLAGS_KEPT, by id (oldest first)
        self.next_id = 1
        # (room, hand, player) charged for a leak or interference in that hand, while it may
        # still matter (:meth:`_forget_charged`)
        self.charged: set[tuple[str, int, str]] = set()
        self._charged_mark = 16  # the size at which the charged keys are looked over again
        # What is no longer remembered: undecided flags per room, penalties per player, and
        # how many penalties in all (the first kept is penalty number ``penalties_dropped``).
        self.open_forgotten: dict[str, int] = {}
        self.penalties_forgotten: dict[str, int] = {}
        self.penalties_dropped = 0

    # --- the memory horizon (module doc) -------------------------------------------------------
    def remember_penalty(self, penalties: list[dict[str, Any]], entry: dict[str, Any]) -> None:
        """Keep a new penalty's record in ``penalties`` (the service's), forgetting the oldest
        beyond :data:`PENALTIES_KEPT`."""
        penalties.append(entry)
        excess = len(penalties) - PENALTIES_KEPT
        if excess <= 0:
            return
        for old in penalties[:excess]:
            who = str(old["player"])
            self.penalties_forgotten[who] = self.penalties_forgotten.get(who, 0) + 1
        del penalties[:excess]
        self.penalties_dropped += excess

    def _forget_flags(self) -> None:
        """Forget the flags older than the newest :data:`FLAGS_KEPT`."""
        flags = self.flags
        while len(flags) > FLAGS_KEPT:
            old = flags.pop(next(iter(flags)))
            if old.status == "open":
                self.open_forgotten[old.room] = self.open_forgotten.get(old.room, 0) + 1

    def _forget_charged(self, tables: dict[str, Table]) -> None:
        """Keep only the charged keys a later penalty can still ask about: the hand a room's
        table is at, and the hands of remembered undecided flags (a confirmation charges the
        flag's hand). Looked over each time the set doubled: amortised, whatever the rate."""
        current = {(room, t.engine.hand_no) for room, t in tables.items()}
        pending = {(f.room, f.hand, f.player) for f in self.flags.values() if f.status == "open"}
        self.charged = {k for k in self.charged if (k[0], k[1]) in current or k in pending}
        self._charged_mark = 2 * len(self.charged) + 16

    def _is_forgotten(self, fid: int) -> bool:
        return 0 < fid < self.next_id and fid not in self.flags

    # --- checks --------------------------------------------------------------------------------
    def check_leak(self, turn: Turn, table: Table, player: str, said: str) -> None:
        eng = table.engine
        if not eng.in_hand:
            return
        showdown = eng.at_showdown()
        v = leak_judgement(said, table.game, eng.held_this_hand(player), eng.shown(player),
                           eng.board_cards(), showdown)
        if v is None:
            return
        rec = self._new_flag(turn, table, player, "information_leak", said, v.priority)
        if not v.automatic:
            self._announce(turn, rec)
            return
        if self._charged(rec):
            rec.status = "confirmed"
            turn.emit([FlagDecided(id=rec.id, decision="confirmed", by=REFEREE)])
            turn.say(line("flag_recorded", id=rec.id, player=player))
            return
        rec.status = "confirmed"
        self.apply_penalty(turn, table.room, player, "information_leak", rec)

    def check_interference(self, turn: Turn, table: Table, player: str, said: str) -> bool:
        """Flag ``said`` as interference when it is; True when a flag was raised."""
        eng = table.engine
        if not eng.in_hand or turn.desk.is_moderator(player):
            return False
        priority = interference_priority(said, table.game, to_act=eng.to_act() == player,
                                         dealt=bool(eng.held_this_hand(player)))
        if priority is None:
            return False
        rec = self._new_flag(turn, table, player, "interference", said, priority)
        self._announce(turn, rec)
        return True

    # --- flags ---------------------------------------------------------------------------------
    def _new_flag(self, turn: Turn, table: Table, player: str, kind: Kind, said: str,
                  priority: Priority) -> FlagRecord:
        hand = table.engine.hand_no
        rec = FlagRecord(self.next_id, table.room, player, kind, excerpt(said), priority,
                         hand=hand)
        self.next_id += 1
        self.flags[rec.id] = rec
        self._forget_flags()
        turn.emit([Flag(id=rec.id, player=player, kind=kind, text=said,
                        confidence=priority)])
        return rec

    def _announce(self, turn: Turn, rec: FlagRecord) -> None:
        pen = self.points(turn, rec.room)
        points = pen.information_leak if rec.kind == "information_leak" else pen.interference
        key = "flag_leak" if rec.kind == "information_leak" else "flag_interference"
        turn.say(line(key, id=rec.id, player=rec.player,
                      priority=_priority(rec.confidence), points=points))

    def _charged(self, rec: FlagRecord) -> bool:
        return rec.hand > 0 and (rec.room, rec.hand, rec.player) in self.charged

    @staticmethod
    def points(turn: Turn, room: str) -> Penalties:
        t = turn.desk.tables.get(room)
        return t.engine.definition.penalties if t is not None else Penalties()

    # --- penalties -----------------------------------------------------------------------------
    def apply_penalty(self, turn: Turn, room: str, player: str, kind: str,
                      rec: FlagRecord | None = None) -> bool:
        """Forced fold + removal + bank points (+ demotion for interference), once per player
        per hand; False (and a room message) when this hand already cost them a penalty."""
        ref = turn.desk
        table = ref.tables.get(room)
        current = table.engine.hand_no if (
            table is not None and table.engine.in_hand) else 0
        hand = rec.hand if rec is not None else current
        if hand and (room, hand, player) in self.charged:
            what = (line("penalty_what_flag", id=rec.id) if rec is not None
                    else line("penalty_what_command"))
            turn.say(line("penalty_not_charged", player=player, what=what))
            return False
        pen = self.points(turn, room)
        points = pen.information_leak if kind == "information_leak" else pen.interference
        penalty = Penalty(player=player, kind=kind, points=points)
        # announced at the moment of the offence: before the forced fold and the removal it
        # causes (which may end the hand: its pots and the deal's reveal come after)
        note = line("penalty_ref", id=rec.id) if rec is not None else ""
        turn.say(line("penalty", player=player, name=penalty_name(kind), ref=note,
                      points=points))
        if table is not None and player in ref.seated_names(room):
            if table.engine.in_hand and (rec is None or rec.hand == current):
                try:
                    turn.emit(table.engine.force_fold(player))
                except IllegalAction:
                    pass  # not in this hand (or already folded): nothing to fold
            turn.emit([penalty])
            try:
                turn.emit(table.engine.remove(player))
            except IllegalAction:
                pass
        else:
            turn.emit([penalty])
        if hand:
            self.charged.add((room, hand, player))
            if len(self.charged) > self._charged_mark:
                self._forget_charged(ref.tables)
        idx = next((i + self.penalties_dropped for i in range(len(ref.penalties) - 1, -1, -1)
                    if ref.penalties[i]["player"] == player), None)
        demoted = ""
        if kind == "interference":
            mark = ref.ranks.get(player, "")
            if mark:
                turn.set_rank(player, "")
                demoted = mark
                turn.say(line("demoted", player=player, mark=mark))
        if rec is not None:
            rec.charged, rec.points, rec.penalty_index = True, points, idx
            rec.demoted_from = demoted
        if table is not None:
            turn.desk.after(turn, table)
        return True

    # --- commands ------------------------------------------------------------------------------
    def _flag_arg(self, args: list[str]) -> FlagRecord:
        if not args:
            raise IllegalAction("flag_number_missing")
        try:
            fid = int(args[0].lstrip("#"))
        except ValueError:
            raise IllegalAction("flag_number_bad", arg=excerpt(args[0])) from None
        rec = self.flags.get(fid)
        if rec is None:
            if self._is_forgotten(fid):
                raise IllegalAction("flag_forgotten", id=fid, kept=FLAGS_KEPT)
            raise IllegalAction("flag_unknown", id=fid)
        return rec

    def confirm(self, turn: Turn, args: list[str]) -> None:
        rec = self._flag_arg(args)
        if rec.status == "confirmed":
            raise IllegalAction("flag_confirmed_already", id=rec.id)
        if rec.status != "open":
            raise IllegalAction("flag_decided_already", id=rec.id)
        rec.status = "confirmed"
        turn.emit([FlagDecided(id=rec.id, decision="confirmed", by=turn.sender)])
        self.apply_penalty(turn, rec.room, rec.player, rec.kind, rec)

    def dismiss(self, turn: Turn, args: list[str]) -> None:
        rec = self._flag_arg(args)
        if rec.status == "dismissed":
            raise IllegalAction("flag_decided_already", id=rec.id)
        ref = turn.desk
        rec.status = "dismissed"
        turn.emit([FlagDecided(id=rec.id, decision="dismissed", by=turn.sender)])
        if not rec.charged:
            turn.say(line("dismissed", id=rec.id, player=rec.player))
            return
        rec.charged = False
        self.charged.discard((rec.room, rec.hand, rec.player))
        turn.emit([PenaltyReversed(player=rec.player, kind=rec.kind, points=rec.points,
                                   flag=rec.id)])
        if rec.points:
            turn.credit(rec.player, rec.points, f"penalty_reversed:{rec.kind}",
                        len(turn.events) - 1)
        at = -1 if rec.penalty_index is None else rec.penalty_index - self.penalties_dropped
        if 0 <= at < len(ref.penalties):  # (a forgotten record is the console's)
            ref.penalties[at]["reversed"] = True
        turn.say(line("reversed", id=rec.id, player=rec.player,
                      name=penalty_name(rec.kind), points=rec.points))
        if rec.demoted_from and not ref.ranks.get(rec.player, ""):
            turn.set_rank(rec.player, rec.demoted_from)
            turn.say(line("rank_restored", player=rec.player, mark=rec.demoted_from))

    def list_flags(self, turn: Turn, args: list[str]) -> None:
        """The undecided flags (of this room; asked privately: of every room); the room never
        sees what was said (it could hold cards)."""
        to = turn.reply_to
        open_ = [f for f in self.flags.values()
                 if f.status == "open" and (to != "room" or f.room == turn.room)]
        forgotten = (self.open_forgotten.get(turn.room, 0) if to == "room"
                     else sum(self.open_forgotten.values()))
        if forgotten:  # undecided, but older than the memory: the console has them
            turn.say(line("flags_forgotten", count=forgotten, kept=FLAGS_KEPT), to=to)
        if not open_:
            if not forgotten:
                turn.say(line("flags_none"), to=to)
            return
        key = "flags_item" if to == "room" else "flags_item_text"
        items = joined(line("list_joiner"), [
            line(key, id=f.id, player=f.player, name=penalty_name(f.kind),
                 priority=_priority(f.confidence), hand=f.hand, text=excerpt(f.text))
            for f in open_
        ])
        turn.say(line("flags_list", count=len(open_), items=items), to=to)

    def penalty(self, turn: Turn, args: list[str]) -> None:
        kind = penalty_kind(" ".join(args[1:])) if len(args) >= 2 else None
        if kind is None:
            raise IllegalAction("usage", help=line("help_penalty"))
        who = user_arg(args[0])
        self.apply_penalty(turn, turn.room, who, kind)

    def penalties_of(self, turn: Turn, who: str) -> Phrase:
        rows: list[dict[str, Any]] = [p for p in turn.desk.penalties if p["player"] == who]
        older = self.penalties_forgotten.get(who, 0)
        if older and not rows:  # all older than the memory: the console has them
            return line("penalties_forgotten_only", player=who, older=older,
                        kept=PENALTIES_KEPT)
        if older:  # the rest is older than the memory
            return line("penalties_forgotten", player=who, count=len(rows), older=older,
                        kept=PENALTIES_KEPT, items=self._penalty_items(rows))
        if not rows:
            return line("penalties_none", player=who)
        return line("penalties_list", player=who, count=len(rows),
                    items=self._penalty_items(rows))

    @staticmethod
    def _penalty_items(rows: list[dict[str, Any]]) -> Phrase:
        return joined(line("list_joiner"), [
            line("penalties_item_reversed" if p.get("reversed") else "penalties_item",
                 name=penalty_name(str(p["kind"])), points=int(p["points"]))
            for p in rows
        ])


# --- the discipline's commands (referee.registry) ----------------------------------------------
def _book(turn: Turn) -> Discipline:
    return turn.desk.part(Discipline)


@command("penalties", others=True)
def _penalties(turn: Turn, args: list[str]) -> None:
    who = target(turn, args, "what_penalties")
    turn.say(_book(turn).penalties_of(turn, who), to=turn.reply_to)


@command("penalty", moderator=True)
def _penalty(turn: Turn, args: list[str]) -> None:
    _book(turn).penalty(turn, args)


@command("confirm", moderator=True)
def _confirm(turn: Turn, args: list[str]) -> None:
    _book(turn).confirm(turn, args)


@command("dismiss", moderator=True)
def _dismiss(turn: Turn, args: list[str]) -> None:
    _book(turn).dismiss(turn, args)


@command("flags", moderator=True)
def _flags(turn: Turn, args: list[str]) -> None:
    _book(turn).list_flags(turn, args)
