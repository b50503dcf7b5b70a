"""Vocabulary files: the words, patterns and marks the readers of chat use, kept as data under
``grammar/`` so the community can extend them without touching code (docs/parser.md
"Where the words live").

:func:`load` reads one TOML file once (cached). :func:`cards` is the one card and suit table
(``grammar/cards.toml``) from which the parser, :mod:`referee.cards`, the lexicon and the leak
judge build their card patterns; :func:`marks` the shared punctuation and script classes and
:func:`pos` the UniDic part-of-speech tags (``grammar/text.toml``).
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from referee import resources
from referee.lang.action_words import terminals
from referee.lang.normalize import fold

GRAMMAR_DIR = resources.GRAMMAR


class VocabularyError(ValueError):
    """A broken vocabulary file (a programming error caught by the tests, never by players)."""


@cache
def load(name: str) -> dict[str, Any]:
    """``grammar/NAME`` (a TOML file, ``name`` relative to ``grammar/``), parsed once."""
    path = GRAMMAR_DIR / name
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise VocabularyError(f"{name}: {e}") from None


def strings(data: dict[str, Any], key: str, name: str = "") -> list[str]:
    """``data[key]``, a list of strings (``[]`` when absent)."""
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise VocabularyError(f"{name}: {key} must be a list of strings")
    return list(value)


def alternation(words: list[str] | tuple[str, ...]) -> str:
    """``a|b|c`` of the escaped words, in their order."""
    return "|".join(re.escape(w) for w in words)


@dataclass(frozen=True)
class CardWords:
    """``grammar/cards.toml``, folded and indexed."""

    of: str  # the particle between suit and rank (の)
    symbols: str  # every suit symbol, suits in s h d c order: ♠♤♥♡♦♢♣♧
    filled: str  # the symbol the bot writes per suit, s h d c: ♠♥♦♣
    suit_words: tuple[str, ...]  # s h d c order
    rank_words: tuple[str, ...]  # a k q j order
    jokers: tuple[str, ...]
    suit_of: dict[str, str]  # symbol, letter or word → c d h s
    rank_of: dict[str, str]  # rank word → a k q j

    @property
    def suit_words_re(self) -> str:
        return alternation(self.suit_words)

    @property
    def rank_words_re(self) -> str:
        return alternation(self.rank_words)


_SUIT_ORDER = ("s", "h", "d", "c")
_RANK_ORDER = ("a", "k", "q", "j")


@cache
def cards() -> CardWords:
    """The card and suit table (see ``grammar/cards.toml``)."""
    name = "cards.toml"
    d = load(name)
    suits = d.get("suits", {})
    ranks = d.get("ranks", {})
    if set(suits) != set(_SUIT_ORDER) or not set(ranks) <= set(_RANK_ORDER):
        raise VocabularyError(f"{name}: suits must be s h d c, ranks a k q j")
    symbols: list[str] = []
    filled: list[str] = []
    suit_words: list[str] = []
    suit_of: dict[str, str] = {}
    for s in _SUIT_ORDER:
        syms = strings(suits[s], "symbols", name)
        words = [fold(w) for w in strings(suits[s], "words", name)]
        if not syms or any(len(x) != 1 for x in syms):
            raise VocabularyError(f"{name}: suits.{s}.symbols must be single characters")
        symbols += syms
        filled.append(syms[0])
        suit_words += words
        suit_of.update({x: s for x in [s, *syms, *words]})
    rank_words: list[str] = []
    rank_of: dict[str, str] = {}
    for r in _RANK_ORDER:
        words = [fold(w) for w in strings(ranks, r, name)]
        rank_words += words
        rank_of.update({w: r for w in words})
    return CardWords(
        of=fold(str(d.get("of", ""))), symbols="".join(symbols), filled="".join(filled),
        suit_words=tuple(suit_words), rank_words=tuple(rank_words),
        jokers=tuple(fold(w) for w in strings(d.get("joker", {}), "words", name)),
        suit_of=suit_of, rank_of=rank_of,
    )


def card_terminal() -> str:
    """The regular expression of grammar/common.lark's ``CARD`` terminal, as this table
    defines it (the grammar is checked against it when it is loaded)."""
    t = cards()
    rank = "(?:10|[2-9tjqka])"
    sym = f"[{t.symbols}]"
    letter_or_sym = f"[cdhs{t.symbols}]"
    suit_w = f"(?:{t.suit_words_re})"
    rank_w = f"(?:10|[2-9tjqka]|{t.rank_words_re})"
    of = f"{re.escape(t.of)}?"
    body = "|".join([
        f"{rank}{letter_or_sym}", f"{sym}{rank}", f"{suit_w}{of}{rank_w}", f"{rank_w}{of}{suit_w}",
        *(re.escape(j) for j in t.jokers),
    ])
    return f"(?:{body})(?:(?![a-z0-9])|(?={rank}{letter_or_sym}))"


#: What grammar/common.lark's ``CARD`` terminal holds in the file: a pattern that matches nothing,
#: replaced by :func:`card_terminal` when :class:`GrammarLoader` reads the file.
CARD_PLACEHOLDER = "/(?!)CARD-is-generated-from-cards.toml/"
#: What common.lark's action terminals (``_CALL``, ``_FOLD`` …) hold in the file: replaced by the
#: alternatives of the action-word table (:func:`referee.lang.action_words.terminals`).
WORDS_PLACEHOLDER = "/(?!)generated-from-words/"
_WORDS_TERMINAL = re.compile(r"^(\w+)((?:\.\d+)?: )" + re.escape(WORDS_PLACEHOLDER) + "$", re.M)


def _lark_regex(pattern: str) -> str:
    return "/" + pattern.replace("/", "\\/") + "/"


def words_terminals(text: str) -> str:
    """``text`` (a grammar file) with each action terminal's placeholder replaced by the
    words of the action-word table; a terminal the table has no words for is an error, and so
    is a table terminal the file does not place."""
    table = terminals()
    placed: set[str] = set()

    def fill(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in table:
            raise VocabularyError(f"grammar/words: no words for the terminal {name}")
        placed.add(name)
        return name + m.group(2) + _lark_regex(table[name])

    out = _WORDS_TERMINAL.sub(fill, text)
    if placed and set(table) - placed:
        raise VocabularyError("grammar/words: terminals no grammar places: "
                              + ", ".join(sorted(set(table) - placed)))
    return out


class GrammarLoader:
    """Lark's loader of the ``%import``ed grammar files (``import_paths``): the files of
    ``grammar/``, with common.lark's ``CARD`` terminal generated from the card table
    (:func:`card_terminal`) instead of written by hand.

    Its ``repr`` is part of Lark's cache key: it names the generated text's digest, so a
    changed card table or common.lark builds the tables again, and an unchanged one reuses them
    (the generated file is given to Lark under a path that is no file, which Lark's own check
    of the imported files skips). The action terminals are generated the same way, from the
    action-word table (:func:`words_terminals`)."""

    def __init__(self, directory: Path = GRAMMAR_DIR) -> None:
        self.directory = directory

    def _text(self, name: str) -> str:
        text = (self.directory / name).read_text(encoding="utf-8")
        if name == "common.lark":
            if CARD_PLACEHOLDER not in text:
                raise ValueError("common.lark: the CARD terminal must be the placeholder "
                                 f"{CARD_PLACEHOLDER} (it is generated from cards.toml)")
            text = text.replace(CARD_PLACEHOLDER, _lark_regex(card_terminal()))
            text = words_terminals(text)
        return text

    def __call__(self, base_path: object, grammar_path: str) -> tuple[str, str]:
        path = self.directory / grammar_path
        if not path.is_file():
            raise OSError(f"no grammar {grammar_path}")  # Lark tries its next source
        if grammar_path == "common.lark":
            return f"{path}#generated", self._text(grammar_path)
        return str(path), self._text(grammar_path)

    def __repr__(self) -> str:
        digest = hashlib.sha256(self._text("common.lark").encode("utf-8")).hexdigest()[:16]
        return f"GrammarLoader({self.directory}, common.lark={digest})"


@cache
def grammar_loader() -> GrammarLoader:
    """The one :class:`GrammarLoader` of the package's grammar directory."""
    return GrammarLoader()


