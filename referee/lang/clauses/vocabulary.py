"""The clause reader's vocabulary (``grammar/clauses.toml``), loaded once: the action words
by surface and lemma (from the action-word table, ``grammar/words/``), the words that may
stand around an action, the vetoes, corrections, dialect endings, numerals and slips, and the
part-of-speech tags the rules name."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from referee.actions import Parsed
from referee.lang import vocab
from referee.lang.action_words import clause_actions, short_forms
from referee.lang.normalize import fold_nfkc
from referee.lang.words import Word

GrammarReader = Callable[[str], Parsed | None]


_DATA = "clauses.toml"


@cache
def words_table() -> dict[str, Any]:
    """The small words and character classes of ``grammar/clauses.toml`` [text]."""
    got = vocab.load(_DATA).get("text", {})
    return dict(got) if isinstance(got, dict) else {}


@cache
def text_of(key: str) -> str:
    value = words_table().get(key)
    if not isinstance(value, str):
        raise vocab.VocabularyError(f"{_DATA}: no text.{key}")
    return value


@cache
def texts_of(key: str) -> tuple[str, ...]:
    return tuple(vocab.strings(words_table(), key, _DATA))


PARTICLE, AUX, VERB = vocab.pos("particle"), vocab.pos("auxiliary"), vocab.pos("verb")
NOUN = vocab.pos("noun")


SYMBOL, BLANK, NUMERAL = vocab.pos("symbol"), vocab.pos("blank"), vocab.pos("numeral")


CONJUNCTIVE, FINAL = vocab.pos("conjunctive_particle"), vocab.pos("final_particle")


CONTENT_POS = tuple(vocab.pos(p) for p in ("noun", "pronoun", "adverb", "adjectival_noun",
                                           "adnominal"))


@dataclass(frozen=True)
class Traits:
    """How a game's actions are read inside a message: its folder's ``reading.toml`` (a game
    without one reads no clause: only its grammar's whole messages)."""

    actions: frozenset[str] = frozenset()  # the frame words it knows (others: no action)
    draw: str = ""  # "discards" (cards, or a hand declared), "play" (kept or thrown), ""
    side_bet: str = ""  # the frame word of a side bet placed with the ante
    makes_by_amount: bool = False  # 1万まで alone is a make; 打つ / 上げる need their amount
    showdown_call: bool = False  # 勝負 alone is the call


@cache
def traits(game: str) -> Traits:
    import tomllib

    from referee.games import spec

    path = spec(game).folder / "reading.toml"
    if not path.is_file():
        return Traits()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return Traits(actions=frozenset(str(a) for a in data.get("actions", [])),
                      draw=str(data.get("draw", "")), side_bet=str(data.get("side_bet", "")),
                      makes_by_amount=bool(data.get("makes_by_amount", False)),
                      showdown_call=bool(data.get("showdown_call", False)))
    except (OSError, tomllib.TOMLDecodeError, TypeError) as e:
        raise vocab.VocabularyError(f"{path}: {e}") from None


@dataclass(frozen=True)
class Vocabulary:
    surface: re.Pattern[str]  # action words by folded surface (group name = action)
    lemmas: dict[str, str]  # lemma → action
    around_pos: frozenset[str]
    around_lemmas: frozenset[str]
    around_words: frozenset[str]
    volitional: frozenset[str]
    veto_aux: frozenset[str]
    veto_particles: frozenset[str]
    veto_words: re.Pattern[str]
    imperative: frozenset[str]
    corrections: re.Pattern[str]
    concessive: frozenset[str]
    declined: frozenset[str]
    declaring: frozenset[str]
    declaring_nouns: frozenset[str]
    dialect_endings: tuple[str, ...]
    dialect_after_verb_only: frozenset[str]
    negations: tuple[str, ...]
    lone_corrections: frozenset[str]
    noticing: frozenset[str]  # lone corrections that take back only for an action after them
    openers: frozenset[str]
    counter_words: frozenset[str]
    declining: frozenset[str]
    weak: frozenset[str]
    remark_particles: frozenset[str]
    numerals: dict[str, str]
    units: dict[str, str]
    kanji: str
    counters: tuple[str, ...]
    points: tuple[str, ...]
    slips: tuple[tuple[str, str], ...]
    small_kana: tuple[tuple[str, str], ...]
    mention: re.Pattern[str]


def _word_re(w: str) -> str:
    """A word as a pattern: an ASCII word never touching other letters, a Hangul word never
    touching other Hangul but its endings (콜할게요), an accented Latin word (bỏ) no letter."""
    e = re.escape(w).replace(r"\ ", r"[ \-]?")
    if w[:1].isascii() and w[-1:].isascii():
        return rf"(?<![a-z]){e}(?![a-z])"
    hangul, latin = text_of("hangul"), text_of("latin_accented")
    if re.search(f"[{hangul}]", w):
        endings = vocab.alternation(texts_of("hangul_endings"))
        return rf"(?<![{hangul}]){e}(?=(?:{endings})?(?![{hangul}]))"
    if re.fullmatch(rf"[a-z{latin} \-']+", w):
        return rf"(?<![a-z{latin}]){e}(?![a-z{latin}])"
    return e


def word_pattern(words: Iterable[str]) -> re.Pattern[str]:
    """One pattern of ``words`` (longest first), each as :func:`_word_re` writes it, matched
    without regard to case."""
    ordered = sorted(words, key=len, reverse=True)
    return re.compile(_first_chars(w[:1] for w in ordered) + "(?:" + "|".join(
        _word_re(w) for w in ordered) + ")", re.I)


def _alternation(words: Iterable[str]) -> re.Pattern[str]:
    """One alternation of ``words`` (longest first), group ``w<i>`` the i-th word, so that the
    action is found by which word matched. The words are grouped by their first character
    behind a look-ahead of it: at a position only the words that can start there are tried, in
    the same order, so the matches are those of the flat alternation -- which Python's engine
    would try word by word at every position."""
    branches: dict[str, list[str]] = {}
    for i, w in enumerate(words):
        branches.setdefault(w[:1], []).append(f"(?P<w{i}>{_word_re(w)})")
    return re.compile(_first_chars(branches) + "(?:" + "|".join(
        f"(?={re.escape(c)})(?:{'|'.join(alts)})" for c, alts in branches.items()) + ")")


def _first_chars(firsts: Iterable[str]) -> str:
    """A look-ahead of the one character any of the words starting with ``firsts`` must start
    with: where none can start, the engine fails in one test instead of one per first
    character (a message is mostly other characters). Empty when a word may start with a
    blank (``_word_re`` lets a blank be left out)."""
    chars = set(firsts)
    if not chars or any(not c or c.isspace() for c in chars):
        return ""
    return "(?=[" + "".join(re.escape(c) for c in sorted(chars)) + "])"


@cache
def _unvoiced() -> dict[int, int]:
    """Each voiced kana (が ぱ) and the kana without its mark (か は), by NFD."""
    import unicodedata

    out: dict[int, int] = {}
    for code in range(0x3041, 0x3097):
        parts = unicodedata.normalize("NFD", chr(code))
        if len(parts) == 2:
            out[code] = ord(parts[0])
    return out


@cache
def _big() -> dict[int, int]:
    return str.maketrans(text_of("small_kana"), text_of("big_kana"))


@cache
def vocabulary() -> Vocabulary:
    d = vocab.load(_DATA)
    alts: list[tuple[str, str]] = []
    lemmas: dict[str, str] = {}
    for name, (words, lemma_list) in clause_actions().items():
        alts += ((w, name) for w in words)
        lemmas.update((lemma, name) for lemma in lemma_list)
    alts.sort(key=lambda a: len(a[0]), reverse=True)
    surface = _alternation(w for w, _ in alts)
    names = {f"w{i}": n for i, (_, n) in enumerate(alts)}
    SURFACE_NAMES.clear()
    SURFACE_NAMES.update(names)
    around = d.get("around", {})
    veto = d.get("veto", {})
    corr = d.get("corrections", {})
    nums = d.get("numerals", {})
    slips = d.get("slips", {})
    veto_words = sorted({fold_nfkc(w) for w in vocab.strings(veto, "words", _DATA)},
                        key=len, reverse=True)
    corrections = sorted({fold_nfkc(w) for w in vocab.strings(corr, "words", _DATA)},
                         key=len, reverse=True)
    small = []
    table = dict(_big())
    # a voiced kana typed without its mark (ふおーると, れいす, てす): keypad slips, as a small
    # kana typed big
    table.update(_unvoiced())
    for w in vocab.strings(slips, "small_kana_words", _DATA):
        # (three kana or more: a slip of a shorter word is as often another word)
        at = [i for i, ch in enumerate(w) if ord(ch) in table] if len(w) >= 3 else []
        for mask in range(1, 1 << len(at)):  # ちえっく, ちぇつく, ちえつく
            chars = list(w)
            for k, i in enumerate(at):
                if mask >> k & 1:
                    chars[i] = chr(table[ord(w[i])])
            small.append(("".join(chars), w))
        # a doubled last kana (ふぉーるどど)
        small.append((w + w[-1], w))
    # the gate: the words, and the stems of the lemmas (上げ of 上げさせて, 乗 of 乗ります)
    kana = re.compile(f"[{text_of('hiragana')}]$")
    stems = {lemma[:-1] if len(lemma) > 1 and kana.search(lemma) else lemma for lemma in lemmas}
    mention_words = sorted({w for w, _ in alts} | stems, key=len, reverse=True)
    mention_folded = [fold_nfkc(w) for w in mention_words]
    noticing = frozenset(fold_nfkc(w) for w in vocab.strings(corr, "noticing", _DATA))
    return Vocabulary(
        surface=surface, lemmas=lemmas,
        around_pos=frozenset(vocab.strings(around, "pos", _DATA)),
        around_lemmas=frozenset(vocab.strings(around, "verb_lemmas", _DATA))
        | frozenset(vocab.strings(around, "word_lemmas", _DATA)),
        around_words=frozenset(fold_nfkc(w) for w in vocab.strings(around, "words", _DATA)),
        volitional=frozenset(fold_nfkc(w) for w in vocab.strings(around, "volitional", _DATA)),
        veto_aux=frozenset(vocab.strings(veto, "aux_lemmas", _DATA)),
        veto_particles=frozenset(vocab.strings(veto, "particle_lemmas", _DATA)),
        veto_words=re.compile(_first_chars(w[:1] for w in veto_words) + "(?:" + "|".join(
            _word_re(w) for w in veto_words) + ")"),
        imperative=frozenset(vocab.strings(veto, "imperative_cforms", _DATA)),
        corrections=re.compile(_first_chars(w[:1] for w in corrections) + "(?:" + "|".join(
            _word_re(w) for w in corrections) + ")"),
        concessive=frozenset(fold_nfkc(w) for w in vocab.strings(corr, "concessive", _DATA)),
        declined=frozenset(vocab.strings(d.get("declined", {}), "aux_lemmas", _DATA)),
        declaring=frozenset(vocab.strings(around, "verb_lemmas", _DATA))
        | frozenset(vocab.strings(around, "declaring_lemmas", _DATA)),
        declaring_nouns=frozenset(vocab.strings(around, "declaring_lemmas", _DATA)),
        remark_particles=frozenset(vocab.strings(veto, "remark_particles", _DATA)),
        declining=frozenset(vocab.strings(d.get("declined", {}), "lemmas", _DATA))
        | frozenset(fold_nfkc(w) for w in vocab.strings(d.get("declined", {}), "words", _DATA)),
        weak=frozenset(vocab.strings(around, "weak_lemmas", _DATA)),
        dialect_endings=tuple(sorted({fold_nfkc(w) for w in vocab.strings(
            d.get("dialect", {}), "endings", _DATA)}, key=len, reverse=True)),
        dialect_after_verb_only=frozenset(fold_nfkc(w) for w in vocab.strings(
            d.get("dialect", {}), "after_verb_only", _DATA)),
        negations=tuple(fold_nfkc(w) for w in vocab.strings(
            d.get("dialect", {}), "negations", _DATA)),
        lone_corrections=frozenset(fold_nfkc(w) for w in vocab.strings(
            corr, "alone", _DATA)) | noticing,
        noticing=noticing,
        openers=frozenset(fold_nfkc(w) for w in vocab.strings(
            d.get("dialect", {}), "openers", _DATA)),
        counter_words=frozenset(vocab.strings(nums, "counters", _DATA)) | {text_of("counter")},
        numerals=dict(nums.get("digits", {})), units=dict(nums.get("units", {})),
        kanji=str(nums.get("kanji", "")),
        counters=tuple(vocab.strings(nums, "counters", _DATA)),
        points=tuple(fold_nfkc(w) for w in vocab.strings(nums, "points", _DATA)),
        slips=tuple(sorted(((str(k), str(v)) for k, v in slips.get("replace", {}).items()),
                           key=lambda kv: len(kv[0]), reverse=True)),
        small_kana=tuple(small),
        mention=re.compile(_first_chars(w[:1] for w in mention_folded) + "(?:" + "|".join(
            _word_re(w) for w in mention_folded) + ")"),
    )


SURFACE_NAMES: dict[str, str] = {}




@cache
def _short() -> re.Pattern[str]:
    """The grammar's one- and two-letter forms (F, C, x, こ, ふぉ) as a token of their own."""
    edge = text_of("short_edge")
    short = sorted(short_forms(), key=len, reverse=True)
    words = "|".join(re.escape(fold_nfkc(w)) for w in short)
    # ... and a letter glued to an amount (B1500, R2000, c600)
    return re.compile(rf"(?:^|(?<={edge}))(?:(?:{words})(?=$|{edge})|[brc][0-9])")


def guarded(folded: str, m: re.Match[str]) -> bool:
    """Whether an action word found in ``folded`` follows what makes it no action word
    (the っ of 強いっぽい, the て of ついております)."""
    guard = words_table().get("not_after", {}).get(m.group())
    return bool(guard) and folded[:m.start()].endswith(tuple(guard))


def action_spans(folded: str) -> list[re.Match[str]]:
    """Where the action words of ``folded`` stand (neither "all" nor "none"), guards kept."""
    return [m for m in vocabulary().surface.finditer(folded)
            if not guarded(folded, m) and SURFACE_NAMES[m.lastgroup or ""] not in ("all", "none")]


def action_words(folded: str, with_cards: bool = True) -> list[str]:
    """The actions of the action words in ``folded`` (:func:`action_spans`); without
    ``with_cards``, not the words that are actions only beside cards (ばいばい)."""
    only = texts_of("with_cards_only")
    return [SURFACE_NAMES[m.lastgroup or ""] for m in action_spans(folded)
            if with_cards or m.group() not in only]


@cache
def katakana_word() -> re.Pattern[str]:
    """A word in katakana (ナース, クオリファイ): an action word inside one is none."""
    return re.compile(text_of("katakana_word"))


def placed_already(text: str, said: Iterable[Word]) -> bool:
    """A clause that says the stake is already placed (まあ今回はもう置いちゃったけど): what came
    before it tells of the stake, it does not place it."""
    ws = list(said)
    return text_of("already") in text and any(
        w.pos == AUX and w.lemma == text_of("past") for w in ws) and any(
        w.lemma in texts_of("stake_verbs") for w in ws)


def ends_attributive(ws: list[Word], adjective: bool = False) -> bool:
    """The words end in a verb or an auxiliary (or, with ``adjective``, an adjective) in the
    attributive form: they describe the noun after them (半分がアンティになるオールイン,
    要らない3c)."""
    kinds = (VERB, AUX, vocab.pos("adjective")) if adjective else (VERB, AUX)
    return bool(ws) and ws[-1].pos in kinds and ws[-1].cform.startswith(
        text_of("attributive_cform"))


def names_a_person(ws: Iterable[Word]) -> bool:
    """A person's name or a name's suffix (さん, くん) among the words."""
    person = vocab.pos("person_name")
    return any(w.pos3 == person or w.lemma in texts_of("name_suffixes") for w in ws)


def style_of_the_day(action: str | None, text: str) -> bool:
    """「今日はコールで地道にいきます」: how the speaker plays today, the action only its style
    (an ante or an all-in is the stake itself: 今回はアンティ100に下げて地道にいきます)."""
    return action not in texts_of("stakes") and any(
        w in text for w in texts_of("this_day")) and any(w in text for w in texts_of("day_styles"))


@cache
def _make_by_amount() -> re.Pattern[str]:
    return re.compile(rf"[0-9][k{text_of('units')}]?{re.escape(text_of('up_to'))}")


@cache
def amount_pattern() -> re.Pattern[str]:
    """An amount in digits, with k, 千 and 万 (the grammar's AMOUNT, without its context)."""
    return re.compile(text_of("amount"))


def chips_said(folded: str) -> bool:
    """Whether folded text names a figure of chips (800, 1.2k, 2千; B1200): not a count (2枚,
    3回), not a single digit (a rank: 7以上). The awaited player who names one is answered."""
    counters = tuple(vocabulary().counters)
    for m in amount_pattern().finditer(folded):
        figure = m.group()
        if (len(figure) >= 2 or not figure.isdigit()) and \
                not folded[m.end():].lstrip().startswith(counters):
            return True
    return False


def mentions(folded: str, hands: Iterable[tuple[str, re.Pattern[str]]] = ()) -> bool:
    """Whether folded text may hold an action word of the clause reader (a cheap gate: an
    action word, the stem of an action verb, a short form standing alone, or a hand name of
    ``hands``)."""
    if vocabulary().mention.search(folded) is not None or _short().search(folded) is not None:
        return True
    if text_of("up_to") in folded and _make_by_amount().search(folded):
        return True  # 「おけ、1800まで」: a make where the game makes by amount
    return any(p.search(folded) for _, p in hands)
