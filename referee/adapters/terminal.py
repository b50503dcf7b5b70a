"""``referee play``: a terminal table. One person types ``name: message`` lines as several players
(and transcript directives such as ``# seat 1: alice 20000``); the bot's messages are printed,
private ones marked with their addressee.

Thin on purpose: it is the same service pipeline as every other adapter. With the store
available, every input is saved to ``--db`` and the tables are rebuilt from it on start, so a
session survives a restart. Like the chat bots it ticks the action clock while nobody types
(:func:`referee.adapters.clock.due_ticks`), so a player who never acts gets the reminder and,
in the end, the default action.
"""

from __future__ import annotations

import codecs
import os
import select
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from referee.adapters.clock import TICK_EVERY, due_ticks
from referee.adapters.transcript import _DIRECTIVE, _MESSAGE, Reader
from referee.events import Event
from referee.service import DirectiveError, Referee

ROOM = "terminal"
BANNER = (
    "referee — ターミナルテーブル。「名前: メッセージ」で発言、「# seat 1: alice 20000」などの"
    "指示も使えます。!help でコマンド一覧、Ctrl-D で終了。"
)


GUIDE = """はじめ方（例）:
  {moderator}: !open omaha level=3      テーブルを開く（モデレーター）
  {moderator}: !grant @alice 2000       バンクにポイントを付与
  alice: !sit                      着席（バンクからバイイン）
  {moderator}: !deal                    次のハンドを配る
  alice: コール / bob: メイク300 …   アクション"""


def render(ev: Event, verbose: bool = False) -> str | None:
    """One event as a terminal line: the bot's says always, other events only when verbose."""
    if ev.event == "say":
        to = str(getattr(ev, "to", "room"))
        text = str(getattr(ev, "text", ""))
        return f"[bot] {text}" if to == "room" else f"[bot → {to}（非公開）] {text}"
    if ev.event == "rejected":
        return None  # the say carrying the reason follows it
    if verbose:
        data = {k: v for k, v in ev.to_json().items() if k != "event"}
        return f"  · {ev.event} " + " ".join(f"{k}={v}" for k, v in data.items())
    return None


class Terminal:
    """Turns typed lines into service inputs (usable from tests with any text streams)."""

    def __init__(self, referee: Referee, room: str = ROOM, session: str | None = None) -> None:
        self.referee = referee
        self.room = room
        self.session = session or uuid.uuid4().hex[:12]
        self.reader = Reader(room)
        self.count = 0
        self.ticked: dict[str, float] = {}  # room -> time of the timer's last tick

    def tick(self, now: float, every: float = TICK_EVERY) -> list[Event]:
        """The action clock while nobody types: a tick when the table waits on someone and the
        clock runs (at most one every ``every`` seconds), else nothing."""
        if not due_ticks(self.referee, now, self.ticked, every, rooms=(self.room,)):
            return []
        self.ticked[self.room] = now
        self.count += 1
        return self.referee.tick(f"play:{self.session}:{self.count}", self.room, now)

    def _sync(self) -> None:
        """Directives are checked against the room's table, however it was opened (!open,
        ``# table:`` or a rebuild)."""
        table = self.referee.tables.get(self.room)
        if table is not None:
            self.reader.game = table.game
            self.reader.max_seat = table.engine.definition.seats.max
            self.reader.names |= {s.name for s in table.engine.seated()}

    def line(self, raw: str, now: float | None = None) -> list[Event]:
        """One typed line → events. Malformed input becomes a bot reply, never an exception."""
        line = raw.strip()
        if not line or line.startswith("##"):
            return []
        self.count += 1
        input_id = f"play:{self.session}:{self.count}"
        inp: dict[str, Any]
        if line.startswith("#"):
            self._sync()
            d = _DIRECTIVE.match(line)
            try:
                if d is None:
                    raise ValueError(f"指示が読めません: {line}")
                name, args = self.reader.directive(d.group("name"), d.group("arg"),
                                                   d.group("rest"))
                inp = {"kind": "directive", "id": input_id, "room": self.room, "name": name,
                       "args": args}
                out = self.referee.process(inp)
            except (ValueError, DirectiveError) as e:
                return [_error(f"指示が不正です: {e}")]
            return out.events if out is not None else []
        m = _MESSAGE.match(line)
        if m is None:
            return [_error("「名前: メッセージ」の形で入力してください")]
        self.reader.names.add(m.group("name"))
        inp = {
            "kind": "message", "id": input_id, "room": self.room, "sender": m.group("name"),
            "text": m.group("text"), "time": time.time() if now is None else now,
            "dm": m.group("dm") is not None,
        }
        out = self.referee.process(inp)
        return out.events if out is not None else []


