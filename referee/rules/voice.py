"""What the room is told an action was, rendered from its ``action`` event: one line, the same
in every game (「aliceさん: コール 100」). Every engine says it through :func:`action_line`, so the
room's sentence never carries more than the typed event does; the records (history, ``!hand``,
the console) use the same words (:func:`action_word`, :func:`action_figure`). The words are the
catalogue's (voice.toml ``ack*`` and ``act_*``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.events import (
    ActionEvent,
    Eliminated,
    Event,
    Leave,
    LevelUp,
    Rake,
    Say,
    Seated,
    TournamentEnd,
)
from referee.games import is_game, spec
from referee.lang.catalog import messages, text

__all__ = ["action_figure", "action_line", "action_word", "eliminated_line", "leave_line",
           "level_line", "rake_line", "render", "result_word", "seated_line",
           "tournament_end_line"]


def action_line(game: str, ev: ActionEvent, who: str | None = None) -> Say:
    """The one line that tells the room ``ev`` was accepted (「aliceさん: コール 100」): the
    game's word for the action (an all-in stake is オールイン), the chips it names
    (:func:`action_figure`), a holdem_aa stake's ante and AA bet apart. ``who``: the seat as the
    room knows it where the event names no player (seven's dealer seat, 「ディーラー席」)."""
    action = "allin" if ev.allin else ev.action
    if is_game(game):
        action = spec(game).action_words.get(action, action)
    figure = _figure(game, ev.action, ev.amount, ev.to)
    return _acknowledge(who if who is not None else text("house.who", player=ev.player),
                        action, figure, ev.aa or 0)


def rake_line(ev: Rake) -> Say:
    """The house's rake, contested pot or not (「レイク 10（ポット 510 の 2%）」)."""
    return Say(to="room", text=text("rake", amount=ev.amount, pot=ev.pot, percent=ev.percent))


def leave_line(ev: Leave) -> Say:
    """A player left the table: the chips they took and what the bank was credited."""
    return Say(to="room", text=text("seat.left", player=ev.player, chips=ev.chips, bank=ev.bank))


def seated_line(ev: Seated) -> Say:
    """A player sat down: the seat and the chips they brought."""
    return Say(to="room", text=text("seat.sat", player=ev.player, seat=ev.seat, chips=ev.chips))


def level_line(ev: LevelUp) -> Say:
    """A tournament's blinds (and ante) rise."""
    said = text("tournament_level_up", level=ev.level, sb=ev.sb, bb=ev.bb)
    return Say(to="room", text=said + (text("tournament_ante", ante=ev.ante) if ev.ante else ""))


def eliminated_line(ev: Eliminated) -> Say:
    """A tournament entrant is out, in this place."""
    return Say(to="room", text=text("tournament_eliminated", player=ev.player, place=ev.place))


def tournament_end_line(ev: TournamentEnd) -> Say:
    """The last player standing, and the prizes by place."""
    winner = next(n for n, place in ev.places.items() if place == 1)
    listed = " / ".join(
        text("tournament_prize", place=ev.places[n], player=n, points=p)
        for n, p in sorted(ev.prizes.items(), key=lambda kv: ev.places[kv[0]]))
    return Say(to="room", text=text("tournament_end", winner=winner,
                                    prizes=listed or text("tournament_no_prizes")))


def render(game: str, so_far: Sequence[Event]) -> Say | None:
    """The room's line for the fact event of ``game`` that ends ``so_far`` (the events of one
    input up to it: some lines read the events just before, a pot its top-up, a settlement
    its hand's settles), as its engine says it: the game's own renderer first (its folder's
    ``voice.line``, registered as the spec's ``voice``), then the lines every game shares;
    None for an event no line renders."""
    ev = so_far[-1]
    if is_game(game):
        own = spec(game).voice
        if own is not None:
            said: Say | None = own()(so_far)
            if said is not None:
                return said
    if isinstance(ev, ActionEvent):
        return action_line(game, ev)
    if isinstance(ev, Rake):
        return rake_line(ev)
    if isinstance(ev, Leave):
        return leave_line(ev)
    if isinstance(ev, Seated):
        return seated_line(ev)
    if isinstance(ev, LevelUp):
        return level_line(ev)
    if isinstance(ev, Eliminated):
        return eliminated_line(ev)
    if isinstance(ev, TournamentEnd):
        return tournament_end_line(ev)
    return None


def _acknowledge(who: str, action: str, amount: int = 0, aa: int = 0) -> Say:
    words = text(f"act_{action}")
    if action in ("ante", "allin") and aa:  # the stake split into its ante and AA bet
        return Say(to="room", text=text(f"ack_{action}_aa", who=who, ante=amount - aa, aa=aa))
    if amount:
        return Say(to="room", text=text("ack_amount", who=who, action=words, amount=amount))
    return Say(to="room", text=text("ack", who=who, action=words))


def action_word(game: str, action: str) -> str:
    """The word the room uses for an ``action`` event's id in ``game`` (omaha's raise is a
    メイク, seven's a レイズ): the records (history, ``!hand``, the console) say the same."""
    if is_game(game):
        action = spec(game).action_words.get(action, action)
    key = f"act_{action}"
    return text(key) if key in messages() else text("act_other")


def typed_form(game: str, action: Any) -> str:
    """How a player types a parsed ``action`` (a :class:`~referee.actions.Parsed`) so that it is
    read: the room's word, then the figure or the cards (コール, メイク1800)."""
    word = action_word(game, str(action.action))
    figure = action.to if action.to is not None else action.amount
    cards = action.cards or action.keep or action.discard or []
    return word + (str(figure) if figure is not None else "") + (
        " " + " ".join(cards) if cards else "")


def action_figure(game: str, ev: dict[str, Any]) -> int:
    """The chips an ``action`` event's line names, as the room's acknowledgement names them:
    omaha's bet, make and all-in say the total (``to``), everything else what it put in."""
    to = ev.get("to")
    return _figure(game, str(ev.get("action")), int(ev.get("amount") or 0),
                   int(to) if to else None)


def _figure(game: str, action: str, amount: int, to: int | None) -> int:
    if to and is_game(game) and action in spec(game).total_actions:
        return to
    return amount


def result_word(result: str) -> str:
    """A ``settle`` result's word (勝ち, ディーラーフォールド …), as the settlement line says it."""
    key = f"result_{result}"
    return text(key) if key in messages() else text("result_other")
