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

from referee.adapters.irc_base import IrcParts
from referee.lang.catalog import text as msg

log = logging.getLogger("referee.irc")

_WHOIS_TTL = 60.0  # seconds a WHOIS answer about an account is believed


class Proofs(IrcParts):
    """The identity part of :class:`referee.adapters.irc.IrcBot`."""

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
