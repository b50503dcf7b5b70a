"""The one normaliser: every reader of chat text (the grammar, the lexicon, the leak checker,
the command names) sees text through these two functions, so they agree on what a word is.

- :func:`nfkc` -- the text as typed, made comparable: Unicode NFKC (full-width → ASCII,
  half-width kana → full-width, ① → 1), every invisible *format* character dropped (Unicode
  category Cf: zero-width space and joiners, byte-order marks, soft hyphen, left-to-right and
  right-to-left marks, embeddings and overrides, isolates, word joiners, tag characters) and the
  emoji variation selectors with them. Kana and case are kept, because the morphological
  analyser (:mod:`referee.lang.words`) knows katakana words as katakana.
- :func:`fold` -- the form the grammars and lexicon patterns are written in: :func:`nfkc`, then
  case-folded, katakana written as hiragana (コール = こーる = ｺｰﾙ) and the wave dashes 〜 / ~ as
  the long-vowel mark ー.

Why not jaconv for the kana: it is a pure-Python loop over the characters; ``str.translate``
with a table does the same in C (measured: ~15x faster on chat-sized lines), and NFKC already
does the width conversion jaconv would.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import cache, lru_cache


@cache
def _format_chars() -> str:
    """Every code point of category Cf (scanned once: the BMP, plane 1 and the tag plane)."""
    planes = (range(0x10000), range(0x10000, 0x20000), range(0xE0000, min(0xE1000,
              sys.maxunicode + 1)))
    cf = [chr(c) for r in planes for c in r if unicodedata.category(chr(c)) == "Cf"]
    # Variation selectors (Mn, not Cf) only pick a glyph (❤ vs ❤️): dropped as well.
    cf += [chr(c) for c in range(0xFE00, 0xFE10)]
    return "".join(cf)


@cache
def _invisible() -> re.Pattern[str]:
    return re.compile("[" + re.escape(_format_chars()) + "]")


@cache
def _fold_table() -> dict[int, str]:
    table = {c: chr(c - 0x60) for c in range(0x30A1, 0x30F7)}  # ァ..ヶ → ぁ..ゖ
    # the wave dashes (〜 WAVE DASH, ～ FULLWIDTH TILDE, ~) are the long-vowel mark ー
    long_vowel = unicodedata.lookup("KATAKANA-HIRAGANA PROLONGED SOUND MARK")
    for name in ("WAVE DASH", "FULLWIDTH TILDE", "TILDE"):
        table[ord(unicodedata.lookup(name))] = long_vowel
    return table


def invisible(char: str) -> bool:
    """Whether ``char`` is one of the characters :func:`nfkc` drops (format, variation)."""
    return char in _format_chars()


def nfkc(text: str) -> str:
    """``text`` in NFKC with every invisible format character removed."""
    out = unicodedata.normalize("NFKC", text)
    if not out.isascii():
        out = _invisible().sub("", out)
    return out


def fold(text: str) -> str:
    """:func:`nfkc`, case-folded, katakana as hiragana, 〜 as ー."""
    return nfkc(text).casefold().translate(_fold_table())


@lru_cache(maxsize=1 << 16)
def fold_nfkc(text: str) -> str:
    """:func:`fold` for a text that is already :func:`nfkc` (skips the second NFKC).

    Kept for the texts seen last: the clause reader folds the same words and the same spans of
    a message again and again (a message's words are folded about thirty times in all, over its
    clauses, frames and repairs: bench/parse.py --corpus --profile), and a lookup is several
    times cheaper than the casefold and the translation."""
    return text.casefold().translate(_fold_table())
