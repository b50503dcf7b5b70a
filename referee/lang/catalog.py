"""The message catalogue: every sentence the bot says, by name, with parameters.

The sentences are data: ``referee/lang/messages/*.toml``, one file per area (``core.toml``,
``parser.toml``, ``discipline.toml``, ``irc.toml``, ``matrix.toml``, …), each a flat table of
``key = "text with {param} slots"``. A key may be defined in one file only (checked at load), so
areas never overwrite each other's words. Code asks for ``text("key", param=value)``; tests
assert keys, not wording.

Formatting is the same everywhere: integers are written with thousands separators
(``chips(12000)`` → ``12,000``, also applied to every ``int`` parameter that is a figure; an
identifier -- :data:`IDENTIFIERS`: a hand number, a flag id, a seat -- is written as it is), and
user text quoted back is cut to a short excerpt (:func:`excerpt`), so a 9,000-character message
never comes back whole.
"""

from __future__ import annotations

import string
import tomllib
from functools import cache
from typing import Any

from referee import resources
from referee.games import folders, on_change

MESSAGES_DIR = resources.MESSAGES
# The longest piece of a user's own text the bot quotes back.
EXCERPT_CHARS = 30
# Parameters that name something rather than count it: written as they are (ハンド#1000, flag
# #12, seat 3, port 8448), never with separators.
IDENTIFIERS = frozenset({"hand", "id", "seat", "button", "level", "index", "place", "port",
                         "seed", "line", "second", "year"})


class CatalogError(ValueError):
    """A broken catalogue file (a programming error caught by the tests, never by players)."""


@cache
def messages() -> dict[str, str]:
    """Every message, keyed by name, from all the files of :data:`MESSAGES_DIR` and every
    registered game's ``messages.toml`` (read again when the registry changes)."""
    game_files = [folder / "messages.toml" for folder in folders()]
    out: dict[str, str] = {}
    where: dict[str, str] = {}
    for path in [*sorted(MESSAGES_DIR.glob("*.toml")), *game_files]:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise CatalogError(f"{path.name}: {e}") from None
        for key, value in data.items():
            if not isinstance(value, str):
                raise CatalogError(f"{path.name}: {key} is not a string")
            if key in out:
                raise CatalogError(f"{path}: {key} is also defined in {where[key]}")
            out[key] = value
            where[key] = str(path.relative_to(path.parents[1]))
    return out


def chips(n: int) -> str:
    """An amount as the bot writes it everywhere: ``12,000``."""
    return f"{n:,}"


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """A user's text as the bot may quote it: one line, at most ``limit`` characters (…)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def params(key: str) -> set[str]:
    """The parameter names a message expects (for the catalogue's own tests)."""
    return {f for _, f, _, _ in string.Formatter().parse(messages()[key]) if f}


def text(key: str, /, **kw: Any) -> str:
    """Message ``key`` with its parameters filled in (ints with thousands separators).

    On the replay's hot path (a turn prompt and an acknowledgement per action): a message
    without parameters is returned as it is, and ``kw`` (a fresh dict) is formatted in place."""
    return fill(key, kw)


def fill(key: str, kw: dict[str, Any], /) -> str:
    """:func:`text` with its parameters in a dict the caller made for it (formatted in place):
    the voice renders every sentence through it."""
    try:
        template = messages()[key]
    except KeyError:
        raise CatalogError(f"no message {key!r}") from None
    if not kw and "{" not in template:
        return template
    for k, v in kw.items():
        if type(v) is int and k not in IDENTIFIERS:  # not bool (a subclass): True stays True
            kw[k] = f"{v:,}"
    try:
        return template.format_map(kw)
    except (KeyError, IndexError) as e:
        raise CatalogError(f"message {key!r} needs parameter {e}") from None


on_change(lambda: messages.cache_clear())


def file_error(path: object, e: OSError) -> str:
    """An operating system's error on ``path`` as one Japanese line (its ``strerror`` is in
    the system's language, English on a server): the common causes by name, any other by its
    errno code."""
    import errno

    keys = {errno.ENOENT: "cli.no_such_file", errno.EACCES: "cli.no_permission",
            errno.EPERM: "cli.no_permission", errno.EISDIR: "cli.is_directory",
            errno.ENOTDIR: "cli.not_directory", errno.ENOSPC: "cli.disk_full"}
    key = keys.get(e.errno or 0)
    if key is not None:
        return text(key, path=str(path))
    return text("cli.file_error", path=str(path),
                errno=errno.errorcode.get(e.errno or 0, type(e).__name__))
