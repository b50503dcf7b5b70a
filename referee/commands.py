"""The chat commands: one registry (name, who may run it, whether it acts on a table, its help)
and their handlers.

Names and aliases are the grammar's (``grammar/commands.lark``, read by
:func:`referee.parse.command_name`); the words a command takes as arguments are data
(``grammar/commands.toml``); what a command says is the catalogue's (``commands.toml``). The
pipeline (:mod:`referee.service`) calls :func:`run` for every ``!…`` message; adapters ask
:func:`moderator_only` instead of keeping a list of their own. Leaks, flags and penalties are
:mod:`referee.discipline`'s; these handlers only hand them the arguments.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from referee import guide, resources
from referee.definitions import GAME_IDS
from referee.events import Seated
from referee.lang.catalog import excerpt, text
from referee.lang.reader import CommandText
from referee.parse import command_name
from referee.rules import IllegalAction, OptionError, create

if TYPE_CHECKING:
    from referee.service import Referee, Table, _Ctx

__all__ = ["COMMANDS", "Command", "command_name", "moderator_only", "run"]

Handler = Callable[["Referee", "_Ctx", str, str, list[str], str], None]

_WORDS = resources.GRAMMAR / "commands.toml"


@cache
def words() -> dict[str, Any]:
    """``grammar/commands.toml``: alias arguments, !clock and !rank words, private requests."""
    return tomllib.loads(_WORDS.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Command:
    """One chat command. ``table``: it acts on a table (in a private message the table must be
    named or be the sender's). ``help`` is its catalogue line (``help_NAME``)."""

    name: str
    run: Handler
    moderator: bool = False
    table: bool = False
    #: an argument names another player's record (``!bank @bob``): for moderators only
    others: bool = False

    @property
    def help(self) -> str:
        return text(f"help_{self.name}")


COMMANDS: dict[str, Command] = {}


def command(name: str, *, moderator: bool = False, table: bool = False, others: bool = False
            ) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        COMMANDS[name] = Command(name, fn, moderator=moderator, table=table, others=others)
        return fn
    return register


def moderator_only(typed: CommandText | None) -> bool:
    """Whether the command ``typed`` needs a moderator (looking at someone else's bank or
    record too)."""
    if typed is None or not typed.word:
        return False
    cmd = COMMANDS.get(command_name(typed.word))
    return cmd is not None and (cmd.moderator or (cmd.others and len(typed.args) > 0))


def run(ref: Referee, ctx: _Ctx, room: str, sender: str, typed: CommandText, dm: bool) -> None:
    """A ``!…`` message, read (:func:`referee.lang.reader.read_command`): look it up, check who
    may run it, run it; a refusal is said to the sender (privately when typed privately)."""
    word = typed.word
    reply_to = sender if dm else "room"
    if not word:
        ref._say(ctx, text("command_empty"), to=reply_to)
        return
    cmd = COMMANDS.get(command_name(word))
    if cmd is None:
        ref._say(ctx, text("command_unknown", word=excerpt(word)), to=reply_to)
        return
    args = list(words()["alias_args"].get(word, [])) + list(typed.args)
    if cmd.moderator and not ref.is_moderator(sender):
        ref._say(ctx, text("command_moderator_only", sender=sender, word=excerpt(word)),
                 to=reply_to)
        return
    if dm and _private_refusal(ref, ctx, room, sender, cmd, reply_to):
        return
    table = ref.tables.get(room)
    try:
        cmd.run(ref, ctx, room, sender, args, reply_to)
    except IllegalAction as e:
        ref._say(ctx, text("command_refused", sender=sender, reason=e.reason), to=reply_to)
    except OptionError as e:
        ref._say(ctx, text("command_bad_options", sender=sender, reason=str(e)), to=reply_to)
    if table is not None:
        ref._after(ctx, table)


def _private_refusal(ref: Referee, ctx: _Ctx, room: str, sender: str, cmd: Command,
                     to: str) -> bool:
    """A command typed in a private message: ``room`` is the table referee.routing chose
    (or not a table when none could be); a table is never opened from one."""
    if cmd.name == "open":
        ref._say(ctx, text("private_open_refused", sender=sender), to=to)
        return True
    if cmd.table and room not in ref.tables:
        ref._say(ctx, text("private_no_table", sender=sender, command=cmd.name), to=to)
        return True
    return False


def need_table(ref: Referee, room: str) -> Table:
    t = ref.tables.get(room)
    if t is None:
        raise IllegalAction("no_table")
    return t


def user_arg(arg: str) -> str:
    """A command's ``@name`` argument as the player's name (a bare name stays as it is)."""
    return arg[1:] if arg.startswith("@") and len(arg) > 1 else arg


def _usage(name: str) -> IllegalAction:
    return IllegalAction("usage", help=COMMANDS[name].help)


# --- the commands, in the order !help lists them -------------------------------------------------
@command("open", moderator=True)
def _open(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    from referee.service import Table

    games = " ".join(GAME_IDS)
    if not args:
        raise IllegalAction("open_no_game", games=games)
    game = args[0]
    if game not in GAME_IDS:
        raise IllegalAction("game_unknown", game=excerpt(game), games=games)
    if room in ref.tables:
        raise IllegalAction("open_exists")
    options: dict[str, str] = {}
    for kv in args[1:]:
        if "=" not in kv:
            raise IllegalAction("open_bad_option", option=excerpt(kv))
        k, v = kv.split("=", 1)
        options[k] = v
    auto = options.pop("auto", "off")
    if auto not in ("on", "off"):
        raise IllegalAction("open_bad_auto")
    engine = create(game, options)
    carried = ref.carried.get(game)
    if carried is not None:  # what the last table of this game handed on (deuces' bonus area)
        engine.carry(carried)
    ref.open_table(ctx, Table(room, game, options, engine, auto=auto == "on", live=True))
    ref._say(ctx, text("opened", game=engine.definition.name,
                       auto=text("opened_auto") if auto == "on" else ""))


@command("close", moderator=True, table=True)
def _close(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    t = need_table(ref, room)
    t.closing = True
    if t.engine.in_hand:
        ref._say(ctx, text("close_after_hand"))
    # run() calls _after, which cashes everyone out when no hand is running


@command("sit", table=True)
def _sit(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    t = need_table(ref, room)
    if t.closing:
        raise IllegalAction("sit_closing")
    eng = t.engine
    if eng.is_seated(sender):
        raise IllegalAction("sit_already")
    taken = {s.seat for s in eng.seated()}
    most = eng.definition.seats.max
    if args:
        try:
            seat = int(args[0])
        except ValueError:
            raise IllegalAction("sit_bad_seat", word=excerpt(args[0])) from None
        if not 1 <= seat <= most:
            raise IllegalAction("sit_seat_range", max=most)
        if seat in taken:
            raise IllegalAction("sit_seat_taken", seat=seat)
    else:
        free = [n for n in range(1, most + 1) if n not in taken]
        if not free:
            raise IllegalAction("sit_no_free_seat")
        seat = free[0]
    points = ref.bank.balance(sender)
    # what the bank pays and the chips it buys (a max buy-in, a tournament's entry: a free
    # one seats a player with no points); raises before anything changes
    buy = eng.buy_in(max(points, 0))
    if buy.chips <= 0:
        raise IllegalAction("sit_no_points", points=points)
    events = eng.sit(seat, sender, buy.chips)
    ref._emit(ctx, [*events, Seated(player=sender, seat=seat, chips=buy.chips)])
    if buy.points:  # (a free tournament takes nothing)
        ref._bank_change(ctx, sender, -buy.points, buy.reason, buy.reason)
    if not any(e.event == "say" for e in events):
        ref._say(ctx, text("seat_sat", player=sender, seat=seat, chips=buy.chips))


@command("leave", table=True)
def _leave(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    t = need_table(ref, room)
    if not t.engine.is_seated(sender):
        raise IllegalAction("leave_not_seated")
    events = t.engine.leave(sender)
    ref._emit(ctx, events)
    if not any(e.event in ("leave", "say") for e in events):
        ref._say(ctx, text("leave_after_hand", player=sender))


@command("deal", moderator=True, table=True)
def _deal(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    ref.deal_now(ctx, need_table(ref, room))


def _target(ref: Referee, sender: str, args: list[str], what: str) -> str:
    if args:
        target = user_arg(args[0])
        if target != sender and not ref.is_moderator(sender):
            raise IllegalAction("others_moderator_only", what=text(what))
        return target
    return sender


@command("bank", others=True)
def _bank(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    who = _target(ref, sender, args, "what_bank")
    line = text("bank_balance", player=who, points=ref.bank.balance(who))
    held = ref.table_chips(who)
    if held:
        line += text("bank_at_tables", tables=text("bank_at_table_sep").join(
            text("bank_at_table", room=r, chips=c) if r else text("bank_at_table_here", chips=c)
            for r, c in held.items()))
    ref._say(ctx, line, to=to)


@command("penalties", others=True)
def _penalties(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str
               ) -> None:
    who = _target(ref, sender, args, "what_penalties")
    ref._say(ctx, ref.discipline.penalties_of(who), to=to)


@command("grant", moderator=True)
def _grant(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    if len(args) < 2:
        raise _usage("grant")
    who = user_arg(args[0])
    try:
        n = int(args[1].replace(",", ""))
    except ValueError:
        raise IllegalAction("grant_bad_points", word=excerpt(args[1])) from None
    reason = " ".join(args[2:]) or "grant"
    balance = ref._bank_change(ctx, who, n, reason, f"grant:{reason}")
    ref._say(ctx, text("granted", player=who, points=n, reason=reason, balance=balance), to=to)


@command("penalty", moderator=True)
def _penalty(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    ref.discipline.cmd_penalty(ctx, room, sender, args, to)


@command("confirm", moderator=True)
def _confirm(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    ref.discipline.cmd_confirm(ctx, room, sender, args, to)


@command("dismiss", moderator=True)
def _dismiss(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    ref.discipline.cmd_dismiss(ctx, room, sender, args, to)


@command("flags", moderator=True)
def _flags(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    ref.discipline.cmd_flags(ctx, room, sender, args, to)


def _mistake(ref: Referee, ctx: _Ctx, room: str, kind: str, args: list[str]) -> None:
    t = need_table(ref, room)
    player = user_arg(args[0]) if args else None
    if kind != "nogame" and player is None:
        raise IllegalAction("mistake_needs_player")
    ref._emit(ctx, t.engine.dealing_mistake(kind, player))


@command("nogame", moderator=True, table=True)
def _nogame(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    _mistake(ref, ctx, room, "nogame", [])


@command("misdeal", moderator=True, table=True)
def _misdeal(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    _mistake(ref, ctx, room, "misdeal", args)


@command("exposed", moderator=True, table=True)
def _exposed(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    _mistake(ref, ctx, room, "exposed", args)


@command("lastslot", moderator=True, table=True)
def _lastslot(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str
              ) -> None:
    t = need_table(ref, room)
    if not args or args[0].lower() not in ("on", "off"):
        raise _usage("lastslot")
    on = args[0].lower() == "on"
    ref._emit(ctx, t.engine.set_last_slot(on))
    ref._say(ctx, text("lastslot_on" if on else "lastslot_off"))


@command("rank", moderator=True)
def _rank(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    if len(args) < 2:
        raise _usage("rank")
    who = user_arg(args[0])
    mark = "" if args[1] in words()["rank"]["none"] else args[1]
    ref._set_rank(ctx, who, mark)
    ref._say(ctx, text("rank_set", player=who, mark=mark or text("rank_none")), to=to)


@command("status", table=True)
def _status(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    t = need_table(ref, room)
    eng = t.engine
    parts = [eng.definition.name]
    if eng.in_hand:
        parts.append(text("status_in_hand", hand=str(eng.hand_no)))
        turn = eng.to_act()
        if turn:
            parts.append(text("status_turn", player=turn))
    else:
        parts.append(text("status_between") + (text("status_closing") if t.closing else ""))
    stacks = eng.stacks()
    seats = text("status_seat_joiner").join(
        text("status_seat", seat=s.seat, player=s.name, chips=stacks.get(s.name, s.chips))
        for s in eng.seated()
    )
    parts.append(seats or text("status_no_seats"))
    parts.extend(eng.status(ctx.input.get("time")))
    ref._say(ctx, " / ".join(parts), to=to)


@command("clock", moderator=True, table=True)
def _clock(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    t = need_table(ref, room)
    word = args[0].lower() if args else ""
    word = words()["clock_words"].get(word, word)
    if word not in ("on", "off"):
        raise _usage("clock")
    now = ctx.input.get("time")
    at = float(now) if now is not None else t.last_time
    if word == "off":
        if t.paused:
            raise IllegalAction("clock_already_off")
        t.paused, t.paused_at = True, at
        ref._say(ctx, text("clock_off"))
        return
    if not t.paused:
        raise IllegalAction("clock_not_off")
    if at is not None and t.paused_at is not None and at > t.paused_at:
        t.paused_total += at - t.paused_at
    t.paused, t.paused_at = False, None
    ref._say(ctx, text("clock_on"))


@command("rules", table=True)
def _rules(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    """!rules: the table's game in short, and its pay tables as the definition has them."""
    t = need_table(ref, room)
    ref._say(ctx, "\n".join(guide.rules(t.engine.definition, t.options)), to=to)


@command("help")
def _help(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    if args:
        cmd = COMMANDS.get(command_name(args[0].lstrip("!")))
        ref._say(ctx, cmd.help if cmd is not None
                 else text("help_unknown", word=excerpt(args[0])), to=to)
        return
    lines = [text("help_commands", commands=" ".join(f"!{k}" for k in COMMANDS))]
    table = ref.tables.get(room)
    if table is not None:  # and what this table's game accepts
        lines.append(guide.actions(table.engine.definition))
    ref._say(ctx, "\n".join(lines), to=to)


@command("hand", table=True)
def _hand(ref: Referee, ctx: _Ctx, room: str, sender: str, args: list[str], to: str) -> None:
    """A finished hand of this room, built from what the room saw (referee.history)."""
    from referee.history import hand_command

    t = ref.tables.get(room)
    for line in hand_command(ref.history, room, args, t.id if t is not None else None):
        ref._say(ctx, line, to=to)
