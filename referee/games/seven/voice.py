"""What a seven room is told happened, rendered from the typed events: an action (the seat as
the room knows it: the dealer seat's events name no player; a declaration's hand and
discards), the deal's face-up cards, the dice that pick the dealer hand, the dealer-hand
owner's win count and the settlement. The engine emits the events and appends these lines
(see :mod:`referee.rules.voice`), so a sentence never says more than the record holds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from referee.cards import pretty_strs
from referee.events import ActionEvent, Event, Phrase, Say, Settle, Shown, hand_name, joined
from referee.events import line as text
from referee.rules.house import house_line, names, settlement_line
from referee.rules.voice import action_line as common_action_line

__all__ = ["DealerHand", "action_line", "deal_line", "dice_line", "line", "owner_line", "said",
           "who"]

GAME = "seven"


class DealerHand(Event):
    """The dice that picked the dealer hand: every roll in order, the ``seat`` picked and its
    ``player`` (empty: the dealer seat), the hand's class (None: that hand folded);
    ``ran_out``: no roll hit a seat still in, so the rules' seat was taken."""

    event: Literal["dealer_hand"] = "dealer_hand"
    rolls: list[int]
    seat: int
    player: str = ""
    hand_class: str | None = None
    ran_out: bool | None = None
    folded: bool | None = None


def who(player: str) -> Phrase:
    """A seat as the room knows it: 「aさん」, or 「ディーラー席」 for the dealer seat (whose
    actions name no player)."""
    return names([player]) if player else text("seven.dealer_seat")



def deal_line(shown: Sequence[Shown]) -> Say:
    """One round of the deal: every seat's face-up cards (「配札 1番 aさん: K♣ K♦ 2♥ / …」)."""
    # a shown event names the dealer seat ``dealer`` (an action names no player)
    lines = [text("seven.deal_line", seat=ev.seat,
                  who=who("" if ev.player == "dealer" else ev.player),
                  cards=pretty_strs(ev.cards))
             for ev in shown]
    return Say.of("room", text("seven.deal", lines=joined(" / ", lines)))


def dice_line(ev: DealerHand) -> Say:
    """The dice and the dealer hand they picked, with why any roll was passed over."""
    notes: list[Phrase] = []
    if ev.ran_out:
        notes.append(text("seven.dice_ran_out"))
    elif len(ev.rolls) > 1:  # the rolls before the last hit no seat
        notes.append(text("seven.dice_reroll", rolls=joined(text("seven.dice_list_sep"),
                                                            [str(d) for d in ev.rolls[:-1]])))
    if ev.folded:
        notes.append(text("seven.dealer_hand_folded"))
    note = notes[0] if len(notes) == 1 else joined("", notes) if notes else ""
    hand = (text("seven.dealer_hand_class", hand=hand_name(GAME, ev.hand_class))
            if ev.hand_class is not None else "")
    return Say.of("room", text(
        "seven.dice", rolls=joined(text("seven.dice_sep"), [str(d) for d in ev.rolls]),
        seat=ev.seat, who=who(ev.player), hand=hand, note=note))


def owner_line(ev: Settle) -> Say:
    """The dealer-hand owner's win count, its multiplier and what it paid."""
    return Say.of("room", text("seven_owner_wins", who=who(ev.player), wins=ev.wins,
                                    multiplier=ev.multiplier, payout=ev.payout))


def action_line(ev: ActionEvent) -> Say:
    """An accepted action: a declaration names the hand (and the two discards), everything
    else is the line every game says."""
    if ev.action != "discard":
        return common_action_line(GAME, ev, who=who(ev.player))
    hand = hand_name(GAME, ev.hand or "")
    if ev.cards:
        cards = pretty_strs(ev.cards)
        return Say.of("room", text("seven.declared_discards", who=who(ev.player),
                                        cards=cards, hand=hand))
    return Say.of("room", text("seven.declared_hand", who=who(ev.player), hand=hand))


def line(so_far: Sequence[Event]) -> Say | None:
    """The room's line for the seven fact event that ends ``so_far`` (the events of one input
    up to it); None for the others."""
    ev = so_far[-1]
    if isinstance(ev, ActionEvent):
        return action_line(ev)
    if isinstance(ev, Shown) and ev.why == "deal":
        run: list[Shown] = []
        for e in reversed(so_far):
            if not (isinstance(e, Shown) and e.why == "deal"):
                break
            run.insert(0, e)
        return deal_line(run)
    if isinstance(ev, DealerHand):
        return dice_line(ev)
    if isinstance(ev, Settle):
        if ev.dealer_hand:
            return owner_line(ev)
        settles = [e for e in so_far if isinstance(e, Settle)]
        if all(e.result == "fold" for e in settles):
            return None  # everybody folded: no dice, no settlement line
        return settlement_line(settles, GAME)
    return house_line(so_far)


def said(ev: ActionEvent | DealerHand | Settle) -> list[Event]:
    """A fact event, then the room's line rendered from it."""
    out = action_line(ev) if isinstance(ev, ActionEvent) else line([ev])
    assert out is not None
    return [ev, out]
