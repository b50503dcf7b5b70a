"""The chat commands that are not the discipline's: the table, the seats, the bank, the clock,
help. Each registers itself in :mod:`referee.registry`; :func:`run` looks a read command up
(``!…``, :func:`referee.lang.reader.read_command`), checks who may run it and runs it with the
input's :class:`~referee.turn.Turn`. Adapters ask :func:`moderator_only` instead of keeping a
list of their own. Leaks, flags and penalties are :mod:`referee.discipline`'s commands.
"""

from __future__ import annotations

from referee import discipline as discipline  # its commands (!confirm, !flags …) too
from referee import guide
from referee.events import Phrase, Seated, game_name, joined, line
from referee.games import listed_ids
from referee.lang.catalog import excerpt
from referee.lang.reader import CommandText, read_command
from referee.parse import command_name
from referee.registry import COMMANDS, Command, command, listed, target, user_arg, words
from referee.rules import IllegalAction, OptionError, create
from referee.rules.voice import seated_line
from referee.table import Table
from referee.turn import Turn

__all__ = ["COMMANDS", "Command", "command_name", "moderator_only", "run"]

# The largest grant a moderator may type (a bank is summed in SQLite's 64-bit integers).
MAX_POINTS = 10**12


def moderator_only(typed: CommandText | None) -> bool:
    """Whether the command ``typed`` needs a moderator (looking at someone else's bank or
    record too)."""
    if typed is None or not typed.word:
        return False
    cmd = COMMANDS.get(command_name(typed.word))
    return cmd is not None and (cmd.moderator or (cmd.others and len(typed.args) > 0))


def run(turn: Turn, typed: CommandText) -> None:
    """A ``!…`` message, read: look it up, check who may run it, run it; a refusal is said to
    the sender (privately when typed privately)."""
    word, sender, to = typed.word, turn.sender, turn.reply_to
    if not word:
        turn.say(line("command_empty"), to=to)
        return
    cmd = COMMANDS.get(command_name(word))
    if cmd is None:
        turn.say(line("command_unknown", word=excerpt(word)), to=to)
        return
    args = list(words()["alias_args"].get(word, [])) + list(typed.args)
    if cmd.moderator and not turn.desk.is_moderator(sender):
        turn.say(line("command_moderator_only", sender=sender, word=excerpt(word)), to=to)
        return
    if turn.dm and _private_refusal(turn, cmd):
        return
    table = turn.table
    try:
        cmd.run(turn, args)
    except IllegalAction as e:
        turn.say(line("command_refused", sender=sender, reason=line(e.code, **e.params)), to=to)
    except OptionError as e:
        turn.say(line("command_bad_options", sender=sender, reason=line(e.code, **e.params)),
                 to=to)
    if table is not None:
        turn.desk.after(turn, table)


def _game_names() -> Phrase:
    """The games as a moderator may type them (definitions.game_names), for a refusal."""
    return joined(" / ", [game_name(g, short=True) for g in listed_ids()])


def _private_refusal(turn: Turn, cmd: Command) -> bool:
    """A command typed in a private message: the turn's room is the table referee.routing
    chose (or not a table when none could be); a table is never opened from one."""
    if cmd.name == "open":
        turn.say(line("private_open_refused", sender=turn.sender), to=turn.reply_to)
        return True
    if cmd.table and turn.table is None:
        turn.say(line("private_no_table", sender=turn.sender, command=cmd.name),
                 to=turn.reply_to)
        return True
    return False


# The commands that only ask (their answers change nothing): a chat adapter may pace their
# answers as replies to the asker, behind the table's own lines.
ASKING = frozenset({"status", "rules", "help", "bank", "hand", "penalties", "flags"})


def asks_only(text: str) -> bool:
    """Whether ``text`` is a command that only asks for something (:data:`ASKING`)."""
    cmd = read_command(text)
    return cmd is not None and command_name(cmd.word) in ASKING


def need_table(turn: Turn) -> Table:
    t = turn.table
    if t is None:
        raise IllegalAction("no_table")
    return t


def _usage(name: str) -> IllegalAction:
    return IllegalAction("usage", help=line(f"help_{name}"))


