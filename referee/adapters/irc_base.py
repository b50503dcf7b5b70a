"""What the IRC bot's modules share: the state of one bot connection, declared once.

:class:`referee.adapters.irc.IrcBot` is put together from mixins -- the connection and its
capabilities (:mod:`irc_connection`), the identity flow (:mod:`irc_proofs`), delivery under
flood control (:mod:`irc_delivery`), and the bot itself (messages, the clock: :mod:`irc`).
Each works on the same attributes; :class:`IrcParts` declares them (and the methods one part
calls in another) so every part is type-checked on its own. The method stubs here come last
in the bot's MRO, so the part that implements one always wins (tests/test_adapter_shape.py
checks it).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.adapters.irc_config import IrcConfig
    from referee.adapters.irc_delivery import Line
    from referee.adapters.irc_identity import Book, Whois
    from referee.adapters.outbox import Pacer
    from referee.service import Referee
    from referee.store import Store


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


class IrcParts:
    """The attributes of one bot (set by ``IrcBot.__init__``) and the parts' cross calls."""

    config: IrcConfig
    referee: Referee
    store: Store
    book: Book
    stopping: asyncio.Event
    conn: Any  # jaraco/irc's connection (untyped)
    reactor: Any
    # per connection
    registered: bool
    nickname: str
    userhost: str | None
    casemapping: str
    joined: set[str]  # folded channel names
    caps: set[str]  # IRCv3 capabilities the server acknowledged
    connects: int
    sasl_ok: bool
    _cap_ls: set[str]
    _whox: bool  # the server answers WHO with chosen fields (ISUPPORT WHOX)
    _last_rx: float
    _lost: asyncio.Event
    _inbox: asyncio.Queue[Any]
    _whois: dict[str, asyncio.Future[Whois]]
    _whois_partial: dict[str, Whois]
    _unproven: dict[str, float]  # folded nick -> looked up, not proven, until
    _hinted: dict[str, float]  # folded nick -> when told how to prove themselves
    # delivery
    pacer: Pacer
    outbox: list[Line]
    held: dict[str, list[str]]  # player -> private lines waiting for their proof
    dropped: dict[str, int]  # player -> replies dropped (a flood), told once theirs are out
    served: dict[str, float]  # player (or nick) -> when a reply last went to them
    sent_lines: int
    _changed: asyncio.Event

    def fold(self, name: str) -> str:
        """``name`` as the server compares names (its CASEMAPPING)."""
        return casefold(name, self.casemapping)

    def _room(self, channel: str) -> str:
        """The referee's room of a channel: its folded name."""
        return self.fold(channel)

    # implemented by the other parts
    def send(self, target: str, text: str, identity: str | None = None) -> None:
        raise NotImplementedError

    def _release_held(self, identity: str) -> None:
        raise NotImplementedError

    async def _whois_of(self, nick: str) -> Whois:
        raise NotImplementedError

    async def _sender(self) -> None:
        raise NotImplementedError

    async def _drain(self, timeout: float) -> None:
        raise NotImplementedError

    async def _worker(self) -> None:
        raise NotImplementedError

    async def _clock(self) -> None:
        raise NotImplementedError
