"""Whether the holder of a proven IRC nick is still the connection that proved it.

A proof (``!pass``) or an account binding belongs to one connection under one nick. The bot
learns that the connection left that nick in three ways, each ending the proof at once:

* **In a shared channel** it sees the holder's ``QUIT``, ``NICK``, ``PART`` and ``KICK`` (a
  ``NICK`` it sees is followed: the server says the same connection took the new nick; a
  ``PART`` or ``KICK`` ends the proof -- who leaves the table's channel proves again).
* **MONITOR** (where the server offers it, ISUPPORT ``MONITOR``): every proven nick is watched;
  ``731`` (offline) ends its proof, ``730`` (online) under another ``user@host`` too.
* **Otherwise** ISON is asked every few seconds for the proven nicks the bot shares no channel
  with (an absent nick ends its proof), and before any private line goes to such a nick a WHOIS
  checks that it is still the proven connection (``user@host`` and sign-on time, or the
  account), since a quit and a retake can fall between two ISONs.

This module keeps who is where (:attr:`members`) and what the server was asked; the identity
book (:mod:`referee.adapters.irc_identity`) keeps the proofs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable

log = logging.getLogger("referee.irc")

ISON_EVERY = 5.0  # seconds between two ISONs about unshared proven nicks
_ISON_BYTES = 400  # nicks per ISON line (the line limit is 512 with the command)


class Presence:
    """Who shares a channel with the bot, what MONITOR watches, and when each unshared proven
    nick was last checked. ``send`` writes one raw line to the server; ``fold`` is the server's
    case mapping."""

    def __init__(self, fold: Callable[[str], str], send: Callable[[str], None]) -> None:
        self.fold = fold
        self.send = send
        self.members: dict[str, set[str]] = {}  # folded nick -> folded channels shared with us
        self.monitor_limit: int | None = None  # ISUPPORT MONITOR (None: not offered)
        self.watched: set[str] = set()  # folded nicks given to MONITOR
        self.checked: dict[str, float] = {}  # folded nick -> when a WHOIS last confirmed it
        self.last_ison = 0.0
        self.asked: list[set[str]] = []  # folded nicks of each ISON in flight, oldest first

    # --- what the server says about channels --------------------------------------------------
    def joined(self, channel: str, nick: str) -> None:
        self.members.setdefault(self.fold(nick), set()).add(self.fold(channel))

    def names(self, channel: str, nicks: Iterable[str]) -> None:
        """A NAMES reply (353): these nicks are in ``channel`` (prefixes like ``@`` dropped)."""
        for n in nicks:
            n = n.lstrip("~&@%+")
            if n:
                self.joined(channel, n)

    def left(self, channel: str, nick: str) -> None:
        chans = self.members.get(self.fold(nick))
        if chans is not None:
            chans.discard(self.fold(channel))
            if not chans:
                self.members.pop(self.fold(nick), None)

    def we_left(self, channel: str) -> None:
        """The bot itself left ``channel``: nobody is known to be there any more."""
        key = self.fold(channel)
        for nick in list(self.members):
            self.left(key, nick)

    def gone(self, nick: str) -> None:
        self.members.pop(self.fold(nick), None)
        self.checked.pop(self.fold(nick), None)

    def renamed(self, old: str, new: str) -> None:
        chans = self.members.pop(self.fold(old), None)
        if chans:
            self.members[self.fold(new)] = chans
        self.checked.pop(self.fold(old), None)
        self.checked.pop(self.fold(new), None)

    def lost(self) -> None:
        """The bot's connection ended: nothing of it is known on the next."""
        self.members.clear()
        self.watched.clear()
        self.checked.clear()
        self.monitor_limit = None

    def shares_channel(self, nick: str) -> bool:
        return bool(self.members.get(self.fold(nick)))

    # --- following proven nicks ---------------------------------------------------------------
    def followed(self, nick: str) -> bool:
        """Whether the bot would learn at once that ``nick``'s holder left it (a shared channel,
        or MONITOR watching it): then no WHOIS is needed before private lines go to it."""
        key = self.fold(nick)
        return self.shares_channel(nick) or key in self.watched

    def watch(self, nick: str) -> None:
        """Follow a nick just proven (MONITOR where the server has it, else ISON)."""
        key = self.fold(nick)
        if self.monitor_limit is None or key in self.watched:
            return
        if self.monitor_limit and len(self.watched) >= self.monitor_limit:
            log.warning("MONITOR is full (%d nicks): %s is followed by ISON and WHOIS",
                        self.monitor_limit, nick)
            return
        self.watched.add(key)
        self.send(f"MONITOR + {nick}")

    def unwatch(self, nick: str) -> None:
        key = self.fold(nick)
        self.checked.pop(key, None)
        if key in self.watched:
            self.watched.discard(key)
            self.send(f"MONITOR - {nick}")

    def confirmed(self, nick: str) -> None:
        """A WHOIS just showed ``nick`` is still the proven connection."""
        self.checked[self.fold(nick)] = time.monotonic()

    def confirmed_since(self, nick: str, since: float) -> bool:
        return self.checked.get(self.fold(nick), -1.0) >= since

    def ison_due(self, proven: Iterable[str], now: float) -> list[str]:
        """The ISON lines to send now about proven nicks nobody follows (every ISON_EVERY s)."""
        if now - self.last_ison < ISON_EVERY:
            return []
        nicks = [n for n in proven if not self.followed(n)]
        if not nicks:
            return []
        self.last_ison = now
        lines, cur = [], ""
        for n in nicks:
            if cur and len(cur) + 1 + len(n) > _ISON_BYTES:
                lines.append(cur)
                cur = ""
            cur = f"{cur} {n}".strip()
        lines.append(cur)
        del self.asked[:-8]  # answers never came (a server without ISON): do not grow
        for line in lines:
            self.asked.append({self.fold(n) for n in line.split()})
        return [f"ISON {line}" for line in lines]

    def ison_reply(self, present: Iterable[str]) -> set[str]:
        """An ISON answer (303): the folded nicks asked about that are not online."""
        if not self.asked:
            return set()
        asked = self.asked.pop(0)
        return asked - {self.fold(n) for n in present}