# --- the commands, in the order !help lists them -------------------------------------------------
@command("open", moderator=True)
def _open(turn: Turn, args: list[str]) -> None:
    from referee.definitions import game_of

    if not args:
        raise IllegalAction("open_no_game", games=_game_names())
    game = game_of(args[0])  # its id or its Japanese name
    if game is None:
        raise IllegalAction("game_unknown", game=excerpt(args[0]), games=_game_names())
    if turn.room in turn.desk.tables:
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
    engine = create(game, options, turn.definition(game))
    carried = turn.desk.carried.get(game)
    if carried is not None:  # what the last table of this game handed on (deuces' bonus area)
        engine.carry(carried)
    table = Table(turn.room, game, options, engine, auto=auto == "on", live=True)
    turn.desk.open_table(turn, table)
    turn.say(line("opened", game=game_name(game),
                  auto=line("opened_auto") if auto == "on" else ""))
    # the first hand's deck is sealed now, a line of the table's opening: not in the answer to
    # whatever someone types first (a !status, a private question)
    turn.desk.after(turn, table)


@command("close", moderator=True, table=True)
def _close(turn: Turn, args: list[str]) -> None:
    t = need_table(turn)
    t.closing = True
    if t.engine.in_hand:
        turn.say(line("close_after_hand"))
    # run() calls the desk's after(), which cashes everyone out when no hand is running


@command("sit", table=True)
def _sit(turn: Turn, args: list[str]) -> None:
    t = need_table(turn)
    if t.closing:
        raise IllegalAction("sit_closing")
    eng = t.engine
    if eng.is_seated(turn.sender):
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
    points = turn.desk.bank.balance(turn.sender)
    # what the bank pays and the chips it buys (a max buy-in, a tournament's entry: a free
    # one seats a player with no points); raises before anything changes
    buy = eng.buy_in(max(points, 0))
    if buy.chips <= 0:
        raise IllegalAction("sit_no_points", points=points)
    seated = Seated(player=turn.sender, seat=seat, chips=buy.chips)
    turn.emit([*eng.sit(seat, turn.sender, buy.chips), seated, seated_line(seated)])
    if buy.points:  # (a free tournament takes nothing)
        turn.bank_change(turn.sender, -buy.points, buy.reason, buy.reason)


@command("leave", table=True)
def _leave(turn: Turn, args: list[str]) -> None:
    t = need_table(turn)
    if not t.engine.is_seated(turn.sender):
        raise IllegalAction("leave_not_seated")
    events = t.engine.leave(turn.sender)
    turn.emit(events)
    if not any(e.event in ("leave", "say") for e in events):
        turn.say(line("leave_after_hand", player=turn.sender))


@command("deal", moderator=True, table=True)
def _deal(turn: Turn, args: list[str]) -> None:
    turn.desk.deal_now(turn, need_table(turn))


@command("bank", others=True)
def _bank(turn: Turn, args: list[str]) -> None:
    who = target(turn, args, "what_bank")
    said: list[Phrase] = [line("bank_balance", player=who, points=turn.desk.bank.balance(who))]
    held = turn.desk.table_chips(who)
    if held:
        said.append(line("bank_at_tables", tables=joined(line("bank_at_table_sep"), [
            _at_table(turn, r, c) for r, c in held.items()])))
    turn.say(said[0] if len(said) == 1 else joined("", said), to=turn.reply_to)


def _at_table(turn: Turn, room: str, chips: int) -> Phrase:
    """Chips held at one table, the table named as the room knows it (its number and game),
    never by its room id."""
    t = turn.desk.tables.get(room)
    if t is None:
        return line("bank_at_table_here", chips=chips)
    return line("bank_at_table", table=t.id, game=line(f"hands_game_{t.game}"), chips=chips)


@command("grant", moderator=True)
def _grant(turn: Turn, args: list[str]) -> None:
    if len(args) < 2:
        raise _usage("grant")
    who = user_arg(args[0])
    try:
        n = int(args[1].replace(",", ""))
    except ValueError:
        raise IllegalAction("grant_bad_points", word=excerpt(args[1])) from None
    if abs(n) > MAX_POINTS:  # bounded where read: every figure fits the store's integers
        raise IllegalAction("grant_too_many", most=MAX_POINTS)
    reason = " ".join(args[2:]) or "grant"
    balance = turn.bank_change(who, n, reason, f"grant:{reason}")
    said = " ".join(args[2:]) or line("grant_reason")  # the ledger keeps the id, people a name
    turn.say(line("granted", player=who, points=n, reason=said, balance=balance),
             to=turn.reply_to)


def _mistake(turn: Turn, kind: str, args: list[str]) -> None:
    t = need_table(turn)
    player = user_arg(args[0]) if args else None
    if kind != "nogame" and player is None:
        raise IllegalAction("mistake_needs_player")
    turn.emit(t.engine.dealing_mistake(kind, player))


