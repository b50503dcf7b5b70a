"""Hand histories: what happened in each finished hand, built only from what was public.

A :class:`HistoryBook` is fed every input's events (the service does it, live and on a rebuild;
``referee history`` feeds it a database's event log). It keeps, per hand, the seats and stacks
before the deal (the service's ``hand_seats`` event), the actions, the board, the cards **shown
in the room**, the pots and the stacks after. It never reads a private message, a deal or a
``deal_reveal`` (which would tell mucked and folded hands): a card is in a history only if the
bot said it in the room.

Renderings: :func:`summary_lines` (``!hand N`` and ``referee history``), :func:`to_json`, and
:func:`to_phh` -- omaha hands in the Poker Hand History format (PHH, the one pokerkit reads):
players ``p1…pn`` clockwise from the button's left, unknown hole cards ``????``, actions
``d dh`` / ``d db`` / ``f`` / ``cc`` / ``cbr TO`` / ``sm [CARDS]``.
"""

from __future__ import annotations

import json
import pickle
import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from referee.cards import parse_card, pretty
from referee.events import ActionEvent, Event, HandSeats, Say
from referee.lang.catalog import messages, text
from referee.lang.vocab import template_pattern

if TYPE_CHECKING:
    from referee.rules.base import Engine

ACTION_JA = {a: text(f"hand_action_{a}") for a in (
    "fold", "check", "call", "bet", "raise", "allin", "open", "muck", "close", "ante", "play",
    "discard", "hyper", "extra")}
# The engines' room lines this module reads back (catalogue history.toml, seen_*).
_STREETS = tuple(text(f"seen_{s}") for s in ("flop", "turn", "river"))


def _seen(key: str) -> re.Pattern[str]:
    return re.compile("^" + template_pattern(messages()[key], name=r"(?P<name>\S+)"))


_OPEN_RE = _seen("seen_open")
_FOLD_SHOW_RE = _seen("seen_fold_show")
_MUCK_RE = _seen("seen_muck")
_OPEN_MARK = text("seen_open", name="").lstrip()
_MUCK_WORD = text("seen_muck_word")
_SHOWN_OPEN, _SHOWN_CLOSE = messages()["seen_shown"].split("{cards}")
_CLASS_NOTE = messages()["seen_hand_class"].split("{klass}")[0]
_BONUS_AREA = text("seen_bonus_area")


_KINDS = frozenset({"hand_start", "hand_seats", "pot", "rake", "settle", "hand_end"})
_SUIT_RE = re.compile("[♠♥♦♣]|JK")
_AFTER = "\x00after\x00"  # marks a raw line said after the hand's end


def _fields(ev: Event) -> dict[str, Any]:
    """An event's fields, read without a dump (every field is declared: no extras)."""
    return ev.__dict__


def hand_seats(engine: Engine, before: dict[str, int], table: int | None = None) -> HandSeats:
    """The ``hand_seats`` event of a hand just started at ``table`` (``before``: stacks before
    the deal): the players the engine lists for the history, with their stakes."""
    seats = [{"seat": s.seat, "player": s.name, "chips": before.get(s.name, s.chips)}
             for s in engine.history_seats()]
    return HandSeats(hand=engine.hand_no, game=engine.definition.id, seats=seats,
                     stakes=engine.stakes(), limit=str(engine.options.get("limit", "")),
                     table=table)


_BOT_CARD = re.compile(r"(10|[2-9JQKA])([♠♥♦♣])|JK")
_SUIT_OF = {"♣": "c", "♦": "d", "♥": "h", "♠": "s"}


def bot_cards(s: str) -> list[str]:
    """The cards in a text the bot wrote: it writes them only as ``A♠`` / ``10♥`` / ``JK``
    (:func:`referee.cards.pretty`), so words such as "omaha" are never read as cards."""
    return ["JK" if m[0] == "JK" else ("T" if m[1] == "10" else m[1]) + _SUIT_OF[m[2]]
            for m in _BOT_CARD.finditer(s)]


_cards = bot_cards


