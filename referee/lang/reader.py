"""The one command reader: whether a chat line is a ``!…`` command, and its name and arguments.

Every adapter and the service ask this one function, so a line is a command (or a secret) for
all of them or for none: a command mark of any width (``!``, ``！``: grammar/text.toml
``command_starts``), a name typed in full width by a Japanese IME (``！ｐａｓｓ``) and invisible
format characters slipped in anywhere (``!\u200bpass``) all read the same, through
:func:`referee.lang.normalize.nfkc`.

It also knows which commands carry a secret (grammar/commands.toml ``[pass]``) and gives the
form of such a line that may be stored or logged (:func:`redacted`): the command and any
``@name``, never the secret.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from referee.lang.normalize import invisible, nfkc
from referee.lang.vocab import load, marks

SECRET_MASK = "***"


@dataclass(frozen=True)
class CommandText:
    """A command line, read: ``name`` NFKC and case-folded as typed (an alias is not resolved
    here: :func:`referee.parse.command_name` does that), ``args`` NFKC, ``body`` the NFKC text
    after the mark."""

    name: str
    args: tuple[str, ...]
    body: str

    @property
    def word(self) -> str:
        """The command's name as typed (NFKC, case kept): what a refusal quotes back."""
        parts = self.body.split(maxsplit=1)
        return parts[0] if parts else ""

    @property
    def secret(self) -> bool:
        """Whether this command carries a secret (``!pass`` and its aliases)."""
        return self.name in secret_commands()


@cache
def secret_commands() -> frozenset[str]:
    return frozenset(nfkc(n).casefold() for n in load("commands.toml")["pass"]["names"])


def read_command(text: str) -> CommandText | None:
    """The command ``text`` is, or None when it is none (not starting with a command mark).

    Asked of every chat message, so a line whose first visible character cannot become a mark
    is answered at once, before any normalisation."""
    head = text.lstrip()[:1]
    if not head or (head.isascii() and head not in marks("command_starts")):
        return None
    if not head.isascii() and not _may_start(head):
        return None
    body = nfkc(text).strip()
    if not body or body[0] not in marks("command_starts"):
        return None
    body = body[1:].strip()
    parts = body.split()
    if not parts:
        return CommandText("", (), body)
    return CommandText(parts[0].casefold(), tuple(parts[1:]), body)


@cache
def _marks_before_nfkc() -> frozenset[str]:
    """Every character NFKC turns into something starting with a command mark (！, ﹗, ‼ …).
    The BMP only (scanned once, ~15 ms): no character beyond it decomposes to a mark of
    text.toml (tests/test_secret_redaction.py checks every plane)."""
    import unicodedata

    starts = marks("command_starts")
    return frozenset(chr(c) for c in range(0x10000)
                     if unicodedata.normalize("NFKC", chr(c))[:1] in starts)


@cache
def _may_start(head: str) -> bool:
    """Whether a line beginning with ``head`` may be a command: ``head`` becomes a mark under
    NFKC (！), or is invisible and may hide one behind it (a zero-width space)."""
    return head in _marks_before_nfkc() or invisible(head)


# What people type before a secret command when they meant to send it privately: an IRC client
# command (``/msg referee``, ``msg referee``, ``/query referee``) or an addressee (``referee:``).
_SLIP_LEAD = re.compile(r"(?:/?(?:msg|query|privmsg|notice|m|q)\s+\S+\s+"
                        r"|[^\s:,]{1,64}\s*[:,]\s*)?", re.IGNORECASE)


def slipped_secret(text: str) -> tuple[str, ...] | None:
    """The arguments of a secret command typed in a form that is not the command itself but
    shows the secret all the same -- after ``/msg NAME`` or ``msg NAME`` or an addressee
    ``NAME:``, with the mark doubled (``!!pass X``), or without the space (``!passX``, the
    whole line); None for any other line (the command itself included: :func:`read_command`
    reads that)."""
    if _marks_before_nfkc().isdisjoint(text):
        return None
    cmd = read_command(text)
    if cmd is not None and cmd.secret:
        return None
    body = nfkc(text).strip()
    lead = _SLIP_LEAD.match(body)
    body = body[lead.end():] if lead is not None else body
    starts = marks("command_starts")
    if not body or body[0] not in starts:
        return None
    body = body.lstrip("".join(starts)).lstrip()
    word, _, rest = body.partition(" ")
    folded = word.casefold()
    for name in sorted(secret_commands(), key=len, reverse=True):
        if folded == name:
            return tuple(rest.split())
        if folded.startswith(name) and not rest.strip():
            # glued (``!passX``): only as the whole line, so ``!passport x`` stays chat
            return (word[len(name):],)
    return None


def secret_args(text: str) -> tuple[str, ...] | None:
    """The arguments of a secret-carrying line, as the command or as a slip (see
    :func:`slipped_secret`); None when ``text`` carries no secret."""
    cmd = read_command(text)
    if cmd is not None and cmd.secret:
        return cmd.args
    return slipped_secret(text)


def is_secret(text: str) -> bool:
    """Whether ``text`` carries a secret, as a command or a slip of one (asked of every stored
    message: a line without any character that could become a command mark is none, at once)."""
    if _marks_before_nfkc().isdisjoint(text):
        return False
    return secret_args(text) is not None


def redacted(text: str) -> str:
    """``text`` as it may be kept: a secret-carrying command (or a slip of one) with each
    secret replaced by a mask (an ``@name`` stays: it names, it proves nothing); any other text
    unchanged."""
    cmd = read_command(text)
    if cmd is not None and cmd.secret:
        shown = [a if a.startswith("@") else SECRET_MASK for a in cmd.args]
        return " ".join(["!" + cmd.name, *shown])
    args = slipped_secret(text)
    if args is None:
        return text
    return " ".join(["!pass", *(a if a.startswith("@") else SECRET_MASK for a in args)])
