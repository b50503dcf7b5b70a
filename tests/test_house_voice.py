"""The dealer's voice in the house games, checked on whole hands through the service.

For ``holdem_aa``, ``seven`` and ``deuces``, random tables play whole hands by chat messages
(``referee.service.Referee``, the real parser): every time the table starts waiting for a
player's decision, the messages that started the wait include a room ``say`` naming that player
(「aliceさん」) and the choices of that decision; every accepted message is acknowledged in the
room by a ``say`` naming the player; no room text carries an ASCII result id (``win``, ``lose``,
``push``, ``dq``, ``dealer_fold``); every dealing-mistake guarantee, joker bonus and bonus-area
payout is announced with its figure.
"""

from __future__ import annotations

import itertools
import random
import re
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from event_helpers import handle
from event_helpers import says as room

from referee.adapters.transcript import replay_events
from referee.cards import card_str
from referee.events import Event
from referee.games.deuces.cards import dup_kinds
from referee.games.seven.hands import SEVEN_CARD_CLASSES, seven_key
from referee.hands import NAMES, class_of
from referee.inputs import Message
from referee.lang.catalog import chips
from referee.service import Referee

ROOM = "!room"
PLAYERS = ["alice", "bob", "carol"]
ASCII_RESULT = re.compile(r"\b(win|lose|push|dq|dealer_fold)\b")
#: The words a prompt for each decision must contain.
CHOICES = {
    "stake": ["アンティ"],
    "decide": ["コール", "フォールド"],
    # (a raise is named only when the turn accepts one: test_offers.py)
    "round1": ["コール", "フォールド"],
    "round2": ["コール", "フォールド"],
    "declare": ["捨てる"],
    "play": ["残す", "捨てる", "フォールド"],
    "duplicate": ["捨てる"],
}
_ids = itertools.count()


def seven_declaration(cards: list[Any]) -> str:
    best = seven_key(cards)
    klass = class_of("seven", best)
    if klass in SEVEN_CARD_CLASSES:
        return NAMES["seven"][klass]
    for pair in combinations(range(7), 2):
        keep = [c for i, c in enumerate(cards) if i not in pair]
        if seven_key(keep) == best:
            return " ".join(card_str(cards[i]) for i in pair) + " を捨てる"
    raise AssertionError("no discard keeps the best hand")  # pragma: no cover


def message(game: str, engine: Any, player: str, decision: str, rng: random.Random) -> str:
    """A legal message for ``decision`` (mostly; the engines refuse the rest)."""
    if decision == "stake":
        if game == "holdem_aa" and rng.random() < 0.5:
            return "アンティ100 AA50"
        return rng.choice(["アンティ100", "アンティ100", "オールイン"])
    if decision == "decide":
        return rng.choice(["コール", "フォールド"])
    if decision in ("round1", "round2"):
        extra = "ハイパー" if decision == "round1" else "エクストラ"
        return rng.choice(["コール", "コール", "レイズ", extra, "フォールド"])
    if decision == "declare":
        return seven_declaration(engine.holdings(player))
    cards = engine.holdings(player)
    if decision == "duplicate":
        return f"{card_str(rng.choice(dup_kinds(cards)))} を捨てる"
    keep = rng.sample(cards, rng.randint(0, 5))
    if not keep or rng.random() < 0.2:
        return rng.choice(["交換なし", "フォールド"])
    return " ".join(card_str(c) for c in keep) + " 残す"


class Table:
    """One room of a live :class:`Referee` and what it said."""

    def __init__(self, game: str, seed: int, players: int) -> None:
        self.ref = Referee(moderators=["dealer"], rng=random.Random(seed))
        self.game = game
        self.players = PLAYERS[:players]
        self.said: list[str] = []
        for p in self.players:
            self.send("dealer", f"!grant @{p} 5000")
        self.send("dealer", f"!open {game} ante=100")
        for p in self.players:
            self.send(p, "!sit")

    @property
    def engine(self) -> Any:
        return self.ref.tables[ROOM].engine

    def send(self, sender: str, text: str) -> list[Event]:
        out = handle(self.ref, Message(id=f"m{next(_ids)}", room=ROOM, sender=sender, text=text))
        self.said += room(out)
        return out

    def decisions(self) -> dict[str, str]:
        if ROOM not in self.ref.tables:
            return {}
        return {p: d for p in self.players if (d := self.engine.decision(p)) is not None}


