"""Tags and addressees are taken off before the action is read (docs/parser.md "Tags and
addressees"): a reply, a mention, a label, a table, the bot's name, the dealer; a tag naming
another game (or, when the table is known, another table) makes the message no action here."""

from __future__ import annotations

import pytest

from referee.lang import tags
from referee.parse import parse


@pytest.mark.parametrize("text,action", [
    (">>佐藤さん りょ、コール", "call"),  # a reply, answered, then the speaker's call
    (">>bob 了解、レイズ2000", "raise"),
    ("@omaha ち", "check"),  # this game's tag
    ("#omaha F", "fold"),
    ("【オマハ】メイク2000", "raise"),
    ("[omaha] call", "call"),
    ("【卓1】チェック", "check"),
    ("「卓2」コール", "call"),  # a table tag, the table unknown: read
    ("卓2 コール", "call"),
    ("2卓目、フォールド", "fold"),
    ("ディーラーさん、コール", "call"),
    ("referee: コール", "call"),  # the bot by name (a Matrix pill's text)
    ("referee、チェックで", "check"),
    ("@referee コール", "call"),
    ("@bot はい、チェックで", "check"),
    ("@bob コールで", "call"),  # a person, and a word of declaring: the speaker's own
    ("@bob 降ります", "fold"),
    ("@alice:example.org りょ、コール", "call"),  # a Matrix user id
    (">>佐藤さん @omaha 【卓1】りょ、コール", "call"),  # several
])
def test_tags_are_taken_off_before_the_action_is_read(text: str, action: str) -> None:
    got = parse(text, "omaha")
    assert (got.kind, got.action, got.elsewhere) == ("action", action, None), got.to_json()


def test_the_amount_of_a_reply_number_is_not_read() -> None:
    """「>>12 コール」 replies to post 12: before, the 12 was read as the call's amount."""
    assert parse(">>12 コールで", "omaha").to_json() == parse("コールで", "omaha").to_json()


@pytest.mark.parametrize("text,game,where", [
    ("@seven コール", "omaha", "seven"),
    ("【セブン】コール", "omaha", "seven"),
    ("[deuces] フォールド", "seven", "deuces"),
    ("#holdem_aa コール", "omaha", "holdem_aa"),
    ("【オマハ】コール", "seven", "omaha"),
])
def test_a_tag_naming_another_game_makes_the_message_no_action_here(text: str, game: str,
                                                                   where: str) -> None:
    got = parse(text, game)
    assert (got.kind, got.elsewhere) == ("chat", where)
    assert got.to_json()["elsewhere"] == where


def test_a_tag_naming_another_table_makes_the_message_no_action_at_a_known_table() -> None:
    assert parse("卓2 コール", "omaha", table=1).to_json()["elsewhere"] == "table:2"
    assert parse("「卓2」コール", "omaha", table=2).action == "call"
    assert parse("コール", "omaha", table=1).action == "call"


@pytest.mark.parametrize("text", [
    "@taro フォールド",  # said to taro as often as done: not the speaker's fold
    "@佐藤 コール",
    "@taro 降りなよ",
    ">>mika こーるこーる！",  # a reply that is advice (a chant)
    ">>taro 降りなよ",
    "【佐藤さん】コール",
])
def test_a_bare_action_after_a_persons_name_is_no_action(text: str) -> None:
    assert parse(text, "omaha").kind == "chat"


@pytest.mark.parametrize(("text", "action"), [
    (">>dan こーる", "call"),  # answering dan's bet (his line) with one's own call
    (">>12 コール", "call"),
    (">>bob こ", "call"),
    (">>yuki >>aki オールイン", "allin"),
])
def test_a_bare_action_replying_to_a_line_answers_it(text: str, action: str) -> None:
    assert parse(text, "omaha").action == action


def test_a_reply_and_a_mention_together_stay_said_to_someone() -> None:
    assert parse(">>yuki @aki フォールド", "omaha").kind == "chat"


@pytest.mark.parametrize("text", [
    "[As Kd] フォールド",  # cards in brackets are no tag
    "「コール」って何？",  # a quotation is no tag
    "F: As Kd",
    "bob: コール",  # a name with a colon that is not the bot's
    "@omaha",  # only a tag
])
def test_what_is_no_tag_is_kept(text: str) -> None:
    from referee.lang.normalize import nfkc

    assert tags.strip(nfkc(text)).rest == nfkc(text)


def test_hand_talk_and_advice_are_read_in_the_whole_text() -> None:
    """The mention says who is addressed: 「@taro 降りて」 is advice to taro."""
    assert parse("@taro 降りて", "omaha").advice
    assert parse("@佐藤 コールしなよ", "omaha").advice