@dataclass
class HandRecord:
    """One hand, public parts only (see the module docstring)."""

    room: str
    game: str
    hand: int
    button: int = 0
    time: float | None = None
    limit: str = ""
    # (seat, name, chips before the deal) of the players dealt in, in seat order
    seats: list[tuple[int, str, int]] = field(default_factory=list)
    blinds: dict[str, int] = field(default_factory=dict)  # omaha: sb, bb, ante
    # in order: {"kind": "action", player, action, amount, to} | {"kind": "board", cards}
    # | {"kind": "show", player, cards} | {"kind": "muck", player}
    log: list[dict[str, Any]] = field(default_factory=list)
    board: list[str] = field(default_factory=list)
    shown: dict[str, list[str]] = field(default_factory=dict)
    # room lines that showed cards (house games: the bot's own words, as posted)
    shown_lines: list[str] = field(default_factory=list)
    pots: list[dict[str, Any]] = field(default_factory=list)
    rake: int = 0
    settles: list[dict[str, Any]] = field(default_factory=list)
    stacks: dict[str, int] = field(default_factory=dict)
    # While the hand is recorded: actions as (player, action, amount, to) and room lines with
    # cards as str, in order; read into ``log``/``board``/``shown`` when the hand is asked for
    # (tuples of strings and ints and strings cost the garbage collector nothing).
    raw: list[tuple[str, str, int, int | None] | str] = field(default_factory=list)

    def read(self) -> HandRecord:
        raw, self.raw = self.raw, []
        for item in raw:
            if isinstance(item, str):
                if item.startswith(_AFTER):
                    _room_line(self, item[len(_AFTER):], after=True)
                else:
                    _room_line(self, item)
            else:
                player, action, amount, to = item
                self.log.append({"kind": "action", "player": player, "action": action,
                                 "amount": amount, "to": to})
        return self


#: Finished hands the live service keeps per room for ``!hand N`` (they are part of its
#: snapshots, about 500 bytes a hand; ``referee history`` reads the whole event log instead).
KEEP = 100


