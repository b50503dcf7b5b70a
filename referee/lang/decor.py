"""Decorations: what players write around an action without changing it, removed before the
grammar reads the action.

``コールでーす👍`` / ``とりあえずチェックっす`` / ``仕方ない、フォールドしときます`` /
``俺もコール`` all declare the plain action. The vocabulary is data
(``grammar/decorations.toml``: openers, endings, and the words that are actions only when they
stand alone, in the folded form the grammars read); this module only applies it, with guards:

- every cut falls on a word boundary of the morphological analysis (:mod:`referee.lang.words`),
  so an ending is only removed when it is a word of its own (「で」 of 「コールで」, not the で
  inside a longer word), and an opener only when it is whole words (「俺も」, not 「俺もう」);
- nothing else is removed: a negation, a question or advice after the action word is no ending,
  so 「コールしない」「コールする？」「降りたほうがいい」 keep their words and stay chat.

Emoji (the ``emoji`` package's list, kept current with Unicode) are dropped first, except the four
card suits, which are card notation here (A♠).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

import emoji

from referee import resources
from referee.lang import vocab
from referee.lang.nearmiss import mentions_action
from referee.lang.normalize import fold_nfkc
from referee.lang.vocab import marks, pos
from referee.lang.words import Word, words
from referee.lang.words import bounds as word_bounds

DECORATIONS = resources.GRAMMAR / "decorations.toml"

# The marks (grammar/text.toml): trailing decoration that never changes what a declaration
# means (コール！ コールｗ こー; not ー: it ends words -- ハイパー, ポーカー), the last kana of the
# long action words that a trailing ー merely stretches (こーるー, まっくー), laughter.
_TRAILING = marks("trailing")
_STRETCHED = set(marks("stretched"))
_LAUGH, _LAUGH_BRACKETED, _LONG = marks("laugh_word"), marks("laugh_bracketed"), marks("long_vowel")
_SUITS = set(vocab.cards().symbols)
def _emoji_chars() -> re.Pattern[str]:
    """Every character beyond ASCII that is part of some emoji in the emoji package's list (the
    joiner and the variation selectors aside): each emoji holds at least one (a keycap its
    U+20E3), so a text without any holds no emoji and is not handed to the package at all --
    most chat lines (kana, kanji and 、。 are none of them)."""
    cps = sorted({ord(c) for e in emoji.EMOJI_DATA for c in e
                  if ord(c) > 0x7F and c not in "\u200d\ufe0e\ufe0f"})
    ranges: list[tuple[int, int]] = []
    for cp in cps:
        if ranges and cp == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    return re.compile("[" + "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "")
                                    for a, b in ranges) + "]")


_MAYBE_EMOJI = _emoji_chars()
_NO_SELECTORS = {0xFE0E: None, 0xFE0F: None}
# Blanks and punctuation between a decoration and the action (仕方ない、フォールド).
_SEPARATORS = marks("separators")


def strip_tail(norm: str) -> str:
    """Drop trailing punctuation, 笑 / (笑), laughing w's (not the w of "show") and stretches."""
    while True:
        s = norm.rstrip(_TRAILING)
        if s.endswith(_LAUGH_BRACKETED):
            s = s[:-len(_LAUGH_BRACKETED)]
        elif s.endswith(_LAUGH):
            s = s[:-len(_LAUGH)]
        elif s.endswith("w"):
            t = s.rstrip("w")
            if not t or not ("a" <= t[-1] <= "z"):
                s = t
        elif s.endswith(_LONG):  # コール〜 is stretched; こー, ちー (チー), ふぉー (フォー) are not
            t = s.rstrip(_LONG)
            if t[-1:] in _STRETCHED:
                s = t
        if s == norm:
            return s.lstrip()
        norm = s


# An emoji typed as a chat app's shortcode (:+1:, :pray:, :thumbsup:): never a value
# (「call :+1:」 is no call of 1), glued to Japanese as well (全交換で:fire:), not between
# digits or inside a word of Latin letters (10:30:00, a:b:c).
_SHORTCODE = re.compile(r"(?<![0-9A-Za-z:]):(?=[a-z0-9_+\-]*[a-z+])[a-z0-9_+\-]{1,40}:(?![\w:])",
                        re.IGNORECASE)


@cache
def _placeholders() -> re.Pattern[str]:
    """A chat app's stand-in for a sticker or a picture ([スタンプ], (画像)): an emoji in words."""
    data = tomllib.loads(DECORATIONS.read_text(encoding="utf-8"))
    written = {f(str(w)) for w in data.get("placeholders", []) for f in (str, fold_nfkc)}
    names = "|".join(re.escape(w) for w in sorted(written, key=len, reverse=True))
    return re.compile(rf"[\[(]\s*(?:{names})\s*[\])]", re.IGNORECASE)


