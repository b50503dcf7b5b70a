"""Who is behind an IRC nick, for the IRC bot (:mod:`referee.adapters.irc`).

A nick is not an identity: anyone can take a nick its holder let go. The bot therefore gives the
referee a sender name only for a **proven** connection, and sends private content (hole cards,
private replies) only to the nick of the connection proven for that player:

* **Accounts** (a network with services). With the IRCv3 ``account-tag`` capability every
  message carries the sender's services account; otherwise WHOIS tells it (330, or 307 for a
  registered nick). The player *is* the account: the seat follows the account through any nick
  change, and whoever is not logged in is nobody.
* **Secrets** (a network without services). A player proves who they are once per connection
  with ``!pass SECRET`` by private message; the secret is stored salted and hashed
  (:mod:`referee.store.identity`). The proven connection is remembered in the database by its
  ``user@host``, sign-on time and nick, so a restart of the bot keeps it (the connection did not
  end), while a newcomer under the same nick -- a later sign-on -- or a second connection from
  the same gateway in the same second -- another nick -- is not it. A ``QUIT`` ends it.

Moderators are names in the configuration proven the same way; a moderator's secret cannot be
set by chat (that would be "by nick alone"): the operator sets it with ``referee irc-secret``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from referee.lang.reader import secret_args
from referee.store.identity import Identities, Session


@dataclass
class Whois:
    """What a WHOIS told about one nick."""

    nick: str
    account: str | None = None
    registered: bool = False  # 307 RPL_WHOISREGNICK (nick identified to services, mode +R)
    user: str | None = None
    host: str | None = None
    signon: int = 0  # 317: the connection's sign-on time (0: the server did not say)
    exists: bool = False  # 311 seen

    @property
    def userhost(self) -> str:
        return f"{self.user}@{self.host}" if self.user and self.host else ""

    def identified_as(self, name: str, fold: Callable[[str], str]) -> bool:
        if self.account is not None:
            return fold(self.account) == fold(name)
        return self.registered and fold(self.nick) == fold(name)


def pass_args(text: str) -> list[str] | None:
    """The arguments of a ``!pass`` message, any width, or of a slip that shows one all the
    same (``/msg referee !pass X``, ``referee: !pass X``, ``!!pass X``, ``!passX``: see
    :func:`referee.lang.reader.slipped_secret`); None if it is neither."""
    args = secret_args(text)
    return None if args is None else list(args)


class Guesses:
    """The limits on wrong secrets for one ``!pass``, kept in the database (a restart or a
    new nick starts nothing afresh): per source connection (``user@host`` and sign-on time,
    else the nick), per host, per target name, and a daily bound per name. The first few wrong
    in a row are free, then each doubles the wait. The name's and the host's ladders do not
    apply to the name's ``owner`` (proven as it now, or from a ``user@host`` that proved it
    before), so strangers guessing at a name never keep its owner out -- and a stranger behind
    the owner's ``user@host`` (no ident) counts on their own connection, not the owner's. The
    daily bound holds for everyone but a connection proven as the name now (``proven``: it
    has nothing to guess), so no ``user@host`` gets more than ``DAILY`` tries a day at a name.
    """

    FREE = 5  # wrong secrets in a row before any wait
    FREE_HOST = 20  # from one host (many users behind one gateway)
    BASE, CAP, FORGET = 60.0, 3600.0, 3600.0  # first wait, longest wait, quiet time that resets
    DAILY, DAY = 30, 86400.0  # wrong secrets a day at one name, from anyone not proven as it

    def __init__(self, ids: Identities, name: str, nick: str, userhost: str,
                 owner: bool, signon: int = 0, proven: bool = False) -> None:
        self.ids = ids
        # key, free, first wait, longest wait, quiet time that resets
        self.keys: list[tuple[str, int, float, float, float]] = []
        if proven:
            return
        if userhost and signon:
            source = f"src:{userhost}#{signon}"
        else:
            source = "src:" + userhost if userhost else "nick:" + nick.lower()
        ladder = (self.BASE, self.CAP, self.FORGET)
        self.keys.append((source, self.FREE, *ladder))
        if not owner:
            self.keys.append(("name:" + name, self.FREE, *ladder))
            if "@" in userhost:
                self.keys.append(("host:" + userhost.split("@", 1)[1], self.FREE_HOST, *ladder))
        self.keys.append(("day:" + name, self.DAILY, self.DAY, self.DAY, self.DAY))

    def wait(self, now: float, source: bool = True) -> float:
        """Seconds before this source may guess at this name again (0: now). ``source=False``:
        the limits known before the connection is looked up (the name's, the host's, the
        day's), checked before any slow work."""
        keys = [k for k, *_ in self.keys if source or not k.startswith(("src:", "nick:"))]
        return max([0.0, *(self.ids.blocked_until(k) - now for k in keys)])

    def wrong(self, now: float) -> None:
        for k, free, base, cap, forget in self.keys:
            self.ids.guessed_wrong(k, now, free, base, cap, forget)

    def right(self) -> None:
        for k, *_ in self.keys:
            if not k.startswith(("host:", "day:")):
                self.ids.guessed_right(k)


class Book:
    """Proven connections and known accounts of one bot connection, backed by the database.

    ``fold`` is the server's case mapping; ``known`` the names the referee already uses (seated
    players, moderators), so a proven sender is called by the spelling the table knows."""

    def __init__(self, ids: Identities, fold: Callable[[str], str],
                 known: Callable[[], Iterable[str]]) -> None:
        self.ids = ids
        self.fold = fold
        self.known = known
        self.account_mode = False  # the server tags every message with the sender's account
        self.sessions: dict[str, Session] = {}  # folded name -> its connection proven now
        # folded nick -> (nick, account, until): an account learned by WHOIS is believed for
        # a while only (no account-notify tells when its holder logs out)
        self.accounts: dict[str, tuple[str, str, float]] = {}

    # --- names ----------------------------------------------------------------------------
    def canonical(self, name: str) -> str:
        key = self.fold(name)
        for n in self.known():
            if self.fold(n) == key:
                return n
        return self.ids.display(key) or name

    def of_nick(self, nick: str) -> tuple[str, str] | None:
        """(player name, proof) for whoever holds ``nick`` now, if proven; else None."""
        key = self.fold(nick)
        acct = self.accounts.get(key)
        if acct is not None and acct[2] > time.monotonic():
            return self.canonical(acct[1]), "account"
        for s in self.sessions.values():
            if self.fold(s.nick) == key:
                return s.display, s.proof
        return None

    def nick_of(self, name: str) -> str | None:
        """The nick of the connection proven to be player ``name`` now (None: nobody's)."""
        key = self.fold(name)
        now = time.monotonic()
        for nick, acct, until in self.accounts.values():
            if self.fold(acct) == key and until > now:
                return nick
        s = self.sessions.get(key)
        return s.nick if s is not None else None

    def held_by_other(self, nick: str, name: str) -> bool:
        """Whether ``nick``'s holder is proven as someone other than ``name``."""
        who = self.of_nick(nick)
        return who is not None and self.fold(who[0]) != self.fold(name)

    # --- accounts ---------------------------------------------------------------------------
    def set_account(self, nick: str, account: str | None, ttl: float | None = None) -> None:
        """What the server says ``nick`` is logged in as (None, ``*``, ``0``: not at all);
        ``ttl``: believed for that many seconds (WHOIS), else until told otherwise."""
        key = self.fold(nick)
        if account and account != "*" and account != "0":
            until = math.inf if ttl is None else time.monotonic() + ttl
            self.accounts[key] = (nick, account, until)
        else:
            self.accounts.pop(key, None)

    # --- secrets and proven connections -------------------------------------------------------
    def prove(self, name: str, nick: str, info: Whois) -> Session:
        """Record that ``nick``'s connection is player ``name`` (its secret was just checked)."""
        key = self.fold(name)
        s = Session(key, self.canonical(name), nick, info.userhost, info.signon, "secret")
        for other, old in list(self.sessions.items()):  # one player per connection
            if other != key and self.fold(old.nick) == self.fold(nick):
                self.forget(old.display)
        self.sessions[key] = s
        if info.signon and info.userhost:
            self.ids.bind(s)  # survives a restart of the bot while this connection lasts
        if info.userhost:
            self.ids.trust(key, info.userhost)
        return s

    def restore(self, nick: str, info: Whois) -> Session | None:
        """After a restart of the bot: the saved proof of this very connection under the nick it
        was saved with, if any. ``user@host`` and the sign-on second do not tell two connections
        through one gateway in one second apart, so the nick must match as well: a nick changed
        while the bot was away proves again (nothing else tells it from that second one)."""
        if not info.signon or not info.userhost:
            return None
        for s in self.ids.sessions():
            if (s.same_connection(info.userhost, info.signon)
                    and self.fold(s.nick) == self.fold(nick)):
                live = Session(s.name, s.display, nick, s.userhost, s.signon, s.proof)
                self.sessions[s.name] = live
                return live
        return None

    def saved(self) -> list[Session]:
        return self.ids.sessions()

    def forget(self, name: str) -> None:
        key = self.fold(name)
        self.sessions.pop(key, None)
        self.ids.unbind(key)

    # --- what the server reports ---------------------------------------------------------------
    def renamed(self, old: str, new: str) -> str | None:
        """A NICK change; the player it concerns, if proven."""
        okey = self.fold(old)
        acct = self.accounts.pop(okey, None)
        if acct is not None:
            self.accounts[self.fold(new)] = (new, acct[1], acct[2])
            return self.canonical(acct[1])
        for key, s in list(self.sessions.items()):
            if self.fold(s.nick) == okey:
                self.sessions[key] = Session(s.name, s.display, new, s.userhost, s.signon,
                                             s.proof)
                self.ids.renamed(key, new)
                return s.display
        return None

    def proven_nicks(self) -> list[str]:
        """The nicks some proof or account binding holds now."""
        now = time.monotonic()
        return ([s.nick for s in self.sessions.values()]
                + [n for n, _, until in self.accounts.values() if until > now])

    def session_of(self, nick: str) -> Session | None:
        """The proven connection under ``nick`` now, if any."""
        key = self.fold(nick)
        return next((s for s in self.sessions.values() if self.fold(s.nick) == key), None)

    def still_holds(self, nick: str, info: Whois) -> bool:
        """Whether a WHOIS of ``nick`` shows the very connection (or account) proven under it."""
        if not info.exists:
            return False
        s = self.session_of(nick)
        if s is not None:
            return (bool(s.userhost) and info.userhost == s.userhost
                    and (not s.signon or not info.signon or info.signon == s.signon))
        acct = self.accounts.get(self.fold(nick))
        return acct is not None and info.identified_as(acct[1], self.fold)

    def end(self, nick: str) -> str | None:
        """Whoever held ``nick`` is no longer known to hold it (left, quit, or the server says
        it is offline or someone else): its proof and account binding end. The player it was."""
        return self.quit(nick)

    def quit(self, nick: str) -> str | None:
        """A QUIT: the connection ended, and its proof with it. The player it was, if any."""
        key = self.fold(nick)
        acct = self.accounts.pop(key, None)
        for name, s in list(self.sessions.items()):
            if self.fold(s.nick) == key:
                self.forget(name)
                return s.display
        return self.canonical(acct[1]) if acct is not None else None

    def lost(self) -> None:
        """The bot's own connection ended: nothing is proven on the next one until re-checked
        (the saved proofs stay: the players' connections may have lasted)."""
        self.sessions.clear()
        self.accounts.clear()
