"""Hand histories: what happened in each finished hand, built only from what was public.

A :class:`HistoryBook` is fed every input's events (the service does it, live and on a rebuild;
``referee history`` feeds it a database's event log). It keeps, per hand, the seats and stacks
before the deal (the service's ``hand_seats`` event), the actions, the board (``board``
events), the cards **shown in the room** (``shown``: deuces shows a hand again after each
duplicate card is replaced; ``muck``, ``exposed``), the pots, the settlement and the stacks
after. It reads typed events only -- never a sentence the bot said, a private message, a deal
or a ``deal_reveal`` (which would tell mucked and folded hands): a card is in a history only if
the room was shown it.

A hand is known by its table (``table_open``'s number, in ``hand_seats``), its number at that
table and its game: numbers restart at every table opened in a room.

Renderings: :func:`summary_lines` (``!hand N`` and ``referee history``), :func:`to_json`, and
:func:`to_phh` -- omaha hands in the Poker Hand History format (PHH, the one pokerkit reads):
players ``p1…pn`` clockwise from the button's left, unknown hole cards ``????``, actions
``d dh`` / ``d db`` / ``f`` / ``cc`` / ``cbr TO`` / ``sm [CARDS]``.
"""

from __future__ import annotations

import json
import pickle
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from referee.cards import parse_card, pretty
from referee.events import Event, HandSeats
from referee.games import is_game, spec
from referee.lang.catalog import messages, text
from referee.records.visitor import Entry, EventVisitor, Handler

if TYPE_CHECKING:
    from referee.rules.base import Engine

#: The event kinds a history is made of (every other kind is skipped at a set lookup).
_KINDS = frozenset({"hand_start", "hand_seats", "action", "board", "shown", "muck", "exposed",
                    "pot", "rake", "settle", "hand_end"})
#: The kinds an open hand keeps as they come, read when the hand is asked for
#: (:meth:`HandRecord.read`); the others change the record at once.
_RAW = frozenset({"action", "board", "shown", "muck", "exposed"})
#: Settle fields a history keeps besides player, result and payout.
_SETTLE_KEYS = ("ante", "call", "aa", "bets", "hand", "dealer_class", "wins", "dealer_hand",
                "dealer_fold")


def hand_seats(engine: Engine, before: dict[str, int], table: int | None = None) -> HandSeats:
    """The ``hand_seats`` event of a hand just started at ``table`` (``before``: stacks before
    the deal): the players the engine lists for the history, with their stakes."""
    seats = [{"seat": s.seat, "player": s.name, "chips": before.get(s.name, s.chips)}
             for s in engine.history_seats()]
    return HandSeats(hand=engine.hand_no, game=engine.definition.id, seats=seats,
                     stakes=engine.stakes(), limit=str(engine.options.get("limit", "")),
                     table=table)


@dataclass
class HandRecord:
    """One hand, public parts only (see the module docstring)."""

    room: str
    game: str
    hand: int
    button: int = 0
    time: float | None = None
    limit: str = ""
    table: int | None = None
    # (seat, name, chips before the deal) of the players dealt in, in seat order
    seats: list[tuple[int, str, int]] = field(default_factory=list)
    blinds: dict[str, int] = field(default_factory=dict)  # omaha: sb, bb, ante
    # in order: {"kind": "action", player, action, amount, to[, ante, aa]}
    # | {"kind": "board", street, cards} | {"kind": "show" | "shown_after", player, cards}
    # | {"kind": "muck", player}
    log: list[dict[str, Any]] = field(default_factory=list)
    board: list[str] = field(default_factory=list)
    shown: dict[str, list[str]] = field(default_factory=dict)  # "dealer": the house's hand
    classes: dict[str, str] = field(default_factory=dict)  # the shown hands' class codes
    pots: list[dict[str, Any]] = field(default_factory=list)
    rake: int = 0
    settles: list[dict[str, Any]] = field(default_factory=list)
    stacks: dict[str, int] = field(default_factory=dict)
    # While the hand is recorded: its events' fields as (kind, fields) tuples, read into the
    # fields above when the hand is asked for (see :meth:`read`).
    raw: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @property
    def key(self) -> str:
        """The hand's identity in the database: ``T-N`` (table T's hand N), or ``N`` for a hand
        recorded before tables were numbered."""
        return f"{self.table}-{self.hand}" if self.table is not None else str(self.hand)

    def read(self) -> HandRecord:
        raw, self.raw = self.raw, []
        for kind, d in raw:
            _read(self, kind, d)
        return self


