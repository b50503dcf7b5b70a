"""A near miss's one likely reading: a message that is no action, read again with the
confusions of look-alike characters undone (コーノレ for コール) and one character of an action
word mistyped. The result is only ever *offered* to the player ("is it コール?"), never applied:
a guessed move is a move nobody made."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from referee.actions import Parsed
from referee.lang.clauses.vocabulary import SURFACE_NAMES, vocabulary, words_table
from referee.lang.normalize import fold_nfkc


@cache
def _confusables() -> tuple[tuple[str, str], ...]:
    got = words_table().get("confusables", {})
    return tuple(sorted(((str(k), str(v)) for k, v in got.items()), key=lambda kv: -len(kv[0])))


@cache
def _long_words() -> tuple[str, ...]:
    """The action words of three kana or more, as folded (the ones one slip cannot turn into
    another word)."""
    vocabulary()  # (fills SURFACE_NAMES)
    names = set(SURFACE_NAMES.values()) - {"all", "none"}
    out: set[str] = set()
    for entry, name in _word_names():
        if name in names and len(entry) >= 3 and not entry.isascii():
            out.add(entry)
    return tuple(sorted(out, key=len, reverse=True))


@cache
def _word_names() -> tuple[tuple[str, str], ...]:
    from referee.lang import action_words

    return tuple((w, name) for name, (words, _) in action_words.clause_actions().items()
                 for w in words)


@cache
def _slip_index() -> tuple[dict[str, int], dict[str, tuple[int, ...]],
                           dict[tuple[int, str], tuple[int, ...]]]:
    """:func:`_long_words` by what one slip leaves of them, as positions in that tuple: (each
    word itself; the words by what is left of them with one character taken out; the same by
    ``(i, what is left)`` for the character at ``i``). A message's every substring is looked up
    here instead of being compared with every word (a waiting player's chat line: ~5,000
    comparisons)."""
    exact: dict[str, int] = {}
    shorter: dict[str, list[int]] = {}
    masked: dict[tuple[int, str], list[int]] = {}
    for n, word in enumerate(_long_words()):
        exact.setdefault(word, n)
        for i in range(len(word)):
            rest = word[:i] + word[i + 1:]
            if n not in shorter.setdefault(rest, []):
                shorter[rest].append(n)
            masked.setdefault((i, rest), []).append(n)
    return (exact, {k: tuple(v) for k, v in shorter.items()},
            {k: tuple(v) for k, v in masked.items()})


def _slips(token: str) -> list[str]:
    """The long action words ``token`` is one slip from (one character replaced, dropped or
    added), in the order of :func:`_long_words`."""
    exact, shorter, masked = _slip_index()
    found: set[int] = set(shorter.get(token, ()))  # a character dropped
    for i in range(len(token)):
        rest = token[:i] + token[i + 1:]
        n = exact.get(rest)  # a character added
        if n is not None:
            found.add(n)
        found.update(masked.get((i, rest), ()))  # a character replaced (or none: below)
    words = _long_words()
    return [words[n] for n in sorted(found) if words[n] != token]


def guess(typed: str, reader: Callable[[str], Parsed | None]) -> Parsed | None:
    """The action ``typed`` (NFKC) most likely meant, by ``reader`` (the parser's), or None."""
    if vocabulary().surface.search(fold_nfkc(typed)):
        return None  # an action word as written: a thought or a question, not a slip (コールかなぁ)
    text = typed
    for wrong, right in _confusables():
        text = text.replace(wrong, right)
    if text != typed:
        got = reader(text)
        if got is not None:
            return got
    folded = fold_nfkc(typed)
    if len(folded) != len(typed) or len(folded) > 40:
        return None
    for size in range(min(len(folded), 9), 2, -1):
        for start in range(0, len(folded) - size + 1):
            for word in _slips(folded[start:start + size]):
                got = reader(typed[:start] + word + typed[start + size:])
                if got is not None:
                    return got
    return None
