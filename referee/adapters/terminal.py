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
import contextlib
import os
import select
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from referee.adapters import gc_tuning
from referee.adapters.clock import TICK_EVERY, due_ticks
from referee.adapters.transcript import DIRECTIVE, MESSAGE, Reader
from referee.directives import DirectiveError
from referee.events import Event, Phrase, Say
from referee.events import line as phrase
from referee.inputs import Directive, Input, Message, Tick
from referee.lang.catalog import text as msg
from referee.lang.reader import read_command
from referee.parse import command_name
from referee.rules.voice import say_text
from referee.service import Referee
from referee.store import StoreError

if TYPE_CHECKING:
    from referee.store import Store

ROOM = "terminal"


def render(ev: Event, verbose: bool = False) -> str | None:
    """One event as a terminal line: the bot's says always, other events only when verbose."""
    if isinstance(ev, Say):
        said = say_text(ev)
        return f"[bot] {said}" if ev.to == "room" else msg("terminal.private", to=ev.to,
                                                           text=said)
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
        try:
            out = self.referee.process(Tick(f"play:{self.session}:{self.count}", self.room,
                                            now))
        except StoreError:
            return []  # the next tick tries again; nothing changed
        return out.events if out is not None else []

    def _sync(self) -> None:
        """Directives are checked against the room's table, however it was opened (!open,
        ``# table:`` or a rebuild)."""
        table = self.referee.table_view(self.room)
        if table is not None:
            self.reader.game = table.game
            self.reader.max_seat = table.seats
            self.reader.names |= set(table.seated)

    def line(self, raw: str, now: float | None = None) -> list[Event]:
        """One typed line → events. Malformed input becomes a bot reply, never an exception."""
        line = raw.strip()
        if not line or line.startswith("##"):
            return []
        self.count += 1
        input_id = f"play:{self.session}:{self.count}"
        inp: Input
        if line.startswith("#"):
            self._sync()
            d = DIRECTIVE.match(line)
            try:
                if d is None:
                    raise ValueError(msg("terminal.unreadable_directive", line=line))
                name, args = self.reader.directive(d.group("name"), d.group("arg"),
                                                   d.group("rest"))
                inp = Directive(input_id, self.room, name, args)
                out = self.referee.process(inp)
            except (ValueError, DirectiveError) as e:
                return [_error(phrase("terminal.bad_directive", error=str(e)))]
            except StoreError:
                return [_error(phrase("save_failed", player="#"))]
            return out.events if out is not None else []
        m = MESSAGE.match(line)
        if m is None:
            return [_error(phrase("terminal.need_name"))]
        self.reader.names.add(m.group("name"))
        inp = Message(input_id, self.room, m.group("name"), m.group("text"),
                      time.time() if now is None else now, m.group("dm") is not None)
        try:
            out = self.referee.process(inp)
        except StoreError:  # nothing changed (the service went back to what is saved)
            return [Say.of("room", phrase("save_failed", player=m.group("name")))]
        events = out.events if out is not None else []
        if _is_help(m.group("text")):
            # the chat rooms have private messages of their own; here the syntax is ours
            to = m.group("name") if m.group("dm") is not None else "room"
            events = [*events, Say.of(to, phrase("terminal.help_private"))]
        return events


def _is_help(text: str) -> bool:
    """Whether ``text`` is a bare ``!help`` (any alias or width): the command list, which the
    terminal follows with how to write a private message."""
    cmd = read_command(text)
    return cmd is not None and command_name(cmd.word) == "help" and not cmd.args


def _error(said: Phrase) -> Event:
    return Say.of("room", phrase("terminal.input_error", text=said))


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
            events = [_error(phrase("terminal.internal_error", error=type(e).__name__))]
        if raw is None and prompt:
            out.write("\n")  # the bot speaks while the prompt waits
        for ev in events:
            text = render(ev, verbose)
            if text is not None:
                out.write(text + "\n")
        if prompt:
            out.write("> ")
        out.flush()
        gc_tuning.answered()
        gc_tuning.quiet()  # the lines are out (referee.adapters.gc_tuning)


def run(db: Path | None, moderator: str = "dealer", verbose: bool = False) -> None:
    """``referee play``: stdin lines in, the bot's messages out; persisted to ``db``."""
    store: Store | None = None
    referee = Referee(moderators=[moderator])
    if db is not None:
        from referee.adapters import resume
        from referee.store import Store, StoreError

        try:
            store = Store(db)
            try:
                store.writable()  # never a table whose every message fails to save
            except StoreError:
                with contextlib.suppress(StoreError):
                    store.close()
                raise
        except StoreError as e:
            print(f"referee: {e}", file=sys.stderr)
            raise SystemExit(2) from None
        for warning in resume(referee, store):
            print(msg("terminal.warning", warning=warning), file=sys.stderr)
    terminal = Terminal(referee)
    gc_tuning.tune()  # what start-up made lives as long as the session
    print(msg("terminal.banner"))
    table = referee.table_view(ROOM)
    if table is None:
        print(msg("terminal.guide", moderator=moderator))
    else:
        names = msg("terminal.name_separator").join(table.seated) or msg("terminal.nobody")
        state = msg("terminal.in_hand" if table.in_hand else "terminal.between_hands")
        print(msg("terminal.restored", game=table.name, names=names, state=state))
    try:
        serve(terminal, typed_lines(sys.stdin.fileno(), 1.0), sys.stdout, verbose=verbose,
              prompt=sys.stdin.isatty())
    except KeyboardInterrupt:
        pass
    finally:
        if store is not None:
            store.close()
