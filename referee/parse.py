"""Chat text → :class:`~referee.actions.Parsed` (docs/contracts.md §2), read the way the table's
human dealer reads it.

Pipeline, cheapest first, so the common cases never reach the parser:

1. ``!`` after NFKC (so ``！`` too) → a command; its name is looked up in ``grammar/commands.lark``
   (``着席`` → ``sit``), the rest are ``args`` as typed.
2. :func:`normalize`: NFKC (full-width → ASCII, half-width kana → full-width), case folding,
   katakana → hiragana (コール = こーる = ｺｰﾙ), 〜/~ → ー.
3. A message is an action only if the WHOLE text (minus trailing punctuation and laughter) is a
   sentence of the game's grammar, ``grammar/GAME.lark`` (Lark LALR, contextual lexer, built once
   per game). Before Lark, a regular expression made from the terminals the grammar accepts first
   rejects most chat in well under a microsecond, and amounts are swapped for placeholders so
   that one cached parse serves every 「メイク…」 (see ``_Grammar.skeleton``); texts longer than
   :data:`MAX_ACTION_CHARS` are never actions.
4. Everything else is chat; :mod:`referee.lexicon` sets ``hand_info`` / ``advice`` on it.

The vocabulary (what counts as a call in which game, the hand names of ``seven``, the command
aliases) lives in the grammar files, not here. Nothing a player types makes :func:`parse` raise:
a text that is not a complete action is chat, and an action whose amount cannot be read
(「メイク abc」) is that action without its amount, so the referee can say what is missing.

``hand_info`` on an action is true when the action itself shows or names cards (a fold with
cards shown, an open, a discard, a named hand): that is legal at the right moment, and the engine
decides whether it is; on chat and commands it comes from the lexicon.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, get_args

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError

from referee import games, lexicon, resources
from referee.actions import ActionName, Parsed
from referee.lang import clauses, decor, nearmiss, tags, vocab
from referee.lang.decor import strip_tail
from referee.lang.normalize import fold, fold_nfkc, nfkc
from referee.lang.reader import read_command
from referee.lang.tokens import amount_value, card_token
from referee.lang.vocab import marks

GRAMMAR_DIR = resources.GRAMMAR
# Longer texts are never actions (the longest real declaration -- an omaha open with four cards
# and a few words -- is well under 100 characters); they are still scanned as chat.
MAX_ACTION_CHARS = 200

def normalize(text: str) -> str:
    """The form grammars and lexicon read (:func:`referee.lang.normalize.fold`)."""
    return fold(text)


_LONG = marks("long_vowel")
_STRETCH = re.compile(f"{_LONG}{_LONG}+")
_strip_tail = strip_tail  # the tail rule lives with the other decorations (referee.lang.decor)


# --- tree → fields ------------------------------------------------------------------------------

class _NotAnAction(Exception):
    """Raised while building: the text parsed, but is not an action after all (chat)."""


_card = card_token
_amount = amount_value
_MAN, _SEN = marks("ten_thousand"), marks("thousand")


Field = tuple[str, Any]


class _Build(Transformer[Token, Any]):
    """Builds the action's fields while LALR reduces (no parse tree is kept)."""

    def start(self, c: list[dict[str, Any]]) -> dict[str, Any]:
        return c[0]

    def cards(self, c: list[Token]) -> Field:
        return ("cards", [_card(str(t)) for t in c])

    def bare_cards(self, c: list[Field]) -> Field:
        if len(c[0][1]) != 2:  # seven: two cards alone are the discard; anything else is chat
            raise _NotAnAction
        return c[0]

    def amount(self, c: list[Token]) -> Field:
        return ("amount", _amount(str(c[0])))

    def junk(self, c: list[Token]) -> Field:
        return ("amount", None)

    def pot(self, c: list[Token]) -> Field:
        return ("pot", True)

    def hand(self, c: list[Token]) -> Field:
        return ("hand", c[0].type.removeprefix("HAND_").lower())

    def aa(self, c: list[Field]) -> Field:
        return ("aa", c[0][1] if c else None)

    def kept(self, c: list[Field]) -> Field:
        return ("keep", c[0][1] if c else [])

    def thrown(self, c: list[Field]) -> Field:
        return ("discard", c[0][1] if c else [])


