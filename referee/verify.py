"""``referee verify``: check every revealed hand of an event log (docs/fairness.md).

For each ``deal_reveal``: the ``deal_commitment`` of the same hand came first and is SHA-256 of
the seed; the deck (and dice, and deuces' bonus deck) follow from seed + entropy by the
documented algorithm (:mod:`referee.fairness`), for the game's shoe; the recorded deal took its
cards from the front of that deck, in order; and every card the bot sent during the hand -- the
private hand messages, the board, replacements, shown and exposed cards -- is one of the cards
dealt to that place. With the database the entropy itself is checked too: it must be exactly
the room's messages between the commitment and the deal.

The first discrepancy is reported as one line (:class:`Discrepancy`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.fairness import (
    ENTROPY_LINES,
    ENTROPY_TEXT,
    FairnessError,
    commitment,
    dealt_order,
    derive,
    entropy_line,
    is_prefix,
)
from referee.verify_deals import DealError, DealWatch

#: The event kinds that number a hand (``hand``); a ``settle``'s ``hand`` is a hand class.
_NUMBERED = frozenset({"deal_commitment", "hand_start", "deal_reveal"})


class Discrepancy(Exception):
    """The first thing that does not hold, as one Japanese line: ``code`` is its catalogue
    key (``verify.*``, what tests check); a message said elsewhere already (a tampered
    database's) is taken as it is."""

    def __init__(self, code: str, **params: Any) -> None:
        from referee.lang.catalog import messages, text

        self.code = code
        super().__init__(text(code, **params) if code in messages() else code)


@dataclass
class _Hand:
    sha256: str | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    started: bool = False




def cards_sent(ev: dict[str, Any]) -> tuple[str, list[str]] | None:
    """The cards an event put before someone, as (``room`` or the player told, cards): the
    typed record of what the room was shown (``board``, ``shown``, ``exposed``, a misdeal's
    burned hand, a burned board card) and of what a private message told (a ``say``'s
    ``cards``); None for an event that shows no card. Never read from a sentence."""
    kind = ev.get("event")
    if kind == "say":
        cards = ev.get("cards")
        return (str(ev.get("to", "")), [str(c) for c in cards]) if cards else None
    if kind == "board":
        return "room", [str(c) for c in ev.get("cards", [])]
    if kind in ("shown", "exposed", "showdown"):
        return "room", [str(c) for c in ev.get("cards", [])]
    if kind == "misdeal":
        return "room", [str(c) for c in ev.get("burned", [])]
    if kind == "burned":
        return "room", [str(ev.get("card", ""))]
    return None


def _within(cards: Sequence[str], pool: Sequence[str]) -> str | None:
    """A card of ``cards`` that ``pool`` cannot supply (counting copies), else None."""
    have = Counter(pool)
    for c in cards:
        if have[c] <= 0:
            return c
        have[c] -= 1
    return None


def _shoe_ok(game: str | None, decks: int, jokers: int, hand: int) -> None:
    if game is None:
        return
    from referee.definitions import load
    from referee.games import game_ids

    if game not in game_ids():
        raise Discrepancy("verify.unknown_game", hand=hand, game=str(game))
    d = load(game)
    if (d.decks, d.jokers) != (decks, jokers):
        raise Discrepancy("verify.shoe", hand=hand, game=d.name, decks=d.decks,
                          jokers=d.jokers, got_decks=decks, got_jokers=jokers)


def check_reveal(rev: dict[str, Any], hand: _Hand) -> None:
    """One revealed hand (raises :class:`Discrepancy`)."""
    n = int(rev.get("hand", 0))
    seed, entropy, deck = rev.get("seed"), rev.get("entropy"), rev.get("deck")
    if not isinstance(seed, str) or not isinstance(entropy, str) or not isinstance(deck, list):
        raise Discrepancy("verify.reveal_incomplete", hand=n)
    if hand.sha256 is None:
        raise Discrepancy("verify.no_commitment", hand=n)
    try:
        sha = commitment(seed)
    except FairnessError:
        raise Discrepancy("verify.bad_seed", hand=n) from None
    if sha != hand.sha256:
        raise Discrepancy("verify.seed_sha", hand=n, sha=sha[:16], sealed=hand.sha256[:16])
    jokers = sum(1 for c in deck if c == "JK")
    decks = int(rev.get("decks", (len(deck) - jokers) // 52 or 1))
    jokers = int(rev.get("jokers", jokers))
    _shoe_ok(rev.get("game"), decks, jokers, n)
    dice = [int(x) for x in rev.get("dice", [])]
    bonus_deck = list(rev.get("bonus_deck", []))
    want = derive(seed, entropy, decks, jokers, dice=len(dice), bonus=bool(bonus_deck))
    for i, (a, b) in enumerate(zip(deck, want.deck, strict=False)):
        if a != b:
            raise Discrepancy("verify.deck_position", hand=n, position=str(i + 1), card=a,
                              want=b)
    if len(deck) != len(want.deck):
        raise Discrepancy("verify.deck_length", hand=n, cards=len(deck), want=len(want.deck))
    if dice != want.dice:
        raise Discrepancy("verify.dice", hand=n, dice=" ".join(map(str, dice)),
                          want=" ".join(map(str, want.dice)))
    if bonus_deck and bonus_deck != want.bonus_deck:
        raise Discrepancy("verify.bonus_deck", hand=n)
    dealt = rev.get("dealt")
    if not isinstance(dealt, dict):
        return
    order = dealt_order(dealt)
    at = is_prefix(order, deck)
    if at is not None:
        got = order[at]
        from referee.lang.catalog import text

        raise Discrepancy("verify.dealt_card", hand=n, position=str(at + 1), card=got,
                          want=deck[at] if at < len(deck) else text("verify.missing"))
    if is_prefix(list(dealt.get("bonus", [])), want.bonus_deck) is not None:
        raise Discrepancy("verify.bonus_area", hand=n)
    if is_prefix([int(x) for x in dealt.get("dice", [])], dice) is not None:
        raise Discrepancy("verify.dice_used", hand=n)
    _check_sent(n, dealt, hand.events)


def _check_sent(n: int, dealt: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """Every card the bot sent during the hand came from the deal, to the right place: read
    from the typed events (``board``, ``shown``, the ``cards`` of a private ``say`` …), never
    from the sentences."""
    hands: dict[str, list[str]] = {k: list(v) for k, v in dict(dealt.get("hands", {})).items()}
    board, shoe = list(dealt.get("board", [])), list(dealt.get("shoe", []))
    dealer = list(dealt.get("dealer", []))
    everything = [c for h in hands.values() for c in h] + dealer + board + shoe
    first: set[str] = set()
    for ev in events:
        kind = ev.get("event")
        if kind == "say":
            to, cards = str(ev.get("to", "")), [str(c) for c in ev.get("cards") or []]
            if not cards or to == "room":
                continue
            own = hands.get(to, [])
            if to not in first and len(cards) == len(own) and own:
                first.add(to)
                if cards != own:
                    raise Discrepancy("verify.sent_hand", hand=n, player=to,
                                      cards=" ".join(cards), own=" ".join(own))
                continue
            bad = _within(cards, own + shoe + board)
            if bad is not None:
                raise Discrepancy("verify.sent_not_theirs", hand=n, player=to, card=bad)
        elif kind == "board":
            cards = [str(c) for c in ev.get("board", [])]
            if cards != (board + shoe)[: len(cards)]:
                raise Discrepancy("verify.board_order", hand=n, cards=" ".join(cards))
        elif kind == "shown" and ev.get("why") == "deal":  # seven: dealt face up, per seat
            who = str(ev.get("player", ""))
            own = dealer if who == "dealer" else hands.get(who, [])
            cards = [str(c) for c in ev.get("cards", [])]
            if cards != own[: len(cards)]:
                from referee.lang.catalog import text

                label = text("verify.dealer_seat") if who == "dealer" else who
                raise Discrepancy("verify.dealt_in_room", hand=n, who=label,
                                  cards=" ".join(cards), own=" ".join(own))
        elif kind == "duplicate":
            bad = _within([str(ev.get("replacement", ""))], shoe)
            if bad is not None:
                raise Discrepancy("verify.replacement", hand=n, card=bad)
        elif kind in ("shown", "showdown", "exposed"):
            who = str(ev.get("player", ""))
            pool = (dealer if who == "dealer" else hands.get(who, [])) + shoe
            bad = _within([str(c) for c in ev.get("cards", [])], pool)
            if bad is not None:
                raise Discrepancy("verify.showed", hand=n, who=who, card=bad)
        elif kind == "burned":
            bad = _within([str(ev.get("card", ""))], everything)
            if bad is not None:
                raise Discrepancy("verify.burned", hand=n, card=bad)


def verify(events: Iterable[dict[str, Any]]) -> int:
    """Check every reveal of one room's (or one replay's) events in order; the number of
    hands verified. Raises :class:`Discrepancy` at the first that does not hold."""
    hands: dict[int, _Hand] = {}
    current: _Hand | None = None
    count = 0
    watch = DealWatch(cards_sent)  # every dealt hand revealed, no card sent before it was dealt
    for ev in events:
        try:
            watch.feed(ev)
        except DealError as e:
            raise Discrepancy(e.code, **e.params) from None
        kind = ev.get("event")
        if kind == "deal_commitment":
            hands[int(ev.get("hand", 0))] = _Hand(sha256=str(ev.get("sha256", "")))
        elif kind == "hand_start":
            current = hands.get(int(ev.get("hand", 0)))
            if current is not None:
                current.started = True
        elif kind == "hand_end":
            current = None
        elif kind == "deal_reveal":
            n = int(ev.get("hand", 0))
            h = hands.pop(n, None)
            check_reveal(ev, h if h is not None else _Hand())
            count += 1
        elif current is not None:
            current.events.append(ev)
    try:
        watch.finish()
    except DealError as e:
        raise Discrepancy(e.code, **e.params) from None
    return count


def check_entropy(inputs: Iterable[dict[str, Any]], events_of: dict[str, list[dict[str, Any]]]
                  ) -> None:
    """The database: each revealed entropy is exactly the room's messages (``id``, sender, text)
    from the one after the commitment's input to the dealing input, the first
    ``ENTROPY_LINES`` of them (``events_of``: input id → its events; one room's inputs)."""
    collecting: dict[int, list[str]] = {}
    frozen: dict[int, list[str]] = {}
    for inp in inputs:
        iid = str(inp.get("id", ""))
        events = events_of.get(iid, [])
        line = None
        if inp.get("kind") == "message" and not inp.get("dm"):
            line = entropy_line(iid, str(inp.get("sender", "")),
                                str(inp.get("text", ""))[:ENTROPY_TEXT])
            for lines in collecting.values():
                if len(lines) < ENTROPY_LINES:
                    lines.append(line)
        fresh: set[int] = set()
        for ev in events:
            kind = ev.get("event")
            if kind not in _NUMBERED:
                continue
            n = int(ev.get("hand", 0))
            if kind == "deal_commitment":
                collecting[n] = []
                fresh.add(n)
            elif kind == "hand_start" and n in collecting:
                lines = collecting.pop(n)
                # committed by the dealing input itself: that message is the entropy
                frozen[n] = [line] if n in fresh and line is not None else lines
            elif kind == "deal_reveal":
                want = frozen.pop(n, None)
                if want is not None and str(ev.get("entropy", "")) != "\n".join(want):
                    raise Discrepancy("verify.entropy", hand=n)
