"""The referee's package data, found in one place: the players' language (``grammar/``), the
game definitions (``games/``), the message catalogue (``lang/messages/``) and the example
transcripts (``examples/``).

They ship inside the package (pyproject's package-data), so a wheel installed anywhere carries
them, and every reader asks this module where they are instead of walking up from its own
file. :mod:`importlib.resources` locates them; the directories must be real ones on disk,
because Lark opens grammar files (and their ``%import``s) by path -- which is what pip's
installs and editable checkouts give.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

__all__ = ["EXAMPLES", "GAMES", "GRAMMAR", "MESSAGES", "PACKAGE", "ResourceError"]


class ResourceError(RuntimeError):
    """The package data is missing or not on a file system (a broken install)."""


def _directory(package: str, name: str) -> Path:
    found = files(package) / name
    if not isinstance(found, Path) or not found.is_dir():
        raise ResourceError(f"{package}: package data '{name}' is missing or not a directory on "
                            f"disk ({found}); reinstall referee (pip install referee)")
    return found.resolve()


#: The installed ``referee`` package directory.
PACKAGE = _directory("referee", ".")
#: The players' language as data: grammars (``*.lark``), vocabulary and command words.
GRAMMAR = _directory("referee", "grammar")
#: One definition file per game (``GAME.toml``).
GAMES = _directory("referee", "games")
#: The message catalogue: everything the bot says (``*.toml``).
MESSAGES = _directory("referee", "lang/messages")
#: Example transcripts (``referee replay`` them; the tests and the wheel check do).
EXAMPLES = _directory("referee", "examples")