def _action_callback(name: str) -> Callable[[Any, list[Field]], dict[str, Any]]:
    def build(self: Any, c: list[Field]) -> dict[str, Any]:
        fields: dict[str, Any] = {"action": name}
        fields.update(c)
        if name == "raise" and "amount" in fields:  # a raise is declared as a make: the total
            fields["to"] = fields.pop("amount")
        return fields

    return build


# One callback per action rule; the rule name is the action id of docs/contracts.md §2.
for _name in get_args(ActionName):
    setattr(_Build, _name, _action_callback(_name))


# --- grammars -----------------------------------------------------------------------------------

# An amount in a skeleton (see _Grammar.skeleton): seven digits, which no single-digit literal
# left as typed can meet, plus the slot's index.
_AMOUNT_HOLDER = 1_000_001
# An amount glued after these may be the end of a longer AMOUNT (the 5000 of 2万5000, the 800 of
# 1,800): left as typed. After a letter it is safe: no token but JUNK (which carries no value)
# runs from letters into digits, so B600 and b1000001 parse alike.
_GLUE = marks("amount_glue")


@dataclass(frozen=True)
class _Grammar:
    """One game's grammar, and the two cheap tests that keep most messages away from Lark."""

    lark: Lark
    gate: re.Pattern[str]  # the terminals a sentence can start with, as one regular expression
    slots: re.Pattern[str]  # the grammar's own AMOUNT terminal (and CARD, to step over cards)

    def skeleton(self, core: str) -> tuple[str, dict[int, int | None]]:
        """``core`` with its amounts replaced by numbered placeholders, and their values.

        「メイク1800」 and 「メイク2400」 share the skeleton 「めいく1000001」, so the grammar
        runs once for both (see _parse_skeleton) and the values are put back afterwards. A
        placeholder is lexed exactly as the amount it replaces: both are whole AMOUNT tokens
        starting with a digit, with the same text on either side. Left as typed: amounts that
        may continue a number before them (see _GLUE), single digits (the 7 of 7ストレート) and
        cards (the 10 of 10♠ is not an amount).
        """
        amounts: dict[int, int | None] = {}
        parts: list[str] = []
        pos = 0
        for m in self.slots.finditer(core):
            text = m.group()
            if m.lastgroup != "amount" or len(text) == 1:
                continue
            if (_MAN in text or _SEN in text) and "a" <= core[m.start() - 1 : m.start()] <= "z":
                continue  # JUNK would stop at 万 in "b2万" but run through "b1000001"
            holder = _AMOUNT_HOLDER + len(amounts)
            amounts[holder] = _amount(text)
            parts += (core[pos : m.start()], str(holder))
            pos = m.end()
        parts.append(core[pos:])
        return "".join(parts), amounts


@cache
def _grammar(game: str) -> _Grammar:
    path = games.spec(game).grammar_file
    if not path.is_file():
        raise ValueError(f"no grammar for game {game!r}")
    # cache=True: Lark keeps the LALR tables in the temp directory, keyed by the grammar text
    # and checked against the imported files, so a one-message CLI run skips the analysis.
    lark = Lark.open(
        str(path), parser="lalr", lexer="contextual", import_paths=[vocab.grammar_loader()],
        transformer=_Build(), maybe_placeholders=False, cache=True,
    )

    def regexp(name: str) -> str:
        return str(lark.get_terminal(name).pattern.to_regexp())

    names = {t.name for t in lark.terminals}
    if "CARD" in names and lark.get_terminal("CARD").pattern.value != vocab.card_terminal():
        raise ValueError(f"{path.name}: CARD of common.lark is not the card table of "
                         "grammar/cards.toml (see tests/test_vocabulary.py)")

    first = sorted(lark.parse_interactive("").accepts())  # type: ignore[no-untyped-call]
    gate = "|".join(f"(?:{regexp(t)})" for t in first)
    slots = [f"(?<![{_GLUE}])(?P<amount>{regexp('AMOUNT')})"]
    if "CARD" in names:  # tried first, as the lexer does (CARD has the higher priority)
        slots.insert(0, f"(?P<card>{regexp('CARD')})")
    return _Grammar(lark, re.compile(gate), re.compile("|".join(slots)))


