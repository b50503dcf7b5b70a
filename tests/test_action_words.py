"""A word lives once: the action-word table (grammar/words/LANG.toml) is the only list of
action words, and every reader -- the grammar, the clause reader, the advice, the near
misses, the short forms -- gets each row where its uses say (docs/parser.md "Where the words
live")."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from referee import lexicon, parse
from referee.lang import action_words, nearmiss, vocab
from referee.lang.clauses import vocabulary as clause_vocab
from referee.resources import GRAMMAR

ROWS = action_words.rows()


def _id(r: action_words.Row) -> str:
    return f"{r.language}:{r.action}:{r.text}"


def test_no_other_file_lists_action_words() -> None:
    """The four lists of before are gone: the grammar holds placeholders, the clause
    vocabulary, the advice and the near misses hold no action words of their own."""
    lark = (GRAMMAR / "common.lark").read_text("utf-8")
    for name in action_words.terminals():
        found = re.search(rf"^{name}(?:\.\d+)?: (/.*/)$", lark, re.M)
        assert found is not None and found.group(1) == vocab.WORDS_PLACEHOLDER, name
    for game in ("omaha", "holdem_aa", "seven", "deuces"):
        text = (GRAMMAR / f"{game}.lark").read_text("utf-8")
        for name in action_words.terminals():
            assert not re.search(rf"^{name}(?:\.\d+)?:", text, re.M), (game, name)
    assert "actions" not in tomllib.loads((GRAMMAR / "clauses.toml").read_text("utf-8"))
    assert "short" not in tomllib.loads((GRAMMAR / "clauses.toml").read_text("utf-8"))["text"]
    assert "actions" not in tomllib.loads((GRAMMAR / "lexicon/advice.toml").read_text("utf-8"))
    assert "words" not in tomllib.loads((GRAMMAR / "nearmiss.toml").read_text("utf-8"))


def test_every_table_terminal_is_in_the_grammars() -> None:
    names = {t.name for g in ("omaha", "holdem_aa", "seven", "deuces")
             for t in parse._grammar(g).lark.terminals}
    # _EXCHANGE lives inside deuces' _THROW, the others under their own names
    assert set(action_words.terminals()) - names <= {"_EXCHANGE", "_DISCARD"}


def test_a_terminal_tries_longer_words_first() -> None:
    """The lexer takes the first alternative that matches: no literal word may come before a
    longer one that starts with it (c before call would leave 「all」)."""
    for name, pattern in action_words.terminals().items():
        alts = [a for a in pattern.split("|") if re.escape(re.sub(r"\\(.)", r"\1", a)) == a]
        words = [re.sub(r"\\(.)", r"\1", a) for a in alts]
        for i, w in enumerate(words):
            assert not any(later.startswith(w) and later != w for later in words[i + 1:]), name


@pytest.mark.parametrize("row", [r for r in ROWS if r.kind == "w"], ids=_id)
def test_every_word_reaches_each_of_its_uses(row: action_words.Row) -> None:
    word = row.text
    if "grammar" in row.uses:
        assert re.fullmatch(action_words.terminals()[row.terminal], word), row
    if "clauses" in row.uses:
        v = clause_vocab.vocabulary()
        found = [clause_vocab.SURFACE_NAMES[m.lastgroup or ""] for m in v.surface.finditer(word)
                 if m.group() == word]
        assert found == [row.action], row
    if "advice" in row.uses:
        assert re.fullmatch(lexicon._alt(list(action_words.advice_actions())), word), row
    if "nearmiss" in row.uses:
        assert nearmiss.mentions_action(word), row
    if "short" in row.uses:
        assert clause_vocab._short().fullmatch(word), row


@pytest.mark.parametrize("row", [r for r in ROWS if r.kind == "lemma"], ids=_id)
def test_every_lemma_is_the_clause_readers(row: action_words.Row) -> None:
    assert clause_vocab.vocabulary().lemmas[row.text] == row.action


@pytest.mark.parametrize("table,error", [
    ('call = [{ w = "x", in = ["clauses", "somewhere"] }]', "bad uses"),
    ('call = [{ re = "x+", in = ["clauses"] }]', "grammar and advice only"),
    ('call = [{ re = "(x" }]', "grammar and advice only"),
    ('call = [{ re = "(x", in = ["grammar"] }]', "missing"),
    ('call = ["x"]', "inline table"),
    ('call = [{ w = "x", lemma = "y" }]', "one of w, re, lemma"),
    ('call = [{ w = "x", colour = "red" }]', "unknown keys"),
    ('cal = [{ w = "x" }]', "unknown action"),
    ('none = [{ w = "x" }]', "no grammar terminal"),
    ('call = [{ lemma = "x", in = ["grammar"] }]', "bad uses"),
])
def test_a_broken_row_is_refused(tmp_path: Path, table: str, error: str) -> None:
    (tmp_path / "ja.toml").write_text(table + "\n", encoding="utf-8")
    with pytest.raises(action_words.ActionWordsError, match=error):
        action_words.read_rows(tmp_path)


def test_a_row_without_uses_is_everywhere(tmp_path: Path) -> None:
    (tmp_path / "ja.toml").write_text('call = [{ w = "コール" }]\n', encoding="utf-8")
    (tmp_path / "zz.toml").write_text('fold = [{ lemma = "降りる" }]\n', encoding="utf-8")
    first, second = action_words.read_rows(tmp_path)
    assert (first.text, first.terminal) == ("こーる", "_CALL")
    assert first.uses == action_words.DEFAULT_USES
    assert (second.language, second.uses, second.terminal) == ("zz", {"clauses"}, "")


def test_a_grammar_without_a_placeholder_the_table_fills_is_refused() -> None:
    with pytest.raises(vocab.VocabularyError, match="no words for the terminal _NOPE"):
        vocab.words_terminals(f"_NOPE: {vocab.WORDS_PLACEHOLDER}\n")
    with pytest.raises(vocab.VocabularyError, match="no grammar places"):
        vocab.words_terminals(f"_CALL: {vocab.WORDS_PLACEHOLDER}\n")


# --- the community's other languages ------------------------------------------------------------

ENGLISH = [("call", "call"), ("fold", "fold"), ("raise", "raise"), ("all in", "allin"),
           ("check", "check"), ("bet", "bet")]
#: The actions whose word names cards to come (捨て 4h 6c): read with the cards, below.
WITH_CARDS = ("discard", "keep", "showdown")
OTHERS = [(r.text, r.action) for r in ROWS if r.language in ("zh", "ko", "vi") and r.kind == "w"
          and r.action not in WITH_CARDS and "short" not in r.uses]
CARD_WORDS = [(r.text, r.action) for r in ROWS if r.language in ("zh", "ko", "vi")
              and r.kind == "w" and r.action in ("discard", "keep")]
#: How each language puts a word inside a sentence (and the Japanese sentence around it).
AROUND = {
    "zh": ["{w}", "我{w}", "{w}吧", "今回は{w}で"],
    "ko": ["{w}", "{w}할게요", "네 {w}", "{w}します", "今回は{w}で"],
    "vi": ["{w}", "{w} nhé", "今回は{w}で", "じゃあ{w}します"],
    "en": ["{w}", "ok {w}", "I {w}", "今回は{w}で", "じゃあ{w}します"],
}


def _language(word: str) -> str:
    return next((r.language for r in ROWS if r.text == word), "en")


#: The game an action word is tried in (the game whose action it is).
GAME_OF = {"stay": "deuces", "play": "deuces", "throw_all": "deuces",
           "ante": "holdem_aa", "hyper_raise": "seven",
           "extra_raise": "seven"}


def _read(text: str, action: str) -> None:
    got = parse.parse(text, GAME_OF.get(action, "omaha"))
    want = "play" if action in ("stay", "throw_all") else action
    if action == "pot":  # (팟: a pot-sized bet or raise)
        assert got.kind == "action" and got.pot and got.action in ("bet", "raise"), text
        return
    assert (got.kind, got.action) == ("action", want), (text, got.to_json())


def test_the_community_languages_have_their_words() -> None:
    """Chinese (simplified and traditional), Korean and Vietnamese have files of their own; the
    English words are en.toml's."""
    assert {r.language for r in ROWS} >= {"ja", "en", "zh", "ko", "vi"}
    words = {r.text for r in ROWS}
    assert {"跟注", "弃牌", "棄牌", "加注", "全下", "全押", "过牌", "過牌", "下注"} <= words
    assert {"콜", "다이", "폴드", "레이즈", "올인", "체크", "벳"} <= words
    assert {"theo", "bỏ", "tố", "tất tay", "xem"} <= words


