"""``referee irc``: the bot in IRC channels (jaraco/irc's asyncio connection), one table per
channel, hole cards and private replies by PRIVMSG to the player's nick.

A thin I/O shell around the service pipeline (:class:`referee.service.Referee`), like the Matrix
and terminal adapters. What it adds is delivery on a network with no message ids and no history:

* **Identity** is never a nick alone (:mod:`referee.adapters.irc_identity`): a sender reaches
  the referee only from a proven connection -- a services account (IRCv3 ``account-tag``,
  ``extended-join``, ``account-notify``, WHOX, or WHOIS 330) or, on a network without
  services, a per-player secret checked once per connection (``!pass`` by private message,
  never stored as typed and never part of the event log). Private content goes only to the
  nick of the connection proven for that player, else it is held until they prove again. A
  proof survives a restart of the bot (persisted with the connection's sign-on time) and
  ends with the connection (QUIT). With ``require_identified`` moderator commands need an
  account. A nick change is followed.
* **Back-ups** of the database on ``!close`` and every ``backup_every`` seconds, keeping the
  last ``backup_keep`` (:class:`referee.store.integrity.Backups`).
* **Exactly once in.** Each received line becomes one input with a fresh id
  (``irc:<run>:<n>``); the service saves it, its events and ledger in one transaction and a
  restart rebuilds every table from the database. IRC keeps no history: what is said while the
  bot is disconnected is not seen -- after a reconnect the bot says so in each channel with a
  hand in progress, so nothing is silently lost or applied twice.
* **Flood control.** Every reply goes through one FIFO outbox paced by a token bucket
  (:class:`referee.adapters.outbox.Pacer`); lines wait, none is dropped. A line for a channel
  the bot has not (re)joined yet waits without holding up lines for other targets.
* **Line limit.** Replies are cut by :func:`referee.adapters.outbox.split_text` to fit 512 bytes
  with the prefix the server puts in front when it relays them, never inside a card or a word.
* **Reconnect** with capped exponential backoff and jitter; a silent connection is detected by
  PING. The bot rejoins its channels and tries to get its configured nick back.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import math
import os
import random
import re
import signal
import ssl
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.adapters.clock import TICK_EVERY, due_ticks
from referee.adapters.config import ConfigError as ConfigError
from referee.adapters.config import read_settings
from referee.adapters.irc_identity import Book, Whois, pass_args
from referee.adapters.outbox import Pacer, byte_len, encoding_ok, split_text
from referee.lang.catalog import text as msg
from referee.routing import private_route
from referee.service import MODERATOR_COMMANDS, command_name

log = logging.getLogger("referee.irc")

LINE_LIMIT = 512  # RFC 1459/2812: a message including the trailing CR LF
# Until the server shows us our own prefix (the echo of our JOIN), assume the longest usual one.
_ASSUMED_USERHOST = 10 + 1 + 63
_FORMATTING = re.compile(r"\x03(?:\d{1,2}(?:,\d{1,2})?)?|[\x02\x0f\x11\x16\x1d\x1e\x1f]")



@dataclass
class IrcConfig:
    server: str
    channels: list[str]
    database: Path
    port: int = 0  # 0: 6697 with TLS, else 6667
    tls: bool = False
    tls_verify: bool = True
    tls_ca: Path | None = None
    nick: str = "referee"
    username: str = "referee"
    realname: str = "poker referee bot"
    password: str | None = None  # server password (PASS)
    sasl_username: str | None = None  # the bot's services account (SASL PLAIN at connect)
    sasl_password: str | None = None  # or env REFEREE_IRC_SASL_PASSWORD
    moderators: list[str] = field(default_factory=list)
    require_identified: bool = False  # moderator commands only from nicks logged in to services
    identity: str = "auto"  # accounts | secrets | auto: accounts where the server offers them
    encoding: str = "utf-8"  # e.g. iso-2022-jp on older Japanese networks
    interval: float = 1.0  # flood control: one line per interval after a burst
    burst: int = 5
    max_backoff: float = 60.0  # reconnect backoff cap, seconds
    ping_interval: float = 60.0  # PING the server after this much silence ...
    ping_timeout: float = 60.0  # ... and reconnect if it stays silent this much longer
    tick_every: float = TICK_EVERY  # action clock: seconds between timer ticks of one table
    backup_dir: Path | None = None  # default: backups/ next to the database
    backup_every: float = 3600.0  # seconds between back-ups; 0: only on !close
    backup_keep: int = 24  # back-ups kept

    @property
    def effective_port(self) -> int:
        return self.port or (6697 if self.tls else 6667)


_KEYS: dict[str, type] = {
    "server": str, "channels": list, "database": str, "port": int, "tls": bool,
    "tls_verify": bool, "tls_ca": str, "nick": str, "username": str, "realname": str,
    "password": str, "moderators": list, "require_identified": bool, "encoding": str,
    "interval": float, "burst": int, "max_backoff": float, "ping_interval": float,
    "ping_timeout": float, "tick_every": float, "backup_dir": str, "backup_every": float,
    "backup_keep": int, "sasl_username": str, "sasl_password": str, "identity": str,
}


def load_config(path: Path | None, overrides: dict[str, Any]) -> IrcConfig:
    """TOML file (``[irc]`` table or top level) overridden by flags; ConfigError if unusable."""
    data = read_settings(path, "irc", overrides, _KEYS, ("server", "channels", "database"))
    channels = [str(c) for c in data["channels"]]
    for c in channels:
        if not c or c[0] not in "#&+!" or any(ch in c for ch in " ,\x07"):
            raise ConfigError(f"not a channel name: {c!r}")
    enc = str(data.get("encoding", "utf-8"))
    if not encoding_ok(enc):
        raise ConfigError(f"unknown encoding: {enc}")
    try:
        cfg = IrcConfig(
            server=str(data["server"]),
            channels=channels,
            database=Path(str(data["database"])),
            port=int(data.get("port", 0)),
            tls=bool(data.get("tls", False)),
            tls_verify=bool(data.get("tls_verify", True)),
            tls_ca=Path(str(data["tls_ca"])) if data.get("tls_ca") else None,
            nick=str(data.get("nick", "referee")),
            username=str(data.get("username", data.get("nick", "referee"))),
            realname=str(data.get("realname", "poker referee bot")),
            password=data.get("password"),
            sasl_username=data.get("sasl_username") or None,
            sasl_password=(data.get("sasl_password")
                           or os.environ.get("REFEREE_IRC_SASL_PASSWORD") or None),
            moderators=[str(m) for m in data.get("moderators", [])],
            require_identified=bool(data.get("require_identified", False)),
            identity=str(data.get("identity", "auto")),
            encoding=enc,
            interval=float(data.get("interval", 1.0)),
            burst=int(data.get("burst", 5)),
            max_backoff=float(data.get("max_backoff", 60.0)),
            ping_interval=float(data.get("ping_interval", 60.0)),
            ping_timeout=float(data.get("ping_timeout", 60.0)),
            tick_every=float(data.get("tick_every", TICK_EVERY)),
            backup_dir=Path(str(data["backup_dir"])) if data.get("backup_dir") else None,
            backup_every=float(data.get("backup_every", 3600.0)),
            backup_keep=int(data.get("backup_keep", 24)),
        )
    except (TypeError, ValueError) as e:
        raise ConfigError(str(e)) from None
    if not 0 <= cfg.port <= 65535:
        raise ConfigError(f"bad port: {cfg.port}")
    if cfg.interval < 0 or cfg.burst < 1:
        raise ConfigError("interval must be >= 0 and burst >= 1")
    if cfg.tick_every <= 0:
        raise ConfigError("tick_every must be > 0")
    if cfg.identity not in ("auto", "accounts", "secrets"):
        raise ConfigError(f"identity must be auto, accounts or secrets, not {cfg.identity!r}")
    if cfg.sasl_username and not cfg.sasl_password:
        raise ConfigError("sasl_username needs sasl_password (or env REFEREE_IRC_SASL_PASSWORD)")
    if cfg.backup_every < 0 or cfg.backup_keep < 1:
        raise ConfigError("backup_every must be >= 0 and backup_keep >= 1")
    return cfg


# --- pure helpers (unit-tested without a server) --------------------------------------

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


def strip_formatting(text: str) -> str:
    """Colours, bold, italics… removed: the referee reads the words."""
    return _FORMATTING.sub("", text)


def text_budget(nick: str, userhost: str | None, target: str, encoding: str = "utf-8") -> int:
    """Bytes of text a PRIVMSG to ``target`` may carry so that the line the server relays,
    ``:nick!user@host PRIVMSG target :text\\r\\n``, stays within 512 bytes."""
    uh = byte_len(userhost, encoding) if userhost else _ASSUMED_USERHOST
    overhead = 1 + byte_len(nick, encoding) + 1 + uh + len(" PRIVMSG ") \
        + byte_len(target, encoding) + len(" :") + 2
    return LINE_LIMIT - overhead


def is_moderator_command(text: str) -> bool:
    """Whether a message asks for moderator power: a moderator command, or a look at somebody
    else's bank or penalties."""
    body = text.strip()
    if not body.startswith(("!", "！")):
        return False
    parts = body[1:].split()
    if not parts:
        return False
    name = command_name(parts[0])
    return name in MODERATOR_COMMANDS or (name in ("bank", "penalties") and len(parts) > 1)