def drop_emoji(text: str, blank: bool = False) -> str:
    """``text`` without emoji (card suits kept), emoji shortcodes or a chat app's placeholders
    of stickers and pictures; with ``blank``, each emoji is a blank (an emoji ends what was said
    before it: 「ふぉーるど😢 次がんばろ」)."""
    gone = " " if blank else ""
    if ":" in text:
        text = _SHORTCODE.sub(gone, text)
    if "[" in text or "(" in text:
        text = _placeholders().sub(gone, text)
    if _MAYBE_EMOJI.search(text) is None:
        # No emoji here, but the package drops a stray variation selector (U+FE0E, U+FE0F):
        # the fast path must read the same text as the package would.
        return text.translate(_NO_SELECTORS) if "\ufe0e" in text or "\ufe0f" in text else text
    return str(emoji.replace_emoji(
        text, replace=lambda chars, _data: chars if chars.rstrip("\ufe0f") in _SUITS else gone
    ))


class _Trie:
    """A word list compiled once at load: every word of the list that starts (or, built
    ``reverse``, ends) at a position of a text, found in one walk over the text instead of one
    ``startswith`` per word. A word list a message is matched against at every clause."""

    __slots__ = ("_reverse", "_root")

    def __init__(self, words: Iterable[str], reverse: bool = False) -> None:
        self._reverse = reverse
        self._root: dict[str, Any] = {}
        for w in words:
            if not w:
                continue
            node = self._root
            for ch in reversed(w) if reverse else w:
                node = node.setdefault(ch, {})
            node[""] = len(w)  # a word ends here ("" is no character of a text)

    def lengths(self, text: str, at: int, limit: int) -> list[int]:
        """The lengths of the words of the list in ``text`` starting at ``at`` (reverse:
        ending at ``at``) within ``limit`` (the walk does not go past it), longest first."""
        out: list[int] = []
        node: dict[str, Any] = self._root
        if self._reverse:
            for i in range(at - 1, limit - 1, -1):
                if (nxt := node.get(text[i])) is None:
                    break
                node = nxt
                if "" in node:
                    out.append(node[""])
        else:
            for i in range(at, limit):
                if (nxt := node.get(text[i])) is None:
                    break
                node = nxt
                if "" in node:
                    out.append(node[""])
        out.reverse()
        return out


@dataclass(frozen=True)
class _Vocabulary:
    openers: _Trie  # the words an opener may be, matched from a clause's start
    endings: _Trie  # matched backwards from a clause's end
    alone: frozenset[str]  # actions only as the whole message (seven's はい)
    people: frozenset[str]  # lemmas that address people (みんな): never part of an aside
    after_verb: frozenset[str]  # particles removed after a verb or one of after_aux
    after_aux: frozenset[str]
    closings: frozenset[str]  # clauses that only close a declaration (よろしく)
    tail: re.Pattern[str]  # trailing marks of feeling and kaomoji
    weak: frozenset[str]  # openers that need a declaring ending after them (ここは)
    after_verb_tuple: tuple[str, ...]  # after_verb, for str.endswith


@cache
def _vocabulary() -> _Vocabulary:
    data = tomllib.loads(DECORATIONS.read_text(encoding="utf-8"))

    def words_of(key: str) -> tuple[str, ...]:
        items = {fold_nfkc(str(w)) for w in data.get(key, [])}
        return tuple(sorted(items, key=len, reverse=True))

    feelings = "|".join(re.escape(m) for m in words_of("marks"))
    faces = re.escape(str(data.get("face_chars", "")))
    # a bracketed face: at most 12 characters, one face character, no kana / kanji / card
    # (after NFKC, brackets are ASCII)
    face = (rf"[(](?=[^()]{{0,11}}[{faces}])(?![^()]*[{marks('japanese_class')}])"
            rf"(?![^()]*(?:10|[2-9tjqka])[cdhs{vocab.cards().filled}])[^()]{{1,12}}[)]?")
    tail = re.compile(rf"(?:\s*(?:[(](?:{feelings})[)]|(?:{feelings})|{face}))+$")
    return _Vocabulary(
        _Trie(words_of("openers")), _Trie(words_of("endings"), reverse=True),
        frozenset(words_of("alone")),
        frozenset(str(w) for w in data.get("people", [])),
        frozenset(words_of("after_verb")),
        frozenset(str(w) for w in data.get("after_auxiliaries", [])),
        frozenset(words_of("closings")), tail, frozenset(words_of("weak_openers")),
        words_of("after_verb"),
    )


# An aside before the action (ごめん、フォールド / 残念、降ります / きついな、フォールド): a short
# first clause of interjections, adjectives and plain nouns. Never one that names or addresses
# someone (ボブさん、フォールド; お前、コール), has a verb (頼む、コール) or talks about an action.
_ASIDE_CHARS = 12
# Letters and digits are how cards and abbreviations are written (Fです。Tc見せます): an aside has
# none.
_LATIN = re.compile("[a-z0-9]")
_ASIDE_POS = frozenset(pos(p) for p in ("interjection", "adjective", "adjectival_noun", "particle",
                                          "auxiliary", "symbol", "adverb", "noun"))
_NOT_ASIDE_POS2 = (pos("proper_noun"), pos("numeral"))
_VERB = pos("verb")


