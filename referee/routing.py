"""Which table a private message concerns: the one rule every chat adapter uses.

A private message (a Matrix DM, an IRC query) has no table of its own. It concerns:

1. the table it **names** -- a token of the message that is the table's room id or one of the
   names the adapter knows for that room (a Matrix alias ``#poker:example.org``, an IRC channel
   ``#poker``); the token is taken out of the text, so ``!deal #poker`` is ``!deal`` at #poker;
2. else the table where the sender **sits**, when there is exactly one;
3. else none: the service then refuses table commands with a reason (and ``!open`` is refused in
   a private message anyway: a table is opened in its room, where everyone sees it).

Pure (no I/O): the adapter passes the names it knows; the answer depends only on the referee's
tables, so a rebuild that re-runs the saved inputs (which hold the chosen room) agrees.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from referee.lang.normalize import nfkc
from referee.lang.reader import read_command


class Tables(Protocol):
    """What the rule reads of :class:`referee.service.Referee`."""

    def rooms(self) -> list[str]: ...

    def seated_names(self, room: str) -> set[str]: ...


@dataclass(frozen=True)
class PrivateRoute:
    room: str | None  # the table's room; None: no single table (the service says why)
    text: str  # the message, without the token that named the table
    named: bool = False  # the table was named in the message (not found from the seat)


def private_route(referee: Tables, sender: str, text: str,
                  names: Mapping[str, str] | None = None) -> PrivateRoute:
    """The table a private message from ``sender`` concerns (see the module docstring).

    ``names`` maps what a player may type for a table (alias, channel) to its room; a room id
    that is a table always counts."""
    tables = set(referee.rooms())
    names = names or {}
    tokens = text.split()
    # the command itself is no table, even if it looks like a room id ("!abc:hs")
    name_at = next((i for i, tok in enumerate(tokens) if nfkc(tok)), None) if (
        read_command(text) is not None) else None
    for i, tok in enumerate(tokens):
        if i == name_at:
            continue
        room = tok if tok in tables else names.get(tok)
        if room is not None and room in tables:
            rest = " ".join(tokens[:i] + tokens[i + 1:])
            return PrivateRoute(room, rest, named=True)
    seated = [room for room in referee.rooms() if sender in referee.seated_names(room)]
    if len(seated) == 1:
        return PrivateRoute(seated[0], text)
    return PrivateRoute(None, text)