# --- the bot ------------------------------------------------------------------------------

@dataclass
class _Line:
    target: str  # a channel or a nick
    text: str
    identity: str | None = None  # a private line: the player it is for (nick followed at send)


class IrcBot:
    """One connection: IRC events → service pipeline → paced outbox → IRC."""

    def __init__(self, config: IrcConfig, referee: Any = None, store: Any = None) -> None:
        self.config = config
        if store is None:
            from referee.store import Store

            config.database.parent.mkdir(parents=True, exist_ok=True)
            store = Store(config.database, check="background")  # verified before connecting
        self.store = store
        if referee is None:
            from referee.service import Referee

            referee = Referee(moderators=config.moderators)
            from referee.adapters import resume

            for warning in resume(referee, store):  # tables go on where the last run left them
                log.warning("%s", warning)
        self.referee = referee
        from referee.store.identity import Identities
        from referee.store.integrity import Backups

        self.book = Book(Identities(store.conn), self.fold, self._known_names)
        self.backups = Backups(config.database, config.backup_dir, config.backup_every,
                               config.backup_keep)
        self.run_id = uuid.uuid4().hex[:12]
        self.seq = 0
        self.pacer = Pacer(interval=config.interval, burst=config.burst)
        self.outbox: list[_Line] = []
        self.stopping = asyncio.Event()
        self._changed = asyncio.Event()
        self._inbox: asyncio.Queue[Any] = asyncio.Queue()
        self.conn: Any = None
        self.reactor: Any = None
        # per connection
        self.registered = False
        self.nickname = config.nick
        self.userhost: str | None = None
        self.casemapping = "rfc1459"
        self.joined: set[str] = set()  # folded channel names
        self.held: dict[str, list[str]] = {}  # player -> private lines waiting for their proof
        self.caps: set[str] = set()  # IRCv3 capabilities the server acknowledged
        self._whois: dict[str, asyncio.Future[Whois]] = {}
        self._whois_partial: dict[str, Whois] = {}
        self._unproven: dict[str, float] = {}  # folded nick -> looked up, not proven, until
        self._hinted: dict[str, float] = {}  # folded nick -> when told how to prove themselves
        self._fails: dict[str, list[float]] = {}  # folded name or nick -> wrong secrets' times
        self._last_rx = 0.0
        self._lost: asyncio.Event = asyncio.Event()
        self._was_connected = False
        self._ticked: dict[str, float] = {}  # room -> wall time of its last clock tick
        self._whox = False  # the server answers WHO with chosen fields (ISUPPORT WHOX)
        self._cap_ls: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        # counters for operators and tests
        self.sasl_ok = False
        self.connects = 0
        self.sent_lines = 0

    # --- names ----------------------------------------------------------------------------
    def fold(self, name: str) -> str:
        return casefold(name, self.casemapping)

    def _room(self, channel: str) -> str:
        return self.fold(channel)

    def _known_names(self) -> list[str]:
        names: set[str] = set(self.referee.moderators)
        for room in list(self.referee.tables):
            names |= self.referee.seated_names(room)
        return sorted(names)

    def identity(self, nick: str) -> str | None:
        """The player whose proven connection holds ``nick`` now; None if nobody's."""
        who = self.book.of_nick(nick)
        return who[0] if who is not None else None

    def _renamed(self, old: str, new: str) -> None:
        self._unproven.pop(self.fold(old), None)
        self._hinted.pop(self.fold(old), None)
        ident = self.book.renamed(old, new)
        if ident is not None:
            log.info("nick change followed: %s -> %s (player %s)", old, new, ident)
            self._release_held(ident)

    def _gone(self, nick: str) -> None:
        self._unproven.pop(self.fold(nick), None)
        self._hinted.pop(self.fold(nick), None)
        ident = self.book.quit(nick)
        if ident is not None:
            log.info("%s quit: the proof of player %s ended with the connection", nick, ident)

    # --- outbox -----------------------------------------------------------------------------
    def send(self, target: str, text: str, identity: str | None = None) -> None:
        """Queue ``text`` for a channel or a nick (split to fit the line limit)."""
        self.outbox.append(_Line(target, text, identity))
        self._changed.set()

    def say_private(self, identity: str, text: str) -> None:
        """A private message to a player, wherever their nick is now."""
        self.outbox.append(_Line("", text, identity))
        self._changed.set()

    def _resolve(self, line: _Line) -> str | None:
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
            pick: tuple[_Line, str] | None = None
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

    # --- inbound ------------------------------------------------------------------------------
    def _on_event(self, conn: Any, event: Any) -> None:
        """jaraco/irc calls this for every event (from data_received): note it, hand it on."""
        self._last_rx = time.monotonic()
        etype = str(event.type)
        if etype == "all_raw_messages":
            return
        if etype in ("whoisaccount", "307", "whoisuser", "whoisidle", "endofwhois",
                     "nosuchnick"):
            # answered here, not queued: the worker may be the one waiting for this reply
            self._on_whois(etype, event)
            return
        self._inbox.put_nowait(event)

    async def _worker(self) -> None:
        """Events one at a time, in arrival order (a WHOIS may pause the line behind it)."""
        while True:
            event = await self._inbox.get()
            try:
                await self._dispatch(event)
            except Exception:  # one bad event must not end the table for everyone
                log.exception("error handling %s", getattr(event, "type", event))

    async def _dispatch(self, ev: Any) -> None:
        t = str(ev.type)
        src = ev.source
        nick = getattr(src, "nick", None) or str(src or "")
        if t == "cap":
            self._on_cap(ev)
        elif t in ("authenticate", "saslsuccess", "saslfail", "sasltoolong", "saslaborted",
                   "saslalready", "nicklocked"):
            self._on_sasl(t, ev)
        elif t == "welcome":
            self.registered = True
            self.nickname = str(ev.target or self.nickname)
            self.conn.join(",".join(self.config.channels))
            log.info("registered as %s; joining %s (capabilities: %s)", self.nickname,
                     ", ".join(self.config.channels), " ".join(sorted(self.caps)) or "none")
            self._changed.set()
            if not self._accounts():
                task = asyncio.create_task(self._revalidate())
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        elif t == "featurelist":
            cm = getattr(self.conn.features, "casemapping", None)
            if isinstance(cm, str):
                self.casemapping = cm.lower()
            if any(str(a).upper() == "WHOX" for a in ev.arguments or ()):
                self._whox = True
        elif t in ("nicknameinuse", "erroneusnickname", "unavailresource", "nickcollision"):
            if not self.registered:
                self.nickname = _next_nick(self.nickname, self.config.nick)
                self.conn.nick(self.nickname)
        elif t == "join":
            channel = str(ev.target)
            if self.fold(nick) == self.fold(self.nickname):
                self.joined.add(self.fold(channel))
                host = getattr(src, "userhost", None)
                if host:
                    self.userhost = str(host)
                log.info("joined %s", channel)
                if "account-tag" in self.caps and self._whox and self._accounts():
                    self.conn.send_raw(f"WHO {channel} %tna,{_WHOX_TOKEN}")  # who is logged in
                await self._rejoined(channel)
                self._changed.set()
            else:
                if "extended-join" in self.caps and ev.arguments and self._accounts():
                    self.book.set_account(nick, str(ev.arguments[0]))
                ident = self.identity(nick)
                if ident is not None:
                    self._release_held(ident)
        elif t in ("part", "kick"):
            who = str(ev.arguments[0]) if t == "kick" and ev.arguments else nick
            if self.fold(who) == self.fold(self.nickname):
                self.joined.discard(self.fold(str(ev.target)))
                log.warning("left %s (%s); rejoining", ev.target, t)
                await self._sleep(2.0)
                if self.registered:
                    self.conn.join(str(ev.target))
        elif t == "quit":
            self._gone(nick)
        elif t == "nick":
            new = str(ev.target)
            if self.fold(nick) == self.fold(self.nickname):
                self.nickname = new
            else:
                self._renamed(nick, new)
        elif t == "account" and "account-notify" in self.caps and self._accounts():
            self.book.set_account(nick, str(ev.target or "*"))  # logged in or out (*)
            ident = self.identity(nick)
            if ident is not None:
                self._release_held(ident)
        elif t == "whospcrpl":  # WHOX: <token> <nick> <account>
            args = [str(a) for a in ev.arguments]
            if len(args) >= 3 and args[0] == _WHOX_TOKEN and self._accounts():
                self.book.set_account(args[1], args[2])
                ident = self.identity(args[1])
                if ident is not None:
                    self._release_held(ident)
        elif t in ("pubmsg", "privmsg"):
            if nick and self.fold(nick) != self.fold(self.nickname):
                await self._on_message(nick, str(ev.target), str(ev.arguments[0]),
                                       t == "privmsg", _account_tag(ev))
        elif t == "disconnect":
            self._connection_lost()

    def _on_cap(self, ev: Any) -> None:
        """CAP negotiation, before registration (see _connect): ask for the account
        capabilities the server offers, then end it in every case."""
        args = [str(a) for a in ev.arguments]
        if not args:
            return
        sub = args[0].upper()
        if sub == "LS":
            self._cap_ls.update(c.split("=", 1)[0] for c in args[-1].split())
            if len(args) >= 3 and args[1] == "*":
                return  # more LS lines follow
            wanted = set(_WANTED_CAPS & self._cap_ls)
            if self.config.sasl_username:
                if "sasl" in self._cap_ls:
                    wanted.add("sasl")
                else:
                    log.error("the server offers no SASL: the bot is not logged in as %s",
                              self.config.sasl_username)
            if wanted:
                self.conn.cap("REQ", *sorted(wanted))
            else:
                self.conn.cap("END")
        elif sub == "ACK":
            self.caps.update(c.lstrip("-=~") for c in args[-1].split())
            if "sasl" in self.caps and self.config.sasl_username:
                self.conn.send_raw("AUTHENTICATE PLAIN")  # CAP END once it is decided
            else:
                self.conn.cap("END")
        elif sub == "NAK":
            self.conn.cap("END")

    def _on_sasl(self, t: str, ev: Any) -> None:
        """SASL PLAIN for the bot's own account: its nick cannot be taken for the bot's."""
        if t == "authenticate" and str(ev.target) == "+":
            user = self.config.sasl_username or ""
            blob = f"{user}\0{user}\0{self.config.sasl_password or ''}".encode()
            text = base64.b64encode(blob).decode("ascii")
            chunks = [text[i:i + 400] for i in range(0, len(text), 400)] or ["+"]
            if len(chunks[-1]) == 400:
                chunks.append("+")
            for chunk in chunks:
                self.conn.send_raw(f"AUTHENTICATE {chunk}")
        elif t == "saslsuccess":
            log.info("logged in to services as %s (SASL)", self.config.sasl_username)
            self.sasl_ok = True
            self.conn.cap("END")
        elif t in ("saslfail", "sasltoolong", "saslaborted", "saslalready", "nicklocked"):
            log.error("SASL login as %s failed (%s); continuing without it",
                      self.config.sasl_username, t)
            self.conn.cap("END")

    def _connection_lost(self) -> None:
        if self.registered or self.conn is not None:
            log.warning("disconnected from %s", self.config.server)
        self.registered = False
        self.joined.clear()
        self.book.lost()
        self.caps.clear()
        self._whox = False
        self._unproven.clear()
        self._hinted.clear()
        for fut in self._whois.values():
            if not fut.done():
                fut.set_result(Whois(nick=""))
        self._whois.clear()
        self._lost.set()

    async def _rejoined(self, channel: str) -> None:
        """After a reconnect: tell a channel whose hand is running that the bot was away."""
        if self.connects <= 1:
            return
        table = self.referee.tables.get(self._room(channel))
        if table is not None and table.engine.in_hand:
            self.send(channel, msg("irc.reconnected"))

    async def _on_message(self, nick: str, target: str, raw: str, private: bool,
                          account: str | None = None) -> None:
        text = strip_formatting(raw).strip()
        if not text:
            return
        reply = nick if private else target
        args = pass_args(text)
        if args is not None:  # a secret: checked here, never given to the referee (or stored)
            if private:
                await self._on_pass(nick, args)
            else:
                self.send(target, msg("irc.pass_in_public", nick=nick))
            return
        ident = await self._sender_of(nick, account)
        if ident is None:
            key, now = self.fold(nick), time.monotonic()
            last = self._hinted.get(key)
            # once for chat, again for a command -- but never more than one per 5 s per nick:
            # a stranger's flood must not fill the outbox ahead of the table's lines
            if last is None or (text.startswith(("!", "！")) and now - last >= 5):
                self._hinted[key] = now
                self.send(nick, msg("irc.login_first" if self._accounts() else "irc.prove_first",
                                    nick=nick, bot=self.nickname))
            if not private:
                self._unproven_chat(nick, target, text)
            return
        if private:
            # the one rule for every adapter (referee.routing): the table the message names
            # (#channel) or the one the sender sits at; else no table, and the service says so
            route = private_route(self.referee, ident, text,
                                  {c: self._room(c) for c in self.config.channels})
            room, text = route.room or f"irc-private:{ident}", route.text
        else:
            room = self._room(target)
        if (self.config.require_identified and ident in self.referee.moderators
                and is_moderator_command(text) and self._proof(ident) != "account"):
            self.send(reply, msg("irc.moderator_needs_account", nick=nick))
            return
        self.seq += 1
        inp = {
            "kind": "message", "id": f"irc:{self.run_id}:{self.seq}", "room": room,
            "sender": ident, "text": text, "time": time.time(), "dm": private,
        }
        had_table = room in self.referee.tables
        out = self.referee.process(inp)
        if out is None:
            return
        self._deliver(out.events, room, nick)
        if had_table and room not in self.referee.tables:
            self._backup("!close")  # a table closed: its results are the record to keep

    def _unproven_chat(self, nick: str, channel: str, text: str) -> None:
        """Table talk from a nick nobody has proven is still refereed -- "nobody, in the hand
        or not, may reveal anything" (docs/rules.md): a leak or interference is flagged -- under a
        name no nick or account can have (``nick?``), so it never acts on anyone's seat, bank or
        moderator power. Commands (「着席」 …) are not passed on: an unproven name sits nowhere."""
        room = self._room(channel)
        table = self.referee.tables.get(room)
        if table is None or text.startswith(("!", "！")):
            return
        from referee.parse import parse

        if parse(text, table.game).kind == "command":
            return
        self.seq += 1
        out = self.referee.process({
            "kind": "message", "id": f"irc:{self.run_id}:{self.seq}", "room": room,
            "sender": f"{nick}{UNPROVEN_MARK}", "text": text, "time": time.time(), "dm": False,
        })
        if out is not None:
            self._deliver(out.events, room, None)

    def _accounts(self) -> bool:
        """Whether players are their services accounts here (else they prove with secrets):
        configured, or (``auto``) the server offers account tags or SASL."""
        mode = self.config.identity
        if mode != "auto":
            return mode == "accounts"
        return "account-tag" in self.caps or "sasl" in self._cap_ls

    def _proof(self, ident: str) -> str | None:
        nick = self.book.nick_of(ident)
        who = self.book.of_nick(nick) if nick is not None else None
        return who[1] if who is not None else None

    async def _sender_of(self, nick: str, account: str | None) -> str | None:
        """The player behind ``nick`` if their connection is proven now, else None."""
        accounts = self._accounts()
        if accounts and "account-tag" in self.caps:
            self.book.set_account(nick, account)  # the tag is the truth for this message
            return self.identity(nick)
        ident = self.identity(nick)
        if ident is not None:
            return ident
        key, now = self.fold(nick), time.monotonic()
        if self._unproven.get(key, 0.0) > now:
            return None
        info = await self._whois_of(nick)
        if accounts:  # services without account tags: WHOIS says, believed for a while
            if info.account is not None:
                self.book.set_account(nick, info.account, ttl=_WHOIS_TTL)
            elif info.registered:
                self.book.set_account(nick, nick, ttl=_WHOIS_TTL)
        else:
            restored = self.book.restore(nick, info)
            if restored is not None:
                log.info("%s is %s: the connection proven before the restart", nick,
                         restored.display)
        ident = self.identity(nick)
        if ident is None:
            # looked up again after a while where a login can change it, never for a secret
            self._unproven[key] = now + _WHOIS_TTL if accounts else math.inf
        else:
            self._release_held(ident)
        return ident

    async def _on_pass(self, nick: str, args: list[str]) -> None:
        """``!pass SECRET`` / ``!pass @name SECRET`` / ``!pass SECRET NEW`` by private message."""
        if self._accounts():
            self.send(nick, msg("irc.pass_use_account", nick=nick))
            return
        name = nick
        if args and args[0].startswith("@") and len(args[0]) > 1:
            name, args = args[0][1:], args[1:]
        if len(args) not in (1, 2):
            self.send(nick, msg("irc.pass_usage"))
            return
        from referee.store.identity import hash_secret, valid_secret, verify_secret

        name = self.book.canonical(name)
        key = self.fold(name)
        limits = (key, "\0" + self.fold(nick))  # wrong secrets per name and per nick
        now = time.monotonic()
        for k in limits:
            self._fails[k] = [t for t in self._fails.get(k, []) if now - t < 60]
        if any(len(self._fails[k]) >= 5 for k in limits):
            self.send(nick, msg("irc.pass_too_many", nick=nick))
            return
        ids = self.book.ids
        secret, new = args[0], (args[1] if len(args) == 2 else None)
        if not ids.has_secret(key):
            if new is not None:
                self.send(nick, msg("irc.pass_none_yet", nick=nick))
                return
            if key in {self.fold(m) for m in self.referee.moderators}:
                # never by nick alone: the operator sets a moderator's secret
                self.send(nick, msg("irc.pass_moderator_unset", nick=nick, name=name))
                return
            elsewhere = self.book.nick_of(name)
            if (self.fold(name) != self.fold(nick) or self.book.held_by_other(nick, name)
                    or (elsewhere is not None and self.fold(elsewhere) != self.fold(nick))):
                self.send(nick, msg("irc.pass_first_from_own_nick", nick=nick, name=name))
                return
            if not valid_secret(secret):
                self.send(nick, msg("irc.pass_invalid"))
                return
            # scrypt (~50 ms) off the event loop: the tables do not wait for it
            ids.set_digest(key, name, *await asyncio.to_thread(hash_secret, secret))
            await self._proven(nick, name, msg("irc.pass_set", name=name))
            return
        stored = ids.digest(key)
        if stored is None or not await asyncio.to_thread(verify_secret, secret, *stored):
            for k in limits:
                self._fails[k].append(time.monotonic())
            log.warning("wrong secret for %s from %s", name, nick)
            self.send(nick, msg("irc.pass_wrong", nick=nick, name=name))
            return
        if new is not None:
            if not valid_secret(new):
                self.send(nick, msg("irc.pass_invalid"))
                return
            ids.set_digest(key, ids.display(key) or name,
                           *await asyncio.to_thread(hash_secret, new))
            await self._proven(nick, name, msg("irc.pass_changed", name=name))
            return
        await self._proven(nick, name, msg("irc.pass_ok", name=name))

    async def _proven(self, nick: str, name: str, reply: str) -> None:
        info = await self._whois_of(nick)
        s = self.book.prove(name, nick, info)
        self._unproven.pop(self.fold(nick), None)
        self._hinted.pop(self.fold(nick), None)
        log.info("%s proved to be %s", nick, s.display)
        self.send(nick, reply)
        self._release_held(s.display)

    def _backup(self, why: str) -> None:
        try:
            made = self.backups.run()
        except Exception as e:  # a failed back-up must not stop the tables; it is logged
            log.error("back-up (%s) failed: %s", why, e)
            return
        log.info("back-up (%s): %s", why, made)

    async def _revalidate(self) -> None:
        """After (re)registering: find the connections proven before (a restart of the bot, a
        reconnect) by asking the server about their last nick, so cards reach them again."""
        for s in self.book.saved():
            if self.book.nick_of(s.display) is not None:
                continue
            info = await self._whois_of(s.nick)
            if info.exists and self.book.restore(s.nick, info) is not None:
                log.info("%s is still %s (proven before)", s.nick, s.display)
                self._release_held(s.display)

    def _deliver(self, events: list[Any], room: str, nick: str | None) -> None:
        """Send an input's says: to the table's channel (else to ``nick``) or privately."""
        channel = self._channel_of(room)
        for ev in events:
            if ev.event != "say":
                continue
            to, say = str(getattr(ev, "to", "room")), str(getattr(ev, "text", ""))
            if to == "room":
                if channel is not None:
                    self.send(channel, say)
                elif nick is not None:
                    self.send(nick, say)
            else:
                self.say_private(to, say)

    # --- the action clock -----------------------------------------------------------------------
    def clock_tick(self, now: float) -> list[str]:
        """Tick the tables of our channels that wait on someone (see referee.adapters.clock);
        the rooms ticked. Only while registered: players cut off from the server cannot act,
        so their clock must not run them out."""
        if not self.registered:
            return []
        rooms = {self._room(c) for c in self.config.channels}
        due = due_ticks(self.referee, now, self._ticked, self.config.tick_every, rooms)
        for room in due:
            self._ticked[room] = now
            self.seq += 1
            out = self.referee.process(
                {"kind": "tick", "id": f"irc:{self.run_id}:{self.seq}", "room": room,
                 "time": now})
            if out is not None:
                self._deliver(out.events, room, None)
        return due

    async def _clock(self) -> None:
        while not self.stopping.is_set():
            try:
                self.clock_tick(time.time())
            except Exception:  # a bug in one tick must not stop the clock of every table
                log.exception("clock tick failed")
            if self.backups.due():
                await asyncio.to_thread(self._backup, "interval")
            await self._sleep(1.0)

    def _channel_of(self, room: str) -> str | None:
        for c in self.config.channels:
            if self._room(c) == room:
                return c
        return None

    # --- identification -------------------------------------------------------------------------
    async def _whois_of(self, nick: str) -> Whois:
        """WHOIS ``nick`` (one request in flight per nick); an empty answer after 10 s."""
        key = self.fold(nick)
        fut = self._whois.get(key)
        if fut is None:
            fut = asyncio.get_running_loop().create_future()
            self._whois[key] = fut
            self._whois_partial[key] = Whois(nick=nick)
            try:
                self.conn.whois(nick)
            except Exception:
                self._whois.pop(key, None)
                return Whois(nick=nick)
        try:
            return await asyncio.wait_for(asyncio.shield(fut), 10.0)
        except TimeoutError:
            self._whois.pop(key, None)
            return Whois(nick=nick)

    def _on_whois(self, t: str, ev: Any) -> None:
        args = [str(a) for a in ev.arguments]
        if not args:
            return
        key = self.fold(args[0])
        info = self._whois_partial.get(key)
        if t == "whoisaccount" and info is not None and len(args) >= 2:
            info.account = args[1]
        elif t == "307" and info is not None:
            info.registered = True
        elif t == "whoisuser" and info is not None and len(args) >= 3:
            info.user, info.host, info.exists = args[1], args[2], True
        elif t == "whoisidle" and info is not None and len(args) >= 3 and args[2].isdigit():
            info.signon = int(args[2])
        elif t in ("endofwhois", "nosuchnick"):
            fut = self._whois.pop(key, None)
            final = self._whois_partial.pop(key, None) or Whois(nick=args[0])
            if fut is not None and not fut.done():
                fut.set_result(final)

    # --- connection --------------------------------------------------------------------------
    def _ssl(self) -> ssl.SSLContext | None:
        if not self.config.tls:
            return None
        ctx = ssl.create_default_context(
            cafile=str(self.config.tls_ca) if self.config.tls_ca else None)
        if not self.config.tls_verify:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        return ctx

    async def _connect(self) -> None:
        import irc.client_aio  # type: ignore[import-untyped]
        import irc.connection  # type: ignore[import-untyped]
        from jaraco.stream import buffer  # type: ignore[import-untyped]

        enc = self.config.encoding

        class _Buffer(buffer.DecodingLineBuffer):  # type: ignore[misc]
            encoding = enc
            errors = "replace"  # a stray byte must not kill the connection

        class _Connection(irc.client_aio.AioConnection):  # type: ignore[misc]
            def user(self, username: str, realname: str) -> None:
                # CAP LS before USER: the server holds registration until CAP END, so the
                # account capabilities are on before the first message arrives.
                self.send_raw("CAP LS 302")
                super().user(username, realname)

        loop = asyncio.get_running_loop()
        if self.reactor is None:
            self.reactor = irc.client_aio.AioReactor(loop=loop)
            self.reactor.connection_class = _Connection
            self.reactor.add_global_handler("all_events", self._on_event, -10)
            self.conn = self.reactor.server()
        self.conn.buffer_class = _Buffer
        self.conn.transmit_encoding = enc
        ctx = self._ssl()
        kwargs: dict[str, Any] = {}
        if ctx is not None:
            kwargs = {"ssl": ctx, "server_hostname": self.config.server}
        self._lost.clear()
        self._cap_ls = set()
        self.nickname = self.config.nick
        self.userhost = None
        await asyncio.wait_for(self.conn.connect(
            self.config.server, self.config.effective_port, self.config.nick,
            password=self.config.password, username=self.config.username,
            ircname=self.config.realname, connect_factory=irc.connection.AioFactory(**kwargs),
        ), 30.0)
        self.connects += 1
        self._last_rx = time.monotonic()

    async def run(self) -> None:
        """Connect, serve, reconnect with backoff until :attr:`stopping` is set."""
        verify = getattr(self.store, "verify", None)
        if callable(verify):  # never online on a damaged database (CorruptDatabase, one line)
            await asyncio.to_thread(verify)
        worker = asyncio.create_task(self._worker())
        sender = asyncio.create_task(self._sender())
        clock = asyncio.create_task(self._clock())
        backoff = 1.0
        try:
            while not self.stopping.is_set():
                try:
                    await self._connect()
                except (OSError, TimeoutError, ssl.SSLError) as e:
                    delay = backoff * random.uniform(0.5, 1.0)
                    log.warning("cannot connect to %s:%d (%r); retrying in %.1fs",
                                self.config.server, self.config.effective_port, e, delay)
                    await self._sleep(delay)
                    backoff = min(backoff * 2, self.config.max_backoff)
                    continue
                log.info("connected to %s:%d", self.config.server, self.config.effective_port)
                served = await self._serve_connection()
                if served > 30:
                    backoff = 1.0  # it was a good connection: start the backoff over
                if not self.stopping.is_set():
                    delay = min(backoff, self.config.max_backoff) * random.uniform(0.5, 1.0)
                    log.info("reconnecting in %.1fs", delay)
                    await self._sleep(delay)
                    backoff = min(backoff * 2, self.config.max_backoff)
        finally:
            worker.cancel()
            sender.cancel()
            clock.cancel()
            for task in (worker, sender, clock):
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _serve_connection(self) -> float:
        """Until the connection is lost (or we stop): PING after silence, drop it if dead.
        Returns how long it lasted."""
        start = time.monotonic()
        pinged = False
        regain = start
        while not self.stopping.is_set() and not self._lost.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._lost.wait(), 1.0)
            if self._lost.is_set():
                break
            quiet = time.monotonic() - self._last_rx
            if quiet > self.config.ping_interval + self.config.ping_timeout:
                log.warning("no reply from the server for %.0fs; reconnecting", quiet)
                with contextlib.suppress(Exception):
                    self.conn.disconnect("ping timeout")
                break
            if quiet > self.config.ping_interval and not pinged:
                with contextlib.suppress(Exception):
                    self.conn.ping(self.config.server)
                pinged = True
            elif quiet <= self.config.ping_interval:
                pinged = False
            if (self.registered and self.nickname != self.config.nick
                    and time.monotonic() - regain > 60):
                regain = time.monotonic()
                with contextlib.suppress(Exception):
                    self.conn.nick(self.config.nick)  # take our nick back once it is free
        if self.stopping.is_set():
            with contextlib.suppress(Exception):
                await self._drain(5.0)
                self.conn.disconnect("referee stopping")
        # Let the worker see the disconnect before we reconnect.
        await asyncio.sleep(0)
        if not self._lost.is_set():
            self._connection_lost()
        return time.monotonic() - start

    async def _drain(self, timeout: float) -> None:
        """On shutdown: give queued lines a moment to go out."""
        end = time.monotonic() + timeout
        while (self.registered and time.monotonic() < end
               and any(self._resolve(x) for x in self.outbox)):
            await asyncio.sleep(0.1)

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), seconds)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.store.close()