def _read(rec: HandRecord, kind: str, d: dict[str, Any]) -> None:
    if kind == "action":
        e = {"kind": "action", "player": d["player"], "action": d["action"],
             "amount": d.get("amount", 0), "to": d.get("to")}
        for k in ("ante", "aa"):
            if d.get(k) is not None:
                e[k] = d[k]
        rec.log.append(e)
    elif kind == "board":
        rec.log.append({"kind": "board", "street": d.get("street", ""),
                        "cards": list(d["cards"])})
        rec.board = list(d.get("board") or rec.board + list(d["cards"]))
    elif kind in ("shown", "shown_after"):
        player, cards = str(d["player"]), list(d["cards"])
        rec.shown[player] = cards
        if d.get("hand_class"):
            rec.classes[player] = str(d["hand_class"])
        why = d.get("why")
        if why in ("showdown", "open") and _phh(rec.game):  # PHH's "sm": a showdown
            rec.log.append({"kind": "show" if kind == "shown" else "shown_after",
                            "player": player, "cards": cards})
    elif kind == "exposed":
        rec.shown[str(d["player"])] = list(d["cards"])
    elif kind == "muck":
        rec.log.append({"kind": "muck", "player": d["player"]})


#: Finished hands the live service keeps per room for ``!hand N`` (they are part of its
#: snapshots, about 500 bytes a hand; ``referee history`` reads the whole event log instead).
KEEP = 100

#: A finished hand as the book holds it: the record itself (a book keeping every hand, for
#: ``referee history``) or (key, its pickle) (the live service's bounded book, see HistoryBook).
Kept = HandRecord | tuple[int, bytes]
#: What a snapshot part holds of a room's history: the hand being played, the keys of the
#: finished hands kept (their pickles are stored once each, apart) and the room's next key.
RoomState = tuple[HandRecord | None, list[int], int]


