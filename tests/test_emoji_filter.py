"""The emoji pre-filter of the decoration reader (``referee.lang.decor``): a text is handed to
the emoji package only when it holds a character some emoji is made of. The filter must never
keep an emoji from being dropped: every emoji of the package's list is seen, and on any text
dropping with the filter is dropping without it."""

from __future__ import annotations

import emoji
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.lang import decor

EMOJI = sorted(emoji.EMOJI_DATA)


def _without_filter(text: str) -> str:
    suits = {"♠", "♥", "♦", "♣"}
    return str(emoji.replace_emoji(
        text, replace=lambda chars, _data: chars if chars.rstrip("\ufe0f") in suits else ""))


def test_every_emoji_passes_the_filter() -> None:
    missed = [e for e in EMOJI if decor._MAYBE_EMOJI.search(e) is None]
    assert not missed, missed[:10]


def test_plain_japanese_is_not_handed_to_the_package() -> None:
    for text in ("コールで", "すみません、フォールドします。", "「メイク1800」", "ｈｒ", "10:30"):
        assert decor._MAYBE_EMOJI.search(text) is None, text


TEXT = list("こーるコールﾌｫｰﾙﾄﾞ、。 A1♠♥#*")


@settings(max_examples=examples(400))
@given(st.lists(st.one_of(st.sampled_from(EMOJI), st.sampled_from(TEXT), st.characters()),
                max_size=12))
def test_dropping_with_the_filter_is_dropping_without_it(parts: list[str]) -> None:
    text = "".join(parts)
    if ":" in text:  # shortcodes are the reader's own rule, not the package's
        text = text.replace(":", "")
    assert decor.drop_emoji(text) == _without_filter(text)
