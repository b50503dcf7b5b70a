"""How the IRC bot's lines reach the network: one paced outbox.

* **Flood control.** Every reply goes through one FIFO outbox paced by a token bucket
  (:class:`referee.adapters.outbox.Pacer`); lines wait, none is dropped. A line for a channel
  the bot has not (re)joined yet waits without holding up lines for other targets.
* **Line limit.** Replies are cut by :func:`referee.adapters.outbox.split_text` to fit 512 bytes
  with the prefix the server puts in front when it relays them, never inside a card or a word.
* **Private lines** go only to the nick of the connection proven for that player
  (:mod:`referee.adapters.irc_identity`); while there is none they are held, the latest few.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass

from referee.adapters.irc_base import IrcParts
from referee.adapters.outbox import byte_len, split_text
from referee.events import Event, Say

log = logging.getLogger("referee.irc")

LINE_LIMIT = 512  # RFC 1459/2812: a message including the trailing CR LF
# Until the server shows us our own prefix (the echo of our JOIN), assume the longest usual one.
_ASSUMED_USERHOST = 10 + 1 + 63
_HELD_MAX = 20  # private lines kept for a player who has not proven who they are


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


class Delivery(IrcParts):
    """The sending part of :class:`referee.adapters.irc.IrcBot`."""

    def send(self, target: str, text: str, identity: str | None = None) -> None:
        """Queue ``text`` for a channel or a nick (split to fit the line limit)."""
        self.outbox.append(Line(target, text, identity))
        self._changed.set()

    def say_private(self, identity: str, text: str) -> None:
        """A private message to a player, wherever their nick is now."""
        self.outbox.append(Line("", text, identity))
        self._changed.set()

    def _resolve(self, line: Line) -> str | None:
        """Where a line goes now; None while it must wait (channel not joined, not registered)."""
        if not self.registered:
            return None
        if line.identity is not None and not line.target:
            # Only to the connection proven for that player; never to a nick merely named
            # like them (whoever took it after they left is not them): else held.
            nick = self.book.nick_of(line.identity)
            return nick if nick is not None else ""
        if line.target[:1] in "#&+!":
            return line.target if self.fold(line.target) in self.joined else None
        return line.target

    def _release_held(self, identity: str) -> None:
        for text in self.held.pop(identity, []):
            self.say_private(identity, text)

    async def _sender(self) -> None:
        """Send queued lines in order (per target), paced; wait while nothing can go."""
        loop = asyncio.get_running_loop()
        while not self.stopping.is_set():
            pick: tuple[Line, str] | None = None
            blocked: set[str] = set()
            for line in list(self.outbox):
                key = line.target or f"\0{line.identity}"
                if key in blocked:
                    continue
                where = self._resolve(line)
                if where is None:
                    blocked.add(key)  # later lines for the same target keep their order
                    continue
                if where == "" and line.identity is not None:
                    held = self.held.setdefault(line.identity, [])
                    held.append(line.text)
                    del held[:-_HELD_MAX]  # a player away for hours: the latest lines only
                    self.outbox.remove(line)
                    blocked.add(key)
                    log.info("private message for %s held until they prove who they are",
                             line.identity)
                    continue
                pick = (line, where)
                break
            if pick is None:
                self._changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), 1.0)
                continue
            line, where = pick
            budget = text_budget(self.nickname, self.userhost, where, self.config.encoding)
            pieces = split_text(line.text, budget, self.config.encoding)
            wrote = True
            for n, piece in enumerate(pieces):
                wait = self.pacer.delay(loop.time())
                if wait > 0:
                    await asyncio.sleep(wait)
                if not self.registered or self._resolve(line) != where:
                    # lost the connection mid-message: the rest waits for the next connection
                    line.text = "\n".join(pieces[n:])
                    wrote = False
                    break
                try:
                    self.conn.privmsg(where, piece)
                except Exception as e:  # the transport went away under us; retry later
                    log.warning("send to %s failed: %r; will retry", where, e)
                    line.text = "\n".join(pieces[n:])
                    wrote = False
                    break
                self.pacer.sent(loop.time())
                self.sent_lines += 1
            if wrote:
                self.outbox.remove(line)

    def _deliver(self, events: list[Event], room: str, nick: str | None) -> None:
        """Send an input's says: to the table's channel (else to ``nick``) or privately."""
        channel = self._channel_of(room)
        for ev in events:
            if not isinstance(ev, Say):
                continue
            to, say = ev.to, ev.text
            if to == "room":
                if channel is not None:
                    self.send(channel, say)
                elif nick is not None:
                    self.send(nick, say)
            else:
                self.say_private(to, say)

    def _channel_of(self, room: str) -> str | None:
        for c in self.config.channels:
            if self._room(c) == room:
                return c
        return None

    async def _drain(self, timeout: float) -> None:
        """On shutdown: give queued lines a moment to go out."""
        end = time.monotonic() + timeout
        while (self.registered and time.monotonic() < end
               and any(self._resolve(x) for x in self.outbox)):
            await asyncio.sleep(0.1)

