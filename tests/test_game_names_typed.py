"""A game is typed by its Japanese name wherever its id is accepted (issue 41): ``!open``, the
transcript's ``# table:`` and the CLI's ``--game`` read 「オマハ」 (any width), the definition's
full name or the id alike, and a refusal lists the games by name, not by id."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from cli_helpers import run_cli
from event_helpers import handle, of, says

from referee.adapters.transcript import replay_events
from referee.definitions import game_of, load, short_name
from referee.games import BUILTIN
from referee.inputs import Message
from referee.service import Referee

ROOM = "!names:example.org"
_ids = itertools.count()


def send(ref: Referee, text: str) -> list[dict[str, object]]:
    return [e.to_json() for e in handle(ref, Message(f"n{next(_ids)}", ROOM, "dealer", text))]


@pytest.mark.parametrize("game", BUILTIN)
def test_every_name_of_a_game_reads_as_its_id(game: str) -> None:
    name = load(game).name
    for typed in (game, name, short_name(game), f" {short_name(game)} "):
        assert game_of(typed) == game, typed
    for other in ("ポーカー", "", "オマハオマハ", "omaha2"):
        assert game_of(other) is None, other


def test_a_table_opens_by_its_japanese_name() -> None:
    for typed, game in (("オマハ", "omaha"), ("ｵﾏﾊ", "omaha"), ("ホールデムＡＡ", "holdem_aa"),
                        ("セブンカード", "seven"), ("デュースボーナス", "deuces")):
        ref = Referee(moderators=["dealer"], rng=random.Random(1))
        opened = of(send(ref, f"!open {typed}"), "table_open")
        assert [e["game"] for e in opened] == [game], typed


def test_an_unknown_game_is_refused_with_the_games_names() -> None:
    ref = Referee(moderators=["dealer"], rng=random.Random(1))
    events = send(ref, "!open ポーカー")
    assert not of(events, "table_open")
    said = says(events)
    assert said and "オマハ" in said[-1] and not any(g in said[-1] for g in BUILTIN), said


def test_a_transcript_table_by_name_is_the_same_table() -> None:
    body = "# seat 1: alice 1000\n# seat 2: bob 1000\n# deal: alice=As Kd | bob=Qc Jd | " \
           "dealer=2c 3d | board=Ts 9s 8c 2h 3h\nalice: アンティ100\nbob: アンティ100\n"
    by_id = [e.to_json() for e in replay_events(text="# table: holdem_aa ante=100\n" + body)]
    by_name = [e.to_json() for e in replay_events(text="# table: ホールデムAA ante=100\n" + body)]
    assert by_name == by_id and of(by_id, "table_open")[0]["game"] == "holdem_aa"


def test_the_cli_takes_a_games_name() -> None:
    for argv in (["hand", "--game", "{}", "--board", "Ts 9s 8c 2h 3h", "Ah Kh Qd Jd",
                  "9h 9d 8s 7s"], ["parse", "--game", "{}", "メイク１８００"]):
        by_id = run_cli([a.replace("{}", "omaha") for a in argv])
        by_name = run_cli([a.replace("{}", "オマハ") for a in argv])
        assert by_id[0] == 0 and by_name == by_id, (by_id, by_name)
        assert json.loads(by_id[1])
    code, _, err = run_cli(["parse", "--game", "ポーカー", "こ"])
    assert code == 2 and "オマハ" in err and "omaha" not in err
