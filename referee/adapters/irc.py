"""``referee irc``: the bot in IRC channels (jaraco/irc's asyncio connection), one table per
channel, hole cards and private replies by PRIVMSG to the player's nick.

A thin I/O shell around the service pipeline (:class:`referee.service.Referee`), like the Matrix
and terminal adapters. What it adds is delivery on a network with no message ids and no history:

* **Identity** is what the server says: a player is their nick. A nick change is followed (the
  referee keeps calling ``alice`` the person now called ``alice_``, and her cards go to
  ``alice_``); a different person who takes a nick a known player still holds is not believed.
  Without services nobody can prove who they are -- see docs/irc.md. With
  ``require_identified`` moderator commands need a nick logged in to services (WHOIS 330/307).
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
import contextlib
import logging
import random
import re
import signal
import ssl
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.adapters.clock import TICK_EVERY, due_ticks
from referee.adapters.config import ConfigError as ConfigError
from referee.adapters.config import read_settings
from referee.adapters.outbox import Pacer, byte_len, encoding_ok, split_text
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
    moderators: list[str] = field(default_factory=list)
    require_identified: bool = False  # moderator commands only from nicks logged in to services
    encoding: str = "utf-8"  # e.g. iso-2022-jp on older Japanese networks
    interval: float = 1.0  # flood control: one line per interval after a burst
    burst: int = 5
    max_backoff: float = 60.0  # reconnect backoff cap, seconds
    ping_interval: float = 60.0  # PING the server after this much silence ...
    ping_timeout: float = 60.0  # ... and reconnect if it stays silent this much longer
    tick_every: float = TICK_EVERY  # action clock: seconds between timer ticks of one table

    @property
    def effective_port(self) -> int:
        return self.port or (6697 if self.tls else 6667)


_KEYS: dict[str, type] = {
    "server": str, "channels": list, "database": str, "port": int, "tls": bool,
    "tls_verify": bool, "tls_ca": str, "nick": str, "username": str, "realname": str,
    "password": str, "moderators": list, "require_identified": bool, "encoding": str,
    "interval": float, "burst": int, "max_backoff": float, "ping_interval": float,
    "ping_timeout": float, "tick_every": float,
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
            moderators=[str(m) for m in data.get("moderators", [])],
            require_identified=bool(data.get("require_identified", False)),
            encoding=enc,
            interval=float(data.get("interval", 1.0)),
            burst=int(data.get("burst", 5)),
            max_backoff=float(data.get("max_backoff", 60.0)),
            ping_interval=float(data.get("ping_interval", 60.0)),
            ping_timeout=float(data.get("ping_timeout", 60.0)),
            tick_every=float(data.get("tick_every", TICK_EVERY)),
        )
    except (TypeError, ValueError) as e:
        raise ConfigError(str(e)) from None
    if not 0 <= cfg.port <= 65535:
        raise ConfigError(f"bad port: {cfg.port}")
    if cfg.interval < 0 or cfg.burst < 1:
        raise ConfigError("interval must be >= 0 and burst >= 1")
    if cfg.tick_every <= 0:
        raise ConfigError("tick_every must be > 0")
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


@dataclass
class Whois:
    """What a WHOIS told about one nick: the services account, if any."""

    nick: str
    account: str | None = None
    registered: bool = False  # 307 RPL_WHOISREGNICK (ngIRCd/Unreal: nick identified, mode +R)

    def identified_as(self, name: str, fold: Callable[[str], str]) -> bool:
        if self.account is not None:
            return fold(self.account) == fold(name)
        return self.registered and fold(self.nick) == fold(name)


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
            store = Store(config.database)
        self.store = store
        if referee is None:
            from referee.service import Referee

            referee = Referee(moderators=config.moderators)
            from referee.adapters import resume

            for warning in resume(referee, store):  # tables go on where the last run left them
                log.warning("%s", warning)
        self.referee = referee
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
        self.names: dict[str, str] = {}  # folded nick -> identity (the referee's player name)
        self.nicks: dict[str, str] = {}  # identity -> current nick
        self.held: dict[str, list[str]] = {}  # identity -> private lines waiting for them
        self._whois: dict[str, asyncio.Future[Whois]] = {}
        self._whois_partial: dict[str, Whois] = {}
        self._verified: dict[str, float] = {}  # folded nick -> when verified
        self._last_rx = 0.0
        self._lost: asyncio.Event = asyncio.Event()
        self._was_connected = False
        self._ticked: dict[str, float] = {}  # room -> wall time of its last clock tick
        # counters for operators and tests
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
        """The referee's name for whoever holds ``nick`` now; None if the nick is one a known
        player still holds under another nick (somebody else took it: not believed)."""
        key = self.fold(nick)
        if key in self.names:
            return self.names[key]
        canonical = nick
        for name in self._known_names():
            if self.fold(name) == key:
                canonical = name  # same person by IRC's rules: the spelling the table knows
                break
        holder = self.nicks.get(canonical)
        if holder is not None and self.fold(holder) != key:
            return None
        self.names[key] = canonical
        self.nicks[canonical] = nick
        return canonical

    def _renamed(self, old: str, new: str) -> None:
        ident = self.names.pop(self.fold(old), None)
        if ident is None:
            ident = self.identity(old) or old
            self.names.pop(self.fold(old), None)
        self.names[self.fold(new)] = ident
        self.nicks[ident] = new
        self._verified.pop(self.fold(old), None)
        log.info("nick change followed: %s -> %s (player %s)", old, new, ident)
        self._release_held(ident)

    def _gone(self, nick: str) -> None:
        ident = self.names.pop(self.fold(nick), None)
        if ident is not None and self.nicks.get(ident) is not None \
                and self.fold(self.nicks[ident]) == self.fold(nick):
            del self.nicks[ident]
        self._verified.pop(self.fold(nick), None)

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
            nick = self.nicks.get(line.identity)
            if nick is not None:
                return str(nick)
            holder = self.names.get(self.fold(line.identity))
            if holder is not None and holder != line.identity:
                return ""  # the nick belongs to somebody else now: hold it for the player
            return line.identity
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
                    self.held.setdefault(line.identity, []).append(line.text)
                    self.outbox.remove(line)
                    blocked.add(key)
                    log.info("private message for %s held: their nick is taken", line.identity)
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
        if etype in ("whoisaccount", "307", "endofwhois", "nosuchnick"):
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
        if t == "welcome":
            self.registered = True
            self.nickname = str(ev.target or self.nickname)
            self.conn.join(",".join(self.config.channels))
            log.info("registered as %s; joining %s", self.nickname, ", ".join(self.config.channels))
            self._changed.set()
        elif t == "featurelist":
            cm = getattr(self.conn.features, "casemapping", None)
            if isinstance(cm, str):
                self.casemapping = cm.lower()
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
                await self._rejoined(channel)
                self._changed.set()
            else:
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
        elif t == "namreply":
            for raw in str(ev.arguments[-1]).split():
                n = raw.lstrip("~&@%+")
                if n and self.fold(n) != self.fold(self.nickname):
                    self.identity(n)
        elif t in ("pubmsg", "privmsg"):
            if nick and self.fold(nick) != self.fold(self.nickname):
                await self._on_message(nick, str(ev.target), str(ev.arguments[0]), t == "privmsg")
        elif t == "disconnect":
            self._connection_lost()

    def _connection_lost(self) -> None:
        if self.registered or self.conn is not None:
            log.warning("disconnected from %s", self.config.server)
        self.registered = False
        self.joined.clear()
        self.names.clear()
        self.nicks.clear()
        self._verified.clear()
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
            self.send(channel, "（接続が一時切れていました。再接続しました。切断中の発言は"
                               "届いていません。必要なら同じアクションをもう一度送ってください）")

    async def _on_message(self, nick: str, target: str, raw: str, private: bool) -> None:
        text = strip_formatting(raw).strip()
        if not text:
            return
        ident = self.identity(nick)
        if ident is None:
            self.send(nick, f"{nick}さん: このニックネームは別の参加者が使用中のため、発言を"
                            "受け付けませんでした。")
            return
        if private:
            room = self._table_of(ident)
        else:
            room = self._room(target)
        if (self.config.require_identified and ident in self.referee.moderators
                and is_moderator_command(text) and not await self._identified(nick, ident)):
            self.send(nick if private else target,
                      f"{nick}さん: モデレーターのコマンドはサービスに識別（ログイン）済みの"
                      "ニックネームからのみ受け付けます。")
            return
        self.seq += 1
        inp = {
            "kind": "message", "id": f"irc:{self.run_id}:{self.seq}", "room": room,
            "sender": ident, "text": text, "time": time.time(), "dm": private,
        }
        out = self.referee.process(inp)
        if out is None:
            return
        self._deliver(out.events, room, nick)

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
            await self._sleep(1.0)

    def _table_of(self, ident: str) -> str:
        """A private message concerns the table where the player sits (else the first one)."""
        for room in list(self.referee.tables):
            if ident in self.referee.seated_names(room):
                return str(room)
        return self._room(self.config.channels[0])

    def _channel_of(self, room: str) -> str | None:
        for c in self.config.channels:
            if self._room(c) == room:
                return c
        return None

    # --- identification -------------------------------------------------------------------------
    async def _identified(self, nick: str, ident: str) -> bool:
        key = self.fold(nick)
        at = self._verified.get(key)
        if at is not None and time.monotonic() - at < 300:
            return True
        fut = self._whois.get(key)
        if fut is None:
            fut = asyncio.get_running_loop().create_future()
            self._whois[key] = fut
            self._whois_partial[key] = Whois(nick=nick)
            self.conn.whois(nick)
        try:
            info = await asyncio.wait_for(asyncio.shield(fut), 10.0)
        except TimeoutError:
            self._whois.pop(key, None)
            return False
        ok = info.identified_as(ident, self.fold)
        if ok:
            self._verified[key] = time.monotonic()
        return ok

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

        loop = asyncio.get_running_loop()
        if self.reactor is None:
            self.reactor = irc.client_aio.AioReactor(loop=loop)
            self.reactor.add_global_handler("all_events", self._on_event, -10)
            self.conn = self.reactor.server()
        self.conn.buffer_class = _Buffer
        self.conn.transmit_encoding = enc
        ctx = self._ssl()
        kwargs: dict[str, Any] = {}
        if ctx is not None:
            kwargs = {"ssl": ctx, "server_hostname": self.config.server}
        self._lost.clear()
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
