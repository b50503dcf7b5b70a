"""A hand's cards as the service records them: a deal to and from the JSON an input keeps (a
live deal is drawn once and replayed as recorded), and a live deal drawn from a shoe of the
game's decks and jokers, sized by the engine (:meth:`referee.rules.base.Engine.draw_deal`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from referee.cards import JOKER, Card, Shoe, card_str, parse_cards
from referee.rules import Deal, Engine

__all__ = ["deal_from_json", "deal_to_json", "draw_deal"]


def deal_to_json(deal: Deal) -> dict[str, Any]:
    return {
        "hands": {k: [card_str(c) for c in v] for k, v in deal.hands.items()},
        "board": [card_str(c) for c in deal.board],
        "dealer": [card_str(c) for c in deal.dealer],
        "shoe": [card_str(c) for c in deal.shoe],
        "dice": list(deal.dice),
    }


_CARD_OF: dict[str, Card] = {card_str(Card(i)): Card(i) for i in range(52)} | {"JK": JOKER}


def deal_from_json(data: dict[str, Any]) -> Deal:
    def cards(xs: Iterable[str]) -> list[Card]:
        xs = list(xs)
        try:
            return [_CARD_OF[x] for x in xs]  # canonical strings: the common, fast case
        except KeyError:
            return parse_cards(" ".join(xs))

    return Deal(
        hands={k: cards(v) for k, v in data.get("hands", {}).items()},
        board=cards(data.get("board", [])),
        dealer=cards(data.get("dealer", [])),
        shoe=cards(data.get("shoe", [])),
        dice=[int(d) for d in data.get("dice", [])],
    )


def draw_deal(engine: Engine, rng: random.Random, shoe: Shoe | None = None) -> Deal:
    """A live deal from a freshly shuffled shoe of the game's decks and jokers (or ``shoe``,
    already in order: the commit–reveal deck).

    The engine sizes the deal (:meth:`~referee.rules.base.Engine.draw_deal`: its deal plan, or
    a deal of its own).
    """
    d = engine.definition
    if shoe is None:
        shoe = Shoe(decks=d.decks, jokers=d.jokers, rng=rng)
    return engine.draw_deal(shoe, rng)
