"""Reading what players really type, end to end (issue #12): folds with a show end as folds
showing exactly those cards and raise no flag; 「オールイン AA50」 reaches holdem_aa's all-in; the
player the table waits for is told when a message with action words could not be read, in every
game; spectators and players not to act get no such reply; command words without "!" get a hint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from event_helpers import of
from event_helpers import says as room
from transcript_expect import check_transcript

from referee.adapters.transcript import replay_events
from referee.lang import catalog

DIR = Path(__file__).resolve().parent / "transcripts" / "language"


def events(text: str | None = None, name: str | None = None) -> list[dict[str, Any]]:
    path = DIR / name if name else None
    return [e.to_json() for e in replay_events(path, text=text)]


def test_folds_with_a_show_are_folds_showing_exactly_those_cards() -> None:
    # the expectations are the transcript's own lines (tests/transcript_expect.py): each fold
    # shows exactly its cards, no flag / penalty / rejection, carol opens all and wins the pot
    assert check_transcript(DIR / "omaha_fold_show.txt") >= 13


def test_holdem_aa_allin_with_the_aa_bet() -> None:
    evs = events(name="holdem_aa_allin_aa.txt")
    (alice,) = of(evs, "action", player="alice")
    assert (alice["amount"], alice["ante"], alice["aa"], alice["allin"]) == (525, 475, 50, True)
    (bob,) = of(evs, "action", player="bob")
    assert (bob["amount"], bob["ante"], bob["aa"], bob["allin"]) == (450, 350, 100, True)


OMAHA = """# table: omaha level=3
# moderator: dealer
# seat 1: alice 20000
# seat 2: bob 20000
# seat 3: carol 20000
# button: 1
# deal: alice=Ah Kh Qd Jd | bob=2c 3c 4d 5d | carol=9h 9d 8s 7s | board=Ts 9s 8c 2h 3h
"""
HOLDEM = """# table: holdem_aa ante=100
# seat 1: alice 1000
# seat 2: bob 1000
# deal: alice=As Kd | bob=Qh Qs | dealer=3h 3s | board=Ah 8c 7c 6d 2h
"""
SEVEN = """# table: seven ante=100
# seat 1: alice 10000
# seat 2: bob 10000
# button: 2
# deal: alice=6c 6d 6h 4c 4d 2s 9h | bob=Qc Qd Qh Qs Jc Jd Jh | dealer=Kc Kd 2h 4s 6c 8d Th | dice=6
"""
DEUCES = """# table: deuces ante=100
# seat 1: alice 10000
# seat 2: bob 10000
# bonus: 3c 7d 9h Ks
# deal: alice=Ac Ad Ah 7s 9d | bob=3d 4h 5s 6c 7d | dealer=3c 4d 5h 6s 7c
"""

# (game's transcript head, lines before the near miss, the near miss, the decision it names)
NEAR_MISSES = [
    ("omaha-bet", OMAHA, [], "alice: コールかなぁ", "bet"),
    ("omaha-bet-self-talk", OMAHA, [], "alice: 降りたほうがいいかな", "bet"),
    ("holdem-stake", HOLDEM, [], "alice: アンティいくらにしようかな", "holdem_aa_stake"),
    ("holdem-decide", HOLDEM, ["alice: アンティ100", "bob: アンティ100"], "alice: コールしようかな",
     "decide"),
    ("seven-stake", SEVEN, [], "alice: アンティどうしよう", "stake"),
    ("seven-round1", SEVEN, ["alice: アンティ100", "bob: アンティ100"], "alice: ハイパーかなぁ",
     "round1"),
    ("deuces-stake", DEUCES, [], "bob: アンティ忘れてた", "stake"),
    ("deuces-play", DEUCES, ["alice: アンティ100", "bob: アンティ100"], "alice: 残すのどれにしよう",
     "play"),
]


@pytest.mark.parametrize("case", NEAR_MISSES, ids=lambda c: c[0])
def test_near_miss_names_the_player_and_the_decision(case: tuple[Any, ...]) -> None:
    _, head, before, miss, decision = case
    lines = [f"[21:00:{i:02d}] {line}" for i, line in enumerate([*before, miss], 1)]
    evs = events(text=head + "\n".join(lines) + "\n")
    player, text = miss.split(": ", 1)
    key = f"examples_{decision}"
    want = catalog.text("near_miss", player=player, text=text, examples=catalog.messages()[key])
    assert room(evs)[-1] == want
    assert not of(evs, "action", player=player) or before  # nothing applied for the miss


@pytest.mark.parametrize("speaker", ["bob", "spectator"])
def test_no_reply_to_whoever_the_table_does_not_wait_for(speaker: str) -> None:
    # alice is to act: bob (seated, not to act) and a spectator talking about actions get nothing
    evs = events(text=OMAHA + f"[21:00:01] {speaker}: コールかなぁ\n")
    assert not [t for t in room(evs) if "読めませんでした" in t]


@pytest.mark.parametrize("said", ["そこはコールでしょ", "なんでbobさんはフォールドしたの"])
def test_the_player_to_act_giving_advice_is_judged_not_answered(said: str) -> None:
    # alice is to act; advice about another player's decision is judged (a flag), not answered
    # as a near miss of her own action
    evs = events(text=OMAHA + f"[21:00:01] alice: {said}\n")
    assert not [t for t in room(evs) if "読めませんでした" in t]
    assert of(evs, "flag", player="alice")


def test_the_player_to_act_naming_someone_with_action_words_is_answered() -> None:
    # a remark about someone else at one's own turn is answered (never an action, never a flag):
    # silence at the awaited player's turn costs a fold, an answer costs a line
    evs = events(text=OMAHA + "[21:00:01] alice: bobさんいつも降りるね\n")
    assert [t for t in room(evs) if t.startswith("aliceさん: 「")]
    assert not of(evs, "flag", player="alice") and not of(evs, "action", player="alice")


def test_chat_without_action_words_gets_no_reply() -> None:
    evs = events(text=OMAHA + "[21:00:01] alice: 今日は寒いね\n[21:00:02] alice: 👍\n")
    assert not [t for t in room(evs) if "読めませんでした" in t]


def test_house_games_waiting_players_in_any_order() -> None:
    # holdem_aa waits for every player's stake at once: bob is asked too
    evs = events(text=HOLDEM + "[21:00:01] bob: アンティかなぁ\n")
    assert room(evs)[-1].startswith("bobさん: 「アンティかなぁ」は")


@pytest.mark.parametrize("word,command", [("退席", "退席"), ("着席", "着席"), ("残高", "残高")])
def test_command_words_without_the_bang_get_a_hint(word: str, command: str) -> None:
    evs = events(text=OMAHA + f"[21:00:01] dave: {word}\n")
    assert room(evs)[-1] == catalog.text("command_hint", player="dave", word=command)


def test_a_long_message_is_quoted_as_an_excerpt() -> None:
    evs = events(text=OMAHA + "[21:00:01] alice: コール" + "か" * 3000 + "\n")
    (reply,) = [t for t in room(evs) if "読めませんでした" in t]
    assert len(reply) < 150


@pytest.mark.parametrize("head,game_actions", [
    (OMAHA, "help_actions_omaha"), (HOLDEM, "help_actions_holdem_aa"),
    (SEVEN, "help_actions_seven"), (DEUCES, "help_actions_deuces"),
])
def test_help_lists_the_games_actions_and_rules_shows_its_pay_tables(
    head: str, game_actions: str
) -> None:
    evs = events(text=head + "[21:00:01] alice: !help\n[21:00:02] alice: !ルール\n")
    help_text, rules_text = room(evs)[-2:]
    assert catalog.messages()[game_actions] in help_text
    assert rules_text.count("\n") >= 1 or head is OMAHA  # a summary, then the tables
    if head is HOLDEM:  # the pay tables as games/holdem_aa/definition.toml has them, in Japanese
        assert "AA配当（手札2枚＋フロップ）: ロイヤル・フラッシュ ×201" in rules_text
        assert "ディーラーフォールド ×1" in rules_text and "dealer_fold" not in rules_text


def test_a_near_miss_with_one_legal_reading_is_offered_never_applied() -> None:
    evs = events(text=OMAHA + "[21:00:01] alice: コーノレで\n")
    want = catalog.text("near_miss_guess", player="alice", text="コーノレで", action="コール")
    assert room(evs)[-1] == want
    assert not of(evs, "action", player="alice")


def test_a_guess_the_table_would_refuse_is_not_offered() -> None:
    # alice faces the big blind: a check (チェッワ, one kana off) is no legal reading
    evs = events(text=OMAHA + "[21:00:01] alice: チェッワ\n")
    offered = catalog.text("near_miss_guess", player="alice", text="チェッワ", action="チェック")
    assert offered not in room(evs)
    assert not of(evs, "action", player="alice")


def test_a_slip_the_table_would_refuse_is_still_answered() -> None:
    # チェッワ is one kana off チェック, a word the reader knows only as written: refused as a
    # guess (alice faces the big blind), the line is still answered with what is accepted
    evs = events(text=OMAHA + "[21:00:01] alice: チェッワ\n")
    want = catalog.text("near_miss", player="alice", text="チェッワ",
                        examples=catalog.messages()["examples_bet"])
    assert room(evs)[-1] == want
    assert not of(evs, "action", player="alice")


def test_a_short_yes_to_the_question_takes_exactly_the_offered_action() -> None:
    evs = events(text=OMAHA + "[21:00:01] alice: コーノレで\n[21:00:02] bob: はい\n"
                 "[21:00:03] alice: はい！\n")
    calls = of(evs, "action", player="alice")
    assert [(c["action"], c["amount"]) for c in calls] == [("call", 100)]
    assert not of(evs, "action", player="bob")  # a spectator's yes confirms nothing


def test_a_yes_holds_for_one_answer_and_only_while_it_can_be_taken() -> None:
    # another line first: the question is gone; a yes later is chat
    evs = events(text=OMAHA + "[21:00:01] alice: コーノレで\n[21:00:02] alice: うーん\n"
                 "[21:00:03] alice: はい\n")
    assert not of(evs, "action", player="alice")


@pytest.mark.parametrize("yes", ["はい", "うん", "OK", "👍", "네", "是的", "vâng", "yes"])
def test_the_community_says_yes_in_its_languages(yes: str) -> None:
    evs = events(text=OMAHA + f"[21:00:01] alice: コーノレで\n[21:00:02] alice: {yes}\n")
    assert [c["action"] for c in of(evs, "action", player="alice")] == ["call"], yes


def test_the_awaited_player_is_answered_even_when_the_line_names_someone() -> None:
    # at alice's turn a line that names bob and holds action words is answered (a question or
    # what is accepted), never left to the clock
    evs = events(text=OMAHA + "[21:00:01] alice: bobさん強そうだしフォールドかなあ\n")
    assert [line for line in room(evs) if line.startswith("aliceさん: 「")], room(evs)
    assert not of(evs, "action", player="alice")
    # the same line from a player the table does not wait for stays chat, unanswered
    evs = events(text=OMAHA + "[21:00:01] carol: aliceさん強そうだしフォールドかなあ\n")
    assert not [line for line in room(evs) if line.startswith("carolさん: 「")]


def test_own_name_before_a_colon_is_the_speakers_label() -> None:
    # dave's, erin's and frank's folds typed after their own names; erin's 「dave: コール」 is
    # said to dave and acts for nobody (tests/transcripts/language/omaha_own_name.txt)
    assert check_transcript(DIR / "omaha_own_name.txt") >= 4