@lru_cache(maxsize=16384)
def _parse_skeleton(core: str, game: str) -> dict[str, Any] | None:
    """The grammar's reading of a (skeleton) text: the action's fields, or None for chat."""
    g = _grammar(game)
    if g.gate.match(core) is None:
        return None
    try:
        fields: dict[str, Any] = g.lark.parse(core)  # type: ignore[assignment]
        return fields
    except (LarkError, _NotAnAction):
        return None


@cache
def _commands() -> Lark:
    return Lark.open(str(GRAMMAR_DIR / "commands.lark"), parser="lalr")


@lru_cache(maxsize=1024)
def command_name(name: str) -> str:
    """The canonical command (docs/contracts.md §4) for a typed name (alias, any width or case);
    an unknown name comes back normalised, as typed."""
    norm = normalize(name)
    try:
        return str(_commands().parse(norm).children[0].data)  # type: ignore[union-attr]
    except LarkError:
        return norm


# --- parse --------------------------------------------------------------------------------------

# Chat is one of four answers; Parsed is frozen, so they are built once.
_CHAT = {
    (h, a): Parsed(kind="chat", hand_info=h, advice=a) for h in (False, True) for a in (False, True)
}


def _chat(text: str, norm: str, game: str) -> Parsed:
    return _CHAT[lexicon.scan(text, norm, game)]


_SURROGATE = re.compile("[\ud800-\udfff]")


def _command(text: str, game: str) -> Parsed:
    if _SURROGATE.search(text):  # undecodable bytes (argv): U+FFFD, so the JSON stays UTF-8
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    got = read_command(text)
    words = [got.name, *got.args] if got is not None and got.name else []
    hand_info, advice = lexicon.scan(text, fold_nfkc(text), game)
    return Parsed(
        kind="command", command=command_name(words[0]) if words else "", args=words[1:],
        hand_info=hand_info, advice=advice,
    )


def _action(norm: str, game: str) -> Parsed | None:
    core = _STRETCH.sub(_LONG, _strip_tail(norm))  # こーーーる = こーる
    if not core:
        return None
    skeleton, amounts = _grammar(game).skeleton(core)
    fields = _parse_skeleton(skeleton, game)
    if fields is None:
        return None
    out = dict(fields)
    for key in ("amount", "to", "aa"):
        if key in out and out[key] in amounts:
            out[key] = amounts[out[key]]
    shows = any(out.get(k) for k in ("cards", "keep", "discard", "hand"))
    return Parsed(kind="action", hand_info=shows, advice=False, **out)


# Texts up to this length are cached by their exact text (longer ones are rare and would only
# fill the cache: 32,768 pasted walls of text are hundreds of megabytes).
_CACHED_CHARS = 400


def parse(text: str, game: str, table: int | None = None) -> Parsed:
    """What one chat message of a ``game`` table means. Never raises for any ``str``.

    ``game`` is a game id (``omaha`` ``holdem_aa`` ``seven`` ``deuces``); an unknown id is a
    programming error (ValueError). ``table``, when given, is the table's number: a message
    tagged for another table (「卓2 コール」 at table 1) is no action here. Results are cached:
    chat repeats a lot (「こ」「F」「gg」).
    """
    if len(text) <= _CACHED_CHARS:
        return _parse_cached(text, game, table)
    return _parse(text, game, table)


def guess(text: str, game: str) -> Parsed | None:
    """The action a near miss most likely meant (「コーノレで」 → call), to be *offered* to the
    player, never applied (:mod:`referee.lang.clauses.guess`); None when there is none."""
    def reader(candidate: str) -> Parsed | None:
        got = parse(candidate, game)
        return got if got.kind == "action" else None

    if parse(text, game).kind != "chat" or len(text) > MAX_ACTION_CHARS:
        return None
    return clauses.guess(nfkc(text).strip(), reader)


