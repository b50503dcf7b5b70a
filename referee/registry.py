"""The one registry of what can be asked of the service: chat commands (``!sit`` …) and
directives (a transcript's ``# seat:``, a console's operations).

Every handler takes the input's :class:`~referee.turn.Turn`; a command gets its arguments as
typed words, a directive its JSON arguments. The modules that own a kind of command register
it here themselves (:mod:`referee.commands`, :mod:`referee.discipline`, :mod:`referee.directives`);
:mod:`referee.commands` imports the discipline's, so its lookups (:func:`referee.commands.run`,
:func:`referee.commands.moderator_only`) see every command; the service imports the directives.
Names and aliases are the grammar's (``grammar/commands.lark``, read by
:func:`referee.parse.command_name`); the words a command takes as arguments are data
(``grammar/commands.toml``); what a command says is the catalogue's.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from referee import resources
from referee.events import line
from referee.rules import IllegalAction
from referee.turn import Turn

CommandHandler = Callable[[Turn, list[str]], None]
DirectiveHandler = Callable[[Turn, dict[str, Any]], None]


@dataclass(frozen=True)
class Command:
    """One chat command. ``table``: it acts on a table (in a private message the table must be
    named or be the sender's). Its help is the catalogue's line ``help_NAME``."""

    name: str
    run: CommandHandler
    moderator: bool = False
    table: bool = False
    #: an argument names another player's record (``!bank @bob``): for moderators only
    others: bool = False


COMMANDS: dict[str, Command] = {}
DIRECTIVES: dict[str, DirectiveHandler] = {}


def command(name: str, *, moderator: bool = False, table: bool = False, others: bool = False
            ) -> Callable[[CommandHandler], CommandHandler]:
    def register(fn: CommandHandler) -> CommandHandler:
        COMMANDS[name] = Command(name, fn, moderator=moderator, table=table, others=others)
        return fn
    return register


def directive(name: str) -> Callable[[DirectiveHandler], DirectiveHandler]:
    def register(fn: DirectiveHandler) -> DirectiveHandler:
        DIRECTIVES[name] = fn
        return fn
    return register


def listed() -> list[str]:
    """Every command's name in the order of the grammar's ``start`` rule (the order ``!help``
    lists them); a registered command the grammar does not name comes last."""
    order = {name: i for i, name in enumerate(_grammar_order())}
    return sorted(COMMANDS, key=lambda n: order.get(n, len(order)))


@cache
def _grammar_order() -> tuple[str, ...]:
    source = (resources.GRAMMAR / "commands.lark").read_text(encoding="utf-8")
    start = source.split("\nstart:", 1)[1].split("\n\n", 1)[0]
    return tuple(name.strip() for name in start.split("|"))


@cache
def words() -> dict[str, Any]:
    """``grammar/commands.toml``: alias arguments, !clock and !rank words, private requests."""
    return tomllib.loads((resources.GRAMMAR / "commands.toml").read_text(encoding="utf-8"))


def target(turn: Turn, args: list[str], what: str) -> str:
    """Whose record a command looks at: the ``@name`` argument (a moderator's right, ``what``
    names the record in the refusal), else the sender's own."""
    if args:
        who = user_arg(args[0])
        if who != turn.sender and not turn.desk.is_moderator(turn.sender):
            raise IllegalAction("others_moderator_only", what=line(what))
        return who
    return turn.sender


def user_arg(arg: str) -> str:
    """A command's ``@name`` argument as the player's name (a bare name stays as it is); a name
    with nothing of a name in it (``@``, ``@@``, punctuation) is refused, never credited."""
    name = arg[1:] if arg.startswith("@") and len(arg) > 1 else arg
    if not any(c.isalnum() for c in name):
        from referee.rules import IllegalAction

        raise IllegalAction("bad_player_name", word=name[:20])
    return name
