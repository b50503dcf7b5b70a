"""The directives: operations that are not chat -- a transcript's ``# table:`` / ``# seat:`` /
``# deal:`` lines, a terminal's ``#`` lines, a console's operations, the adapter's recorded
configuration. Registered in :mod:`referee.registry` like the chat commands and run with the
input's :class:`~referee.turn.Turn`; a directive the table cannot take raises
:class:`DirectiveError` (the adapter adds the line number)."""

from __future__ import annotations

from typing import Any

from referee.cards import parse_cards
from referee.dealing import deal_from_json
from referee.events import Seated, line
from referee.games import game_ids
from referee.registry import directive
from referee.rules import IllegalAction, create
from referee.rules.voice import seated_line
from referee.table import Table
from referee.turn import Turn


class DirectiveError(ValueError):
    """A transcript/terminal directive the table cannot take (the adapter adds the line number)."""


def _table(turn: Turn) -> Table:
    t = turn.table
    if t is None:
        raise DirectiveError("no table: a '# table:' line must come first")
    return t


@directive("table")
def _open(turn: Turn, args: dict[str, Any]) -> None:
    game = str(args["game"])
    if game not in game_ids():  # (the registry's list; the engine comes from it)
        raise DirectiveError(f"unknown game '{game}'")
    # A directive sets the scene: it replaces whatever table the room had (a transcript run
    # against a database that an earlier transcript left mid-hand must not fail).
    options = {str(k): str(v) for k, v in dict(args.get("options", {})).items()}
    turn.desk.open_table(turn, Table(turn.room, game, options,
                                     create(game, options, turn.definition(game))))


@directive("moderator")
def _moderator(turn: Turn, args: dict[str, Any]) -> None:
    turn.desk.add_moderator(str(args["name"]))


@directive("config")
def _config(turn: Turn, args: dict[str, Any]) -> None:
    turn.desk.configure(frozenset(str(m) for m in args.get("moderators", [])))


@directive("bank")
def _bank(turn: Turn, args: dict[str, Any]) -> None:
    player, points = str(args["name"]), int(args["points"])
    turn.bank_change(player, points - turn.desk.bank.balance(player), "transcript",
                     "opening balance")


@directive("departed")
def _departed(turn: Turn, args: dict[str, Any]) -> None:
    """A player left the table's room, or was kicked or banned from it (the adapter saw it):
    their hand is folded at once and never wins a pot, and they leave the table -- their chips
    go back to the bank as on ``!leave`` (after the hand when one is running). The table moves
    on without waiting for the clock. Whoever is not seated there is no one's concern."""
    t = turn.table
    player = str(args["name"])
    if t is None or not t.engine.is_seated(player):
        return
    turn.say(line("departed", player=player))
    if t.engine.in_hand:
        try:
            turn.emit(t.engine.force_fold(player))
        except IllegalAction:
            pass  # not dealt in, or already folded: nothing to fold
    if t.engine.is_seated(player):
        try:
            turn.emit(t.engine.leave(player))
        except IllegalAction as e:  # a running tournament: folded, and out at its end
            turn.say(line(e.code, **e.params))
    turn.desk.after(turn, t)


@directive("rank")
def _rank(turn: Turn, args: dict[str, Any]) -> None:
    turn.set_rank(str(args["name"]), str(args.get("mark", "")))


@directive("seat")
def _seat(turn: Turn, args: dict[str, Any]) -> None:
    t = _table(turn)
    seat, who, chips = int(args["seat"]), str(args["name"]), int(args["chips"])
    npc = bool(args.get("npc", False))
    turn.emit(t.engine.sit(seat, who, chips, npc))
    if not npc:
        seated = Seated(player=who, seat=seat, chips=chips)
        turn.emit([seated, seated_line(seated)])


@directive("button")
def _button(turn: Turn, args: dict[str, Any]) -> None:
    _table(turn).engine.set_button(int(args["seat"]))


@directive("bonus")
def _bonus(turn: Turn, args: dict[str, Any]) -> None:
    cards = parse_cards(" ".join(args.get("cards", [])))
    markers = args.get("markers")
    _table(turn).engine.set_bonus_area(
        cards, [int(m) for m in markers] if markers is not None else None)


@directive("deal")
def _deal(turn: Turn, args: dict[str, Any]) -> None:
    t = _table(turn)
    deal = deal_from_json(args)
    seated = turn.desk.seated_names(turn.room)
    for player in deal.hands:
        if player not in seated:
            raise DirectiveError(f"'{player}' is not seated at this table")
    turn.emit(turn.desk.start_hand(turn, t, deal))
    turn.desk.after(turn, t)