def check_prompts(events: list[Event], before: dict[str, str], after: dict[str, str]) -> None:
    """Every decision the table newly waits for was asked in the room by these events."""
    lines = room(events)
    for player, decision in after.items():
        if before.get(player) == decision:
            continue
        asked = [t for t in lines if f"{player}さん" in t
                 and all(w in t for w in CHOICES[decision])]
        assert asked, f"{player} ({decision}) was not prompted: {lines}"


def check_figures(events: list[Event]) -> None:
    """Guarantees, joker bonuses and bonus payouts are announced with their figures."""
    lines = room(events)
    for e in events:
        if e.event in ("compensation", "joker", "bonus_payout"):
            figure = chips(int(getattr(e, "payout", getattr(e, "amount", 0))))
            player = str(e.player)
            assert any(player in t and figure in t for t in lines), (e.event, figure, lines)


def play_hand(t: Table, rng: random.Random, mistake: bool = False) -> None:
    before: dict[str, str] = {}
    events = t.send("dealer", "!deal")
    assert any(e.event == "hand_start" for e in events), room(events)
    for step in range(60):
        after = t.decisions()
        check_prompts(events, before, after)
        check_figures(events)
        if not after:
            break
        if mistake and step == 3:
            events = t.send("dealer", "!nogame")
            assert any(e.event == "compensation" for e in events) or \
                any("中止" in s for s in room(events))
            before = {}
            continue
        player = rng.choice(sorted(after))
        text = message(t.game, t.engine, player, after[player], rng)
        events = t.send(player, text)
        if not any(e.event == "rejected" for e in events):
            # read and accepted: the action (or, deuces, the duplicate removed) and its echo
            assert any(e.event in ("action", "duplicate") and getattr(e, "player", "") == player
                       for e in events), f"{player}: 「{text}」 was not read: {room(events)}"
            acks = [s for s in room(events) if f"{player}さん" in s]
            assert acks, f"{player}: 「{text}」 was not acknowledged: {room(events)}"
        before = after
    else:  # pragma: no cover
        raise AssertionError(f"the hand did not end: {t.decisions()}")
    check_figures(events)
    assert not [s for s in t.said if ASCII_RESULT.search(s)]


@pytest.mark.parametrize("game", ["holdem_aa", "seven", "deuces"])
@pytest.mark.parametrize("seed", range(6))
def test_every_decision_is_prompted_and_every_action_acknowledged(game: str, seed: int) -> None:
    rng = random.Random(seed)
    t = Table(game, seed, 1 + seed % 3)
    for _ in range(2):
        if not t.engine.stacks():  # everyone went bankrupt
            break
        play_hand(t, rng)


@pytest.mark.parametrize("game", ["holdem_aa", "seven", "deuces"])
@pytest.mark.parametrize("seed", range(3))
def test_dealing_mistake_guarantees_are_announced_with_their_figures(game: str, seed: int) -> None:
    rng = random.Random(100 + seed)
    t = Table(game, 100 + seed, 2 + seed % 2)
    play_hand(t, rng, mistake=True)


TRANSCRIPTS = sorted(
    p for game in ("holdem_aa", "seven", "deuces")
    for p in (Path(__file__).parent / "transcripts" / game).glob("*.txt")
)


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_transcripts_announce_figures_and_never_an_ascii_result(path: Path) -> None:
    """The house games' transcripts: every guarantee, joker and bonus payout is announced in
    the room (player and figure) before the next hand starts; no room text has a result id."""
    events = list(replay_events(path))
    for i, e in enumerate(events):
        if e.event == "say" and getattr(e, "to", None) == "room":
            assert not ASCII_RESULT.search(str(getattr(e, "text", ""))), e
        if e.event in ("compensation", "joker", "bonus_payout"):
            rest = events[i:]
            end = next((k for k, x in enumerate(rest) if x.event == "hand_start"), len(rest))
            check_figures([e, *(x for x in rest[1:end] if x.event == "say")])
