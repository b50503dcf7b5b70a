"""Vocabulary is data: the words live in grammar/, and every reader derives its
patterns from the same tables -- the card and suit table most of all."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from referee import cards, flags, lexicon, parse
from referee.games import games
from referee.hands import NAMES
from referee.lang import vocab
from referee.lang.normalize import fold
from referee.resources import GRAMMAR


def test_the_grammar_card_terminal_is_generated_from_the_card_table() -> None:
    """grammar/common.lark holds no card words: its CARD is a placeholder that the grammar
    loader replaces with what grammar/cards.toml defines."""
    found = re.search(r"^CARD\.3: (/.*/)$", (GRAMMAR / "common.lark").read_text("utf-8"), re.M)
    assert found is not None and found.group(1) == vocab.CARD_PLACEHOLDER
    lark = parse._grammar("omaha").lark
    assert lark.get_terminal("CARD").pattern.value == vocab.card_terminal()


def test_a_changed_card_table_reaches_the_grammar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vocab, "card_terminal", lambda: "(?:zz)")
    parse._grammar.cache_clear()
    try:
        assert parse._grammar("omaha").lark.get_terminal("CARD").pattern.value == "(?:zz)"
    finally:
        monkeypatch.undo()
        parse._grammar.cache_clear()
    assert parse._grammar("omaha").lark.get_terminal("CARD").pattern.value != "(?:zz)"


def test_a_pasted_card_terminal_is_refused(tmp_path: Path) -> None:
    text = (GRAMMAR / "common.lark").read_text("utf-8").replace(
        vocab.CARD_PLACEHOLDER, f"/{vocab.card_terminal()}/")
    (tmp_path / "common.lark").write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=r"cards\.toml"):
        vocab.GrammarLoader(tmp_path)(None, "common.lark")
    with pytest.raises(OSError):
        vocab.GrammarLoader(tmp_path)(None, "missing.lark")


CW = vocab.cards()
SUIT_WORDS = [(w, s) for s in "shdc" for w, t in CW.suit_of.items() if t == s and len(w) > 1]
RANK_WORDS = sorted(CW.rank_of.items())


@pytest.mark.parametrize("word,suit", SUIT_WORDS)
def test_every_suit_word_is_read_everywhere(word: str, suit: str) -> None:
    card = "A" + suit
    # referee.cards (the moderators' and the transcripts' notation)
    assert cards.card_str(cards.parse_card(f"{word}のA")) == card
    # the grammar (an action that names it)
    got = parse.parse(f"オープン {word}のA", "omaha")
    assert got.kind == "action" and got.cards == [card], got
    # the lexicon (hand talk) and the leak judge's suit counts
    assert [cards.card_str(n.card) for n in lexicon.read(f"{word}のA持ってる", "omaha").cards] \
        == [card]
    assert flags.named_suit_counts(f"{word}3枚") == [("cdhs".index(suit), 3)]


@pytest.mark.parametrize("word,rank", RANK_WORDS)
def test_every_rank_word_is_read_by_the_grammar_and_the_lexicon(word: str, rank: str) -> None:
    card = rank.upper() + "h"
    heart = next(w for w, s in CW.suit_of.items() if s == "h" and len(w) > 1)
    got = parse.parse(f"オープン {word}の{heart}", "omaha")
    assert got.kind == "action" and got.cards == [card], got
    named = lexicon.read(f"{word}の{heart}", "omaha").cards
    assert [cards.card_str(n.card) for n in named] == [card]
    assert flags.named_rank_pairs(f"{word}のペア") == [cards.RANKS.index(rank.upper())]


def test_every_joker_word_is_a_joker() -> None:
    for word in CW.jokers:
        assert cards.parse_card(word) == cards.JOKER


def test_the_table_is_folded_and_complete() -> None:
    assert CW.symbols and len(CW.filled) == 4
    for w in (*CW.suit_words, *CW.rank_words, *CW.jokers, CW.of):
        assert fold(w) == w, w
    assert set(CW.suit_of.values()) == set("cdhs")


def test_hand_names_are_data_for_every_class_of_every_game() -> None:
    data = vocab.load("hands.toml")
    for game, found in games().items():
        with (found.folder / "hands.toml").open("rb") as f:
            assert NAMES[game] == tomllib.load(f)["names"]
        assert list(NAMES[game]) == list(found.hands.classes)
    every = {k for g in games().values() for k in g.hands.classes}
    assert set(data["claims"]) <= every


def test_every_vocabulary_file_loads() -> None:
    for path in sorted(GRAMMAR.rglob("*.toml")):
        vocab.load(str(path.relative_to(GRAMMAR)))
    for key in ("trailing", "separators", "clause", "command_word_strip", "amount_glue"):
        assert vocab.marks(key)
    re.compile(vocab.marks("clause"))
