"""What the moderators' console's server (:mod:`referee.console`) and its build
(:mod:`referee.console_build`) both use: where its files are, the code's digest that a kept
console database is known by, how values read (Japanese labels, table names) and what a
build reports. Light on purpose: a start that serves a kept database imports this and not
the build."""

from __future__ import annotations

import hashlib
import sqlite3
import zlib
from dataclasses import dataclass
from datetime import timedelta, timezone
from functools import cache
from pathlib import Path
from typing import Any

from referee.lang.catalog import messages, text

JST = timezone(timedelta(hours=9), "JST")
TEMPLATES = Path(__file__).resolve().parent / "console_templates"
"""Datasette templates of our own (a record page shows one column per line: row.html), the
console database's schema (schema.sql) and the Datasette metadata (metadata.toml: Japanese
titles, descriptions, canned queries and what the hand log reads in the room's lines)."""


def label(group: str, value: str, **kw: Any) -> str:
    """A value's Japanese name (the catalogue's ``console_GROUP_VALUE``), else the value."""
    key = f"console_{group}_{value}"
    return text(key, **kw) if key in messages() else value


def table_name(table: int | None) -> str:
    """A table as moderators name it (its number in the order tables opened), never the id of
    the room it is played in."""
    return text("console_table_name", table=table) if table is not None \
        else text("console_table_unnumbered")


def ledger_reason(reason: str) -> str:
    """A ledger reason (``penalty:interference``, ``grant:…``) as a moderator reads it."""
    head, _, rest = reason.partition(":")
    if head == "penalty" and rest:
        return text("console_reason_penalty", kind=label("kind", rest))
    if head == "penalty_reversed" and rest:
        return text("console_reason_penalty_reversed", kind=label("kind", rest))
    if head == "grant":  # (「grant」 alone: a grant without a reason typed)
        return text("console_reason_grant", why=rest) if rest not in ("", "grant") \
            else text("grant_reason")
    return label("reason", reason.replace(" ", "_"))


@dataclass
class Built:
    """What :func:`build` wrote, for the start-up line and the tests."""

    hands: int = 0
    penalties: int = 0
    flags: int = 0
    players: int = 0
    seconds: float = 0.0


@cache
def code_digest() -> bytes:
    """The console database's makers: a change to any gives another database."""
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted([here / "console.py", here / "console_base.py", here / "console_build.py",
                        *(here / "records").glob("*.py"),
                        TEMPLATES / "schema.sql", *(here / "lang" / "messages").glob("*.toml")]):
        h.update(path.read_bytes())
    return h.digest()


def stamp_of(seq: int, chain: bytes) -> tuple[int, int]:
    """A console database's stamp (``PRAGMA user_version``, ``PRAGMA application_id``): the
    log's row it was built up to and an identity of that row's chain value (which covers every
    row before it) and of this code."""
    return seq, zlib.crc32(chain + code_digest()) & 0x7FFFFFFF


def file_stamp(dest: Path) -> tuple[int, int] | None:
    """The stamp the console database ``dest`` carries ((0, 0): none yet), or None if it
    cannot be read."""
    try:
        conn = sqlite3.connect(f"file:{dest.resolve()}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        return (int(conn.execute("PRAGMA user_version").fetchone()[0]),
                int(conn.execute("PRAGMA application_id").fetchone()[0]))
    except sqlite3.Error:
        return None
    finally:
        conn.close()


class Stopped(Exception):
    """A build running behind the served console was asked to stop (the console is closing):
    nothing it wrote is kept."""


class Progress:
    """What a build running behind the served console has read so far, for the notice on its
    pages, and the console's way to stop it when it closes (the walk looks once an input)."""

    def __init__(self) -> None:
        self.hands = 0
        self.stopping = False

    def stop(self) -> None:
        self.stopping = True
