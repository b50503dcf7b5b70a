"""The IRC bot's side of identity (the rules are :mod:`referee.adapters.irc_identity`'s): who
sent a message, found from the account tag, WHOIS or a proof made before a restart; ``!pass``
by private message, checked here and never given to the referee or stored as typed; and the
private lines held for a player, released once they are proven again.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from referee.adapters.irc_base import Session
from referee.adapters.irc_delivery import Outbox
from referee.adapters.irc_identity import Book, Guesses, Whois
from referee.adapters.irc_presence import Presence
from referee.adapters.outbox import Pacer
from referee.lang.catalog import text as msg

if TYPE_CHECKING:
    from referee.service import Referee

log = logging.getLogger("referee.irc")

_WHOIS_TTL = 60.0  # seconds a WHOIS answer about an account is believed
# What a ``!pass`` needs to know of its sender's connection (``user@host``, sign-on time) is
# looked up once and believed this long -- unless the bot sees the nick change hands, or a line
# arrives from another ``user@host`` -- so forty lines from one stranger cost one WHOIS.
PASS_LOOKUP_TTL = 30.0
# Those lookups are paced (ngIRCd makes every WHOIS cost its sender a second in which nothing
# else the bot sends is read, the table's lines included): a burst, then one every few seconds.
PASS_WHOIS_BURST, PASS_WHOIS_EVERY = 2, 1.5


class Proofs:
    """Who is who on the bot's connection (see the module docstring): it owns the looked-up
    nicks not proven now and the hints given, asks the server (``whois``) and the identity
    book, and releases the outbox's held lines once a player is proven."""

    def __init__(self, session: Session, book: Book, outbox: Outbox, referee: Referee,
                 whois: Callable[[str], Awaitable[Whois]], presence: Presence) -> None:
        self.session = session
        self.presence = presence
        self.config = session.config
        self.book = book
        self.outbox = outbox
        self.referee = referee
        self._whois_of = whois
        self.unproven: dict[str, float] = {}  # folded nick -> looked up, not proven, until
        self.hinted: dict[str, float] = {}  # folded nick -> when told how to prove themselves
        self.confirming: set[str] = set()  # folded nicks a WHOIS is checking before a send
        self._tasks: set[asyncio.Task[None]] = set()
        # folded name -> (its !pass lock, how many hold or wait for it)
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}
        self._looked: dict[str, tuple[float, Whois]] = {}  # folded nick -> (until, its WHOIS)
        self._whois_pace = Pacer(interval=PASS_WHOIS_EVERY, burst=PASS_WHOIS_BURST)
        self._whois_turn = asyncio.Lock()
        # one scrypt at a time: a flood of secrets never takes both cores from the tables
        self._scrypt = asyncio.Semaphore(1)

    def fold(self, name: str) -> str:
        return self.session.fold(name)

    def send(self, target: str, text: str) -> None:
        self.outbox.send(target, text)

    def lost(self) -> None:
        """The connection ended: its proofs and lookups with it."""
        self.book.lost()
        self.presence.lost()
        self.unproven.clear()
        self.hinted.clear()
        self._looked.clear()

    def identity(self, nick: str) -> str | None:
        """The player whose proven connection holds ``nick`` now; None if nobody's."""
        who = self.book.of_nick(nick)
        return who[0] if who is not None else None

    def renamed(self, old: str, new: str) -> None:
        """A NICK the bot saw: the same connection under a new nick, followed there."""
        for n in (old, new):
            self.unproven.pop(self.fold(n), None)
            self.hinted.pop(self.fold(n), None)
            self._looked.pop(self.fold(n), None)
        self.presence.renamed(old, new)
        self.book.end(new)  # nobody held the new nick a moment ago (it was free)
        ident = self.book.renamed(old, new)
        self.presence.unwatch(old)
        if ident is not None:
            log.info("nick change followed: %s -> %s (player %s)", old, new, ident)
            self.presence.watch(new)
            self.outbox.release_held(ident)

    def gone(self, nick: str, why: str = "quit") -> str | None:
        """``nick``'s holder quit, left, was kicked, or the server says the nick is offline or
        someone else's: whatever was proven under it ends. The player it was, if any."""
        self.unproven.pop(self.fold(nick), None)
        self.hinted.pop(self.fold(nick), None)
        self._looked.pop(self.fold(nick), None)
        self.presence.unwatch(nick)
        ident = self.book.end(nick)
        if ident is not None:
            log.info("%s (%s): the proof of player %s ended", nick, why, ident)
        return ident

    def bound(self, nick: str) -> None:
        """``nick`` was just proven or bound to an account by the server: follow it."""
        self.presence.confirmed(nick)
        self.presence.watch(nick)

    def confirm_soon(self, nick: str) -> None:
        """Before private lines go to ``nick``, which the bot does not follow: a WHOIS shows
        whether it is still the proven connection; if not, the proof ends (the lines are held).
        The outbox asks; the check runs beside it (one per nick at a time)."""
        key = self.fold(nick)
        if key in self.confirming:
            return
        self.confirming.add(key)
        task = asyncio.create_task(self._confirm(nick))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _confirm(self, nick: str) -> None:
        key = self.fold(nick)
        try:
            info = await self._whois_of(nick)
            if self.book.still_holds(nick, info):
                self.presence.confirmed(nick)
            else:
                self.gone(nick, "another connection now")
        finally:
            self.confirming.discard(key)
            self.outbox.wake()

    def proof(self, ident: str) -> str | None:
        nick = self.book.nick_of(ident)
        who = self.book.of_nick(nick) if nick is not None else None
        return who[1] if who is not None else None

    async def sender_of(self, nick: str, account: str | None,
                        userhost: str = "") -> str | None:
        """The player behind ``nick`` if their connection is proven now, else None.
        ``userhost``: the sender's as the server relayed it with this message."""
        accounts = self.session.accounts()
        if accounts and "account-tag" in self.session.caps:
            had = self.identity(nick)
            self.book.set_account(nick, account)  # the tag is the truth for this message
            ident = self.identity(nick)
            if ident is not None and ident != had:
                self.bound(nick)
            elif ident is None and had is not None:
                self.presence.unwatch(nick)
            return ident
        ident = await self._still_proven(nick, userhost)
        if ident is not None:
            return ident
        key, now = self.fold(nick), time.monotonic()
        if self.unproven.get(key, 0.0) > now:
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
            self.unproven[key] = now + _WHOIS_TTL if accounts else math.inf
        else:
            self.bound(nick)
            self.outbox.release_held(ident)
        return ident

    async def _still_proven(self, nick: str, userhost: str) -> str | None:
        """The player proven under ``nick``, if the message's sender is still that connection:
        another ``user@host`` is not; where the bot does not follow the nick (no shared channel,
        no MONITOR) a WHOIS shows it."""
        ident = self.identity(nick)
        if ident is None:
            return None
        s = self.book.session_of(nick)
        if s is not None and s.userhost and userhost and userhost != s.userhost:
            self.gone(nick, f"now {userhost}")
            return None
        if not self.presence.followed(nick):
            info = await self._whois_of(nick)
            if not self.book.still_holds(nick, info):
                self.gone(nick, "another connection now")
                return None
            self.presence.confirmed(nick)
        return ident

    async def _lookup(self, nick: str, userhost: str) -> Whois:
        """The sender of a ``!pass``'s connection, by WHOIS -- paced, and remembered for
        PASS_LOOKUP_TTL seconds while the same ``user@host`` writes under ``nick`` -- so a
        flood of secrets costs the bot's connection a few WHOIS, never one a line."""
        key, now = self.fold(nick), time.monotonic()
        hit = self._looked.get(key)
        if hit is not None and hit[0] > now and (not userhost or hit[1].userhost == userhost):
            return hit[1]
        async with self._whois_turn:
            wait = self._whois_pace.delay(time.monotonic())
            if wait > 0:
                await self.session.sleep(wait)
            await self.outbox.reply_slot()  # the table's lines keep their part of the pace
            self._whois_pace.sent(time.monotonic())
        info = await self._whois_of(nick)
        if info.exists:
            self._looked[key] = (time.monotonic() + PASS_LOOKUP_TTL, info)
        return info

    async def _hash(self, secret: str) -> tuple[bytes, bytes, str]:
        """scrypt off the event loop, one at a time (see ``_scrypt``)."""
        from referee.store.identity import hash_secret

        async with self._scrypt:
            return await asyncio.to_thread(hash_secret, secret)

    async def _verify(self, secret: str, stored: tuple[bytes, bytes, str]) -> bool:
        from referee.store.identity import verify_secret

        async with self._scrypt:
            return await asyncio.to_thread(verify_secret, secret, *stored)

    def running(self) -> list[asyncio.Task[None]]:
        """The checks in flight: the bot stops them before its store closes. Each is safe to
        cancel at any of its waits (what it writes, it writes between two of them)."""
        return list(self._tasks)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run a slow check (WHOIS, scrypt) beside the worker that serves the tables."""
        async def guarded() -> None:
            try:
                await work
            except Exception as e:  # one bad check must not go unnoticed, nor stop anything
                log.warning("a secret check failed: %s: %s", type(e).__name__, e)
                log.debug("traceback of the failed check", exc_info=True)

        task = asyncio.create_task(guarded())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def on_pass(self, nick: str, args: list[str], userhost: str = "") -> None:
        """``!pass SECRET`` / ``!pass @name SECRET`` / ``!pass SECRET NEW`` by private message
        (``userhost``: the sender's, as relayed with it). One at a time per name."""
        if self.session.accounts():
            self.send(nick, msg("irc.pass_use_account", nick=nick))
            return
        name = nick
        if args and args[0].startswith("@") and len(args[0]) > 1:
            name, args = args[0][1:], args[1:]
        if len(args) not in (1, 2):
            self.send(nick, msg("irc.pass_usage"))
            return
        name = self.book.canonical(name)
        key = self.fold(name)
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                await self._pass(nick, name, args, userhost)
        finally:
            lock, users = self._locks[key]
            if users <= 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)

    async def _pass(self, nick: str, name: str, args: list[str], userhost: str) -> None:
        from referee.store.identity import valid_secret

        key = self.fold(name)
        ids = self.book.ids
        held = self.book.nick_of(name)
        proven = held is not None and self.fold(held) == self.fold(nick)
        # the limits that need no lookup first: a refused guess costs no WHOIS, no scrypt
        early = Guesses(ids, key, nick, userhost,
                        proven or (bool(userhost) and ids.trusted(key, userhost)), proven=proven)
        wait = early.wait(time.time(), source=False)
        if wait <= 0:
            info = await self._lookup(nick, userhost)
            guard = Guesses(ids, key, nick, info.userhost, self._owner_here(name, nick, info),
                            signon=info.signon, proven=proven)
            wait = guard.wait(time.time())
        if wait > 0:
            self.send(nick, msg("irc.pass_too_many", nick=nick, seconds=math.ceil(wait)))
            return
        secret, new = args[0], (args[1] if len(args) == 2 else None)
        voided = ids.voided(key)
        if voided is not None:
            await self._renew(nick, name, info, voided, args)
            return
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
            ids.set_digest(key, name, *await self._hash(secret), by=nick)
            await self._proven(nick, name, msg("irc.pass_set", name=name), info)
            return
        stored = ids.digest(key)
        if stored is None or not await self._verify(secret, stored):
            guard.wrong(time.time())
            log.warning("wrong secret for %s from %s", name, nick)
            self.send(nick, msg("irc.pass_wrong", nick=nick, name=name))
            changed = ids.set_info(key)
            # when and from which nick the secret was last set tells a stranger who holds the
            # name's proof: only the owner's own connection (proven as the name, or from a
            # user@host that proved it before) learns it, to notice a change they did not make
            if changed is not None and changed[1] is not None and (
                    self.fold(changed[1]) != self.fold(nick)) and self._owner_here(
                        name, nick, info):
                self.send(nick, msg("irc.pass_changed_by", name=name, by=changed[1],
                                    when=time.strftime("%Y-%m-%d %H:%M UTC",
                                                       time.gmtime(changed[0]))))
            return
        guard.right()
        if new is not None:
            if not valid_secret(new):
                self.send(nick, msg("irc.pass_invalid"))
                return
            ids.set_digest(key, ids.display(key) or name,
                           *await self._hash(new), by=nick)
            await self._proven(nick, name, msg("irc.pass_changed", name=name), info)
            return
        await self._proven(nick, name, msg("irc.pass_ok", name=name), info)

    def _owner_here(self, name: str, nick: str, info: Whois) -> bool:
        """Whether ``nick`` is ``name``'s own: proven as it now, or from a ``user@host`` that
        proved it before (its owner's usual connection): spared the name's guess limit."""
        held = self.book.nick_of(name)
        if held is not None and self.fold(held) == self.fold(nick):
            return True
        return bool(info.userhost) and self.book.ids.trusted(self.fold(name), info.userhost)

    async def _renew(self, nick: str, name: str, info: Whois, voided: tuple[str, int],
                     args: list[str]) -> None:
        """``name``'s secret is void (it was seen in a channel). A new one is set by
        ``!pass NEW`` from the connection proven as ``name`` now or from the one that showed
        the old one; nobody proves with the old one, nor changes it."""
        from referee.store.identity import valid_secret

        ids, key = self.book.ids, self.fold(name)
        held = self.book.nick_of(name)
        proven_here = held is not None and self.fold(held) == self.fold(nick)
        shown_here = bool(info.signon) and (info.userhost, info.signon) == voided
        if len(args) != 1 or not (proven_here or shown_here):
            self.send(nick, msg("irc.pass_void", nick=nick, name=name))
            return
        if not valid_secret(args[0]):
            self.send(nick, msg("irc.pass_invalid"))
            return
        old = ids.digest(key, void=True)
        if old is not None and await self._verify(args[0], old):
            self.send(nick, msg("irc.pass_void_same", nick=nick))
            return
        ids.set_digest(key, ids.display(key) or name,
                       *await self._hash(args[0]), by=nick)
        await self._proven(nick, name, msg("irc.pass_renewed", name=name), info)

    async def shown_secret(self, nick: str, channel: str, args: list[str]) -> None:
        """``!pass`` typed in a channel: refused, and if it holds the real secret of the name
        it is for (``@name``, else the sender's), that secret is void at once -- everyone in the
        channel has read it -- and the name's owner is told privately."""
        self.send(channel, msg("irc.pass_in_public", nick=nick))
        if self.session.accounts():
            return
        name = self.identity(nick) or nick
        if args and args[0].startswith("@") and len(args[0]) > 1:
            name, args = args[0][1:], args[1:]
        name = self.book.canonical(name)
        key = self.fold(name)
        stored = self.book.ids.digest(key)
        if stored is None:
            return
        for secret in args[:2]:
            if await self._verify(secret, stored):
                info = await self._whois_of(nick)
                self.book.ids.void(key, info.userhost, info.signon)
                log.warning("the secret of %s was shown in %s by %s: void", name, channel, nick)
                told = {self.fold(nick): nick}
                held = self.book.nick_of(name)
                if held is not None:
                    told.setdefault(self.fold(held), held)
                for to in told.values():
                    self.send(to, msg("irc.pass_voided", name=name, channel=channel))
                return

    async def _proven(self, nick: str, name: str, reply: str, info: Whois) -> None:
        before = self.book.nick_of(name)
        s = self.book.prove(name, nick, info)
        self.unproven.pop(self.fold(nick), None)
        self.hinted.pop(self.fold(nick), None)
        log.info("%s proved to be %s", nick, s.display)
        self.bound(nick)
        self.send(nick, reply)
        if before is not None and self.fold(before) != self.fold(nick):
            # the previous holder learns at once that their name moved to another connection
            self.send(before, msg("irc.pass_taken_over", name=s.display, nick=nick))
        self.outbox.release_held(s.display)

    async def revalidate(self) -> None:
        """After (re)registering: find the connections proven before (a restart of the bot, a
        reconnect) by asking the server about their last nick, so cards reach them again."""
        for s in self.book.saved():
            if self.book.nick_of(s.display) is not None:
                continue
            info = await self._whois_of(s.nick)
            if info.exists and self.book.restore(s.nick, info) is not None:
                log.info("%s is still %s (proven before)", s.nick, s.display)
                self.bound(s.nick)
                self.outbox.release_held(s.display)
