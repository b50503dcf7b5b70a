"""How the IRC bot's lines reach the network: one paced outbox.

* **Flood control.** Every reply goes through one FIFO outbox paced by a token bucket
  (:class:`referee.adapters.outbox.Pacer`); lines wait, none is dropped. A line for a channel
  the bot has not (re)joined yet waits without holding up lines for other targets.
* **Line limit.** Replies are cut by :func:`referee.adapters.outbox.split_text` to fit 512 bytes
  with the prefix the server puts in front when it relays them, never inside a card or a word.
* **Private lines** go only to the nick of the connection proven for that player
  (:mod:`referee.adapters.irc_identity`); while there is none they are held, the latest few.
* **Fair per recipient.** The table's lines -- the channel's, and private lines the game sends
  a player (hole cards, a turn) -- go before any *reply*: a private answer to what its
  recipient asked (``!help``, 「手札」). Between replies the recipients take turns, and a
  long reply yields to a table line between its pieces. A recipient with ``REPLY_QUEUE``
  replies waiting gets no more: the dropped ones are summarised in one line once theirs are
  out, so one player's flood never delays the table (the action clock is 120 s).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from referee.adapters.aio import wait_event
from referee.adapters.irc_base import Session
from referee.adapters.outbox import Pacer, byte_len, split_text
from referee.events import Event, Say
from referee.lang.catalog import text as msg
from referee.rules.voice import say_text

if TYPE_CHECKING:
    from referee.adapters.irc_identity import Book
    from referee.adapters.irc_presence import Presence

log = logging.getLogger("referee.irc")

LINE_LIMIT = 512  # RFC 1459/2812: a message including the trailing CR LF
# Until the server shows us our own prefix (the echo of our JOIN), assume the longest usual one.
_ASSUMED_USERHOST = 10 + 1 + 63
_HELD_MAX = 20  # private lines kept for a player who has not proven who they are
REPLY_QUEUE = 3  # replies waiting for one recipient; more are dropped and summarised
# Lines of the pacer's burst a reply never takes: a prompt, its acknowledgement and a card line
# go at once however many answers are asked for.
REPLY_RESERVE = 3


def text_budget(nick: str, userhost: str | None, target: str, encoding: str = "utf-8") -> int:
    """Bytes of text a PRIVMSG to ``target`` may carry so that the line the server relays,
    ``:nick!user@host PRIVMSG target :text\\r\\n``, stays within 512 bytes."""
    uh = byte_len(userhost, encoding) if userhost else _ASSUMED_USERHOST
    overhead = 1 + byte_len(nick, encoding) + 1 + uh + len(" PRIVMSG ") \
        + byte_len(target, encoding) + len(" :") + 2
    return LINE_LIMIT - overhead


@dataclass
class Line:
    """One queued message (split into lines when it is sent)."""

    target: str  # a channel or a nick
    text: str
    identity: str | None = None  # a private line: the player it is for (nick followed at send)
    reply: bool = False  # an answer to its recipient's own request: after the table's lines
    at: float = field(default_factory=time.monotonic)  # when it was queued
    asker: str | None = None  # a reply said in a channel: the player whose request it answers

    def key(self, fold: Callable[[str], str]) -> str:
        """Its recipient: a (folded) channel or nick, or the player a private line follows; a
        reply in a channel is keyed by whom it answers, so one player's requests share one
        budget whether answered there or privately."""
        if self.asker is not None:
            return f"\0{self.asker}"
        return fold(self.target) if self.target else f"\0{self.identity}"


class Outbox:
    """The IRC bot's outbox (see the module docstring): it owns the queued lines, the private
    lines held for players not proven now, the pacing and who was served when. ``write`` puts
    one line on the connection (PRIVMSG)."""

    def __init__(self, session: Session, book: Book, write: Callable[[str, str], None]) -> None:
        config = session.config
        self.session = session
        self.book = book
        self.write = write
        self.pacer = Pacer(interval=config.interval, burst=config.burst)
        self.lines: list[Line] = []
        self.held: dict[str, list[str]] = {}  # player -> private lines waiting for their proof
        self.dropped: dict[str, int] = {}  # player -> replies dropped in a flood
        self.served: dict[str, float] = {}  # player -> when a reply last went to them
        self.sent_lines = 0
        self.changed = asyncio.Event()
        # who follows the players' nicks, and how to check one nobody follows (a WHOIS): set
        # by the bot once its identity parts exist
        self.presence: Presence | None = None
        self.confirm: Callable[[str], None] | None = None

    def fold(self, name: str) -> str:
        return self.session.fold(name)

    def wake(self) -> None:
        """Something changed that may let a waiting line go (registered, joined, proven)."""
        self.changed.set()

    def send(self, target: str, text: str, identity: str | None = None) -> None:
        """Queue ``text`` for a channel or a nick (split to fit the line limit); a line to a
        nick answers what that nick sent (a reply: see the module docstring)."""
        self._queue(Line(target, text, identity, reply=target[:1] not in "#&+!"))

    def say_private(self, identity: str, text: str, reply: bool = False) -> None:
        """A private message to a player, wherever their nick is now; ``reply``: an answer to
        their own request (see the module docstring: limited, after the table's lines)."""
        self._queue(Line("", text, identity, reply))

    def _queue(self, line: Line) -> None:
        if line.reply:
            key = line.key(self.fold)
            waiting = sum(1 for x in self.lines if x.reply and x.key(self.fold) == key)
            if waiting >= REPLY_QUEUE:
                self.dropped[key] = self.dropped.get(key, 0) + 1
                return
        self.lines.append(line)
        self.changed.set()

    def _summarise(self, line: Line) -> None:
        """The last queued reply to ``line``'s recipient went: say how many were dropped."""
        n = self.dropped.pop(line.key(self.fold), 0)
        if n:
            self.lines.append(Line(line.target, msg("irc.replies_dropped", count=n),
                                    line.identity, True, asker=line.asker))
            self.changed.set()

    def _pick(self) -> tuple[Line, str] | None:
        """The next line to send and where: the table's first (in order per target), then
        replies (in order per recipient), the recipient served longest ago first."""
        replies: list[tuple[Line, str]] = []
        blocked: set[str] = set()
        answered: set[str] = set()
        for line in list(self.lines):
            key = line.key(self.fold)
            if key in blocked or (line.reply and key in answered):
                continue
            where = self._resolve(line)
            if where is None:
                blocked.add(key)  # later lines for the same target keep their order
                continue
            if where == "" and line.identity is not None:
                held = self.held.setdefault(line.identity, [])
                held.append(line.text)
                del held[:-_HELD_MAX]  # a player away for hours: the latest lines only
                self.lines.remove(line)
                blocked.add(key)
                log.info("private message for %s held until they prove who they are",
                         line.identity)
                continue
            if not line.reply:
                return line, where
            replies.append((line, where))
            answered.add(key)
        if not replies:
            return None
        reserve = min(REPLY_RESERVE, self.pacer.burst - 1)
        if self.pacer.available(time.monotonic()) < 1 + reserve:
            return None  # the last lines of the burst are kept for the table's
        return min(replies, key=lambda p: self.served.get(p[0].key(self.fold), 0.0))

    async def reply_slot(self) -> None:
        """Wait until a line that is nobody's table line (a WHOIS about a stranger's
        ``!pass``) may go as a reply would -- leaving the burst's last lines to the table --
        and count it in the pace: to the server it costs what a line does, or more."""
        loop = asyncio.get_running_loop()
        reserve = min(REPLY_RESERVE, self.pacer.burst - 1)
        while not self.session.stopping.is_set():
            if self.pacer.available(loop.time()) >= 1 + reserve and not self._table_waiting():
                self.pacer.sent(loop.time())
                return
            await asyncio.sleep(max(self.pacer.interval, 0.05))

    def _table_waiting(self) -> bool:
        return any(not x.reply and self._resolve(x) for x in self.lines)

    def _resolve(self, line: Line) -> str | None:
        """Where a line goes now; None while it must wait (channel not joined, not registered)."""
        if not self.session.registered:
            return None
        if line.identity is not None and not line.target:
            # Only to the connection proven for that player; never to a nick merely named
            # like them (whoever took it after they left is not them): else held.
            # Resolved now, not when the line was queued: a nick given up meanwhile is not
            # theirs. A nick the bot does not follow (no shared channel, no MONITOR) is
            # checked by a WHOIS made after the line was queued before anything goes to it.
            nick = self.book.nick_of(line.identity)
            if nick is None:
                return ""
            if (self.presence is not None and not self.presence.followed(nick)
                    and not self.presence.confirmed_since(nick, line.at)):
                if self.confirm is not None:
                    self.confirm(nick)
                return None
            return nick
        if line.target[:1] in "#&+!":
            return line.target if self.fold(line.target) in self.session.joined else None
        return line.target

    def release_held(self, identity: str) -> None:
        for text in self.held.pop(identity, []):
            self.say_private(identity, text)

    async def run(self) -> None:
        """Send queued lines in order (per target), paced; wait while nothing can go. It runs
        until cancelled: while the bot stops it still sends what :meth:`drain` waits for."""
        loop = asyncio.get_running_loop()
        while True:
            pick = self._pick()
            if pick is None:
                self.changed.clear()
                await wait_event(self.changed, timeout=1.0)
                continue
            line, where = pick
            session = self.session
            budget = text_budget(session.nickname, session.userhost, where,
                                 session.config.encoding)
            pieces = split_text(line.text, budget, session.config.encoding)
            wrote = True
            for n, piece in enumerate(pieces):
                wait = self.pacer.delay(loop.time())
                if wait > 0:
                    await asyncio.sleep(wait)
                if not self.session.registered or self._resolve(line) != where:
                    # lost the connection mid-message: the rest waits for the next connection
                    line.text = "\n".join(pieces[n:])
                    wrote = False
                    break
                try:
                    self.write(where, piece)
                except Exception as e:  # the transport went away under us; retry later
                    log.warning("send to %s failed: %r; will retry", where, e)
                    line.text = "\n".join(pieces[n:])
                    wrote = False
                    break
                self.pacer.sent(loop.time())
                self.sent_lines += 1
                if line.reply and n + 1 < len(pieces) and self._table_waiting():
                    line.text = "\n".join(pieces[n + 1:])  # the rest after the table's line
                    wrote = False
                    break
            if line.reply:
                self.served[line.key(self.fold)] = loop.time()
            if wrote:
                self.lines.remove(line)
                key = line.key(self.fold)
                if line.reply and not any(x.reply and x.key(self.fold) == key
                                          for x in self.lines):
                    self._summarise(line)

    def deliver(self, events: Iterable[Event], room: str, nick: str | None,
                 sender: str | None = None, answer: bool = False) -> None:
        """Send an input's says: to the table's channel (else to ``nick``) or privately. A
        private say to ``sender`` (the player whose message this was) is a reply; so is what
        is said in the channel when the input only asked for something (``answer``: !status,
        !rules …) -- it shares that player's reply budget and waits behind the table's
        lines, so one player's requests never hold up the prompts and cards of a table."""
        channel = self.channel_of(room)
        for ev in events:
            if not isinstance(ev, Say):
                continue
            to, say = ev.to, say_text(ev)
            if to == "room":
                if channel is not None and answer and sender is not None:
                    self._queue(Line(channel, say, None, reply=True, asker=sender))
                elif channel is not None:
                    self.send(channel, say)
                elif nick is not None:
                    self.send(nick, say)
            else:
                self.say_private(to, say, reply=sender is not None and to == sender)

    def channel_of(self, room: str) -> str | None:
        for c in self.session.config.channels:
            if self.session.room(c) == room:
                return c
        return None

    async def drain(self, timeout: float) -> None:
        """On shutdown: give the table's queued lines a moment to go out. Replies are not
        waited for: after a flood of requests they could hold a stop for many seconds."""
        end = time.monotonic() + timeout
        while (self.session.registered and time.monotonic() < end
               and any(not x.reply and self._resolve(x) for x in self.lines)):
            await asyncio.sleep(0.1)

