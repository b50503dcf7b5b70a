"""The near-miss guesser finds the words one slip away by lookup (``_slips``): exactly the
words the one-by-one comparison (``_one_off`` here) finds, in the same order, for every
substring the guesser tries of the corpora's chat lines and of slips made on purpose."""

from __future__ import annotations

import json
from pathlib import Path

from referee.lang.clauses.guess import _long_words, _slips
from referee.lang.normalize import fold_nfkc

CORPUS = Path(__file__).parent / "corpus" / "judgement.jsonl"


def _one_off(token: str, word: str) -> bool:
    """``token`` is ``word`` with one character replaced, dropped or added (the comparison the
    guesser made with every word before the lookup)."""
    if abs(len(token) - len(word)) > 1 or token == word:
        return False
    if len(token) == len(word):
        return sum(a != b for a, b in zip(token, word, strict=True)) == 1
    short, long = sorted((token, word), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def _tokens(text: str) -> set[str]:
    folded = fold_nfkc(text)
    return {folded[s:s + n] for n in range(3, min(len(folded), 9) + 1)
            for s in range(len(folded) - n + 1)}


def test_the_lookup_finds_what_the_comparison_finds() -> None:
    tokens: set[str] = set()
    with open(CORPUS, encoding="utf-8") as f:
        for raw in f:
            tokens |= _tokens(json.loads(raw)["text"])
    for word in _long_words():  # each word, a character dropped, doubled, replaced, added
        tokens.add(word)
        for i in range(len(word)):
            tokens |= {word[:i] + word[i + 1:], word[:i] + word[i] + word[i:],
                       word[:i] + "ア" + word[i + 1:], word[:i] + "ン" + word[i:]}
    slipped = 0
    for token in tokens:
        want = [w for w in _long_words() if _one_off(token, w)]
        assert _slips(token) == want, token
        slipped += bool(want)
    assert slipped > 100
