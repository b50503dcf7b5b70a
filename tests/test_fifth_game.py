"""A fifth game, registered exactly as docs/adding-a-game.md says: ``tests/games/highcard/``
(a tiny house game that exists only here) plays through ``referee hand``, ``parse``,
``replay``, ``history``, ``analyze``, the console's database and a chat room; without its
registration line every entry point refuses it with one line, and nothing falls through to
another game."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import run_cli
from event_helpers import handle
from games.highcard.spec import SPEC
from transcript_expect import check_transcript

from referee import games
from referee.console import build
from referee.definitions import DefinitionError, load
from referee.hands import HandError, evaluate
from referee.inputs import Message
from referee.service import Referee

ROOM = "!room"
_ids = itertools.count()
TRANSCRIPT = Path(__file__).parent / "games" / "highcard" / "transcripts" / "two_players.txt"


@pytest.fixture
def highcard() -> Iterator[games.GameSpec]:
    games.register(SPEC)  # the registration line (docs/adding-a-game.md)
    yield SPEC
    games.unregister("highcard")


def _json_lines(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_the_registry_lists_it(highcard: games.GameSpec) -> None:
    assert games.game_ids()[-1] == "highcard"
    assert load("highcard").name == "ハイカード"
    assert evaluate("highcard", [48]).klass == "high_card"  # A♣


def test_referee_hand(highcard: games.GameSpec) -> None:
    code, out, err = run_cli(["hand", "--game", "highcard", "Ah", "Kd"])
    assert code == 0, err
    assert json.loads(out)["winners"] == [0]
    code, out, err = run_cli(["hand", "--game", "highcard", "Ah", "Ad"])
    assert code == 0 and json.loads(out)["winners"] == [0, 1]
    code, _, err = run_cli(["hand", "--game", "highcard", "Ah Kd"])
    assert code == 2 and len(err.splitlines()) == 1 and "手札1枚" in err


def test_referee_parse(highcard: games.GameSpec) -> None:
    code, out, err = run_cli(["parse", "--game", "highcard", "アンティ200"])
    assert code == 0, err
    got = json.loads(out)
    assert (got["kind"], got["action"], got["amount"]) == ("action", "ante", 200)


def test_referee_replay_and_its_expectations(highcard: games.GameSpec) -> None:
    assert check_transcript(TRANSCRIPT) >= 3
    code, out, err = run_cli(["replay", str(TRANSCRIPT)])
    assert code == 0, err
    settles = {e["player"]: e for e in _json_lines(out) if e.get("event") == "settle"}
    assert (settles["alice"]["result"], settles["alice"]["payout"]) == ("win", 200)
    assert (settles["bob"]["result"], settles["bob"]["payout"]) == ("lose", 0)


def test_referee_history_and_the_console(highcard: games.GameSpec, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    code, _, err = run_cli(["replay", "--db", str(db), str(TRANSCRIPT)])
    assert code == 0, err
    code, out, err = run_cli(["history", "--db", str(db), "--json"])
    assert code == 0, err
    hands = _json_lines(out) if not out.lstrip().startswith("[") else json.loads(out)
    assert [h["game"] for h in hands] == ["highcard"]
    code, out, err = run_cli(["history", "--db", str(db)])
    assert code == 0 and "ハイカード" in out, err
    built = build(db, tmp_path / "console.db")
    assert built.hands == 1


def test_referee_analyze(highcard: games.GameSpec) -> None:
    pytest.importorskip("numpy")
    code, out, err = run_cli(["analyze", "highcard", "--json"])
    assert code == 0, err
    report = json.loads(out)
    (ante,) = report["bets"]
    # the dealer's card is one of the 51 others: the same rank 3/51 (push, 1x), a higher or a
    # lower rank 24/51 each (lose, win 2x): a fair game
    rows = {r["row"]: r["probability"] for r in ante["rows"]}
    assert rows["push"] == pytest.approx(3 / 51) and rows["win"] == pytest.approx(24 / 51)
    assert ante["return"] == pytest.approx(2 * 24 / 51 + 3 / 51)


def _say(ref: Referee, sender: str, text: str) -> list[dict[str, object]]:
    out = handle(ref, Message(id=f"hc{next(_ids)}", room=ROOM, sender=sender, text=text))
    return [e.model_dump() for e in out]


def test_a_chat_room_plays_it(highcard: games.GameSpec) -> None:
    ref = Referee(moderators=["dealer"], rng=random.Random(3))
    _say(ref, "dealer", "!grant @alice 1000")
    _say(ref, "dealer", "!grant @bob 1000")
    _say(ref, "dealer", "!open highcard")
    assert ref.tables[ROOM].game == "highcard"
    _say(ref, "alice", "!sit")
    _say(ref, "bob", "!sit")
    _say(ref, "dealer", "!deal")
    events = _say(ref, "alice", "アンティ100") + _say(ref, "bob", "アンティ100")
    settles = [e for e in events if e["event"] == "settle"]
    assert sorted(e["player"] for e in settles) == ["alice", "bob"]
    rules = [e for e in _say(ref, "alice", "!rules") if e["event"] == "say"]
    assert rules and "ハイカード" in str(rules[0]["text"])


def test_without_its_registration_every_entry_point_refuses_it_in_one_line(
        tmp_path: Path) -> None:
    assert not games.is_game("highcard")
    for argv in (["hand", "--game", "highcard", "Ah", "Kd"],
                 ["parse", "--game", "highcard", "アンティ100"],
                 ["replay", str(TRANSCRIPT)],
                 ["analyze", "highcard"]):
        code, out, err = run_cli(argv)
        assert code == 2, argv
        assert len(err.strip().splitlines()) == 1, (argv, err)
        # (the transcript reader says it in Japanese, the other entry points as they did)
        assert "unknown game 'highcard'" in err or "「highcard」" in err, (argv, err)
        assert "Traceback" not in err and not out.strip(), argv
    with pytest.raises(HandError):
        evaluate("highcard", [48])  # never another game's evaluator
    with pytest.raises(DefinitionError, match="unknown game 'highcard'"):
        load("highcard")
    with pytest.raises(games.UnknownGame):
        games.spec("highcard")