@cache
def text_marks() -> dict[str, Any]:
    return load("text.toml")


def marks(key: str) -> str:
    """A set of characters (or a piece of pattern) of ``grammar/text.toml`` ``[marks]``."""
    value = text_marks().get("marks", {}).get(key)
    if not isinstance(value, str):
        raise VocabularyError(f"text.toml: no marks.{key}")
    return value


@cache
def blanks_between_words() -> re.Pattern[str]:
    """A blank between two Japanese words (コール で いい です): learners and kana-only writers
    space every word, which the readers, written for Japanese as it is usually typed, read
    again with these blanks taken out (``spaced_class`` of the marks)."""
    japanese = marks("spaced_class")
    return re.compile(rf"(?<=[{japanese}])[ \u3000]+(?=[{japanese}])")


def marks_list(key: str) -> tuple[str, ...]:
    value = text_marks().get("marks", {}).get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise VocabularyError(f"text.toml: marks.{key} must be a list of strings")
    return tuple(value)


@cache
def pos(key: str) -> str:
    """A UniDic part-of-speech tag by its English name (``noun`` → 名詞), ``grammar/text.toml``
    (kept: the clause reader asks for a tag for every word it reads)."""
    value = text_marks().get("pos", {}).get(key)
    if not isinstance(value, str):
        raise VocabularyError(f"text.toml: no pos.{key}")
    return value


_META = set("\\.^$*+?{}[]()|")


def literal_prefix(pattern: str) -> str:
    """The literal characters every match of ``pattern`` starts with (a pre-check word)."""
    out: list[str] = []
    for ch in pattern:
        if ch in _META:
            if ch in "?*{":  # the previous character is optional or repeated
                out = out[:-1]
            break
        out.append(ch)
    if not out:
        raise VocabularyError(f"action {pattern!r} must start with a literal word")
    return "".join(out)


def trie(words: list[str]) -> str:
    """One regular expression for a set of literal words, factored by common prefixes (the
    regex engine then tries one branch per character instead of one per word)."""
    tree: dict[str, Any] = {}
    for w in words:
        node = tree
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        end = "" in node
        branches = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if end else body

    return build(tree)