class HistoryBook:
    """Finished hands per room (the last ``keep`` per room; ``None``: all).

    A bounded book (the live service's) holds each finished hand as its pickle, made once at
    the hand's end under a key of its room (1, 2, ...): a finished hand no longer changes (but
    for omaha's OPEN after a fold, which makes a new pickle under a new key), is rarely asked
    for, and as bytes it is one object the garbage collector never walks, about a tenth of its
    record's memory. The store keeps each pickle once (``made``, written with the input that
    ended the hand) and a snapshot of the room names the keys (:meth:`room_state`); the keys
    no longer kept (``dropped``) are deleted once a newer snapshot no longer names them."""

    def __init__(self, keep: int | None = KEEP) -> None:
        self.keep = keep
        self._open: dict[str, HandRecord] = {}
        self._done: dict[str, deque[Kept]] = {}
        self._next: dict[str, int] = {}
        self.made: list[tuple[str, int, bytes]] = []  # pickles made since drained
        self.dropped: list[tuple[str, int]] = []  # keys no longer kept since drained

    def __getstate__(self) -> dict[str, Any]:
        return {**vars(self), "made": [], "dropped": []}

    def drain(self) -> tuple[list[tuple[str, int, bytes]], list[tuple[str, int]]]:
        """The pickles made and the keys dropped since the last drain."""
        made, dropped = self.made, self.dropped
        self.made, self.dropped = [], []
        return made, dropped

    # --- snapshots, one room at a time (the service's snapshot parts)
    def room_state(self, room: str) -> RoomState | None:
        """What a snapshot part holds of ``room`` (None: nothing)."""
        rec, done = self._open.get(room), self._done.get(room)
        if rec is None and not done:
            return None
        return rec, [k[0] for k in done or () if isinstance(k, tuple)], self._next.get(room, 1)

    def room_hands(self, room: str) -> dict[int, bytes]:
        """The pickles of ``room``'s finished hands kept, by key."""
        return {k[0]: k[1] for k in self._done.get(room, ()) if isinstance(k, tuple)}

    def set_room(self, room: str, state: RoomState | None, hands: dict[int, bytes]) -> None:
        """Hold ``room`` as :meth:`room_state` gave it, its hands' pickles from ``hands``
        (KeyError for one missing)."""
        self._open.pop(room, None)
        self._done.pop(room, None)
        self._next.pop(room, None)
        if state is None:
            return
        rec, keys, nxt = state
        if rec is not None:
            self._open[room] = rec
        if keys:
            self._done[room] = deque(((k, hands[k]) for k in keys), maxlen=self.keep)
        self._next[room] = nxt

    def rooms(self) -> set[str]:
        """Every room the book holds something of."""
        return set(self._open) | set(self._done)

    def _kept(self, room: str, rec: HandRecord) -> Kept:
        if self.keep is None:
            return rec
        key = self._next.get(room, 1)
        self._next[room] = key + 1
        blob = pickle.dumps(rec, pickle.HIGHEST_PROTOCOL)
        self.made.append((room, key, blob))
        return key, blob

    def _drop(self, room: str, kept: Kept) -> None:
        if isinstance(kept, tuple):
            self.dropped.append((room, kept[0]))

    @staticmethod
    def _record(kept: Kept) -> HandRecord:
        if isinstance(kept, tuple):
            rec = pickle.loads(kept[1])
            assert isinstance(rec, HandRecord)
            return rec
        return kept

    def record(self, room: str, events: list[Event], time: Any) -> None:
        """The service, once per input: the replay's hot path, so an event the history does
        not keep costs an attribute and a set lookup (every field of an event is declared: its
        ``__dict__`` is its fields, read without a dump)."""
        for ev in events:
            kind = ev.event
            if kind in _KINDS:
                if kind in _RAW:  # the most of them (actions): kept as they are
                    rec = self._open.get(room)
                    if rec is not None:
                        rec.raw.append((kind, ev.__dict__))
                        continue
                self._event(room, kind, ev.__dict__, time)

    def take(self, room: str, kind: str, fields: dict[str, Any], time: Any = None) -> None:
        """One event of a kind a history keeps (:data:`_KINDS`), as its fields."""
        self._event(room, kind, fields, time)

    def feed(self, room: str, events: Iterable[dict[str, Any]], time: Any = None) -> None:
        """One input's events as JSON objects (a database's event log)."""
        for d in events:
            kind = d.get("event")
            if kind in _KINDS:
                self._event(room, str(kind), d, time)

    def _event(self, room: str, kind: str, d: dict[str, Any], time: Any) -> None:
        rec = self._open.get(room)
        if kind == "hand_start":
            self._open[room] = HandRecord(
                room=room, game="", hand=int(d.get("hand", 0)), button=int(d.get("button", 0)),
                time=float(time) if isinstance(time, int | float) else None)
            return
        if rec is None:
            if kind == "shown" and d.get("why") == "open":
                self._after_hand(room, d)
            return
        if kind == "hand_seats":
            rec.game, rec.limit = str(d.get("game", "")), str(d.get("limit", ""))
            table = d.get("table")
            rec.table = int(table) if table is not None else None
            rec.seats = [(int(x["seat"]), str(x["player"]), int(x["chips"]))
                         for x in d.get("seats", [])]
            rec.blinds = {str(k): int(v) for k, v in dict(d.get("stakes", {})).items()}
        elif kind == "pot":
            rec.pots.append({"index": d.get("index", 0), "amount": d.get("amount", 0),
                             "shares": dict(d.get("shares", {}))})
        elif kind == "rake":
            rec.rake += int(d.get("amount", 0))
        elif kind == "settle":
            settle = {"player": d.get("player", ""), "result": d.get("result", ""),
                      "payout": d.get("payout", 0)}
            settle.update((k, d[k]) for k in _SETTLE_KEYS if d.get(k) is not None)
            rec.settles.append(settle)
        elif kind == "hand_end":
            rec.stacks = dict(d.get("stacks", {}))
            del self._open[room]
            records = self._done.setdefault(room, deque(maxlen=self.keep))
            if self.keep is not None and len(records) == self.keep:
                self._drop(room, records[0])  # evicted
            records.append(self._kept(room, rec.read()))
        else:
            rec.raw.append((kind, d))

    def _after_hand(self, room: str, d: dict[str, Any]) -> None:
        """omaha: the winner's OPEN after everyone folded comes after ``hand_end``; it belongs
        to the hand just finished (shown, so in its history; no PHH action: the hand is over)."""
        done = self._done.get(room)
        if done:
            rec = self._record(done[-1])
            rec.raw.append(("shown_after", d))
            self._drop(room, done[-1])
            done[-1] = self._kept(room, rec.read())

    # --- queries -----------------------------------------------------------------------------
    def hands(self, room: str | None = None) -> list[HandRecord]:
        rooms = [room] if room is not None else list(self._done)
        return [self._record(h).read() for r in rooms for h in self._done.get(r, ())]

    def find(self, room: str, hand: int, table: int | None = None) -> HandRecord | None:
        """Finished hand ``hand`` of ``room``'s table ``table`` (None: the room's latest hand
        of that number -- numbers restart at every table)."""
        for kept in reversed(self._done.get(room, ())):
            rec = self._record(kept)
            if rec.hand == hand and (table is None or rec.table == table):
                return rec.read()
        return None


