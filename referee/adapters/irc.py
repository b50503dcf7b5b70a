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
  ends when its holder quits, parts or is kicked, or the server says the nick is gone --
  also without a shared channel (:mod:`referee.adapters.irc_presence`: MONITOR, else ISON
  and a WHOIS before private lines). With ``require_identified`` moderator commands need an
  account. A nick change the bot sees is followed.
* **Back-ups** of the database on ``!close`` and every ``backup_every`` seconds, keeping the
  last ``backup_keep`` (:class:`referee.store.integrity.Backups`).
* **Exactly once in.** Each received line becomes one input with a fresh id
  (``irc:<run>:<n>``); the service saves it, its events and ledger in one transaction and a
  restart rebuilds every table from the database. IRC keeps no history: what is said while the
  bot is disconnected is not seen -- after a reconnect the bot says so in each channel with a
  hand in progress, so nothing is silently lost or applied twice.
* **Flood control, line limit** (:mod:`referee.adapters.irc_delivery`): one paced outbox, lines
  cut to fit 512 bytes, never inside a card or a word.
* **Reconnect** (:mod:`referee.adapters.irc_connection`) with capped exponential backoff and
  jitter; a silent connection is detected by PING; capabilities and SASL at registration.

This module is the bot itself: what an IRC event becomes (an input of the service, routed by
:mod:`referee.routing` when it is private), the action clock and back-ups. It owns its parts
rather than inheriting them: the session (:mod:`irc_base`), the link (:mod:`irc_connection`),
the identity book and its proofs (``!pass``, WHOIS: :mod:`irc_proofs`) and the outbox
(:mod:`irc_delivery`, which holds private lines until their player is proven). The names the
CLI imports from here stay importable from here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import signal
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from referee.adapters import gc_tuning
from referee.adapters.aio import stop_tasks, wait_event
from referee.adapters.clock import due_ticks
from referee.adapters.config import ConfigError as ConfigError
from referee.adapters.irc_base import Session
from referee.adapters.irc_base import casefold as casefold
from referee.adapters.irc_config import IrcConfig as IrcConfig
from referee.adapters.irc_config import load_config as load_config
from referee.adapters.irc_connection import Link
from referee.adapters.irc_delivery import Outbox
from referee.adapters.irc_identity import Book, pass_args
from referee.adapters.irc_presence import Presence
from referee.adapters.irc_proofs import Proofs
from referee.commands import asks_only, command_name, moderator_only
from referee.inputs import Directive, Input, Message, Tick
from referee.lang.catalog import text as msg
from referee.lang.reader import read_command
from referee.outcome import Outcome
from referee.routing import private_route
from referee.store import StoreError

if TYPE_CHECKING:
    from referee.service import Referee
    from referee.store import Store

__all__ = [
    "ConfigError", "IrcBot", "IrcConfig", "casefold", "is_moderator_command", "load_config",
    "run", "serve", "strip_formatting",
]

log = logging.getLogger("referee.irc")

_FORMATTING = re.compile(r"\x03(?:\d{1,2}(?:,\d{1,2})?)?|[\x02\x0f\x11\x16\x1d\x1e\x1f]")
_WHOX_TOKEN = "152"
UNPROVEN_MARK = "?"  # after the nick of an unproven speaker: not a character of nicks/accounts


# --- pure helpers (unit-tested without a server) --------------------------------------

def strip_formatting(text: str) -> str:
    """Colours, bold, italics… removed: the referee reads the words."""
    return _FORMATTING.sub("", text)


def is_moderator_command(text: str) -> bool:
    """Whether a message asks for moderator power (a moderator command, or a look at somebody
    else's bank or penalties): the command registry's rule, asked, not re-derived here."""
    return moderator_only(read_command(text))


# --- the bot ------------------------------------------------------------------------------

# What one player may ask of the referee (!status, !rules, !help …) in a window: more is not
# taken (it would queue before every table's actions on the one worker).
ASK_WINDOW = 10.0
ASKS_PER_WINDOW = 5
STOP_GRACE = 3.0  # seconds a stop waits for the bot's cancelled tasks (referee.adapters.aio)

