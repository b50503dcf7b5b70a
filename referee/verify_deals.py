"""Two promises of docs/fairness.md that no single reveal can show, checked over the events of
a log (``referee verify``, :func:`referee.verify.verify` feeds every event through
:class:`DealWatch`):

- **every dealt hand is revealed**: a hand dealt from a commitment that ended has its
  ``deal_reveal`` after it (a record with a reveal taken out would otherwise verify the rest);
- **no card reaches anyone before it is dealt**: a board card named in a private message before
  the room was shown it (a flop told to one player early) is a leak of the deck, whether or not
  the card itself was the right one.

It reads only typed events (``deal_commitment``, ``hand_start``, ``hand_end``,
``deal_reveal``, and what each event put before whom, by the reading verify gives it:
:func:`referee.verify.cards_sent`), never a sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: (room or the player told, cards) an event put before someone; None: it showed none
CardsSent = Callable[[dict[str, Any]], tuple[str, list[str]] | None]


class DealError(Exception):
    """The first broken promise (verify reports it as a discrepancy): ``code``, its
    catalogue key, and the key's parameters."""

    def __init__(self, code: str, **params: Any) -> None:
        from referee.lang.catalog import text

        self.code, self.params = code, params
        super().__init__(text(code, **params))


@dataclass
class _Dealt:
    started: bool = False
    ended: bool = False
    #: in order: ("room", cards) shown to everyone, or (player, cards) sent to one
    sent: list[tuple[str, list[str]]] = field(default_factory=list)


class DealWatch:
    """Feed every event in order (:meth:`feed`), then :meth:`finish`; raises DealError."""

    def __init__(self, cards_sent: CardsSent) -> None:
        self.cards_sent = cards_sent
        self.hands: dict[int, _Dealt] = {}
        self.current: _Dealt | None = None

    def feed(self, ev: dict[str, Any]) -> None:
        kind = ev.get("event")
        if kind == "deal_commitment":
            self.hands[int(ev.get("hand", 0))] = _Dealt()
        elif kind == "hand_start":
            self.current = self.hands.get(int(ev.get("hand", 0)))
            if self.current is not None:
                self.current.started = True
        elif kind == "hand_end":
            if self.current is not None:
                self.current.ended = True
            self.current = None
        elif kind == "deal_reveal":
            n = int(ev.get("hand", 0))
            hand = self.hands.pop(n, None)
            if hand is not None:
                _early(n, hand, ev)
        elif self.current is not None:
            sent = self.cards_sent(ev)
            if sent is not None and sent[1]:
                self.current.sent.append(sent)

    def finish(self) -> None:
        """The log ended: every hand dealt from a commitment and ended was revealed."""
        for n, hand in sorted(self.hands.items()):
            if hand.started and hand.ended:
                raise DealError("verify.never_revealed", hand=n)


def _early(n: int, hand: _Dealt, reveal: dict[str, Any]) -> None:
    """A board card in a private message before the room had seen it."""
    dealt = reveal.get("dealt")
    if not isinstance(dealt, dict):
        return
    board = {str(c) for c in dealt.get("board", [])}
    hands = {str(k): {str(c) for c in v} for k, v in dict(dealt.get("hands", {})).items()}
    shown: set[str] = set()
    for to, cards in hand.sent:
        if to == "room":
            shown.update(cards)
            continue
        for card in cards:
            if card in board and card not in shown and card not in hands.get(to, set()):
                raise DealError("verify.sent_early", hand=n, player=to, card=card)