#: A rank typed alone (「7捨て」, 「K」): no suit after it, no digit or letter around it.
_LONE_RANK = re.compile(r"(?<![0-9A-Za-z])(10|[2-9TJQKA])(?![0-9A-Za-z♠♥♦♣])")


def with_hand(text: str, game: str, held: Sequence[str]) -> Parsed | None:
    """``text`` read against the cards its writer holds (``held``, canonical ``7d``): a rank
    typed alone (「7捨て」) stands for the one card of that rank in the hand. None unless the
    message is chat as typed, every lone rank names exactly one held card, and the text then
    reads as an action on cards (two 7s, or none, leave it unread: the player must name the
    suit)."""
    held = [c for c in held if c != "JK"]  # (the joker's J is no jack)
    if not held or parse(text, game).kind != "chat" or len(text) > MAX_ACTION_CHARS:
        return None
    typed = nfkc(text)
    ranks = _LONE_RANK.findall(typed)
    if not ranks:
        return None

    def card_for(m: re.Match[str]) -> str:
        rank = "T" if m.group(1) == "10" else m.group(1).upper()
        (card,) = [c for c in held if c[0] == rank]
        return card

    if any(sum(1 for c in held if c[0] == ("T" if r == "10" else r.upper())) != 1
           for r in ranks):
        return None
    got = parse(_LONE_RANK.sub(card_for, typed), game)
    # only an action that takes cards (a discard, a keep): a rank is never a leak made an action
    return got if got.kind == "action" and (got.cards or got.keep or got.discard) else None


def other_games(text: str, game: str) -> tuple[str, ...]:
    """The other games whose players' words ``text`` is, in the games' order (「ＨＲ」 is
    seven's hyper raise): a message this game cannot read but another game's table would
    read as an action. Empty when ``game`` reads it (or it is chat everywhere)."""
    if len(text) > MAX_ACTION_CHARS or parse(text, game).kind != "chat":
        return ()
    out = []
    for g in games.game_ids():
        if g != game:
            got = parse(text, g)
            # an action word, not a hand (「ストレートです」 is seven's declaration but, at an
            # omaha showdown, talk about one's hand)
            if got.kind == "action" and not got.advice and not got.hand_info:
                out.append(g)
    return tuple(out)


def holds_action_words(text: str, game: str) -> bool:
    """Whether ``text`` holds any action vocabulary ``game``'s readers know: a near-miss word,
    an action word or verb stem of the clause reader, a short form standing alone, a hand name
    the game declares, a figure of chips (800いきます). The awaited player's line that does is
    never left unanswered."""
    typed = nfkc(text)
    if nearmiss.mentions_action(fold(typed)):
        return True
    repaired = fold_nfkc(clauses.repair(typed))
    return clauses.mentions(repaired, _hands(game)) or clauses.chips_said(repaired)


def clear_caches() -> None:
    """Forget every cached reading (for measurements; the grammars stay built)."""
    _parse_cached.cache_clear()
    _parse_skeleton.cache_clear()
    clauses.clear_caches()
    _whole.cache_clear()
    _piece.cache_clear()


def _parse(text: str, game: str, table: int | None = None, heads: bool = True) -> Parsed:
    typed = nfkc(text).lstrip()
    if read_command(typed) is not None:  # the one reader of commands the service uses
        return _command(typed, game)
    norm = fold_nfkc(typed)
    # (the tags are taken off for the action only: hand talk and advice are read in the whole
    # text, where a mention says who is addressed)
    tagged = tags.strip(typed)
    elsewhere = _elsewhere(tagged, game, table)
    if elsewhere is not None:
        return _chat(typed, norm, game).model_copy(update={"elsewhere": elsewhere})
    reading = tagged.rest
    reading_norm = norm if reading == typed else fold_nfkc(reading)
    if len(reading_norm) <= MAX_ACTION_CHARS:
        parsed = _whole(reading, reading_norm, game)
        if parsed is None:
            repaired = clauses.repair(reading)  # 一万二千まで, ちぇつく: the slips undone
            if repaired != reading:
                parsed = _whole(repaired, fold_nfkc(repaired), game)
            if parsed is None and clauses.mentions(fold_nfkc(repaired), _hands(game)):
                parsed = _clauses(reading, game)
                if parsed is None:
                    parsed = _unspaced(repaired, game)
                if parsed is None and heads:
                    parsed = _head(reading, game)
        # (a reply to someone's line, >>dan こーる, answers it with one's own action unless
        # the whole line reads as advice: >>mika こーるこーる！)
        if parsed is not None and (tagged.own or (
                tagged.reply and not lexicon.scan(typed, norm, game)[1])):
            return parsed
    return _chat(typed, norm, game)