def hand_command(book: HistoryBook, room: str, args: list[str],
                 table: int | None = None) -> list[str]:
    """``!hand N``: the lines to post (only what was shown) of hand N at the room's table
    ``table`` (its current one), or why not; ``!hand T-N``: hand N of the room's table T."""
    arg = args[0].lstrip("#") if len(args) == 1 else ""
    at, _, number = arg.rpartition("-")
    if not number.isdigit() or (at and not at.isdigit()):
        return [text("hand_usage")]
    n = int(number)
    rec = book.find(room, n, int(at) if at else table)
    if rec is None:
        return [text("hand_unknown", hand=str(n))]
    return summary_lines(rec)


# --- renderings ------------------------------------------------------------------------------

def _pretty(cards: list[str]) -> str:
    """Cards as the bot writes them in the chat (``A♠ 10♥``)."""
    return " ".join(pretty(parse_card(c)) for c in cards)


def _class_name(game: str, code: str) -> str:
    from referee.hands import NAMES

    return NAMES.get(game, {}).get(code, "") or text("hand_class_unknown")


def game_name(game: str | None) -> str:
    """A game's name as people read it (the definition's ``name``), never its id."""
    from referee.definitions import load
    from referee.games import game_ids

    return load(game).name if game in game_ids() else text("hand_game_unknown")


def action_line(game: str, e: dict[str, Any]) -> str:
    """One action as the records write it, in the room's words (:mod:`referee.rules.voice`):
    「alice メイク 1,400」, holdem_aa's stake with its AA bet 「alice アンティ 100・AA 50」."""
    from referee.rules.voice import action_figure, action_word

    player, action = str(e.get("player", "")), str(e.get("action", ""))
    if action == "ante" and e.get("aa"):
        return text("hand_action_ante_aa", player=player, ante=int(e.get("ante") or 0),
                    aa=int(e["aa"]))
    figure = action_figure(game, e)
    own = f"hand_act_{game}_{action}"  # the room's word where it is not the typed one
    word = text(own) if own in messages() else action_word(game, action)
    if figure:
        return text("hand_action_amount", player=player, action=word, amount=figure)
    return text("hand_action", player=player, action=word)


def settle_line(game: str, s: dict[str, Any]) -> str:
    """One settlement line in the room's words, with why (the hands compared)."""
    from referee.rules.voice import result_word

    aa = int(s.get("aa") or 0)  # the AA side bet's payout, named apart (as the room's line)
    line = text("hand_settle_aa" if aa else "hand_settle", player=s.get("player", ""),
                result=result_word(str(s.get("result", ""))), payout=int(s.get("payout", 0)),
                aa=aa)
    hand, dealer = s.get("hand"), s.get("dealer_class")
    if hand and dealer:
        line += text("hand_settle_versus", hand=_class_name(game, str(hand)),
                     dealer=_class_name(game, str(dealer)))
    elif hand:
        line += text("hand_settle_class", hand=_class_name(game, str(hand)))
    return line


def _who(player: str) -> str:
    return text("hand_dealer") if player == "dealer" else player


