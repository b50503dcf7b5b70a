"""Commit–reveal dealing (docs/fairness.md): the order of commitment, cards and reveal in random
hands of every game; ``referee verify`` accepts them and rejects every kind of tampering; the
deck re-derived by an independent implementation of the documented algorithm, written here; a
restart deals the same cards; the seed is in no event or message before its reveal."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_cli as _run
from deal_helpers import ROOM, Driver  # tests/ is on sys.path

from referee.events import event_json
from referee.resources import EXAMPLES
from referee.service import Referee
from referee.store import Store
from referee.verify import Discrepancy, check_entropy, verify

GAMES = ("omaha", "holdem_aa", "seven", "deuces")


def _events(game: str, seed: int, hands: int = 6, players: int = 3) -> list[dict[str, Any]]:
    d = Driver(game, seed, players=players)
    for _ in range(hands):
        d.hand()
    return [json.loads(event_json(e)) for e in d.events]


@pytest.fixture(scope="module")
def logs() -> dict[str, list[dict[str, Any]]]:
    return {g: _events(g, 10 + i, players=2 + i) for i, g in enumerate(GAMES)}


def _has_cards(text: str) -> bool:
    return any(s in text for s in "♠♥♦♣")


@pytest.mark.parametrize("game", GAMES)
def test_commitment_before_any_card_reveal_after_hand_end(
    game: str, logs: dict[str, list[dict[str, Any]]]
) -> None:
    evs = logs[game]
    starts = [i for i, e in enumerate(evs) if e["event"] == "hand_start"]
    assert len(starts) >= 4
    with_private = 0
    for i in starts:
        n = evs[i]["hand"]
        commit = [j for j, e in enumerate(evs) if e["event"] == "deal_commitment"
                  and e["hand"] == n]
        end = next(j for j, e in enumerate(evs) if e["event"] == "hand_end" and e["hand"] == n)
        reveal = [j for j, e in enumerate(evs) if e["event"] == "deal_reveal" and e["hand"] == n]
        assert len(commit) == 1 and len(reveal) == 1
        private = [j for j in range(i, end) if evs[j]["event"] == "say"
                   and evs[j]["to"] != "room" and _has_cards(evs[j]["text"])]
        room_cards = [j for j in range(i, end) if evs[j]["event"] == "say"
                      and evs[j]["to"] == "room" and _has_cards(evs[j]["text"])]
        assert commit[0] < i and all(commit[0] < j for j in private + room_cards)
        assert reveal[0] > end
        with_private += bool(private)
        seed = evs[reveal[0]]["seed"]
        assert not any(seed in json.dumps(e, ensure_ascii=False) for e in evs[: reveal[0]])
    assert with_private >= (0 if game == "seven" else 2)  # seven deals face up
    assert verify(evs) == len(starts)


def _first(evs: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(e for e in evs if e["event"] == kind)


def _rejects(evs: list[dict[str, Any]], *codes: str) -> None:
    """verify refuses the log with one of ``codes`` (catalogue keys, verify.*)."""
    with pytest.raises(Discrepancy) as refused:
        verify(evs)
    assert refused.value.code in codes, (refused.value.code, str(refused.value))


@pytest.mark.parametrize("game", GAMES)
def test_verify_rejects_tampering(game: str, logs: dict[str, list[dict[str, Any]]]) -> None:
    base = logs[game]
    # a changed seed: the commitment no longer matches
    evs = copy.deepcopy(base)
    rev = _first(evs, "deal_reveal")
    rev["seed"] = ("0" if rev["seed"][0] != "0" else "1") + rev["seed"][1:]
    _rejects(evs, "verify.seed_sha")
    # a changed entropy: the deck no longer follows
    evs = copy.deepcopy(base)
    _first(evs, "deal_reveal")["entropy"] += " "
    _rejects(evs, "verify.deck_position", "verify.dice")
    # two cards of the deck swapped
    evs = copy.deepcopy(base)
    deck = _first(evs, "deal_reveal")["deck"]
    k = next(i for i in range(1, len(deck)) if deck[i] != deck[0])
    deck[0], deck[k] = deck[k], deck[0]
    _rejects(evs, "verify.deck_position")
    # a dealt card that is not the deck's: in the recorded deal ...
    evs = copy.deepcopy(base)
    dealt = _first(evs, "deal_reveal")["dealt"]
    first = next(iter(dealt["hands"]))
    dealt["hands"][first][0] = "As" if dealt["hands"][first][0] != "As" else "Kd"
    _rejects(evs, "verify.dealt_card")


def _other_card(card: str) -> str:
    """Another card of the same rank (a tampered record)."""
    suits = "shdc"
    return card[0] + suits[(suits.index(card[1]) + 1) % 4] if card != "JK" else "As"


@pytest.mark.parametrize("game", ["omaha", "holdem_aa", "deuces"])
def test_verify_rejects_a_card_sent_that_was_not_dealt(
    game: str, logs: dict[str, list[dict[str, Any]]]
) -> None:
    """verify reads the cards a private message carries (its ``cards``), not its wording."""
    evs = copy.deepcopy(logs[game])
    start = next(i for i, e in enumerate(evs) if e["event"] == "hand_start")
    say = next(e for e in evs[start:] if e["event"] == "say" and e["to"] != "room"
               and e.get("cards"))
    say["cards"][0] = _other_card(say["cards"][0])
    _rejects(evs, "verify.sent_hand", "verify.sent_not_theirs")


def test_verify_rejects_a_face_up_card_not_from_the_deck(
    logs: dict[str, list[dict[str, Any]]]
) -> None:
    evs = copy.deepcopy(logs["seven"])
    shown = next(e for e in evs if e["event"] == "shown" and e["why"] == "deal")
    shown["cards"][0] = _other_card(shown["cards"][0])
    _rejects(evs, "verify.dealt_in_room")


def test_verify_rejects_a_board_card_not_from_the_deck(
    logs: dict[str, list[dict[str, Any]]]
) -> None:
    evs = copy.deepcopy(logs["omaha"])
    board = next(e for e in evs if e["event"] == "board")
    board["board"][0] = _other_card(board["board"][0])
    _rejects(evs, "verify.board_order")


def test_verify_does_not_read_the_wording(logs: dict[str, list[dict[str, Any]]]) -> None:
    """The sentences are a rendering: reworded (or emptied) room and private lines change
    nothing verify decides."""
    for game in GAMES:
        evs = copy.deepcopy(logs[game])
        for e in evs:
            if e["event"] == "say":
                e["text"] = "…"
        assert verify(evs) == verify(logs[game]) > 0


def test_verify_rejects_a_reveal_without_commitment(
    logs: dict[str, list[dict[str, Any]]]
) -> None:
    evs = [e for e in logs["omaha"] if e["event"] != "deal_commitment"]
    _rejects(evs, "verify.no_commitment")


# --- an independent implementation of docs/fairness.md (no project import) -----------------

def _stream(seed: str, entropy: str, purpose: str):  # type: ignore[no-untyped-def]
    key = bytes.fromhex(seed)
    counter = 0
    buf = b""
    while True:
        while len(buf) < 4:
            msg = (b"referee-deal-v1\x00" + purpose.encode() + b"\x00" + entropy.encode("utf-8")
                   + b"\x00" + counter.to_bytes(8, "big"))
            buf += hmac.new(key, msg, hashlib.sha256).digest()
            counter += 1
        yield int.from_bytes(buf[:4], "big")
        buf = buf[4:]


def _below(words, n: int) -> int:  # type: ignore[no-untyped-def]
    while True:
        x = next(words)
        if x < 2**32 - (2**32 % n):
            return x % n


def _independent_deck(seed: str, entropy: str, decks: int, jokers: int,
                      purpose: str = "deck") -> list[str]:
    cards = [r + s for _ in range(decks) for r in "23456789TJQKA" for s in "cdhs"]
    cards += ["JK"] * jokers
    words = _stream(seed, entropy, purpose)
    for i in range(len(cards) - 1, 0, -1):
        j = _below(words, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@pytest.mark.parametrize("game", GAMES)
def test_independent_implementation_rederives_every_deck(
    game: str, logs: dict[str, list[dict[str, Any]]]
) -> None:
    reveals = [e for e in logs[game] if e["event"] == "deal_reveal"]
    commits = {e["hand"]: e["sha256"] for e in logs[game] if e["event"] == "deal_commitment"}
    assert reveals
    for rev in reveals:
        assert hashlib.sha256(bytes.fromhex(rev["seed"])).hexdigest() == commits[rev["hand"]]
        decks, jokers = (1, 0) if game in ("omaha", "holdem_aa") else (6, 1)
        assert rev["deck"] == _independent_deck(rev["seed"], rev["entropy"], decks, jokers)
        dealt = rev["dealt"]
        order = [c for h in dealt["hands"].values() for c in h] + dealt["dealer"] \
            + dealt.get("board", []) + dealt["shoe"]
        assert rev["deck"][: len(order)] == order
        if "dice" in rev:
            words = _stream(rev["seed"], rev["entropy"], "dice")
            assert rev["dice"] == [_below(words, 6) + 1 for _ in rev["dice"]]
            assert dealt["dice"] == rev["dice"][: len(dealt["dice"])]
        if "bonus_deck" in rev:
            assert rev["bonus_deck"] == _independent_deck(rev["seed"], rev["entropy"], 1, 0,
                                                          "bonus")
            assert dealt["bonus"] == rev["bonus_deck"][:4]
    if game == "seven":
        assert all("dice" in r for r in reveals)
    if game == "deuces":
        assert "bonus_deck" in reveals[0] and "bonus_deck" not in reveals[-1]


def test_entropy_is_the_messages_between_commitment_and_deal() -> None:
    d = Driver("omaha", 3, players=3)
    d.say("bob", "この発言もシャッフルに入る")
    d.hand(chat=0.0)
    rev = next(e for e in d.events if e.event == "deal_reveal")
    lines = rev.entropy.split("\n")  # type: ignore[attr-defined]
    assert lines[-2].endswith("\tbob\tこの発言もシャッフルに入る")
    assert lines[-1].endswith("\tdealer\t!deal")


# --- restart safety and the database ---------------------------------------------------------

def test_a_rebuild_deals_the_same_cards_and_keeps_the_seed_private(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    store = Store(db)
    d = Driver("deuces", 5, players=3, ref=Referee(moderators=["dealer"], persistence=store,
                                                    rng=random.Random(9)))
    for _ in range(3):
        d.hand()
    d.say("carol", "次のハンドのエントロピー")
    store.commit()
    pending = d.ref.tables[ROOM].fair
    assert pending is not None
    rebuilt = Referee(moderators=["dealer"])
    rebuilt.rebuild(store.inputs())
    assert rebuilt.state() == d.ref.state()
    again = rebuilt.tables[ROOM].fair
    assert again is not None and (again.seed, again.lines) == (pending.seed, pending.lines)
    # the next deal, in both: the same deck
    d.say("dealer", "!deal")
    store.commit()
    evs = [json.loads(event_json(e)) for e in d.events]
    assert not any(pending.seed in json.dumps(e, ensure_ascii=False) for e in evs)
    store.close()
    # the database verifies, entropy included
    assert _run(["verify", "--db", str(db)])[0] == 0


def test_check_entropy_rejects_a_message_left_out() -> None:
    d = Driver("omaha", 4, players=2)
    d.hand(chat=0.0)
    d.say("alice", "こんばんは")
    d.hand(chat=0.0)
    store_inputs: list[dict[str, Any]] = []
    events_of: dict[str, list[dict[str, Any]]] = {}
    store = Store(":memory:")
    ref = Referee(moderators=["dealer"], persistence=store, rng=random.Random(2))
    d2 = Driver("omaha", 4, players=2, ref=ref)
    d2.hand(chat=0.0)
    d2.say("alice", "こんばんは")
    d2.hand(chat=0.0)
    store.commit()
    rows = list(store.conn.execute("SELECT input_id, input, events FROM log ORDER BY seq"))
    store_inputs = [json.loads(r[1]) for r in rows]
    events_of = {r[0]: json.loads(r[2]) for r in rows}
    check_entropy(store_inputs, events_of)
    for evs in events_of.values():
        for e in evs:
            if e["event"] == "deal_reveal" and "こんばんは" in e["entropy"]:
                e["entropy"] = "\n".join(x for x in e["entropy"].split("\n")
                                         if "こんばんは" not in x)
    with pytest.raises(Discrepancy) as refused:
        check_entropy(store_inputs, events_of)
    assert refused.value.code == "verify.entropy"


# --- the command ------------------------------------------------------------------------------


def test_verify_command_exit_codes(tmp_path: Path, logs: dict[str, list[dict[str, Any]]]) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in logs["seven"]),
                    encoding="utf-8")
    code, out, _ = _run(["verify", str(good)])
    assert code == 0 and "検証しました" in out
    evs = copy.deepcopy(logs["seven"])
    _first(evs, "deal_reveal")["entropy"] = "x"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in evs),
                   encoding="utf-8")
    code, _, err = _run(["verify", str(bad)])
    assert code == 1 and err.count("\n") == 1 and "ハンド#1" in err
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"event": "say"}\nnot json\n', encoding="utf-8")
    for argv in (["verify", str(junk)], ["verify", str(tmp_path / "missing.jsonl")],
                 ["verify", "--db", str(tmp_path / "missing.db")]):
        code, _, err = _run(argv)
        assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, (argv, err)


def test_transcript_deals_get_no_commitment() -> None:
    from referee.adapters.transcript import read, run

    text = (EXAMPLES / "omaha-example.txt").read_text("utf-8")
    ref = Referee(rng=random.Random(1))
    kinds = [e.event for _, events in run(read(text), ref) for e in events]
    assert "hand_start" in kinds
    assert "deal_commitment" not in kinds and "deal_reveal" not in kinds


# --- privacy of live random deals, and databases from before commitments -------------------

_SUIT = {"♣": "c", "♦": "d", "♥": "h", "♠": "s"}


def _bot_cards(text: str) -> list[str]:
    import re

    return [("T" if m[1] == "10" else m[1]) + _SUIT[m[2]]
            for m in re.finditer(r"(10|[2-9JQKA])([♠♥♦♣])", text)]


def test_no_hole_card_in_the_room_before_it_is_shown() -> None:
    """One-deck games, random live deals: every card a room message names during a hand is on
    the board, the dealer's, or in a message that shows it (an open, a fold or muck with a
    show, holdem_aa's callers' hands) -- never another player's hidden card; and no event but
    the reveal holds a hole card of a player who never showed it."""
    checked = 0
    for game, seed in [("omaha", s) for s in range(8)] + [("holdem_aa", s) for s in range(4)]:
        d = Driver(game, 70 + seed, players=4)
        for _ in range(5):
            d.hand()
        evs = [json.loads(event_json(e)) for e in d.events]
        for rev in (e for e in evs if e["event"] == "deal_reveal"):
            n = rev["hand"]
            start = next(i for i, e in enumerate(evs) if e["event"] == "hand_start"
                         and e["hand"] == n)
            end = next(i for i, e in enumerate(evs) if e["event"] == "hand_end" and e["hand"] == n)
            owner = {c: p for p, cs in rev["dealt"]["hands"].items() for c in cs}
            shown: set[str] = set()
            for e in evs[start:end + 1]:
                if e["event"] != "say" or e["to"] != "room":
                    continue
                cards = _bot_cards(e["text"])
                holes = [c for c in cards if c in owner]
                if not holes:
                    continue
                # a line that shows a player's cards names that player
                for c in holes:
                    assert c in shown or f"{owner[c]}さん" in e["text"] \
                        or f"{owner[c]}さん" in e["text"], (game, n, c, e["text"])
                shown.update(holes)
                checked += 1
            for e in evs[start:end + 1]:
                if e["event"] == "shown":  # the typed record of a show: the player's own cards
                    assert all(owner.get(c, e["player"]) == e["player"] for c in e["cards"])
                    assert set(e["cards"]) & set(owner) <= shown, (game, n, e)
            hidden = {c for c in owner if c not in shown}
            for e in evs[start: evs.index(rev)]:
                if e["event"] in ("say", "deal_reveal"):
                    continue  # says: checked above (private messages go to their owner)
                text = json.dumps(e)
                assert not any(f'"{c}"' in text for c in hidden if e["event"] != "hand_seats"
                               and hidden), (game, n, e)
    assert checked > 20


def test_a_database_from_before_commitments_rebuilds_and_deals_on() -> None:
    """Inputs saved before this feature (no ``commits``): the rebuild invents no commitment
    (none was announced) and replays the recorded deals; the next live input commits."""
    store = Store(":memory:")
    d = Driver("omaha", 6, players=3, ref=Referee(moderators=["dealer"], persistence=store,
                                                   rng=random.Random(6)))
    for _ in range(2):
        d.hand()
    store.commit()
    old = [{k: v for k, v in inp.items() if k != "commits"} for inp in store.inputs()]
    rebuilt = Referee(moderators=["dealer"], rng=random.Random(7))
    rebuilt.rebuild(old)
    assert rebuilt.tables[ROOM].fair is None
    tables = rebuilt.state()["tables"]
    assert tables[ROOM].pop("commitment") is None
    live = d.ref.state()["tables"]
    assert live[ROOM].pop("commitment") is not None
    assert tables == live
    d2 = Driver.__new__(Driver)
    d2.__dict__.update(d.__dict__)
    d2.ref, d2.events = rebuilt, []
    d2.say("bob", "再開")
    assert [e.event for e in d2.events].count("deal_commitment") == 1
    d2.hand(chat=0.0)
    evs = [json.loads(event_json(e)) for e in d2.events]
    assert verify(evs) == 1


def test_an_auto_table_commits_and_reveals_too() -> None:
    """``!open omaha auto=on``: hands dealt by themselves (at a message or a clock tick) are
    committed before and revealed after like any other, and verify."""
    d = Driver("omaha", 12, players=3, options="auto=on")
    for _ in range(40):
        if d.engine.in_hand:
            d.tick(130.0)  # the clock plays: everyone times out
        else:
            d.say(d.rng.choice(d.names), d.rng.choice(["gl", "次いこう", "ww"]))
            d.tick(11.0)
    evs = [json.loads(event_json(e)) for e in d.events]
    kinds = [e["event"] for e in evs]
    assert kinds.count("hand_end") >= 5
    assert verify(evs) == kinds.count("deal_reveal") == kinds.count("hand_end")