@command("nogame", moderator=True, table=True)
def _nogame(turn: Turn, args: list[str]) -> None:
    _mistake(turn, "nogame", [])


@command("misdeal", moderator=True, table=True)
def _misdeal(turn: Turn, args: list[str]) -> None:
    _mistake(turn, "misdeal", args)


@command("exposed", moderator=True, table=True)
def _exposed(turn: Turn, args: list[str]) -> None:
    _mistake(turn, "exposed", args)


@command("lastslot", moderator=True, table=True)
def _lastslot(turn: Turn, args: list[str]) -> None:
    t = need_table(turn)
    if not args or args[0].lower() not in ("on", "off"):
        raise _usage("lastslot")
    on = args[0].lower() == "on"
    turn.emit(t.engine.set_last_slot(on))
    turn.say(line("lastslot_on" if on else "lastslot_off"))


@command("rank", moderator=True)
def _rank(turn: Turn, args: list[str]) -> None:
    if len(args) < 2:
        raise _usage("rank")
    who = user_arg(args[0])
    mark = "" if args[1] in words()["rank"]["none"] else args[1]
    turn.set_rank(who, mark)
    turn.say(line("rank_set", player=who, mark=mark or line("rank_none")), to=turn.reply_to)


@command("status", table=True)
def _status(turn: Turn, args: list[str]) -> None:
    turn.say(status_line(need_table(turn), turn.time), to=turn.reply_to)


def status_line(t: Table, now: float | None) -> Phrase:
    """A table as ``!status`` tells it: the game, the hand and whom it waits for, the seats."""
    eng = t.engine
    parts: list[Phrase] = [game_name(t.game)]
    if eng.in_hand:
        parts.append(line("status_in_hand", hand=str(eng.hand_no)))
        waiting = eng.to_act()
        if waiting:
            parts.append(line("status_turn", player=waiting))
    else:
        parts.append(joined("", [line("status_between"), line("status_closing")]) if t.closing
                     else line("status_between"))
    stacks = eng.stacks()
    seats = [line("status_seat", seat=s.seat, player=s.name, chips=stacks.get(s.name, s.chips))
             for s in eng.seated()]
    parts.append(joined(line("status_seat_joiner"), seats) if seats else line("status_no_seats"))
    parts.extend(eng.status(now))
    return joined(" / ", parts)


@command("clock", moderator=True, table=True)
def _clock(turn: Turn, args: list[str]) -> None:
    t = need_table(turn)
    word = args[0].lower() if args else ""
    word = words()["clock_words"].get(word, word)
    if word not in ("on", "off"):
        raise _usage("clock")
    now = turn.time
    at = float(now) if now is not None else t.last_time
    if word == "off":
        if t.paused:
            raise IllegalAction("clock_already_off")
        t.paused, t.paused_at = True, at
        turn.say(line("clock_off"))
        return
    if not t.paused:
        raise IllegalAction("clock_not_off")
    if at is not None and t.paused_at is not None and at > t.paused_at:
        t.paused_total += at - t.paused_at
    t.paused, t.paused_at = False, None
    turn.say(line("clock_on"))


@command("rules", table=True)
def _rules(turn: Turn, args: list[str]) -> None:
    """!rules: the table's game in short, and its pay tables as the definition has them."""
    t = need_table(turn)
    turn.say(joined("\n", guide.rules(t.engine.definition, t.options)), to=turn.reply_to)


@command("help")
def _help(turn: Turn, args: list[str]) -> None:
    if args:
        cmd = COMMANDS.get(command_name(args[0].lstrip("!")))
        turn.say(line(f"help_{cmd.name}") if cmd is not None
                 else line("help_unknown", word=excerpt(args[0])), to=turn.reply_to)
        return
    lines: list[Phrase] = [line("help_commands", commands=" ".join(f"!{k}" for k in listed()))]
    table = turn.table
    if table is not None:  # and what this table's game accepts
        lines.append(guide.actions(table.engine.definition))
    turn.say(joined("\n", lines), to=turn.reply_to)


@command("hand", table=True)
def _hand(turn: Turn, args: list[str]) -> None:
    """A finished hand of this room, built from what the room saw (referee.history)."""
    from referee.history import hand_command

    t = turn.table
    for said in hand_command(turn.desk.history, turn.room, args, t.id if t is not None else None):
        turn.say(said, to=turn.reply_to)