def shown_item(game: str, d: dict[str, Any]) -> str:
    """A ``shown`` event as the records write it: 「bob K♥ K♦ 8♣ 4♣（ワンペア）」, a fold's or a
    muck's shown cards marked so (「carol Q♥（マック）」)."""
    item = text("hand_shown_item", player=_who(str(d.get("player", ""))),
                cards=_pretty([str(c) for c in d.get("cards", [])]))
    if d.get("hand_class"):
        item += text("hand_settle_class", hand=_class_name(game, str(d["hand_class"])))
    why = f"hand_shown_{d.get('why')}"
    return item + (text(why) if why in messages() else "")


def summary_lines(rec: HandRecord) -> list[str]:
    """The hand in a few Japanese lines (``!hand N``; ``referee history`` adds a time line)."""
    none = text("hand_none")
    dot = text("hand_list_sep")
    seats = dot.join(text("hand_seat", seat=s, player=n, chips=c) for s, n, c in rec.seats) \
        or none
    actions: list[str] = []
    for e in rec.log:
        if e["kind"] == "action":
            actions.append(action_line(rec.game, e))
        elif e["kind"] == "board":
            actions.append(text("hand_board_step", cards=_pretty(e["cards"])))
    shown = []
    for p, cs in rec.shown.items():
        item = text("hand_shown_item", player=_who(p), cards=_pretty(cs))
        if p in rec.classes:
            item += text("hand_settle_class", hand=_class_name(rec.game, rec.classes[p]))
        shown.append(item)
    pots = [text("console_pot_main" if not p["index"] else "console_pot_side",
                 index=int(p["index"]), amount=int(p["amount"]),
                 shares=text("hand_share_sep").join(f"{k} {int(v):,}"
                                                    for k, v in p["shares"].items()))
            for p in rec.pots]
    pots += [settle_line(rec.game, s) for s in rec.settles]
    if rec.rake:
        pots.append(text("hand_rake", rake=rec.rake))
    header = text("hand_header", hand=str(rec.hand), game=game_name(rec.game))
    if rec.table is not None:
        header = text("hand_header_table", table=str(rec.table), header=header)
    if rec.button:
        header += text("hand_button", button=str(rec.button))
    # four chat lines (IRC sends each line on its own), two parts on three of them
    stacks = dot.join(f"{k} {v:,}" for k, v in rec.stacks.items())
    shown_part = text("hand_shown", shown=" / ".join(shown) or none)
    return [
        text("hand_line_parts", first=header, second=text("hand_seats", seats=seats)),
        text("hand_actions", actions=" ".join(actions) or none),
        text("hand_line_parts", first=text("hand_board", board=_pretty(rec.board) or none),
             second=shown_part) if rec.board or _has_board(rec.game) else shown_part,
        text("hand_line_parts", first=text("hand_pots", pots=" / ".join(pots) or none),
             second=text("hand_result", stacks=stacks)),
    ]


def _has_board(game: str) -> bool:
    """Whether ``game`` deals community cards (a deuces or seven hand has no board to show
    as none)."""
    return not is_game(game) or spec(game).engine().deal_plan.board > 0