class HistoryBook:
    """Finished hands per room (the last ``keep`` per room; ``None``: all)."""

    def __init__(self, keep: int | None = KEEP) -> None:
        self.keep = keep
        self._open: dict[str, HandRecord] = {}
        self._done: dict[str, deque[HandRecord]] = {}
        self._blobs: dict[int, bytes] = {}  # id(finished record) -> its pickle (see below)

    # --- snapshots (issue 21): taken at every hand end, so a finished hand -- which no longer
    # changes, but for omaha's OPEN after a fold -- is pickled once and its bytes reused; the
    # snapshot then costs the hands since the last one, not the whole book.
    def __getstate__(self) -> dict[str, Any]:
        done: dict[str, list[bytes]] = {}
        for room, records in self._done.items():
            blobs = []
            for rec in records:
                blob = self._blobs.get(id(rec))
                if blob is None:
                    blob = self._blobs[id(rec)] = pickle.dumps(rec, pickle.HIGHEST_PROTOCOL)
                blobs.append(blob)
            done[room] = blobs
        return {"keep": self.keep, "_open": self._open, "_done_blobs": done}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.keep = state["keep"]
        self._open = state["_open"]
        self._blobs = {}
        self._done = {room: deque((pickle.loads(b) for b in blobs), maxlen=self.keep)
                      for room, blobs in state["_done_blobs"].items()}

    def record(self, room: str, events: list[Event], time: Any) -> None:
        """The service, once per input: the replay's hot path, so a say or an action costs a
        type check and a dictionary lookup or two (:meth:`feed` does the same for JSON)."""
        rec = self._open.get(room)
        for ev in events:
            t = type(ev)
            if t is Say:
                d = ev.__dict__
                if d["to"] == "room":
                    line = d["text"]
                    if rec is not None:
                        if ("♠" in line or "♥" in line or "♦" in line or "♣" in line
                                or "JK" in line or _MUCK_WORD in line):
                            rec.raw.append(line)
                    elif _OPEN_MARK in line:
                        self._after_hand(room, line)
            elif t is ActionEvent:
                if rec is not None:
                    d = ev.__dict__
                    rec.raw.append((d["player"], d["action"], d["amount"], d["to"]))
            else:
                kind = ev.event
                if kind in _KINDS:
                    rec = self._other(room, rec, kind, _fields(ev), time)
                elif kind == "say" or kind == "action":  # not the plain class: the JSON path
                    self.feed(room, [ev.to_json()], time)
                    rec = self._open.get(room)

    def feed(self, room: str, events: Iterable[dict[str, Any]], time: Any = None) -> None:
        """One input's events as JSON objects (a database's event log)."""
        rec = self._open.get(room)
        for d in events:
            kind = d["event"]
            if kind == "say":
                if d["to"] == "room":
                    line = d["text"]
                    if rec is None:
                        if _OPEN_MARK in line:
                            self._after_hand(room, line)
                    elif _SUIT_RE.search(line) is not None or _MUCK_WORD in line:
                        rec.raw.append(line)
            elif kind == "action":
                if rec is not None:
                    rec.raw.append((d["player"], d["action"], d.get("amount", 0), d.get("to")))
            elif kind in _KINDS:
                rec = self._other(room, rec, kind, d, time)

    def _after_hand(self, room: str, line: str) -> None:
        """omaha: the winner's OPEN after everyone folded comes after ``hand_end``; it belongs
        to the hand just finished (shown, so in its history; no PHH action: the hand is over)."""
        done = self._done.get(room)
        if done and done[-1].game == "omaha":
            done[-1].raw.append(_AFTER + line)
            self._blobs.pop(id(done[-1]), None)  # changed: pickled again at the next snapshot

    def _other(self, room: str, rec: HandRecord | None, kind: str, d: dict[str, Any],
               time: Any) -> HandRecord | None:
        if kind == "hand_start":
            rec = self._open[room] = HandRecord(
                room=room, game="", hand=int(d.get("hand", 0)), button=int(d.get("button", 0)),
                time=float(time) if isinstance(time, int | float) else None)
            return rec
        if rec is None:
            return None
        if kind == "hand_seats":
            rec.game, rec.limit = str(d.get("game", "")), str(d.get("limit", ""))
            rec.seats = [(int(x["seat"]), str(x["player"]), int(x["chips"]))
                         for x in d.get("seats", [])]
            rec.blinds = {str(k): int(v) for k, v in dict(d.get("stakes", {})).items()}
        elif kind == "pot":
            rec.pots.append({"index": d.get("index", 0), "amount": d.get("amount", 0),
                             "shares": dict(d.get("shares", {}))})
        elif kind == "rake":
            rec.rake += int(d.get("amount", 0))
        elif kind == "settle":
            rec.settles.append({"player": d.get("player", ""), "result": d.get("result", ""),
                                "payout": d.get("payout", 0)})
        elif kind == "hand_end":
            rec.stacks = dict(d.get("stacks", {}))
            del self._open[room]
            records = self._done.setdefault(room, deque(maxlen=self.keep))
            if self.keep is not None and len(records) == self.keep:
                self._blobs.pop(id(records[0]), None)  # evicted: its id may be reused
            records.append(rec)
            return None
        return rec

    # --- queries -----------------------------------------------------------------------------
    def hands(self, room: str | None = None) -> list[HandRecord]:
        rooms = [room] if room is not None else list(self._done)
        return [h.read() for r in rooms for h in self._done.get(r, ())]

    def find(self, room: str, hand: int) -> HandRecord | None:
        """The latest finished hand ``hand`` of ``room`` (a table opened again restarts at 1)."""
        for rec in reversed(self._done.get(room, ())):
            if rec.hand == hand:
                return rec.read()
        return None


def _room_line(rec: HandRecord, line: str, after: bool = False) -> None:
    if line.startswith(_STREETS):
        cards = _cards(line.split(":", 1)[1])
        if len(cards) > len(rec.board) and cards[: len(rec.board)] == rec.board:
            rec.log.append({"kind": "board", "cards": cards[len(rec.board):]})
            rec.board = cards
        return
    if rec.game == "omaha":
        m = _OPEN_RE.match(line)
        if m:  # a showdown open (or a winner's OPEN after everyone folded)
            cards = _cards(line[m.end():].split(_CLASS_NOTE, 1)[0])
            rec.shown[m["name"]] = cards
            rec.log.append({"kind": "shown_after" if after else "show", "player": m["name"],
                            "cards": cards})
            return
        m = _FOLD_SHOW_RE.match(line) or _MUCK_RE.match(line)
        if m:  # a fold or a muck, with part of the hand shown or not
            shown = line[m.end():] if m.re is _FOLD_SHOW_RE else (
                line.split(_SHOWN_OPEN, 1)[1] if _SHOWN_OPEN in line else "")
            if shown:
                rec.shown[m["name"]] = _cards(shown.split(_SHOWN_CLOSE, 1)[0])
            if m.re is _MUCK_RE:
                rec.log.append({"kind": "muck", "player": m["name"]})
            return
    if _BOT_CARD.search(line) and not line.startswith(_BONUS_AREA):
        rec.shown_lines.append(line)


