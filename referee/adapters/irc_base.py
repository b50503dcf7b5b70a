"""What every part of the IRC bot reads of one connection: the :class:`Session` -- who the bot
is on the server now (registered, nick, the prefix the server relays, the channels joined, the
capabilities acknowledged) and how the server compares names (CASEMAPPING).

The bot (:class:`referee.adapters.irc.IrcBot`) owns one and hands it to its parts -- the link
(:mod:`irc_connection`), the identity flow (:mod:`irc_proofs`) and the outbox
(:mod:`irc_delivery`) -- which each own the rest of their state themselves.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from referee.adapters.aio import wait_event

if TYPE_CHECKING:
    from referee.adapters.irc_config import IrcConfig


def casefold(name: str, casemapping: str = "rfc1459") -> str:
    """IRC's case-insensitive form of a nick or channel (ISUPPORT CASEMAPPING)."""
    s = name.lower()
    if casemapping == "ascii":
        return "".join(c.lower() if c.isascii() else c for c in name)
    if casemapping in ("rfc1459", "strict-rfc1459"):
        s = s.replace("[", "{").replace("]", "}").replace("\\", "|")
        if casemapping == "rfc1459":
            s = s.replace("~", "^")
    return s


class Session:
    """The bot's standing on the server, shared by its parts (see the module docstring)."""

    def __init__(self, config: IrcConfig) -> None:
        self.config = config
        self.stopping = asyncio.Event()
        self.registered = False
        self.nickname = config.nick
        self.userhost: str | None = None  # our prefix as the server relays it (our JOIN's echo)
        self.casemapping = "rfc1459"
        self.joined: set[str] = set()  # folded channel names
        self.caps: set[str] = set()  # IRCv3 capabilities the server acknowledged
        self.cap_ls: set[str] = set()  # … and the ones it offered
        self.whox = False  # the server answers WHO with chosen fields (ISUPPORT WHOX)
        self.connects = 0
        self.sasl_ok = False

    def fold(self, name: str) -> str:
        """``name`` as the server compares names (its CASEMAPPING)."""
        return casefold(name, self.casemapping)

    def room(self, channel: str) -> str:
        """The referee's room of a channel: its folded name."""
        return self.fold(channel)

    def accounts(self) -> bool:
        """Whether players are their services accounts here (else they prove with secrets):
        configured, or (``auto``) the server offers account tags or SASL."""
        mode = self.config.identity
        if mode != "auto":
            return mode == "accounts"
        return "account-tag" in self.caps or "sasl" in self.cap_ls

    def lost(self) -> None:
        """The connection ended: nothing of it holds for the next one."""
        self.registered = False
        self.joined.clear()
        self.caps.clear()
        self.whox = False

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds``, or less if the bot is stopping."""
        await wait_event(self.stopping, timeout=seconds)
