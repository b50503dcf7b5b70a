"""holdem_aa through the live service (``!open`` / ``!sit`` / ``!deal`` and chat): each player
is told their hole cards privately exactly once per hand -- by the engine, after the stakes (the
AA bet is placed blind) -- and never at ``!deal``; a private question before then gets no cards."""

from __future__ import annotations

import itertools
import random

from event_helpers import handle

from referee.cards import Card, pretty
from referee.events import Event
from referee.inputs import Message
from referee.service import Referee

ROOM = "!aa"
_ids = itertools.count()


def msg(ref: Referee, sender: str, text: str, dm: bool = False) -> list[Event]:
    return handle(ref, Message(id=f"aa{next(_ids)}", room=ROOM, sender=sender, text=text, dm=dm))


def private(events: list[Event], to: str) -> list[str]:
    return [str(getattr(e, "text", "")) for e in events
            if e.event == "say" and getattr(e, "to", None) == to]


def names_cards(text: str, cards: list[Card]) -> bool:
    return all(pretty(c) in text for c in cards)


def test_hole_cards_are_sent_privately_once_per_hand_after_the_stakes() -> None:
    ref = Referee(moderators=["dealer"], rng=random.Random(11))
    for who in ("alice", "bob"):
        msg(ref, "dealer", f"!grant @{who} 5000")
    msg(ref, "dealer", "!open holdem_aa")
    msg(ref, "alice", "!sit")
    msg(ref, "bob", "!sit")
    engine = ref.tables[ROOM].engine
    for hand in (1, 2):
        every: list[Event] = msg(ref, "dealer", "!deal")
        assert engine.in_hand
        # nothing private at the deal: the AA bet is placed without seeing the cards
        assert private(every, "alice") == [] and private(every, "bob") == []
        ask = msg(ref, "alice", "手札を教えて", dm=True)
        assert private(ask, "alice") == ["まだカードは配られていません。"]
        every += msg(ref, "alice", "アンティ100")
        every += msg(ref, "bob", "アンティ100 AA100")
        held = {p: engine.holdings(p) for p in ("alice", "bob")}
        assert all(len(c) == 2 for c in held.values())
        every += msg(ref, "alice", "コール")
        every += msg(ref, "bob", "フォールド")
        assert not engine.in_hand
        for p, cards in held.items():
            told = [t for t in private(every, p) if names_cards(t, cards)]
            assert told == [f"ハンド#{hand} あなたの手札: {' '.join(pretty(c) for c in cards)}"]
