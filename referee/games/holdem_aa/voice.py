"""What a holdem_aa room is told happened, rendered from the typed events: the flop (with whom
it awaits), each player's hand with the AA bet's result, the dealer's hand against the board.
The engine emits the events and appends these lines, so a sentence never says more than the
record holds. Lines every game shares (an action, the settlement) are the rules layer's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from referee.cards import pretty_strs
from referee.events import BoardDealt, Event, Say, Settle, Shown, hand_name, joined
from referee.events import line as text
from referee.rules.house import house_line, names, settlement_line

__all__ = ["AAResult", "dealer_line", "flop_line", "line", "opened_line"]

GAME = "holdem_aa"


class AAResult(Event):
    """The AA side bet of ``player`` settled on hole + flop: ``row`` is the pay-table row that
    paid (a class code, or ``pair_of_aces``), None when the bet lost; ``payout`` what it paid
    back (the stake included)."""

    event: Literal["aa_result"] = "aa_result"
    player: str
    row: str | None = None
    payout: int = 0



def flop_line(ev: BoardDealt, awaited: list[str]) -> Say:
    """The flop, and the players whose call or fold it awaits (a prompt: not in the event)."""
    return Say.of("room", text("holdem_aa.flop", cards=pretty_strs(ev.board),
                                    who=names(awaited)))


def opened_line(ev: Shown, aa: AAResult | None = None) -> Say:
    """A player's hand at the settlement, with their AA bet's result when they made one."""
    said = text("holdem_aa.opened", player=ev.player, cards=pretty_strs(ev.cards))
    if aa is not None:
        if aa.row is None:
            return Say.of("room", joined("", [said, text("holdem_aa.aa_lost")]))
        label = (text("holdem_aa.pair_of_aces") if aa.row == "pair_of_aces"
                 else hand_name(GAME, aa.row))
        return Say.of("room", joined("", [said, text("holdem_aa.aa_paid", hand=label,
                                                      payout=aa.payout)]))
    return Say.of("room", said)


def dealer_line(ev: Shown, board: BoardDealt) -> Say:
    """The dealer's hand against the whole board (``board``: the river's event), and whether
    it failed to qualify (``ev.qualified`` False: the dealer folds)."""
    said = text("holdem_aa.dealer", cards=pretty_strs(ev.cards), board=pretty_strs(board.board),
                hand=hand_name(GAME, ev.hand_class or ""))
    if ev.qualified is False:
        return Say.of("room", joined("", [said, text("holdem_aa.dealer_folds")]))
    return Say.of("room", said)


def line(so_far: Sequence[Event]) -> Say | None:
    """The room's line for the holdem_aa fact event that ends ``so_far`` (the events of one
    input up to it); None for the others (the flop's line also names whom it awaits)."""
    ev = so_far[-1]
    before = so_far[-2] if len(so_far) > 1 else None
    if isinstance(ev, Shown) and ev.why == "result":
        if ev.player == "dealer":
            return dealer_line(ev, before) if isinstance(before, BoardDealt) else None
        aa = before if isinstance(before, AAResult) and before.player == ev.player else None
        return opened_line(ev, aa)
    if isinstance(ev, Settle):
        return settlement_line([e for e in so_far if isinstance(e, Settle)], GAME)
    return house_line(so_far)