_WANTED_CAPS = frozenset({"account-tag", "account-notify", "extended-join"})
_WHOX_TOKEN = "152"
UNPROVEN_MARK = "?"  # after the nick of an unproven speaker: not a character of nicks/accounts
_WHOIS_TTL = 60.0  # seconds a WHOIS answer about an account is believed
_HELD_MAX = 20  # private lines kept for a player who has not proven who they are


def _account_tag(ev: Any) -> str | None:
    """The services account an IRCv3 ``account`` tag gives the sender of ``ev``, if any."""
    for tag in getattr(ev, "tags", None) or ():
        if isinstance(tag, dict) and tag.get("key") == "account" and tag.get("value"):
            return str(tag["value"])
    return None


def _next_nick(current: str, wanted: str) -> str:
    """The next nick to try when ours is taken: referee_, referee__, then referee1, 2 …"""
    tail = current[len(wanted):] if current.startswith(wanted) else ""
    if tail in ("", "_"):
        return current + "_"
    tail = tail.lstrip("_")
    return f"{wanted}{int(tail) + 1 if tail.isdigit() else 1}"


async def serve(config: IrcConfig) -> None:
    bot = IrcBot(config)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, bot.stopping.set)
    try:
        await bot.run()
    finally:
        bot.close()


def run(config: IrcConfig) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    asyncio.run(serve(config))
