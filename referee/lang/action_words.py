"""The action words: one table, ``grammar/words/LANG.toml``, one row a word, from which every
reader of chat gets them -- the action terminals of the Lark grammars, the clause reader's
action words and lemmas, the advice patterns' action words, the near-miss words and the short
forms. A word added there is read alone and inside a sentence, as advice, and answered when it
is not read: it cannot be in one list and missing from another (docs/parser.md "Where the
words live"). Nothing is written to disk: the readers ask this module when they load.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from lark.utils import get_regexp_width

from referee import resources
from referee.lang.normalize import fold_nfkc

#: Where a row may be used (see the header of grammar/words/ja.toml).
USES = ("grammar", "clauses", "advice", "nearmiss", "short")
#: A row without ``in``: everywhere a word of a language can be.
DEFAULT_USES = frozenset({"grammar", "clauses", "advice", "nearmiss"})
#: The grammar terminal of each action's words (a row may name another: ``terminal``).
TERMINALS = {
    "call": "_CALL", "check": "_CHECK", "fold": "_FOLD", "bet": "_BET", "raise": "_RAISE",
    "pot": "POT", "allin": "_ALLIN", "open": "_OPEN", "muck": "_MUCK", "close": "_CLOSE",
    "ante": "_ANTE", "aa": "_AA", "hyper_raise": "_HYPER", "extra_raise": "_EXTRA",
    "discard": "_DISCARD", "keep": "_KEEP", "showdown": "_SHOWDOWN", "play": "_PLAY",
    "stay": "_STAY",
}
#: The keys of a table that are no action of a grammar: the clause reader's "none" (words
#: that hold an action word and name something else), "throw_all" and "all", and "other"
#: (words of playing that name no one action, for advice only).
NO_TERMINAL = ("none", "throw_all", "all", "other")
#: The clause reader reads these keys (``other`` is advice only).
CLAUSE_KEYS = (*TERMINALS, *NO_TERMINAL[:3])
#: The languages, in the order their rows are read (ja first; any other file after, by name).
FIRST = ("ja", "en", "zh", "ko", "vi")

WORDS_DIR = resources.GRAMMAR / "words"


class ActionWordsError(ValueError):
    """A broken row of the action-word table (caught by the tests, never by players)."""


@dataclass(frozen=True)
class Row:
    """One word of the table."""

    language: str
    action: str
    kind: str  # "w" (a word), "re" (a pattern over the folded text), "lemma" (UniDic)
    text: str  # the word folded (NFKC, lower case, hiragana), the pattern, or the lemma
    uses: frozenset[str]
    terminal: str  # "" when not in the grammar

    @property
    def pattern(self) -> str:
        """The row as a regular expression over the folded text (grammar and advice)."""
        return self.text if self.kind == "re" else re.escape(self.text)


def _languages(directory: Path) -> list[Path]:
    files = {p.stem: p for p in directory.glob("*.toml")}
    return [files[s] for s in FIRST if s in files] + [
        files[s] for s in sorted(files) if s not in FIRST]


def _row(language: str, action: str, entry: Any) -> Row:
    where = f"words/{language}.toml: {action}"
    if not isinstance(entry, dict):
        raise ActionWordsError(f"{where}: a row is an inline table ({entry!r})")
    kinds = [k for k in ("w", "re", "lemma") if k in entry]
    if len(kinds) != 1 or not isinstance(entry[kinds[0]], str) or not entry[kinds[0]]:
        raise ActionWordsError(f"{where}: a row has one of w, re, lemma ({entry!r})")
    if set(entry) - {"w", "re", "lemma", "in", "terminal"}:
        raise ActionWordsError(f"{where}: unknown keys in {entry!r}")
    kind = kinds[0]
    raw = entry[kind]
    listed = entry.get("in", [])
    if not isinstance(listed, list) or not all(isinstance(u, str) for u in listed):
        raise ActionWordsError(f"{where}: in must be a list of uses ({entry!r})")
    uses = frozenset(listed) if "in" in entry else (
        frozenset({"clauses"}) if kind == "lemma" else DEFAULT_USES)
    if (kind == "lemma" and uses != {"clauses"}) or not uses or uses - set(USES):
        raise ActionWordsError(f"{where}: bad uses in {entry!r}")
    if kind == "re":
        if uses - {"grammar", "advice"}:
            raise ActionWordsError(f"{where}: a pattern is for grammar and advice only")
        try:
            re.compile(raw)
        except re.error as e:
            raise ActionWordsError(f"{where}: {raw!r}: {e}") from None
    terminal = str(entry.get("terminal", TERMINALS.get(action, ""))) if "grammar" in uses else ""
    if "grammar" in uses and not terminal:
        raise ActionWordsError(f"{where}: {raw!r}: no grammar terminal for {action!r}")
    text = fold_nfkc(raw) if kind == "w" else raw
    return Row(language, action, kind, text, uses, terminal)


@cache
def rows() -> tuple[Row, ...]:
    """Every row of every language of ``grammar/words/``, in file order (ja first)."""
    return read_rows(WORDS_DIR)


def read_rows(directory: Path) -> tuple[Row, ...]:
    """Every row of the tables in ``directory`` (checked: a bad row is a VocabularyError)."""
    out: list[Row] = []
    for path in _languages(directory):
        data = _read(path)
        for action, entries in data.items():
            if action not in TERMINALS and action not in NO_TERMINAL:
                raise ActionWordsError(f"words/{path.name}: unknown action {action!r}")
            if not isinstance(entries, list):
                raise ActionWordsError(f"words/{path.name}: {action} must be a list")
            out += (_row(path.stem, action, e) for e in entries)
    return tuple(out)


def _read(path: Path) -> dict[str, Any]:
    import tomllib

    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ActionWordsError(f"{path.name}: {e}") from None


def _using(use: str, table: Iterable[Row] | None = None) -> list[Row]:
    return [r for r in (rows() if table is None else table) if use in r.uses]


def _width(pattern: str) -> int:
    """The longest text ``pattern`` matches (a big number when unbounded)."""
    return int(get_regexp_width(pattern)[1])  # (Lark's own measure of a terminal)


@cache
def terminals() -> dict[str, str]:
    """Each grammar terminal's regular expression: its rows' alternatives, longest first (the
    lexer takes the first alternative that matches, so a word never hides a longer one that
    starts with it: c before call), in file order among equals."""
    alts: dict[str, list[str]] = {}
    for r in _using("grammar"):
        alts.setdefault(r.terminal, [])
        if r.pattern not in alts[r.terminal]:
            alts[r.terminal].append(r.pattern)
    return {name: "|".join(sorted(a, key=_width, reverse=True)) for name, a in alts.items()}


@cache
def clause_actions() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """The clause reader's vocabulary: each action's words (folded) and lemmas, in file order."""
    out: dict[str, tuple[list[str], list[str]]] = {k: ([], []) for k in CLAUSE_KEYS}
    for r in _using("clauses"):
        words, lemmas = out[r.action]
        got = lemmas if r.kind == "lemma" else words
        if r.text not in got:
            got.append(r.text)
    return {k: (tuple(w), tuple(m)) for k, (w, m) in out.items() if w or m}


@cache
def advice_actions() -> tuple[str, ...]:
    """The action words of the advice patterns (``<actions>`` of grammar/lexicon/advice.toml)."""
    return tuple(dict.fromkeys(r.pattern for r in _using("advice")))


@cache
def nearmiss_words() -> tuple[str, ...]:
    """The words whose presence in the awaited player's chat gets the near-miss answer."""
    return tuple(dict.fromkeys(r.text for r in _using("nearmiss")))


@cache
def short_forms() -> tuple[str, ...]:
    """The grammar's shortest forms, read by the clause reader only as a token of their own."""
    return tuple(dict.fromkeys(r.text for r in _using("short")))