def _iso(ts: float | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def to_json(rec: HandRecord) -> dict[str, Any]:
    return {
        "room": rec.room, "game": rec.game, "hand": rec.hand, "button": rec.button,
        **({"table": rec.table, "key": rec.key} if rec.table is not None else {}),
        "time": _iso(rec.time),
        "seats": [{"seat": s, "player": n, "chips": c} for s, n, c in rec.seats],
        **({"blinds": rec.blinds} if rec.blinds else {}),
        "log": rec.log, "board": rec.board, "shown": rec.shown,
        **({"classes": rec.classes} if rec.classes else {}),
        "pots": rec.pots, "rake": rec.rake,
        **({"settles": rec.settles} if rec.settles else {}),
        "stacks": rec.stacks,
    }


class PhhError(ValueError):
    """A hand the PHH writer cannot express (not omaha, not pot limit)."""


def _q(s: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's): names may hold quotes."""
    return json.dumps(s, ensure_ascii=False)


def _phh(game: str) -> bool:
    """Whether the PHH format describes ``game``'s hands (its GameSpec says so)."""
    return is_game(game) and spec(game).phh


def to_phh(rec: HandRecord) -> str:
    """One omaha hand as PHH (TOML). Rake and house top-ups are not part of PHH: they are in
    the user fields ``_rake`` and the finishing stacks (what the referee paid)."""
    if not _phh(rec.game):
        raise PhhError(f"hand {rec.hand}: PHH is not written for {rec.game} hands")
    if rec.limit not in ("", "pot"):
        raise PhhError(f"hand {rec.hand}: PHH has no {rec.limit}-limit Omaha")
    seats = sorted(rec.seats)
    order = [s for s in seats if s[0] > rec.button] + [s for s in seats if s[0] <= rec.button]
    names = [n for _, n, _ in order]
    index = {n: i + 1 for i, n in enumerate(names)}
    n = len(names)
    sb, bb, ante = rec.blinds.get("sb", 0), rec.blinds.get("bb", 0), rec.blinds.get("ante", 0)
    actions: list[str] = []
    for name in names:
        cards = rec.shown.get(name, [])
        known = "".join(cards) + "??" * (4 - len(cards)) if len(cards) <= 4 else "????????"
        actions.append(f"d dh p{index[name]} {known}")
    bet = bb  # the highest total bet of the street
    for e in rec.log:
        if e["kind"] == "board":
            actions.append("d db " + "".join(e["cards"]))
            bet = 0
        elif e["kind"] == "show" and e["player"] in index:
            actions.append(f"p{index[e['player']]} sm " + "".join(e["cards"]))
        elif e["kind"] == "muck" and e["player"] in index:
            actions.append(f"p{index[e['player']]} sm")
        elif e["kind"] == "action" and e["player"] in index:
            p, a, to = f"p{index[e['player']]}", e["action"], e.get("to")
            if a == "fold":
                actions.append(f"{p} f")
            elif a in ("check", "call"):
                actions.append(f"{p} cc")
            elif a in ("bet", "raise", "allin"):
                if to is not None and int(to) > bet:
                    actions.append(f"{p} cbr {int(to)}")
                    bet = int(to)
                else:
                    actions.append(f"{p} cc")
    fields = [
        "variant = 'PO'",
        f"antes = [{', '.join([str(ante)] * n)}]",
        f"blinds_or_straddles = [{', '.join(str(x) for x in ([sb, bb] + [0] * (n - 2))[:n])}]",
        f"min_bet = {bb}",
        f"starting_stacks = [{', '.join(str(c) for _, _, c in order)}]",
        "actions = [" + ", ".join(_q(a) for a in actions) + "]",
        f"hand = {rec.hand}",
        f"players = [{', '.join(_q(x) for x in names)}]",
        f"seats = [{', '.join(str(s) for s, _, _ in order)}]",
        f"seat_count = {max([s for s, _, _ in order] + [n])}",
        f"table = {_q(rec.room)}",
        f"finishing_stacks = [{', '.join(str(rec.stacks.get(x, 0)) for x in names)}]",
        f"_rake = {rec.rake}",
    ]
    if rec.time is not None:
        t = datetime.fromtimestamp(rec.time, UTC)
        fields += [f"year = {t.year}", f"month = {t.month}", f"day = {t.day}",
                   f"time = {t.strftime('%H:%M:%S')}", "time_zone = 'UTC'"]
    return "\n".join(fields)


def to_phhs(recs: Iterable[HandRecord]) -> str:
    """Several hands, one ``[N]`` section each (pokerkit ``HandHistory.loads_all``)."""
    return "\n\n".join(f"[{i}]\n{to_phh(r)}" for i, r in enumerate(recs, 1)) + "\n"


class HistoryReader(EventVisitor):
    """``referee history``'s reader of a database's log (:func:`referee.records.visitor.walk`):
    every event of a kind a history keeps goes to ``book``, timed by its input's ``time``."""

    def __init__(self, book: HistoryBook) -> None:
        self.book = book
        self.room = ""
        self.time: Any = None

    def handlers(self) -> dict[str, Handler]:
        return {kind: self._take for kind in _KINDS}

    def begin_input(self, entry: Entry) -> None:
        self.room, self.time = entry.room, entry.input.get("time")

    def _take(self, ev: Event) -> None:
        self.book.take(self.room, ev.event, ev.__dict__, self.time)