class _Analysis:
    """A clause's words (:mod:`referee.lang.words`) and their bounds, analysed only when first
    asked for: most clauses have no opener, ending or aside whose place the words must
    confirm, and the analysis is the dearest step of :func:`strip`."""

    __slots__ = ("_bounds", "_text", "_ws")

    def __init__(self, text: str) -> None:
        self._text = text
        self._ws: tuple[Word, ...] | None = None
        self._bounds: set[int] | None = None

    @property
    def ws(self) -> tuple[Word, ...]:
        if self._ws is None:
            self._ws = words(self._text)
        return self._ws

    @property
    def bounds(self) -> set[int]:
        if self._bounds is None:
            self._bounds = word_bounds(self.ws, len(self._text))
        return self._bounds


def _is_aside(clause: str, analysis: _Analysis, start: int, end: int) -> bool:
    if (not 0 < end - start <= _ASIDE_CHARS or "?" in clause or _LATIN.search(clause)
            or mentions_action(clause)):
        return False
    people = _vocabulary().people
    inside = [w for w in analysis.ws if start <= w.start < end]
    return bool(inside) and all(
        w.pos in _ASIDE_POS and w.pos2 not in _NOT_ASIDE_POS2 and w.lemma not in people
        for w in inside
    )


# Where one clause ends and the next begins (降ります。J♣見せます, フォールドします、Ah見せます);
# a full stop or comma before a digit is part of a number (1.5k, 1,800), not a boundary.
_CLAUSE = re.compile(marks("clause"))


# A polite first-person ending the grammar reads itself (降ります, 見せます): a declaration too
# (grammar/decorations.toml "polite").
_POLITE = tuple(vocab.strings(vocab.load("decorations.toml"), "polite", "decorations.toml"))


def _trim_end(folded: str, s: int, e: int, analysis: _Analysis, voc: _Vocabulary) -> int:
    """The end of clause ``folded[s:e]`` without its trailing decorations."""
    while True:
        end = e
        core = strip_tail(folded[s:e])
        if folded.startswith(core, s):
            e = s + len(core)
        m = voc.tail.search(folded, s, e)
        if m is not None and m.start() > s:
            e = m.start()
        for n in voc.endings.lengths(folded, e, s + 1):  # e - n > s
            if e - n in analysis.bounds:
                e -= n
                break
        else:
            # (a particle after a verb needs one of after_verb to end the clause: the words
            # are asked only then)
            last = _word_ending_at(analysis.ws, e) if folded.endswith(
                voc.after_verb_tuple, s + 1, e) else None
            if last is not None and last.start > s and folded[last.start:e] in voc.after_verb:
                before = _word_ending_at(analysis.ws, last.start)
                if before is not None and (before.pos == _VERB or before.lemma in voc.after_aux):
                    e = last.start
        if e == end:
            return e


def _word_ending_at(ws: tuple[Word, ...], end: int) -> Word | None:
    for w in ws:
        if w.start + len(w.surface) == end:
            return w
    return None


def alone_words() -> frozenset[str]:
    """The words that are an action only as the whole message (seven's はい), folded."""
    return _vocabulary().alone


def strip(typed: str) -> str | None:
    """The folded action core of ``typed`` (NFKC text) once emoji, openers and every clause's
    endings are removed; None when there is nothing to remove (the message stands as it is)."""
    text = drop_emoji(typed)
    folded = fold_nfkc(text)
    if len(folded) != len(text):  # case folding changed the length (ß): no word offsets
        return folded if text != typed else None
    voc = _vocabulary()
    analysis = _Analysis(text)
    a, b = 0, len(folded)
    weak = False  # an opener that may address someone else (ここは): a declaration needs more
    while True:  # openers, with the blanks and commas after them
        start = a
        while a < b and folded[a] in _SEPARATORS:
            a += 1
        for n in voc.openers.lengths(folded, a, b - 1):  # a + n < b
            if a + n in analysis.bounds:
                weak = weak or folded[a:a + n] in voc.weak
                a += n
                break
        if a == start:
            break
    first = _CLAUSE.search(folded, a, b)
    if first is not None and _is_aside(folded[a:first.start()], analysis, a, first.start()):
        a = first.end()
    pieces: list[str] = []
    pos = a
    declared = False  # an ending said it is the speaker's own act (コールで, 降ります)
    for m in [*_CLAUSE.finditer(folded, a, b), None]:
        end = m.start() if m is not None else b
        trimmed = _trim_end(folded, pos, end, analysis, voc)
        if not pieces:
            plain = strip_tail(folded[pos:end]).rstrip()
            declared = trimmed < pos + len(plain) or plain.endswith(_POLITE)
        piece = folded[pos:trimmed].strip()
        if piece and not (pieces and piece in voc.closings):
            pieces.append(piece)
        if m is not None:
            pos = m.end()
    if weak and not declared:
        return None  # 「ここはコール」 may be advice to someone else: not read as an action
    core = " ".join(pieces)
    if (core == folded and text == typed) or core in voc.alone:
        return None
    return core
