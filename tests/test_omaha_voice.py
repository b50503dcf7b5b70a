"""The dealer's voice in omaha, checked on whole hands through the service, as
tests/test_house_voice.py does for the house games: whenever the table starts waiting for a
player's decision, the messages that started the wait include a room line naming the player and
the choices; every accepted message is acknowledged in the room by a line naming the player
(「bobさん: コール 10」, 「aliceさんがオープン: …」); every figure is written with thousands
separators."""

from __future__ import annotations

import itertools
import random
import re

import pytest
from event_helpers import directive, handle
from event_helpers import says as room

from referee.cards import card_str
from referee.events import Event
from referee.inputs import Message
from referee.service import Referee

ROOM = "!omaha"
PLAYERS = ["alice", "bob", "carol", "dave"]
CHOICES = {"bet": ["フォールド"], "showdown": ["オープン", "マック"],
           "after_fold": ["オープン", "クローズ"]}
BARE_THOUSANDS = re.compile(r"(?<![\d,])\d{4,}(?![\d,])")  # 1000 rather than 1,000
_ids = itertools.count()


class Table:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.ref = Referee(moderators=["dealer"])
        directive(self.ref, "t", ROOM, "table", {"game": "omaha", "options": {"level": "3"}})
        for i, name in enumerate(PLAYERS, start=1):
            directive(self.ref, f"s{i}", ROOM, "seat", {"seat": i, "name": name,
                                                       "chips": self.rng.choice([900, 20000])})

    @property
    def engine(self):  # type: ignore[no-untyped-def]
        return self.ref.tables[ROOM].engine

    def send(self, sender: str, text: str) -> list[Event]:
        return handle(self.ref, Message(id=f"o{next(_ids)}", room=ROOM, sender=sender,
                                        text=text, time=None))

    def decisions(self) -> dict[str, str]:
        return {p: d for p in PLAYERS if (d := self.engine.decision(p)) is not None}

    def deal(self) -> list[Event]:
        deck = [card_str(c) for c in range(52)]
        self.rng.shuffle(deck)
        seated = list(self.engine.stacks())
        hands = {p: [deck.pop() for _ in range(4)] for p in seated}
        return directive(self.ref, f"d{next(_ids)}", ROOM, "deal",
                                  {"hands": hands, "board": [deck.pop() for _ in range(5)]})


def message(decision: str, rng: random.Random) -> str:
    if decision == "bet":
        return rng.choice(["コール", "チェック", "フォールド", "ポット", "メイク2000", "ベット500",
                           "オールイン", "こ", "X"])
    if decision == "showdown":
        return rng.choice(["オープン", "マック"])
    return rng.choice(["オープン", "クローズ"])


def check_prompts(events: list[Event], before: dict[str, str], after: dict[str, str]) -> None:
    lines = room(events)
    for player, decision in after.items():
        if before.get(player) == decision and decision != "bet":
            continue
        words = CHOICES[decision]
        asked = [t for t in lines if f"{player}さん" in t and all(w in t for w in words)]
        assert asked, f"{player} ({decision}) was not prompted: {lines}"


@pytest.mark.parametrize("seed", range(12))
def test_every_decision_is_prompted_and_every_action_acknowledged(seed: int) -> None:
    t = Table(seed)
    for _ in range(3):
        if len(t.engine.stacks()) < 2:
            break
        before: dict[str, str] = {}
        events = t.deal()
        check_prompts(events, before, t.decisions())
        for _ in range(200):
            pending = t.decisions()
            if not pending:
                break
            player, decision = next(iter(pending.items()))
            events = t.send(player, message(decision, t.rng))
            if any(e.event == "rejected" for e in events):
                continue
            lines = room(events)
            assert any(line.startswith(f"{player}さん") for line in lines), (player, lines)
            assert not any(BARE_THOUSANDS.search(line) for line in lines), lines
            check_prompts(events, pending, t.decisions())
        else:
            raise AssertionError(f"the hand did not end: {t.decisions()}")


def test_the_check_notices_a_silent_action(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the acknowledgement line the property fails: it is not vacuous."""
    from referee.events import Say
    from referee.games.omaha import rounds

    monkeypatch.setattr(rounds, "action_line", lambda *a, **k: Say(to="dave", text="-"))
    with pytest.raises(AssertionError):
        for seed in range(12):
            test_every_decision_is_prompted_and_every_action_acknowledged(seed)