def _error(text: str) -> Event:
    from referee.events import Say

    return Say(to="room", text=f"（入力エラー）{text}")


def typed_lines(fd: int, wait: float) -> Iterator[str | None]:
    """The lines typed on ``fd`` (UTF-8, undecodable bytes replaced), and ``None`` whenever
    ``wait`` seconds pass without a complete line -- the moments to tick the clock. Reads the
    descriptor itself: a buffered text stream would hide lines it holds from ``select``."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = ""
    while True:
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            yield None
            continue
        chunk = os.read(fd, 65536)
        if not chunk:  # end of input
            pending += decoder.decode(b"", final=True)
            if pending:
                yield pending
            return
        pending += decoder.decode(chunk)
        *lines, pending = pending.split("\n")
        yield from lines


def serve(
    terminal: Terminal, lines: Iterable[str | None], out: TextIO, verbose: bool = False,
    prompt: bool = False, clock: Callable[[], float] = time.time,
    tick_every: float = TICK_EVERY,
) -> None:
    """Typed lines in, the bot's messages out; a ``None`` line is a quiet moment in which the
    action clock ticks (at ``clock()``)."""
    if prompt:
        out.write("> ")
        out.flush()
    for raw in lines:
        try:
            if raw is None:
                events = terminal.tick(clock(), tick_every)
                if not events:
                    continue
            else:
                events = terminal.line(raw, clock())
        except Exception as e:  # a bug must not end the table for everyone; say so and go on
            events = [_error(f"内部エラーのため処理できませんでした（{type(e).__name__}）")]
        if raw is None and prompt:
            out.write("\n")  # the bot speaks while the prompt waits
        for ev in events:
            text = render(ev, verbose)
            if text is not None:
                out.write(text + "\n")
        if prompt:
            out.write("> ")
        out.flush()


def run(db: Path | None, moderator: str = "dealer", verbose: bool = False) -> None:
    """``referee play``: stdin lines in, the bot's messages out; persisted to ``db``."""
    store: Any = None
    referee = Referee(moderators=[moderator])
    if db is not None:
        try:
            from referee.store import Store, StoreError
        except ImportError:  # the store is not installed yet: play in memory
            Store = None  # type: ignore[assignment,misc]
        if Store is not None:
            try:
                store = Store(db)
            except StoreError as e:
                print(f"referee: {e}", file=sys.stderr)
                raise SystemExit(2) from None
            from referee.adapters import resume

            for warning in resume(referee, store):
                print(f"referee: 警告: {warning}", file=sys.stderr)
    terminal = Terminal(referee)
    print(BANNER)
    table = referee.tables.get(ROOM)
    if table is None:
        print(GUIDE.format(moderator=moderator))
    else:
        names = "、".join(s.name for s in table.engine.seated()) or "なし"
        state = "ハンド進行中" if table.engine.in_hand else "ハンド間"
        game = table.engine.definition.name
        print(f"前回のテーブルを復元しました: {game}（着席: {names}、{state}）")
    try:
        serve(terminal, typed_lines(sys.stdin.fileno(), 1.0), sys.stdout, verbose=verbose,
              prompt=sys.stdin.isatty())
    except KeyboardInterrupt:
        pass
    finally:
        if store is not None:
            store.close()