def hand_command(book: HistoryBook, room: str, args: list[str]) -> list[str]:
    """``!hand N``: the lines to post (only what was shown), or why not."""
    if len(args) != 1 or not args[0].lstrip("#").isdigit():
        return [text("hand_usage")]
    n = int(args[0].lstrip("#"))
    rec = book.find(room, n)
    if rec is None:
        return [text("hand_unknown", hand=str(n))]
    return summary_lines(rec)


# --- renderings ------------------------------------------------------------------------------

def _action_str(e: dict[str, Any]) -> str:
    name = ACTION_JA.get(str(e["action"]), str(e["action"]))
    amount = e.get("to") or e.get("amount") or 0
    return f"{e['player']} {name}" + (f" {amount:,}" if amount else "")


def _pretty(cards: list[str]) -> str:
    """Cards as the bot writes them in the chat (``A♠ 10♥``)."""
    return " ".join(pretty(parse_card(c)) for c in cards)


def summary_lines(rec: HandRecord) -> list[str]:
    """The hand in a few Japanese lines (``!hand N``; ``referee history`` adds a time line)."""
    none = text("hand_none")
    dot = text("hand_list_sep")
    seats = dot.join(text("hand_seat", seat=s, player=n, chips=c) for s, n, c in rec.seats) \
        or none
    actions: list[str] = []
    for e in rec.log:
        if e["kind"] == "action":
            actions.append(_action_str(e))
        elif e["kind"] == "board":
            actions.append(text("hand_board_step", cards=_pretty(e["cards"])))
    shown = [f"{p} {_pretty(cs)}" for p, cs in rec.shown.items()] + rec.shown_lines
    pots = [f"#{p['index']} {int(p['amount']):,} → "
            + text("hand_share_sep").join(f"{k} {int(v):,}" for k, v in p["shares"].items())
            for p in rec.pots]
    pots += [f"{s['player']} {s['result']} {int(s['payout']):,}" for s in rec.settles]
    if rec.rake:
        pots.append(text("hand_rake", rake=rec.rake))
    # four chat lines (IRC sends each line on its own), two parts on three of them
    stacks = dot.join(f"{k} {v:,}" for k, v in rec.stacks.items())
    return [
        text("hand_line_parts", first=text(
            "hand_header", hand=str(rec.hand), game=rec.game, button=str(rec.button)),
            second=text("hand_seats", seats=seats)),
        text("hand_actions", actions=" ".join(actions) or none),
        text("hand_line_parts", first=text("hand_board", board=_pretty(rec.board) or none),
             second=text("hand_shown", shown=" / ".join(shown) or none)),
        text("hand_line_parts", first=text("hand_pots", pots=" / ".join(pots) or none),
             second=text("hand_result", stacks=stacks)),
    ]


def _iso(ts: float | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def to_json(rec: HandRecord) -> dict[str, Any]:
    return {
        "room": rec.room, "game": rec.game, "hand": rec.hand, "button": rec.button,
        "time": _iso(rec.time),
        "seats": [{"seat": s, "player": n, "chips": c} for s, n, c in rec.seats],
        **({"blinds": rec.blinds} if rec.blinds else {}),
        "log": rec.log, "board": rec.board, "shown": rec.shown,
        **({"shown_lines": rec.shown_lines} if rec.shown_lines else {}),
        "pots": rec.pots, "rake": rec.rake,
        **({"settles": rec.settles} if rec.settles else {}),
        "stacks": rec.stacks,
    }


class PhhError(ValueError):
    """A hand the PHH writer cannot express (not omaha, not pot limit)."""


def _q(s: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's): names may hold quotes."""
    return json.dumps(s, ensure_ascii=False)


def to_phh(rec: HandRecord) -> str:
    """One omaha hand as PHH (TOML). Rake and house top-ups are not part of PHH: they are in
    the user fields ``_rake`` and the finishing stacks (what the referee paid)."""
    if rec.game != "omaha":
        raise PhhError(f"hand {rec.hand}: PHH is written for omaha hands only ({rec.game})")
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
