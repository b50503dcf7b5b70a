"""IRC identities in the referee's database: per-player secrets and proven connections.

On a network without services a nick proves nothing, so a player proves who they are once per
connection with a secret (``!pass`` by private message, docs/irc.md). The secret is kept only as
a salted scrypt digest (:func:`hash_secret`); the connection it proved is remembered by what the
server says about it -- ``user@host`` and its sign-on time (WHOIS 311/317) -- so the proof
survives a restart of the bot (the player's connection did not end) and is worthless to anyone
who connects later under the same nick (a later sign-on time). A connection the bot sees end
(QUIT) is forgotten at once.

Both tables (migration 6) live outside the event log on purpose: a secret must never be part of
a replayable input. The IRC adapter folds names (IRC case mapping) before calling in here.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from referee.store.base import StoreError

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1  # ~16 MiB and ~50 ms per check on this machine
SALT_BYTES = 16
MIN_SECRET = 4
MAX_SECRET = 200


def hash_secret(secret: str, salt: bytes | None = None) -> tuple[bytes, bytes, str]:
    """(salt, digest, params) for ``secret`` with a fresh random salt unless one is given."""
    salt = os.urandom(SALT_BYTES) if salt is None else salt
    digest = hashlib.scrypt(secret.encode("utf-8"), salt=salt, n=SCRYPT_N, r=SCRYPT_R,
                            p=SCRYPT_P, dklen=32)
    return salt, digest, f"scrypt:n={SCRYPT_N},r={SCRYPT_R},p={SCRYPT_P}"


def verify_secret(secret: str, salt: bytes, digest: bytes, params: str) -> bool:
    """Whether ``secret`` matches a stored digest (constant-time comparison)."""
    try:
        kind, _, rest = params.partition(":")
        values = dict(kv.split("=", 1) for kv in rest.split(","))
        n, r, p = int(values["n"]), int(values["r"]), int(values["p"])
    except (ValueError, KeyError):
        return False
    if kind != "scrypt":
        return False
    got = hashlib.scrypt(secret.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=len(digest),
                         maxmem=256 * 1024 * 1024)
    return hmac.compare_digest(got, digest)


@dataclass(frozen=True)
class Session:
    """A connection proven to be player ``display`` (``name``: the folded key)."""

    name: str
    display: str
    nick: str
    userhost: str
    signon: int
    proof: str = "secret"

    def same_connection(self, userhost: str, signon: int) -> bool:
        return signon > 0 and self.signon == signon and self.userhost == userhost


class Identities:
    """The two tables, on a connection of their own store (``Store.conn``)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def _write(self, sql: str, args: tuple[Any, ...]) -> None:
        try:
            own = not self.conn.in_transaction
            if own:
                self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute(sql, args)
            if own:
                self.conn.execute("COMMIT")
        except sqlite3.Error as e:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise StoreError(f"cannot save an IRC identity: {e}") from None

    # --- secrets ---------------------------------------------------------------------------
    def has_secret(self, name: str) -> bool:
        return self.conn.execute("SELECT 1 FROM irc_secrets WHERE name = ?",
                                 (name,)).fetchone() is not None

    def set_secret(self, name: str, display: str, secret: str) -> None:
        self.set_digest(name, display, *hash_secret(secret))

    def set_digest(self, name: str, display: str, salt: bytes, digest: bytes,
                   params: str, by: str | None = None) -> None:
        """Store a digest made by :func:`hash_secret` (the caller may hash off its event loop);
        ``by``: the nick that set it (None: the operator). A new secret is never void."""
        self._write(
            "INSERT INTO irc_secrets(name, display, salt, digest, params, set_at, set_by)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET"
            " display = excluded.display, salt = excluded.salt, digest = excluded.digest,"
            " params = excluded.params, set_at = excluded.set_at, set_by = excluded.set_by,"
            " void_at = NULL, void_userhost = NULL, void_signon = NULL",
            (name, display, salt, digest, params, time.time(), by))

    def refold(self, fold: Callable[[str], str]) -> list[str]:
        """Key every secret by ``fold`` of its name as written (the server's CASEMAPPING, which
        ``referee irc-secret`` cannot know: ngIRCd's ascii keeps ``[`` where rfc1459 folds it to
        ``{``). The names left as they were because another secret holds the new key."""
        rows = [(str(k), str(d)) for k, d in
                self.conn.execute("SELECT name, display FROM irc_secrets").fetchall()]
        keys = {k for k, _ in rows}
        clashes: list[str] = []
        for key, display in rows:
            new = fold(display)
            if new == key:
                continue
            if new in keys:
                clashes.append(display)
                continue
            self._write("UPDATE irc_secrets SET name = ? WHERE name = ?", (new, key))
            keys.discard(key)
            keys.add(new)
        return clashes

    def void(self, name: str, userhost: str, signon: int) -> None:
        """``name``'s secret was seen where others read it: it proves nothing from now on.
        The connection that showed it (``userhost``, ``signon``) may set the next one."""
        self._write("UPDATE irc_secrets SET void_at = ?, void_userhost = ?, void_signon = ?"
                    " WHERE name = ?", (time.time(), userhost, signon, name))

    def voided(self, name: str) -> tuple[str, int] | None:
        """(user@host, sign-on) of the connection that showed ``name``'s void secret; None
        while the secret is good (or there is none)."""
        row = self.conn.execute("SELECT void_userhost, void_signon FROM irc_secrets"
                                " WHERE name = ? AND void_at IS NOT NULL", (name,)).fetchone()
        return None if row is None else (str(row[0] or ""), int(row[1] or 0))

    def set_info(self, name: str) -> tuple[float, str | None] | None:
        """(when, by which nick) ``name``'s secret was set last."""
        row = self.conn.execute("SELECT set_at, set_by FROM irc_secrets WHERE name = ?",
                                (name,)).fetchone()
        return None if row is None else (float(row[0]), None if row[1] is None else str(row[1]))

    # --- wrong guesses and trusted connections ----------------------------------------------
    def blocked_until(self, key: str) -> float:
        """The wall time before which ``key`` may not guess again (0: it may now)."""
        row = self.conn.execute("SELECT until FROM irc_guesses WHERE key = ?",
                                (key,)).fetchone()
        return 0.0 if row is None else float(row[0])

    def guessed_wrong(self, key: str, now: float, free: int, base: float, cap: float,
                      forget: float) -> float:
        """Count a wrong secret from ``key``: the first ``free`` in a row cost nothing, then
        each doubles the wait (``base`` s, at most ``cap``); a key quiet for ``forget`` s
        starts again. The time it may guess again."""
        row = self.conn.execute("SELECT fails, last_at FROM irc_guesses WHERE key = ?",
                                (key,)).fetchone()
        fails = 0 if row is None or now - float(row[1]) > forget else int(row[0])
        fails += 1
        until = now + min(cap, base * 2 ** (fails - free)) if fails >= free else 0.0
        self._write("INSERT INTO irc_guesses(key, fails, last_at, until) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT(key) DO UPDATE SET fails = excluded.fails,"
                    " last_at = excluded.last_at, until = excluded.until",
                    (key, fails, now, until))
        return until

    def guessed_right(self, key: str) -> None:
        self._write("DELETE FROM irc_guesses WHERE key = ?", (key,))

    def trust(self, name: str, userhost: str) -> None:
        """``userhost`` proved ``name``: its owner's own connection, spared the name's limit."""
        self._write("INSERT INTO irc_trusted(name, userhost, proven_at) VALUES (?, ?, ?)"
                    " ON CONFLICT(name, userhost) DO UPDATE SET proven_at = excluded.proven_at",
                    (name, userhost, time.time()))

    def trusted(self, name: str, userhost: str) -> bool:
        return self.conn.execute("SELECT 1 FROM irc_trusted WHERE name = ? AND userhost = ?",
                                 (name, userhost)).fetchone() is not None

    def digest(self, name: str, void: bool = False) -> tuple[bytes, bytes, str] | None:
        """(salt, digest, params) of ``name``'s secret, for :func:`verify_secret`; None when
        there is none or it is void (``void=True``: a void one too)."""
        row = self.conn.execute("SELECT salt, digest, params FROM irc_secrets WHERE name = ?"
                                + ("" if void else " AND void_at IS NULL"),
                                (name,)).fetchone()
        return None if row is None else (bytes(row[0]), bytes(row[1]), str(row[2]))

    def check_secret(self, name: str, secret: str) -> bool:
        stored = self.digest(name)
        return stored is not None and verify_secret(secret, *stored)

    def display(self, name: str) -> str | None:
        row = self.conn.execute("SELECT display FROM irc_secrets WHERE name = ?",
                                (name,)).fetchone()
        return None if row is None else str(row[0])

    # --- proven connections ---------------------------------------------------------------
    def sessions(self) -> list[Session]:
        rows = self.conn.execute(
            "SELECT name, display, nick, userhost, signon, proof FROM irc_sessions ORDER BY name")
        return [Session(str(a), str(b), str(c), str(d), int(e), str(f))
                for a, b, c, d, e, f in rows]

    def bind(self, s: Session) -> None:
        self._write(
            "INSERT INTO irc_sessions(name, display, nick, userhost, signon, proof, bound_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET"
            " display = excluded.display, nick = excluded.nick, userhost = excluded.userhost,"
            " signon = excluded.signon, proof = excluded.proof, bound_at = excluded.bound_at",
            (s.name, s.display, s.nick, s.userhost, s.signon, s.proof, time.time()))

    def renamed(self, name: str, nick: str) -> None:
        self._write("UPDATE irc_sessions SET nick = ? WHERE name = ?", (nick, name))

    def unbind(self, name: str) -> None:
        self._write("DELETE FROM irc_sessions WHERE name = ?", (name,))


def valid_secret(secret: str) -> bool:
    return MIN_SECRET <= len(secret) <= MAX_SECRET and not any(c.isspace() for c in secret)
