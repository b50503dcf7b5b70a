"""Random live hands through the whole service (``!open``, ``!sit``, ``!deal``, chat actions,
the clock), for the commit–reveal and hand-history tests: returns every event, in order."""

from __future__ import annotations

import random
from typing import Any

from event_helpers import handle, tick

from referee.events import Event
from referee.inputs import Message
from referee.service import Referee

ROOM = "!table"
PLAYERS = ["alice", "bob", "carol", "dave", "erin", "fumi", "gen", "hana"]
CHAT = ["よろしく", "gl", "こんにちは", "シャッフルして", "ww", "いくぞー"]


class Driver:
    def __init__(self, game: str, seed: int, players: int = 3, options: str = "",
                 ref: Referee | None = None) -> None:
        self.rng = random.Random(seed)
        self.ref = ref if ref is not None else Referee(moderators=["dealer"],
                                                       rng=random.Random(seed + 1))
        self.game = game
        self.events: list[Event] = []
        self.n = 0
        self.now = 1_700_000_000.0
        self.names = PLAYERS[:players]
        for p in self.names:
            self.say("dealer", f"!grant @{p} {self.rng.choice([500, 2000, 5000])}")
        self.say("dealer", f"!open {game} {options}".strip())
        for p in self.names:
            self.say(p, "!sit")

    def say(self, sender: str, text: str, dm: bool = False) -> list[Event]:
        self.n += 1
        self.now += 1.0
        out = handle(self.ref, Message(id=f"m{self.n}", room=ROOM, sender=sender, text=text,
                                       time=self.now, dm=dm))
        self.events += out
        return out

    def tick(self, dt: float) -> None:
        self.n += 1
        self.now += dt
        self.events += tick(self.ref, f"t{self.n}", ROOM, self.now)

    @property
    def engine(self) -> Any:
        return self.ref.tables[ROOM].engine

    def _texts(self, who: str, decision: str) -> list[str]:
        e = self.engine
        if decision == "bet":
            o = e.options_for(who)
            out = ["フォールド"] if o.call else []
            out += ["コール" if o.call else "チェック"] * 3
            if o.can_raise:
                out += [f"メイク{self.rng.randint(o.min_to, o.max_to)}", f"メイク{o.min_to}",
                        "ポット", "オールイン"]
            return out
        return {
            "showdown": ["オープン", "オープン", "マック"],
            "after_fold": ["オープン", "クローズ"],
            "stake": ["アンティ100", "アンティ200", "アンティ100 AA50", "アンティ20", "アンティ10",
                      "オールイン"],
            "decide": ["コール", "コール", "フォールド"],
            "round1": ["コール", "レイズ", "フォールド"],
            "round2": ["コール", "レイズ", "フォールド"],
            "play": ["プレイ", "フォールド"],
        }.get(decision, [])

    def hand(self, chat: float = 0.5) -> bool:
        """Deal and play one hand to its end (False: no hand could be dealt)."""
        if ROOM not in self.ref.tables:
            return False
        while self.rng.random() < chat:  # table talk: entropy for the next deal
            self.say(self.rng.choice(self.names), self.rng.choice(CHAT))
        self.say("dealer", "!deal")
        if not self.engine.in_hand:
            return False
        for _ in range(400):
            e = self.engine
            if not e.in_hand:
                return True
            waiting = [(p, d) for p in self.names if e.is_seated(p)
                       for d in [e.decision(p)] if d is not None]
            if waiting and self.rng.random() < 0.95:
                who, decision = self.rng.choice(waiting)
                texts = self._texts(who, decision)
                if texts:
                    self.say(who, self.rng.choice(texts))
                    if self.rng.random() < 0.9:
                        continue
            self.tick(130.0)
        raise AssertionError("a hand did not end")