@pytest.mark.parametrize("word,action", OTHERS + ENGLISH, ids=[w for w, _ in OTHERS + ENGLISH])
def test_a_community_word_reads_alone_and_inside_a_sentence(word: str, action: str) -> None:
    for form in AROUND[_language(word)]:
        _read(form.format(w=word), action)
    if action in ("bet", "raise"):
        got = parse.parse(f"{word} 2000", "omaha")
        assert got.kind == "action" and got.action == action and 2000 in (got.amount, got.to)


@pytest.mark.parametrize("word,action", CARD_WORDS, ids=[w for w, _ in CARD_WORDS])
def test_a_community_card_word_reads_with_its_cards(word: str, action: str) -> None:
    """换 4h 6c, 3s 8d 버릴게요, giữ 2c 2h 7s: the deuces draw and seven's discard."""
    for text in (f"{word} 4h 6c", f"4h 6c {word}"):
        got = parse.parse(text, "deuces")
        field = "discard" if action == "discard" else "keep"
        assert got.kind == "action" and got.action == "play", (text, got.to_json())
        assert set(getattr(got, field) or ()) == {"4h", "6c"}, (text, got.to_json())
        if action == "discard":
            got = parse.parse(text, "seven")
            assert (got.action, set(got.cards or ())) == ("discard", {"4h", "6c"}), text


@pytest.mark.parametrize("word,action", OTHERS + ENGLISH, ids=[w for w, _ in OTHERS + ENGLISH])
def test_a_community_word_in_a_wish_a_question_or_advice_is_no_action(word: str,
                                                                      action: str) -> None:
    game = GAME_OF.get(action, "omaha")
    for text in (f"{word}したい", f"{word}かな", f"{word}?", f"ボブさん{word}すべき"):
        assert parse.parse(text, game).kind == "chat", text
    assert parse.parse(f"ボブさん{word}すべき", game).advice


@pytest.mark.parametrize("text", [
    # a word inside a longer word of its script
    "콜라", "콜라 마시고 싶다", "다이아", "다이어트 중", "bỏng", "theory", "xem phim", "betting",
    # Korean, Chinese and Vietnamese sentences about an action that is no commitment
    "나라면 콜", "我不跟注", "别跟注", "你应该跟注", "跟注吗", "theo tôi nên bỏ",
])
def test_a_community_word_in_other_talk_is_chat(text: str) -> None:
    assert parse.parse(text, "omaha").kind == "chat", text
