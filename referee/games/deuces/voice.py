"""What a deuces room is told an action was, rendered from its ``action`` event: a play names
the bet, how many cards were exchanged and the cards kept. Engines append these lines to the
events they render (see :mod:`referee.rules.voice`)."""

from __future__ import annotations

from collections.abc import Sequence

from referee.cards import Card, card_str, pretty
from referee.events import ActionEvent, Event, Say, Settle
from referee.hands import NAMES
from referee.lang.catalog import text
from referee.rules.voice import action_line as common_action_line

__all__ = ["HAND_SIZE", "action_line", "line", "result_line", "said"]

GAME = "deuces"
HAND_SIZE = 5
_PRETTY = {card_str(Card(c)): pretty(Card(c)) for c in range(53)}


def action_line(ev: ActionEvent) -> Say:
    """An accepted action: a play with its exchange and kept cards, everything else the line
    every game says."""
    if ev.action != "play":
        return common_action_line(GAME, ev)
    kept = ev.cards or []
    n = HAND_SIZE - len(kept)
    exchange = text("deuces.exchange", count=n) if n else text("deuces.no_exchange")
    cards = " ".join([_PRETTY[c] for c in kept])
    return Say(to="room", text=text(
        "deuces.played", player=ev.player, bet=ev.amount, exchange=exchange,
        kept=text("deuces.kept", cards=cards) if kept else ""))


def result_line(ev: Settle) -> Say:
    """A played hand's result against the dealer, with its class (「aliceさん ハイカード 負け:
    0」)."""
    return Say(to="room", text=text("deuces.result", player=ev.player,
                                    hand=NAMES[GAME][ev.hand or ""],
                                    result=text(f"result_{ev.result}"), payout=ev.payout))


def line(so_far: Sequence[Event]) -> Say | None:
    """The room's line for the deuces fact event that ends ``so_far`` (the events of one input
    up to it); None for the others (a folded hand's settle has no line of its own)."""
    ev = so_far[-1]
    if isinstance(ev, ActionEvent):
        return action_line(ev)
    if isinstance(ev, Settle) and ev.hand is not None:
        return result_line(ev)
    return None


def said(ev: ActionEvent | Settle) -> list[Event]:
    """A fact event, then the room's line rendered from it."""
    out = line([ev])
    assert out is not None
    return [ev, out]