def _head(typed: str, game: str) -> Parsed | None:
    """The last reading: one clause's head said now among reasons and stories
    (:mod:`referee.lang.clauses.head`); its pieces read without it."""
    hand_talk, advice = lexicon.scan(typed, fold_nfkc(typed), game)
    got = clauses.read_head(typed, game, lambda piece: _piece(piece, game), advice)
    if got is None:
        return None
    hand_info = got.hand_info or hand_talk
    return got.model_copy(update={"hand_info": hand_info, "advice": False})


@lru_cache(maxsize=16384)
def _piece(text: str, game: str) -> Parsed | None:
    got = _parse(text, game, None, False)
    return got if got.kind == "action" else None


def _unspaced(repaired: str, game: str) -> Parsed | None:
    """A message written word by word, as learners and kana-only writers do, read again as
    Japanese is usually typed, with the blanks between its Japanese words taken out."""
    joined = vocab.blanks_between_words().sub("", repaired)
    if joined == repaired:
        return None
    return _whole(joined, fold_nfkc(joined), game) or _clauses(joined, game)


def _elsewhere(tagged: tags.Tagged, game: str, table: int | None) -> str | None:
    """The game (its id) or table (``table:N``) a message's tags send it to, when not this."""
    if tagged.game is not None and tagged.game != game:
        return tagged.game
    if table is not None and tagged.table is not None and tagged.table != table:
        return f"table:{tagged.table}"
    return None


@lru_cache(maxsize=16384)
def _whole(typed: str, norm: str, game: str) -> Parsed | None:
    """The whole text as one sentence of the game's grammar, or without its decorations.

    Kept (the texts are short: a message of at most MAX_ACTION_CHARS, repaired, or a clause
    of one): the clause reader asks for the same clause
    in its fine and its coarse reading, and again for the message read without blanks (over
    the corpora, 28% of the asks)."""
    parsed = _action(norm, game)
    if parsed is None:  # the same, without the decorations around it (コールでーす👍)
        core = decor.strip(typed)
        if core:
            parsed = _action(core, game)
    return parsed


@cache
def _hands(game: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The hand names a game's grammar reads as a declaration (seven), as patterns."""
    lark = _grammar(game).lark
    return tuple(
        (t.name.removeprefix("HAND_").lower(), re.compile(str(t.pattern.to_regexp())))
        for t in lark.terminals if t.name.startswith("HAND_")
    )


def _clause(clause: str, game: str) -> Parsed | None:
    """One clause by the grammar; never a word that is an action only as the whole message
    (seven's 「はい」 inside 「はい、少々お待ちくださいませ」 is the everyday yes)."""
    folded = fold_nfkc(clause)
    if _STRETCH.sub(_LONG, _strip_tail(folded)) in decor.alone_words():
        return None
    return _whole(clause, folded, game)


def _clauses(typed: str, game: str) -> Parsed | None:
    """The one action committed in a longer message (:mod:`referee.lang.clauses`)."""
    reading = clauses.read(
        typed, game, lambda clause: _clause(clause, game), _hands(game),
        advice=lexicon.advice,
    )
    got = reading.action
    if got is None:
        return None
    hand_info = got.hand_info or lexicon.scan(typed, fold_nfkc(typed), game)[0]
    if hand_info != got.hand_info:
        got = got.model_copy(update={"hand_info": hand_info})
    return got


_parse_cached = lru_cache(maxsize=32768)(_parse)