class IrcBot:
    """One connection: IRC events → service pipeline → paced outbox → IRC. It owns its parts:
    the session (who the bot is on the server now), the link (the connection), the identity
    book and its proofs, and the outbox."""

    def __init__(self, config: IrcConfig, referee: Referee | None = None,
                 store: Store | None = None) -> None:
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
        # a restart of a bot with tables: each table's channel is told it is back when joined
        self._resumed = bool(referee.rooms())
        self._asked: dict[str, list[float]] = {}  # who asked what only asks, and when
        from referee.store.integrity import Backups

        self.session = Session(config)
        self.stopping = self.session.stopping
        self.book = Book(store.identities(), self.session.fold, self._known_names)
        self.link = Link(self.session, self._connection_lost, self._drain)
        self.outbox = Outbox(self.session, self.book, self.link.privmsg)
        self.presence = Presence(self.session.fold, self._send_raw)
        self.proofs = Proofs(self.session, self.book, self.outbox, referee, self.link.whois,
                             self.presence)
        self.outbox.presence = self.presence
        self.outbox.confirm = self.proofs.confirm_soon
        self.link.presence_hook = self._presence_event
        self.backups = Backups(config.database, config.backup_dir, config.backup_every,
                               config.backup_keep)
        self.run_id = uuid.uuid4().hex[:12]
        self.seq = 0
        self._ticked: dict[str, float] = {}  # room -> wall time of its last clock tick
        self._tasks: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        """Connect, serve, reconnect with backoff until :attr:`stopping` is set."""
        # never online on a damaged database (CorruptDatabase, one line)
        await asyncio.to_thread(self.store.verify)
        tasks = [asyncio.create_task(self._worker(), name="irc-worker"),
                 asyncio.create_task(self.outbox.run(), name="irc-outbox"),
                 asyncio.create_task(self._clock(), name="irc-clock")]
        try:
            await self.link.keep_connected()
        finally:
            # every part and check in flight ends before the store closes, whatever it was
            # doing: an input is saved whole between two waits, so a stop loses nothing saved
            left = await stop_tasks([*tasks, *self._tasks, *self.proofs.running()], STOP_GRACE)
            for task in left:
                log.error("%s did not end within %.0f s of the stop; closing the store anyway",
                          task.get_name(), STOP_GRACE)

    def _connection_lost(self) -> None:
        self.proofs.lost()

    def _send_raw(self, line: str) -> None:
        if self.session.registered and self.link.conn is not None:
            with contextlib.suppress(Exception):  # gone meanwhile: the next connection starts over
                self.link.conn.send_raw(line)

    async def _drain(self, timeout: float) -> None:
        """Before the bot disconnects to stop, within ``timeout``: the lines that reached it
        are refereed (IRC keeps no history to read a delivered action from later), then the
        table's queued lines go out. What arrives after the stop is not taken."""
        end, served = time.monotonic() + timeout, asyncio.Event()
        self.link.inbox.put_nowait(served)  # set by the worker behind every line received
        await wait_event(served, timeout=timeout / 2)
        await self.outbox.drain(max(0.0, end - time.monotonic()))

    # --- names ----------------------------------------------------------------------------
    def _known_names(self) -> list[str]:
        names: set[str] = set(self.referee.moderators)
        for room in self.referee.rooms():
            names |= self.referee.seated_names(room)
        return sorted(names)

    # --- inbound (raw events are queued by the link) -------------------------------------------
    async def _worker(self) -> None:
        """Events one at a time, in arrival order (a WHOIS may pause the line behind it)."""
        while True:
            event = await self.link.inbox.get()
            try:
                if isinstance(event, Departure):
                    self._on_departure(event.channel, event.nick, event.how, event.player)
                    continue
                if isinstance(event, asyncio.Event):  # a stop's mark (see _drain)
                    event.set()
                    continue
                await self._dispatch(event)
            except Exception as e:  # one bad event must not end the table for everyone
                # one line (the traceback at DEBUG): the next line is served as if it never came
                log.warning("skipped a %s line that could not be handled: %s: %s",
                            getattr(event, "type", "?"), type(e).__name__, e)
                log.debug("traceback of the skipped line", exc_info=True)
            await gc_tuning.quiet_when(self.link.inbox.empty)  # no line waits

    async def _dispatch(self, ev: Any) -> None:
        session = self.session
        t = str(ev.type)
        src = ev.source
        nick = getattr(src, "nick", None) or str(src or "")
        if t == "cap":
            self.link.on_cap(ev)
        elif t in ("authenticate", "saslsuccess", "saslfail", "sasltoolong", "saslaborted",
                   "saslalready", "nicklocked"):
            self.link.on_sasl(t, ev)
        elif t == "welcome":
            session.registered = True
            session.nickname = str(ev.target or session.nickname)
            self.link.conn.join(",".join(self.config.channels))
            log.info("registered as %s; joining %s (capabilities: %s)", session.nickname,
                     ", ".join(self.config.channels), " ".join(sorted(session.caps)) or "none")
            self.outbox.wake()
            if not session.accounts():
                task = asyncio.create_task(self.proofs.revalidate())
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        elif t == "featurelist":
            cm = getattr(self.link.conn.features, "casemapping", None)
            if isinstance(cm, str) and cm.lower() != session.casemapping:
                session.casemapping = cm.lower()
                # secrets set by `referee irc-secret` were keyed without knowing the server
                for name in self.book.ids.refold(session.fold):
                    log.warning("the IRC secret of %s clashes with another name under the "
                                "server's casemapping %s: set it again", name, cm)
            for a in (str(a).upper() for a in ev.arguments or ()):
                if a == "WHOX":
                    session.whox = True
                elif a == "MONITOR" or a.startswith("MONITOR="):
                    limit = a.partition("=")[2]
                    self.presence.monitor_limit = int(limit) if limit.isdigit() else 0
        elif t in ("nicknameinuse", "erroneusnickname", "unavailresource", "nickcollision"):
            if not session.registered:
                session.nickname = _next_nick(session.nickname, self.config.nick)
                self.link.conn.nick(session.nickname)
        elif t == "join":  # our own (others' are taken in by _presence_event)
            channel = str(ev.target)
            session.joined.add(session.fold(channel))
            host = getattr(src, "userhost", None)
            if host:
                session.userhost = str(host)
            log.info("joined %s", channel)
            if "account-tag" in session.caps and session.whox and session.accounts():
                self.link.conn.send_raw(f"WHO {channel} %tna,{_WHOX_TOKEN}")  # who is logged in
            await self._rejoined(channel)
            self.outbox.wake()
        elif t in ("part", "kick"):  # we left (others' are taken in by _presence_event)
            session.joined.discard(session.fold(str(ev.target)))
            log.warning("left %s (%s); rejoining", ev.target, t)
            await session.sleep(2.0)
            if session.registered:
                self.link.conn.join(str(ev.target))
        elif t == "whospcrpl":  # WHOX: <token> <nick> <account>
            args = [str(a) for a in ev.arguments]
            if len(args) >= 3 and args[0] == _WHOX_TOKEN and session.accounts():
                self._account_of(args[1], args[2])
        elif t in ("pubmsg", "privmsg"):
            if nick and session.fold(nick) != session.fold(session.nickname):
                await self._on_message(nick, str(ev.target), str(ev.arguments[0]),
                                       t == "privmsg", _account_tag(ev),
                                       str(getattr(src, "userhost", "") or ""))
        elif t == "disconnect":
            self.link.connection_lost()

    # --- presence: taken in as each line arrives ---------------------------------------------
    def _presence_event(self, ev: Any) -> bool:
        """Who holds which nick, taken in as the line arrives rather than in the worker's turn:
        a private line is resolved to a nick when it is sent, so a nick its player gave up
        while the worker was busy must already be known as given up. True: handled, nothing
        left for the worker."""
        t = str(ev.type)
        nick = getattr(ev.source, "nick", None) or ""
        own = bool(nick) and self.session.fold(nick) == self.session.fold(self.session.nickname)
        args = [str(a) for a in ev.arguments or ()]
        if t == "join":
            self.presence.joined(str(ev.target), nick)
            if not own:
                self._joined(nick, args)
            return not own
        if t == "namreply":  # 353: = #channel :nick @nick +nick
            if len(args) >= 3:
                self.presence.names(args[1], args[2].split())
            return True
        if t in ("part", "kick"):
            who = nick if t == "part" else (args[0] if args else "")  # KICK: the one kicked
            return self._departed(t, str(ev.target or ""), who)
        if t in ("quit", "nick") and nick and not own and (
                self.session.fold(nick) == self.session.fold(self.config.nick)):
            self.link.regain()  # whoever held our nick let it go: ask for it now
        if t == "quit":
            if nick and not own:
                self.presence.gone(nick)
                self.proofs.gone(nick, "quit")
            return True
        if t == "nick":
            new = str(ev.target or "")
            if own:
                self.session.nickname = new
                if new == self.config.nick:
                    log.info("took the nick %s back", new)
            elif nick and new:
                self.proofs.renamed(nick, new)
            return True
        if t in ("730", "731", "ison"):
            self._monitored(t, args)
            return True
        if t == "account":
            if "account-notify" in self.session.caps and self.session.accounts() and nick:
                self._account_of(nick, str(ev.target or "*"))  # logged in or out (*)
            return True
        return False

    def _joined(self, nick: str, args: list[str]) -> None:
        """Someone else joined one of our channels."""
        if "extended-join" in self.session.caps and args and self.session.accounts():
            self._account_of(nick, args[0])
            return
        ident = self.proofs.identity(nick)
        if ident is not None:
            self.outbox.release_held(ident)

    def _account_of(self, nick: str, account: str) -> None:
        """The server says what ``nick`` is logged in as now (``*``: nothing)."""
        before = self.proofs.identity(nick)
        self.book.set_account(nick, account)
        ident = self.proofs.identity(nick)
        if ident is None:
            if before is not None:
                self.proofs.gone(nick, "logged out")
            return
        self.proofs.bound(nick)
        self.outbox.release_held(ident)

    def _departed(self, how: str, channel: str, who: str) -> bool:
        """A PART or KICK: ours is the worker's (it rejoins); anyone else's ends what was
        proven under their nick and is handed to :meth:`_on_departure` in the worker's turn."""
        if not channel or not who:
            log.warning("skipped a %s without a channel or nick", how.upper())
            return True
        if self.session.fold(who) == self.session.fold(self.session.nickname):
            self.presence.we_left(channel)
            return False
        player = self.proofs.identity(who)
        self.presence.left(channel, who)
        self.proofs.gone(who, how)
        self.link.inbox.put_nowait(Departure(channel, who, how, player))
        return True

    def _monitored(self, t: str, args: list[str]) -> None:
        """MONITOR's 730 (online: ``nick!user@host`` list) and 731 (offline), ISON's 303."""
        if t == "ison":
            absent = self.presence.ison_reply(args[-1].split() if args else [])
            for n in self.book.proven_nicks():
                if self.session.fold(n) in absent:
                    self.proofs.gone(n, "not online (ISON)")
            return
        for entry in (args[-1].split(",") if args else []):
            n, _, userhost = entry.partition("!")
            if not n:
                continue
            s = self.book.session_of(n)
            if t == "731":
                self.proofs.gone(n, "offline (MONITOR)")
            elif s is not None and userhost and s.userhost and userhost != s.userhost:
                self.proofs.gone(n, f"online as {userhost} (MONITOR)")

    def _on_departure(self, channel: str, nick: str, how: str, player: str | None) -> None:
        """``nick`` left ``channel`` (``how``: ``part`` or ``kick``), in the worker's turn and
        in the order of the lines around it. ``player``: whom ``nick`` was proven as just
        before (its proof has ended since), None for a nick nobody proved. A player seated at
        the channel's table leaves the hand and the table at once (the ``departed``
        directive, docs/rules.md); a dropped connection (QUIT) is the clock's business."""
        room = self.session.room(channel)
        if player is None or player not in self.referee.seated_names(room):
            return
        log.info("%s (%s) left %s (%s): folded, leaving the table", nick, player, channel, how)
        self.seq += 1
        out = self._process(Directive(f"irc:{self.run_id}:{self.seq}", room, "departed",
                                      {"name": player, "how": how}), channel, None)
        if out is not None:
            self.outbox.deliver(out.events, room, None)

    def _process(self, inp: Input, reply: str | None, nick: str | None) -> Outcome | None:
        """The referee's answer to one input; when the store cannot save it, nothing changed
        (the referee went back to what is saved): one log line, and the sender is asked in one
        line to send it again."""
        try:
            return self.referee.process(inp)
        except StoreError as e:
            log.error("input %s not saved, nothing changed: %s", inp.id, str(e)[:300])
            if reply is not None and nick is not None:
                self.outbox.send(reply, msg("save_failed", player=nick))
            return None
        finally:
            gc_tuning.answered()

    async def _rejoined(self, channel: str) -> None:
        """After a reconnect: tell a channel whose hand is running that the bot was away; after
        a restart, tell every table's channel the dealer is back, with whom it waits for (and,
        mid-hand, that what was said meanwhile did not reach it)."""
        room = self.session.room(channel)
        if self.session.connects <= 1:
            if self._resumed:
                line = self.referee.back_lines().get(room)
                if line is not None:
                    self.outbox.send(channel, line)
                    table = self.referee.table_view(room)
                    if table is not None and table.in_hand:
                        # IRC keeps no history: what was said while the bot was down is gone
                        self.outbox.send(channel, msg("irc.back_unseen"))
            return
        table = self.referee.table_view(room)
        if table is not None and table.in_hand:
            self.outbox.send(channel, msg("irc.reconnected"))

    async def _on_message(self, nick: str, target: str, raw: str, private: bool,
                          account: str | None = None, userhost: str = "") -> None:
        session = self.session
        text = strip_formatting(raw).strip()
        if not text:
            return
        reply = nick if private else target
        args = pass_args(text)
        if args is not None:  # a secret: checked here, never given to the referee (or stored)
            # beside the worker: its WHOIS and scrypt never hold up the tables' lines
            if private:
                self.proofs.spawn(self.proofs.on_pass(nick, args, userhost))
            else:
                self.proofs.spawn(self.proofs.shown_secret(nick, target, args))
            return
        ident = await self.proofs.sender_of(nick, account, userhost)
        if ident is None:
            key, now = session.fold(nick), time.monotonic()
            last = self.proofs.hinted.get(key)
            # once for chat, again for a command -- but never more than one per 5 s per nick:
            # a stranger's flood must not fill the outbox ahead of the table's lines
            if last is None or (read_command(text) is not None and now - last >= 5):
                self.proofs.hinted[key] = now
                key_text = "irc.login_first" if session.accounts() else "irc.prove_first"
                self.outbox.send(nick, msg(key_text, nick=nick, bot=session.nickname))
            if not private:
                self._unproven_chat(nick, target, text)
            return
        if private:
            # the one rule for every adapter (referee.routing): the table the message names
            # (#channel) or the one the sender sits at; else no table, and the service says so
            route = private_route(self.referee, ident, text,
                                  {c: session.room(c) for c in self.config.channels})
            room, text = route.room or f"irc-private:{ident}", route.text
        else:
            room = session.room(target)
        if (self.config.require_identified and self.referee.is_moderator(ident)
                and is_moderator_command(text) and self.proofs.proof(ident) != "account"):
            self.outbox.send(reply, msg("irc.moderator_needs_account", nick=nick))
            return
        unclaimed = self._unclaimed_grant(ident, text)
        if unclaimed is not None:
            self.outbox.send(reply, msg("irc.grant_unclaimed", nick=nick, name=unclaimed,
                                 bot=session.nickname))
            return
        asks = asks_only(text)
        if asks and not self.referee.is_moderator(ident) and not self._may_ask(ident):
            return  # a flood of questions changes nothing: not taken, it costs the tables nothing
        self.take(room, ident, text, private, nick, reply, asks, time.time())

    def take(self, room: str, ident: str, text: str, private: bool, nick: str, reply: str,
             asks: bool, now: float) -> None:
        """One message refereed and its lines queued. A message that only asks (!status) is
        answered as the asker's reply; what the action clock does at the same moment (a
        reminder, a timed-out player's fold, the hand's end, the next deck's seal) is the
        table's and goes out as the table's lines: the clock is ticked first, on its own."""
        if asks and self.referee.wants_tick(room):
            self.seq += 1
            ticked = self._process(Tick(f"irc:{self.run_id}:{self.seq}", room, now), None, None)
            if ticked is not None:
                self.outbox.deliver(ticked.events, room, None)
                if ticked.closed:
                    self._backup("!close")
        self.seq += 1
        out = self._process(Message(f"irc:{self.run_id}:{self.seq}", room, ident, text, now,
                                    private), reply, nick)
        if out is None:
            return
        self.outbox.deliver(out.events, room, nick, ident, answer=asks)
        if out.closed:
            self._backup("!close")  # a table closed: its results are the record to keep

    def _may_ask(self, ident: str) -> bool:
        """Whether ``ident`` may ask the referee something now (!status, !rules …): at most
        ASKS_PER_WINDOW in ASK_WINDOW seconds (moderators are not counted). The tables are
        served by one worker, and what only asks changes nothing, so a flood of it is not taken
        at all."""
        now = time.monotonic()
        recent = [t for t in self._asked.get(ident, []) if now - t < ASK_WINDOW]
        if len(recent) >= ASKS_PER_WINDOW:
            self._asked[ident] = recent
            return False
        self._asked[ident] = [*recent, now]
        return True

    def _unclaimed_grant(self, ident: str, text: str) -> str | None:
        """The name a moderator's ``!grant`` gives points to, if nobody owns it yet: on a
        network without accounts a name nobody set a secret for, with accounts a name nobody is
        logged in as now and the table does not know. Whoever proved it first would take the
        points, so the grant waits until its owner has proven the name (the moderator sees who
        did, then grants)."""
        cmd = read_command(text)
        if (cmd is None or len(cmd.args) < 2 or command_name(cmd.name) != "grant"
                or not self.referee.is_moderator(ident)):
            return None
        target = cmd.args[0][1:] if cmd.args[0].startswith("@") else cmd.args[0]
        if not target:
            return None
        try:
            if int(cmd.args[1].replace(",", "")) <= 0:
                return None  # taking points away gives nobody anything
        except ValueError:
            return None  # the referee explains a bad amount
        key = self.session.fold(target)
        if any(self.session.fold(n) == key for n in self._known_names()):
            return None
        if self.session.accounts():
            return None if self.book.nick_of(target) is not None else target
        return None if self.book.ids.has_secret(key) else target

    def _unproven_chat(self, nick: str, channel: str, text: str) -> None:
        """Table talk from a nick nobody has proven is still refereed -- "nobody, in the hand
        or not, may reveal anything" (docs/rules.md): a leak or interference is flagged -- under a
        name no nick or account can have (``nick?``), so it never acts on anyone's seat, bank or
        moderator power. Commands (「着席」 …) are not passed on: an unproven name sits nowhere."""
        room = self.session.room(channel)
        if not self.referee.has_table(room) or read_command(text) is not None:
            return
        self.seq += 1
        out = self._process(Message(f"irc:{self.run_id}:{self.seq}", room,
                                    f"{nick}{UNPROVEN_MARK}", text, time.time()), None, None)
        if out is not None:
            self.outbox.deliver(out.events, room, None)

    def _backup(self, why: str) -> None:
        try:
            made = self.backups.run()
        except Exception as e:  # a failed back-up must not stop the tables; it is logged
            log.error("back-up (%s) failed: %s", why, e)
            return
        log.info("back-up (%s): %s", why, made)

    # --- the action clock -----------------------------------------------------------------------
    def clock_tick(self, now: float) -> list[str]:
        """Tick the tables of our channels that wait on someone (see referee.adapters.clock);
        the rooms ticked. Only while registered: players cut off from the server cannot act,
        so their clock must not run them out."""
        if not self.session.registered:
            return []
        rooms = {self.session.room(c) for c in self.config.channels}
        due = due_ticks(self.referee, now, self._ticked, self.config.tick_every, rooms)
        for room in due:
            self._ticked[room] = now
            self.seq += 1
            out = self._process(Tick(f"irc:{self.run_id}:{self.seq}", room, now), None, None)
            if out is not None:
                self.outbox.deliver(out.events, room, None)
                if out.closed:  # a closing table's last hand timed out
                    self._backup("!close")
        return due

    async def _clock(self) -> None:
        while not self.stopping.is_set():
            try:
                self.clock_tick(time.time())
            except Exception:  # a bug in one tick must not stop the clock of every table
                log.exception("clock tick failed")
            if self.session.registered and self.presence.monitor_limit is None:
                for line in self.presence.ison_due(self.book.proven_nicks(), time.monotonic()):
                    self._send_raw(line)
            if self.backups.due():
                await asyncio.to_thread(self._backup, "interval")
            await self.session.sleep(1.0)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.store.close()


@dataclass
class Departure:
    """A PART or KICK of someone else, queued for the worker (see IrcBot._on_departure)."""

    channel: str
    nick: str
    how: str
    player: str | None


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
    bot = IrcBot(config)  # resumes the tables
    gc_tuning.tune()  # what start-up made lives as long as the bot (referee.adapters.gc_tuning)
    loop = asyncio.get_running_loop()

    def stop(sig: signal.Signals) -> None:
        log.info("%s: stopping", sig.name)
        bot.stopping.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop, sig)
    try:
        await bot.run()
    finally:
        bot.close()


def run(config: IrcConfig) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    asyncio.run(serve(config))
