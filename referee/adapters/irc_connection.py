"""The IRC bot's connection: registering with capabilities, SASL, WHOIS, and reconnecting.

* **Capabilities.** ``CAP LS`` goes before ``USER``, so the server holds registration until the
  account capabilities (``account-tag``, ``account-notify``, ``extended-join``) and SASL are
  decided: they are on before the first message arrives.
* **SASL PLAIN** logs the bot into its own services account: its nick cannot be taken for the
  bot's.
* **WHOIS** answers are collected here (one request in flight per nick), for the identity
  rules of :mod:`referee.adapters.irc_identity`.
* **Reconnect** with capped exponential backoff and jitter; a silent connection is detected by
  PING. The bot rejoins its channels and tries to get its configured nick back.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import random
import ssl
import time
from collections.abc import Awaitable, Callable
from typing import Any

from referee.adapters.aio import wait_event, within
from referee.adapters.irc_base import Session
from referee.adapters.irc_identity import Whois

log = logging.getLogger("referee.irc")

_WANTED_CAPS = frozenset({"account-tag", "account-notify", "extended-join"})
# Registered under a fallback nick (referee_): the configured one is asked for at once when
# the bot sees its holder quit or rename (a shared channel), else again after REGAIN_FIRST
# seconds, then half as long again each time up to REGAIN_MAX. The usual holder is the bot's
# own previous connection: gone within seconds of its QUIT (a server reads a busy client's last
# lines at its flood pace first -- ngIRCd about one a second -- and frees the nick only then),
# or at the server's ping timeout (minutes) if the old process died. Each try is a line the
# server counts against the bot's pace: a few in the first minute, then one a minute.
REGAIN_FIRST, REGAIN_GROWTH, REGAIN_MAX = 2.0, 1.5, 60.0
# A stop's QUIT: how long the bot reads on for the server to take it and close the connection.
QUIT_WAIT = 2.0


class Link:
    """The bot's connection to the server (see the module docstring): it owns jaraco/irc's
    connection, the inbox of events for the bot's worker and the WHOIS requests in flight.
    ``lost`` is called when a connection ends, ``drain`` before a deliberate disconnect."""

    def __init__(self, session: Session, lost: Callable[[], None],
                 drain: Callable[[float], Awaitable[None]]) -> None:
        self.session = session
        self.config = session.config
        self._on_lost = lost
        self._drain = drain
        self.conn: Any = None  # jaraco/irc's connection (untyped)
        self.reactor: Any = None
        self.inbox: asyncio.Queue[Any] = asyncio.Queue()
        self._whois: dict[str, asyncio.Future[Whois]] = {}
        self._whois_partial: dict[str, Whois] = {}
        self._last_rx = 0.0
        self._lost = asyncio.Event()
        self._closed = asyncio.Event()  # the transport ended (set as the event arrives)
        # takes in who holds which nick as each line arrives (True: nothing left to queue)
        self.presence_hook: Callable[[Any], bool] | None = None

    def fold(self, name: str) -> str:
        return self.session.fold(name)

    def privmsg(self, target: str, text: str) -> None:
        self.conn.privmsg(target, text)

    def _on_event(self, conn: Any, event: Any) -> None:
        """jaraco/irc calls this for every event (from data_received): note it, hand it on.
        Nothing raised here may reach the transport (it would drop the connection): a line
        that cannot be taken in is logged in one line and skipped."""
        self._last_rx = time.monotonic()
        etype = str(event.type)
        if etype == "all_raw_messages":
            return
        if etype == "disconnect":
            self._closed.set()
        try:
            if etype in ("whoisaccount", "307", "whoisuser", "whoisidle", "endofwhois",
                         "nosuchnick"):
                # answered here, not queued: the worker may be the one waiting for this reply
                self._on_whois(etype, event)
                return
            if self.presence_hook is not None and self.presence_hook(event):
                return
        except Exception as e:
            log.warning("skipped a %s line that could not be read: %s: %s", etype,
                        type(e).__name__, e)
            return
        self.inbox.put_nowait(event)

    def on_cap(self, ev: Any) -> None:
        """CAP negotiation, before registration (see _connect): ask for the account
        capabilities the server offers, then end it in every case."""
        args = [str(a) for a in ev.arguments]
        if not args:
            return
        sub = args[0].upper()
        if sub == "LS":
            self.session.cap_ls.update(c.split("=", 1)[0] for c in args[-1].split())
            if len(args) >= 3 and args[1] == "*":
                return  # more LS lines follow
            wanted = set(_WANTED_CAPS & self.session.cap_ls)
            if self.config.sasl_username:
                if "sasl" in self.session.cap_ls:
                    wanted.add("sasl")
                else:
                    log.error("the server offers no SASL: the bot is not logged in as %s",
                              self.config.sasl_username)
            if wanted:
                self.conn.cap("REQ", *sorted(wanted))
            else:
                self.conn.cap("END")
        elif sub == "ACK":
            self.session.caps.update(c.lstrip("-=~") for c in args[-1].split())
            if "sasl" in self.session.caps and self.config.sasl_username:
                self.conn.send_raw("AUTHENTICATE PLAIN")  # CAP END once it is decided
            else:
                self.conn.cap("END")
        elif sub == "NAK":
            self.conn.cap("END")

    def on_sasl(self, t: str, ev: Any) -> None:
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
            self.session.sasl_ok = True
            self.conn.cap("END")
        elif t in ("saslfail", "sasltoolong", "saslaborted", "saslalready", "nicklocked"):
            log.error("SASL login as %s failed (%s); continuing without it",
                      self.config.sasl_username, t)
            self.conn.cap("END")

    def connection_lost(self) -> None:
        """The connection ended (a ``disconnect`` event, or we dropped it)."""
        if self.session.registered or self.conn is not None:
            log.warning("disconnected from %s", self.config.server)
        self.session.lost()
        self._on_lost()
        for fut in self._whois.values():
            if not fut.done():
                fut.set_result(Whois(nick=""))
        self._whois.clear()
        self._lost.set()

    async def whois(self, nick: str) -> Whois:
        """WHOIS ``nick`` (one request in flight per nick); an empty answer after 10 s, and at
        once while there is no connection (nothing could answer it)."""
        if self._lost.is_set() or self.conn is None:
            return Whois(nick=nick)
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
            return await within(asyncio.shield(fut), 10.0)
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

    async def _quit(self, message: str, timeout: float) -> None:
        """QUIT, then read on until the server closes the connection (within ``timeout``):
        every line it sent before it took the QUIT is taken in -- a player's NICK just before
        the stop is followed and saved -- and the nick is free once the bot is gone."""
        self.conn.quit(message)
        await wait_event(self._closed, timeout=timeout)
        self.conn.disconnect(message)  # (nothing left to do if the server closed it)

    def regain(self) -> None:
        """Ask for the configured nick while registered under a fallback (see REGAIN_FIRST)."""
        if self.session.registered and self.session.nickname != self.config.nick:
            with contextlib.suppress(Exception):  # gone meanwhile: the next connection asks
                self.conn.nick(self.config.nick)

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
            def _process_line(self, line: str) -> None:
                # a line jaraco/irc cannot parse (missing parameters, a bad prefix…) is
                # skipped in one log line: raised into the transport it would end the
                # connection, and every table with it
                try:
                    super()._process_line(line)
                except Exception as e:
                    log.warning("skipped a malformed line from the server (%s: %s): %.200r",
                                type(e).__name__, e, line)

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
        self._closed.clear()
        self.session.cap_ls = set()
        self.session.nickname = self.config.nick
        self.session.userhost = None
        await within(self.conn.connect(
            self.config.server, self.config.effective_port, self.config.nick,
            password=self.config.password, username=self.config.username,
            ircname=self.config.realname, connect_factory=irc.connection.AioFactory(**kwargs),
        ), 30.0)
        self.session.connects += 1
        self._last_rx = time.monotonic()

    async def keep_connected(self) -> None:
        """Connect, serve, reconnect with backoff until the bot is stopping."""
        session = self.session
        backoff = 1.0
        while not session.stopping.is_set():
            try:
                await self._connect()
            except (OSError, TimeoutError, ssl.SSLError) as e:
                delay = backoff * random.uniform(0.5, 1.0)
                log.warning("cannot connect to %s:%d (%r); retrying in %.1fs",
                            self.config.server, self.config.effective_port, e, delay)
                await session.sleep(delay)
                backoff = min(backoff * 2, self.config.max_backoff)
                continue
            log.info("connected to %s:%d", self.config.server, self.config.effective_port)
            served = await self._serve_connection()
            if served > 30:
                backoff = 1.0  # it was a good connection: start the backoff over
            if not session.stopping.is_set():
                delay = min(backoff, self.config.max_backoff) * random.uniform(0.5, 1.0)
                log.info("reconnecting in %.1fs", delay)
                await session.sleep(delay)
                backoff = min(backoff * 2, self.config.max_backoff)

    async def _serve_connection(self) -> float:
        """Until the connection is lost (or we stop): PING after silence, drop it if dead.
        Returns how long it lasted."""
        start = time.monotonic()
        pinged = False
        regain, regain_wait = start, REGAIN_FIRST
        while not self.session.stopping.is_set() and not self._lost.is_set():
            # woken at once by a stop as well: SIGTERM is not left waiting for the next second
            if await wait_event(self._lost, self.session.stopping, timeout=1.0):
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
            if (self.session.registered and self.session.nickname != self.config.nick
                    and time.monotonic() - regain >= regain_wait):
                regain = time.monotonic()
                regain_wait = min(regain_wait * REGAIN_GROWTH, REGAIN_MAX)
                self.regain()
        if self.session.stopping.is_set():
            with contextlib.suppress(Exception):
                await self._drain(5.0)
                await self._quit("referee stopping", QUIT_WAIT)
        # Let the worker see the disconnect before we reconnect.
        await asyncio.sleep(0)
        if not self._lost.is_set():
            self.connection_lost()
        return time.monotonic() - start
