"""Privacy: no message of the bot to the room (or to another player) names a player's hole card
before that player has shown it -- checked on every transcript in the repository.

Limitation: in the input that ends a hand, players still in it are exempt (the showdown opens
them and engines forget what was shown once the hand is over), so an uncontested winner's cards
announced at that very moment would not be caught; a folded player's cards always are.

For each input, a player's hidden cards are what the engine says they hold (before or after the
input) minus what the engine says they have legally shown (before or after). A card the say names
only counts when no other physical copy of it is in the deal (multi-deck shoes hold identical
cards), so the check has no false alarms from the board, the dealer or another player.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from referee.adapters.transcript import TranscriptError, read
from referee.cards import Card, parse_cards
from referee.flags import named_cards
from referee.resources import EXAMPLES
from referee.service import Referee

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPTS = sorted(
    {*ROOT.glob("tests/**/*.txt"), *EXAMPLES.glob("*.txt")}, key=lambda p: str(p)
)


def _deal_cards(args: dict[str, object]) -> Counter[Card]:
    out: Counter[Card] = Counter()
    hands = args.get("hands", {})
    assert isinstance(hands, dict)
    for cards in hands.values():
        out.update(parse_cards(" ".join(cards)))
    for key in ("board", "dealer", "shoe"):
        value = args.get(key, [])
        assert isinstance(value, list)
        out.update(parse_cards(" ".join(value)))
    return out


def leaks(text: str) -> list[str]:
    """Every say that reveals a hidden hole card, as 'line N: to X: ... (card of P)'."""
    ref = Referee(rng=random.Random(1))
    found: list[str] = []
    deal_counts: dict[str, Counter[Card]] = {}
    hands: dict[str, dict[str, list[Card]]] = {}
    folded: dict[str, set[str]] = {}
    for line in read(text):
        room = str(line.input["room"])
        table = ref.tables.get(room)
        players = {s.name for s in table.engine.seated()} if table else set()
        held = {p: table.engine.holdings(p) for p in players} if table else {}
        shown = {p: table.engine.shown(p) for p in players} if table else {}
        try:
            outcome = ref.process(line.input)
        except Exception as e:  # a transcript that is meant to fail is not our subject here
            if "DirectiveError" in type(e).__name__:
                continue
            raise
        if outcome is None:
            continue
        deal = outcome.drawn.get("deal") or (
            line.input["args"] if line.input.get("name") == "deal" else None
        )
        if deal:
            deal_counts[room] = _deal_cards(deal)
            hands[room] = {k: parse_cards(" ".join(v)) for k, v in deal["hands"].items()}
        table = ref.tables.get(room)
        if table is not None:
            for p in {s.name for s in table.engine.seated()}:
                # what they hold now, if anything (a misdeal replaces a hand: the burned one is
                # public); otherwise what they held before the input
                now = table.engine.holdings(p)
                if now:
                    held[p] = now
                else:
                    held.setdefault(p, [])
                shown[p] = shown.get(p, []) + table.engine.shown(p)
        # The input that ends a hand may open the hands still in it (the showdown); engines need
        # not remember what was shown once the hand is over, so those players are exempt there.
        # A folded player's cards stay secret even then.
        ended = any(ev.event == "hand_end" for ev in outcome.events)
        for ev in outcome.events:
            if ev.event == "hand_start":
                folded[room] = set()
            elif ev.event == "action" and getattr(ev, "action", None) == "fold":
                folded.setdefault(room, set()).add(str(getattr(ev, "player", "")))
            if ev.event != "say":
                continue
            to, say = str(getattr(ev, "to", "room")), str(getattr(ev, "text", ""))
            named = set(named_cards(say))
            if not named:
                continue
            for p, cards in held.items():
                if p == to or (ended and p not in folded.get(room, set())):
                    continue
                own = Counter(hands.get(room, {}).get(p, []))
                hidden = set(cards) - set(shown.get(p, []))
                for c in named & hidden:
                    copies = deal_counts.get(room, Counter())[c]
                    if copies and copies > own[c]:
                        continue  # another physical copy of this card is elsewhere in the deal
                    found.append(f"line {line.lineno}: to {to}: {say!r} (a card of {p})")
    return found


def test_there_are_transcripts_to_check() -> None:
    assert any("service" in str(p) for p in TRANSCRIPTS), TRANSCRIPTS


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[str(p.relative_to(ROOT)) for p in TRANSCRIPTS])
def test_no_hole_card_in_a_public_say(path: Path) -> None:
    pytest.importorskip("referee.parse")
    text = path.read_text(encoding="utf-8")
    try:
        read(text)
    except TranscriptError:
        pytest.skip("a deliberately malformed transcript")
    assert leaks(text) == []


def test_the_check_catches_a_leaking_say(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker itself: a moderator-free table where the bot is made to announce a hand."""
    pytest.importorskip("referee.parse")
    text = (
        "# table: omaha\n# seat 1: alice 2000\n# seat 2: bob 2000\n"
        "# deal: alice=Ah Kh Qd Jd | bob=2c 3c 4d 5d | board=Ts 9s 8c 2h 3h\n"
        "alice: !help\n"
    )
    ref_leaks = leaks(text)
    assert ref_leaks == []
    from referee.lang import catalog

    # (the catalogue is broken through its function, not its cached dict: a referee that
    # registers its games clears that cache, which would take a patched entry away)
    real = catalog.messages

    def broken() -> dict[str, str]:
        # a deliberately broken reply, whichever help line the table gives
        return {**real(), **{k: "alice has Ah Kh" for k in real() if k.startswith("help")}}

    monkeypatch.setattr(broken, "cache_clear", real.cache_clear, raising=False)
    monkeypatch.setattr(catalog, "messages", broken)
    # (and the voice's words looked up once -- a message without parameters, as help_sit --
    # must be looked up again: an earlier test of the worker may have said it)
    from referee.rules import voice

    monkeypatch.setattr(voice, "_WORDS", {})
    found = leaks(text.replace("!help\n", "!help sit\n"))
    assert found and "a card of alice" in found[0]
