"""The clause reader: the one action a player commits to inside a longer message.

The whole-message grammar (:mod:`referee.parse`) reads 「メイク2000」; people write
「お待たせしました、メイク2000でお願いします。GL」, 「コール…いや、やっぱ降ります」 or
「フォールドはしません、コールです」. This module reads such a message the way a dealer does:

1. **Repair** what a hurried thumb or a voice-input engine did to the *action words* only
   (〼, 折ります for 降ります, ちぇつく, ー typed as 一) and write kanji and kana numerals as
   digits (千八百, にせん ごひゃく); the vocabulary is ``grammar/clauses.toml``.
2. **Split** the message into clauses at punctuation, at conjunctions (けど, が) and at
   corrections (いや, じゃなくて, 間違えた), with the morphological analysis of
   :mod:`referee.lang.words`.
3. **Read** each clause: first with the game's grammar (the caller's reader), else as a *frame*:
   the action words, cards and amounts found in it, and every other word one that carries no
   content -- particles, auxiliaries, the verbs of doing and humble giving (いたす, 参る,
   させて頂く), the words of manners (お願い, 失礼) -- by part of speech and lemma, not by lists
   of endings. A word that negates, wishes, asks, supposes, advises or requests (ない, たい, か,
   たら, べき, くれ, an imperative) makes the clause no action.
4. **Resolve**: what came before the last correction or concession is taken back; a negated
   action (フォールドはしません) is declined. The message is an action when exactly one action
   remains (repeats agree) and no other clause has action vocabulary or advice in it; anything
   else stays chat, so a message that only *talks* about actions never becomes one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from kanjize import kanji2number

from referee.actions import Parsed
from referee.cards import RANKS, SUITS, card_str, make
from referee.lang import vocab
from referee.lang.decor import drop_emoji
from referee.lang.normalize import fold_nfkc
from referee.lang.tokens import amount_value, card_token
from referee.lang.words import Word, words

GrammarReader = Callable[[str], Parsed | None]

_DATA = "clauses.toml"


@cache
def _text() -> dict[str, Any]:
    """The small words and character classes of ``grammar/clauses.toml`` [text]."""
    got = vocab.load(_DATA).get("text", {})
    return dict(got) if isinstance(got, dict) else {}


def _t(key: str) -> str:
    value = _text().get(key)
    if not isinstance(value, str):
        raise vocab.VocabularyError(f"{_DATA}: no text.{key}")
    return value


def _tl(key: str) -> tuple[str, ...]:
    return tuple(vocab.strings(_text(), key, _DATA))


_PARTICLE, _AUX, _VERB = vocab.pos("particle"), vocab.pos("auxiliary"), vocab.pos("verb")
_SYMBOL, _BLANK, _NUMERAL = vocab.pos("symbol"), vocab.pos("blank"), vocab.pos("numeral")
_CONJUNCTIVE, _FINAL = vocab.pos("conjunctive_particle"), vocab.pos("final_particle")
_CONTENT_POS = tuple(vocab.pos(p) for p in ("noun", "pronoun", "adverb", "adjectival_noun",
                                           "adnominal"))

# Which frame words each game knows (the others are no action there: 「チェック」 in holdem_aa).
_GAME_ACTIONS: dict[str, frozenset[str]] = {
    "omaha": frozenset({"call", "check", "fold", "bet", "raise", "pot", "allin", "open", "muck",
                        "close", "all"}),
    "holdem_aa": frozenset({"call", "fold", "allin", "ante", "aa", "showdown"}),
    "seven": frozenset({"call", "raise", "hyper_raise", "extra_raise", "fold", "discard",
                        "ante", "allin", "showdown", "keep"}),
    "deuces": frozenset({"ante", "fold", "allin", "discard", "keep", "showdown", "play", "stay",
                         "all"}),
}


@dataclass(frozen=True)
class _Vocab:
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
    dialect_endings: tuple[str, ...]
    dialect_after_verb_only: frozenset[str]
    negations: tuple[str, ...]
    lone_corrections: frozenset[str]
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
    e = re.escape(w).replace(r"\ ", r"[ \-]?")
    return rf"(?<![a-z]){e}(?![a-z])" if w[:1].isascii() and w[-1:].isascii() else e


@cache
def _big() -> dict[int, int]:
    return str.maketrans(_t("small_kana"), _t("big_kana"))


@cache
def _vocab() -> _Vocab:
    d = vocab.load(_DATA)
    acts: dict[str, Any] = d.get("actions", {})
    alts: list[tuple[str, str]] = []
    lemmas: dict[str, str] = {}
    for name, entry in acts.items():
        for w in vocab.strings(entry, "words", _DATA):
            alts.append((fold_nfkc(w), name))
        for lemma in vocab.strings(entry, "lemmas", _DATA):
            lemmas[lemma] = name
    alts.sort(key=lambda a: len(a[0]), reverse=True)
    # one alternation, longest first; the action is found by which word matched
    surface = re.compile("|".join(f"(?P<w{i}>{_word_re(w)})" for i, (w, _) in enumerate(alts)))
    names = {f"w{i}": n for i, (_, n) in enumerate(alts)}
    _SURFACE_NAMES.clear()
    _SURFACE_NAMES.update(names)
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
    table = _big()
    for w in vocab.strings(slips, "small_kana_words", _DATA):
        at = [i for i, ch in enumerate(w) if ord(ch) in table]
        for mask in range(1, 1 << len(at)):  # ちえっく, ちぇつく, ちえつく
            chars = list(w)
            for k, i in enumerate(at):
                if mask >> k & 1:
                    chars[i] = chr(table[ord(w[i])])
            small.append(("".join(chars), w))
        # a doubled last kana (ふぉーるどど)
        small.append((w + w[-1], w))
    # the gate: the words, and the stems of the lemmas (上げ of 上げさせて, 乗 of 乗ります)
    kana = re.compile(f"[{_t('hiragana')}]$")
    stems = {lemma[:-1] if len(lemma) > 1 and kana.search(lemma) else lemma for lemma in lemmas}
    mention_words = sorted({w for w, _ in alts} | stems, key=len, reverse=True)
    return _Vocab(
        surface=surface, lemmas=lemmas,
        around_pos=frozenset(vocab.strings(around, "pos", _DATA)),
        around_lemmas=frozenset(vocab.strings(around, "verb_lemmas", _DATA))
        | frozenset(vocab.strings(around, "word_lemmas", _DATA)),
        around_words=frozenset(fold_nfkc(w) for w in vocab.strings(around, "words", _DATA)),
        volitional=frozenset(fold_nfkc(w) for w in vocab.strings(around, "volitional", _DATA)),
        veto_aux=frozenset(vocab.strings(veto, "aux_lemmas", _DATA)),
        veto_particles=frozenset(vocab.strings(veto, "particle_lemmas", _DATA)),
        veto_words=re.compile("|".join(_word_re(w) for w in veto_words)),
        imperative=frozenset(vocab.strings(veto, "imperative_cforms", _DATA)),
        corrections=re.compile("|".join(_word_re(w) for w in corrections)),
        concessive=frozenset(fold_nfkc(w) for w in vocab.strings(corr, "concessive", _DATA)),
        declined=frozenset(vocab.strings(d.get("declined", {}), "aux_lemmas", _DATA)),
        declaring=frozenset(vocab.strings(around, "verb_lemmas", _DATA))
        | frozenset(vocab.strings(around, "declaring_lemmas", _DATA)),
        remark_particles=frozenset(vocab.strings(veto, "remark_particles", _DATA)),
        declining=frozenset(vocab.strings(d.get("declined", {}), "lemmas", _DATA)),
        weak=frozenset(vocab.strings(around, "weak_lemmas", _DATA)),
        dialect_endings=tuple(sorted({fold_nfkc(w) for w in vocab.strings(
            d.get("dialect", {}), "endings", _DATA)}, key=len, reverse=True)),
        dialect_after_verb_only=frozenset(fold_nfkc(w) for w in vocab.strings(
            d.get("dialect", {}), "after_verb_only", _DATA)),
        negations=tuple(fold_nfkc(w) for w in vocab.strings(
            d.get("dialect", {}), "negations", _DATA)),
        lone_corrections=frozenset(fold_nfkc(w) for w in vocab.strings(
            corr, "alone", _DATA)),
        openers=frozenset(fold_nfkc(w) for w in vocab.strings(
            d.get("dialect", {}), "openers", _DATA)),
        counter_words=frozenset(vocab.strings(nums, "counters", _DATA)) | {_t("counter")},
        numerals=dict(nums.get("digits", {})), units=dict(nums.get("units", {})),
        kanji=str(nums.get("kanji", "")),
        counters=tuple(vocab.strings(nums, "counters", _DATA)),
        points=tuple(fold_nfkc(w) for w in vocab.strings(nums, "points", _DATA)),
        slips=tuple(sorted(((str(k), str(v)) for k, v in slips.get("replace", {}).items()),
                           key=lambda kv: len(kv[0]), reverse=True)),
        small_kana=tuple(small),
        mention=re.compile("|".join(_word_re(fold_nfkc(w)) for w in mention_words)),
    )


_SURFACE_NAMES: dict[str, str] = {}


def gate(typed: str, hands: Iterable[tuple[str, re.Pattern[str]]] = ()) -> bool:
    """Whether the clause reader may find an action in ``typed`` (NFKC): :func:`mentions`
    on the repaired text."""
    return mentions(fold_nfkc(repair(typed)), hands)


@cache
def _short() -> re.Pattern[str]:
    """The grammar's one- and two-letter forms (F, C, x, こ, ふぉ) as a token of their own."""
    edge = r"[\s、。!?…,.()\[\]]"
    words = "|".join(re.escape(fold_nfkc(w)) for w in sorted(_tl("short"), key=len, reverse=True))
    return re.compile(rf"(?:^|(?<={edge}))(?:{words})(?=$|{edge})")


def mentions(folded: str, hands: Iterable[tuple[str, re.Pattern[str]]] = ()) -> bool:
    """Whether folded text may hold an action word of the clause reader (a cheap gate: an
    action word, the stem of an action verb, a short form standing alone, or a hand name of
    ``hands``)."""
    if _vocab().mention.search(folded) is not None or _short().search(folded) is not None:
        return True
    return any(p.search(folded) for _, p in hands)


# --- 1. repair -----------------------------------------------------------------------------------

_ASCII_STRETCH = re.compile(r"([aeiouyz])\1{2,}")  # gooo, plzzz


@cache
def _repairs() -> tuple[re.Pattern[str], ...]:
    kata, hira, long = _t("katakana"), _t("hiragana"), vocab.marks("long_vowel")
    kana = f"{hira}{kata}{long}"
    return (
        re.compile(rf"(?<=[{kata}{long}])[{_t('dash_slips')}](?=[{kata}]|$|\s)"),  # コ一ル
        re.compile(rf"(?<=[{kana}])n$"),  # おーるいn
        re.compile(rf"(?<=[{kana}])[a-mo-z]$"),  # ふぉーるどd: a key hit with the IME off
        re.compile(rf"(?:(?<=[{_t('stretch_after')}])|(?<=[a-zA-Z]))[{_t('stretch_marks')}]+"
                   rf"(?=[\s{re.escape(vocab.marks('trailing') + _t('question'))}]*$)"),  # ますぅ〜
    )


@cache
def _face_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    jp = vocab.marks("japanese_class")
    cw = vocab.cards()
    known = rf"\x00-\x7f{jp}{cw.symbols}{vocab.marks('long_vowel')}{_t('wave')}{_t('own_marks')}"
    foreign = re.compile(rf"[^{known}\s]")  # ٩ ᗜ ꒳ ˙ (and ٩ is a digit to \d)
    # a bracket of marks only, a face: (*´꒳`*) (ﾟ∀ﾟ) (^^;
    face = re.compile(rf"[(][^(){jp}a-zA-Z0-9]{{0,12}}[)]?")
    return foreign, face


def _faces(text: str) -> str:
    if text.isascii():
        return text
    foreign, face = _face_patterns()
    return face.sub(" ", foreign.sub("", text))


def repair(text: str) -> str:
    """``text`` (NFKC) with the slips of ``grammar/clauses.toml`` undone."""
    v = _vocab()
    text = drop_emoji(text, blank=True)
    for wrong, right in v.slips:
        if wrong in text:
            text = text.replace(wrong, right)
    text = _faces(text)
    dash, stray_n, stray, stretch = _repairs()
    text = dash.sub(vocab.marks("long_vowel"), text)
    text = stray.sub("", stray_n.sub(_t("n"), text))
    text = _ASCII_STRETCH.sub(r"\1", text)
    text = stretch.sub("", text)
    folded = fold_nfkc(text)
    if len(folded) == len(text):
        for big, small in v.small_kana:
            start = folded.find(big)
            while start >= 0:
                text = text[:start] + small + text[start + len(big):]
                start = folded.find(big, start + len(big))
    return numerals(text)


def _kana_number(run: str) -> str | None:
    """A run of kana numerals (にせん ごひゃく) as kanji (二千五百), or None."""
    v = _vocab()
    s = "".join(run.split())
    out: list[str] = []
    i = 0
    keys = sorted({*v.numerals, *v.units}, key=len, reverse=True)
    while i < len(s):
        for k in keys:
            if s.startswith(k, i):
                out.append(v.numerals.get(k) or v.units[k])
                i += len(k)
                break
        else:
            return None
    kanji = "".join(out)
    if not any(u in kanji for u in v.units.values()):
        return None
    return kanji


@cache
def _numeral_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    v = _vocab()
    k = re.escape(v.kanji)
    counters = "".join(re.escape(c) for c in v.counters)
    kanji = re.compile(rf"[0-9{k}]*[{k}][0-9{k}]*(?![{counters}])")
    parts = "|".join(re.escape(x) for x in sorted({*v.numerals, *v.units}, key=len, reverse=True))
    # a kana numeral run stands apart: not inside a word (ません), maybe before a particle
    hira = _t("hiragana")
    run = rf"(?<![{hira}])(?:(?:{parts})\s?)+"
    kana = re.compile(rf"{run}(?=[^{hira}]|[{_t('after_kana_numeral')}]|$)")
    return kanji, kana




def numerals(text: str) -> str:
    """Kanji and kana numerals with a unit (千八百, 五百, にせん ごひゃく) written in digits."""
    v = _vocab()
    kanji, kana = _numeral_patterns()

    def kana_sub(m: re.Match[str]) -> str:
        got = _kana_number(m.group().rstrip())
        if got is None:
            return m.group()
        return got + (" " if m.group()[-1:].isspace() else "")

    if any(k in text for k in v.units):
        text = kana.sub(kana_sub, text)

    def kanji_sub(m: re.Match[str]) -> str:
        s = m.group()
        for old, new in _text().get("old_numerals", {}).items():
            s = s.replace(old, new)
        if not any(u in s for u in _t("units")) or s.isdigit():
            return m.group()
        if any(ch.isdigit() for ch in s) and not any(u in s for u in _t("small_units")):
            return m.group()  # 2万, 1万5千: the grammar's own amounts
        try:
            return str(kanji2number(s))
        except (ValueError, KeyError, IndexError, TypeError):
            return m.group()

    if any(ch in v.kanji for ch in text):
        text = kanji.sub(kanji_sub, text)
    return text


# --- 2. split -------------------------------------------------------------------------------------

@cache
def _cuts() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Where a clause ends (punctuation, a blank between Japanese words, laughter), and where a
    sentence ends: the coarser cut, for an action whose cards or amounts run over commas
    (「ハートのエース、キング、クイーンを残します」, 「アンティ千、AA五百」)."""
    jp = vocab.marks("japanese_class")
    long = vocab.marks("long_vowel")
    clause = (rf"{_t('clause')}|(?<=[{jp}{long}0-9])(?:\s|[{_t('wave')}])+(?=[{jp}])"
              rf"|(?<=[a-zA-Z])\s+(?=[{jp}])|(?<=[{jp}])\s+(?=[a-zA-Z0-9])"
              rf"|(?<=[{jp}{long}])[w{vocab.marks('laugh_word')}]+(?![a-z])")
    return re.compile(clause), re.compile(_t("sentence"))


@dataclass
class Clause:
    text: str  # NFKC, repaired
    folded: str
    start: int
    question: bool = False
    ends_concessive: bool = False
    correction: bool = False  # holds a word taking back what came before
    last: bool = False  # the message's last clause
    musing: bool = False  # an action only wondered about (しよっかな)
    made_hand: str | None = None  # a hand said to be made (ビッグハウスできた)
    kind: str = "chat"  # action | declined | blocking | chat
    parsed: Parsed | None = None
    words: tuple[Word, ...] = field(default=())


def _bounds(ws: tuple[Word, ...], length: int) -> set[int]:
    """Offsets where a word of the analysis starts or ends."""
    out = {0, length}
    for w in ws:
        out.add(w.start)
        out.add(w.start + len(w.surface))
    return out


def split(text: str, fine: bool = True) -> list[Clause]:
    """Clauses of ``text`` (repaired NFKC) at punctuation, conjunctions and corrections; with
    ``fine`` false, sentences (full stops, conjunctions and corrections only)."""
    v = _vocab()
    folded = fold_nfkc(text)
    if len(folded) != len(text):
        return []
    ws = words(text)
    cuts: list[tuple[int, int]] = []  # (end of clause, start of next)
    for m in _cuts()[0 if fine else 1].finditer(text):
        cuts.append((m.start(), m.end()))
    # a conjunction of concession or reason ends a clause (コールしたいけど、/ スリーペアだから)
    for w in ws:
        if w.pos == _PARTICLE and w.pos2 == _CONJUNCTIVE and (
                fold_nfkc(w.surface) in v.concessive or w.lemma in _tl("reason")):
            end = w.start + len(w.surface)
            cuts.append((end, end))
    # a correction word starts a clause of its own (コールじゃなくてフォールド); whole words
    # only (not the いや of ダイヤ)
    bounds = _bounds(ws, len(text))
    words_at = [m.span() for m in v.surface.finditer(folded)]
    punct = [0] + [e for _, e in sorted(cuts)]
    corrected: set[int] = set()
    for m in v.corrections.finditer(folded):
        inside = any(a <= m.start() < b for a, b in words_at)  # 交換なし
        begin = max(p for p in punct if p <= m.start())
        before = folded[begin:m.start()]
        # 「別卓と間違えかけた」 narrates: a correction stands at a clause's start or after an
        # action (コールじゃなくて, レイズ…いや)
        told = (not before.strip() or v.surface.search(before) or _cards_in(before)
                or before.strip() in _tl("correction_openers"))  # あ、/ ごめん / あっ
        if m.start() in bounds and m.end() in bounds and not inside and told:
            corrected.add(m.start())
            cuts.append((m.start(), m.start()))
            cuts.append((m.end(), m.end()))
    cuts.sort()
    out: list[Clause] = []
    pos = 0
    for end, nxt in cuts:
        if end < pos:
            continue
        piece = text[pos:end]
        mark = text[end:nxt]
        if piece.strip():
            c = Clause(piece, folded[pos:end], pos)
            c.question = any(q in mark for q in _t("question"))
            out.append(c)
        elif out and any(q in mark for q in _t("question")):
            out[-1].question = True
        pos = nxt
    if text[pos:].strip():
        out.append(Clause(text[pos:], folded[pos:], pos))
    # a clause that starts with an auxiliary or a particle goes on the one before
    # (エクストラは二回目だけ、でございましたね)
    merged: list[Clause] = []
    for c in out:
        head = next((w for w in ws if c.start <= w.start < c.start + len(c.text)
                     and w.pos not in (_SYMBOL, _BLANK)), None)
        gap = text[merged[-1].start + len(merged[-1].text):c.start] if merged else ""
        if merged and head is not None and head.pos in (_AUX, _PARTICLE) and \
                not _cuts()[1].search(gap) and \
                fold_nfkc(head.surface) not in v.concessive and not v.corrections.match(
                    folded, head.start):
            prev = merged[-1]
            prev.text = text[prev.start:c.start + len(c.text)]
            prev.folded = folded[prev.start:c.start + len(c.text)]
            prev.question = prev.question or c.question
            continue
        merged.append(c)
    out = merged
    split_out: list[Clause] = []
    for c in out:
        body = c.folded.lstrip()
        lead = len(c.folded) - len(body)
        word = next((w for w in sorted(v.lone_corrections, key=len, reverse=True)
                     if body.startswith(w) and c.start + lead + len(w) in bounds), None)
        if word is not None and len(body) > len(word):  # ちゃうちゃう700や
            cut = lead + len(word)
            first = Clause(c.text[:cut], c.folded[:cut], c.start, correction=True)
            split_out += [first, Clause(c.text[cut:], c.folded[cut:], c.start + cut,
                                       question=c.question)]
            continue
        if word is not None:
            c.correction = True
        split_out.append(c)
    out = split_out
    # a question mark asks about its whole sentence (「what does メイク mean?」, 「コール、いい？」)
    for i in range(len(out) - 1, 0, -1):
        gap = text[out[i - 1].start + len(out[i - 1].text):out[i].start]
        gap = "".join(ch for ch in gap if ch not in _t("question"))
        if out[i].question and not _cuts()[1].search(gap):
            out[i - 1].question = True
    if out:
        out[-1].last = True
    for c in out:
        c.words = tuple(w for w in ws if c.start <= w.start < c.start + len(c.text))
        stripped = c.folded.rstrip()
        c.ends_concessive = any(stripped.endswith(x) for x in v.concessive) and bool(c.words) \
            and c.words[-1].pos == _PARTICLE
        lead = len(c.folded) - len(c.folded.lstrip())
        c.correction = c.correction or c.start + lead in corrected
    return out


# --- 3. frame reading --------------------------------------------------------------------------

@cache
def _card_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    cw = vocab.cards()
    suit = f"(?:{cw.suit_words_re})"  # symbols are the CARD terminal's (A♠K♠)
    kanji = "".join(_text().get("kanji_ranks", {}))
    rank = f"(?:10|[2-9tjqka]|{cw.rank_words_re}|[{kanji}])"
    sep = _t("card_sep")
    of = re.escape(cw.of)
    gap = _t("card_gap")
    suit_first = re.compile(rf"(?P<suit>{suit}){gap}{of}?{gap}(?P<ranks>{rank}(?:{sep}{rank})*)")
    ranks_first = re.compile(rf"(?P<ranks>{rank}(?:{sep}{rank})*){gap}{of}{gap}(?P<suit>{suit})")
    single = re.compile(vocab.card_terminal())
    return suit_first, ranks_first, single


def _rank_letter(r: str) -> str:
    cw = vocab.cards()
    r = {**_text().get("kanji_ranks", {}), "10": "t"}.get(r, r)
    return cw.rank_of.get(r, r)


def _cards_in(folded: str) -> list[tuple[int, int, list[str]]]:
    """Card phrases of a folded clause: (start, end, cards) -- 「ハートのキングとクイーン」,
    「9と10のハート」, 「As Kd」, 「スペードのエース」."""
    cw = vocab.cards()
    suit_first, ranks_first, single = _card_patterns()
    found: list[tuple[int, int, list[str]]] = []
    taken = [False] * len(folded)

    def add(s: int, e: int, cards: list[str]) -> None:
        if any(taken[s:e]):
            return
        for i in range(s, e):
            taken[i] = True
        found.append((s, e, cards))

    kanji = "".join(_text().get("kanji_ranks", {}))
    rank_split = re.compile(rf"10|[2-9tjqka]|{cw.rank_words_re}|[{kanji}]")
    for pat in (ranks_first, suit_first):
        for m in pat.finditer(folded):
            suit = cw.suit_of.get(m.group("suit"))
            if suit is None:
                continue
            ranks = [_rank_letter(r) for r in rank_split.findall(m.group("ranks"))]
            if pat is suit_first and len(ranks) == 1 and len(m.group("ranks")) == 1 and \
                    m.group("ranks") in "tjqka" and m.end() < len(folded) and \
                    folded[m.end()].isascii() and folded[m.end()].isalpha():
                continue
            try:
                cards = [card_str(make(RANKS.index(r.upper()), SUITS.index(suit)))
                         for r in ranks]
            except ValueError:
                continue
            add(m.start(), m.end(), cards)
    last_end = -1
    for m in single.finditer(folded):
        tok = m.group()
        before = folded[m.start() - 1:m.start()]
        if before.isascii() and before.isalnum() and m.start() != last_end:
            continue  # not the ts of "lets"; but AhKh is two cards
        last_end = m.end()
        if tok in cw.jokers:
            add(m.start(), m.end(), ["JK"])
            continue
        try:
            add(m.start(), m.end(), [card_token(tok)])
        except ValueError:
            continue
    found.sort()
    return found


@cache
def _amount_re() -> re.Pattern[str]:
    return re.compile(_t("amount"))


@dataclass
class _Frame:
    actions: list[tuple[int, str]] = field(default_factory=list)  # (position, action)
    cards: list[tuple[int, list[str]]] = field(default_factory=list)
    amounts: list[tuple[int, int]] = field(default_factory=list)
    hand: str | None = None
    negated: bool = False
    vetoed: bool = False
    content: bool = False
    declared: bool = False  # a word of doing or politeness (いたします, で参ります, っす)
    why: list[str] = field(default_factory=list)  # the words that made it content or vetoed
    weak: bool = False  # a pronoun or adverb that may point at someone else (ここは)
    polite: bool = False  # an auxiliary, a declaring particle or 宣言 (a hand named needs one)
    except_: bool = False  # 以外: the cards named are the others
    musing: bool = False  # かな: wondering, the only veto
    made: bool = False  # a verb of making a hand (出来る, 来る, 揃う)
    these: bool = False  # これ / この2枚: the cards named in another clause


def frame(clause: Clause, game: str, hands: Iterable[tuple[str, re.Pattern[str]]]) -> _Frame:
    """The action words, cards and amounts of one clause, and whether everything else in it is
    a word that carries no content (see the module docstring)."""
    v = _vocab()
    f = _Frame()
    folded = clause.folded
    spans: list[tuple[int, int]] = []
    allowed = _GAME_ACTIONS.get(game, frozenset())
    for s, e, cards in _cards_in(folded):
        f.cards.append((s, cards))
        spans.append((s, e))
    for name, pat in hands:
        m = pat.search(folded)
        if m is not None and not any(a <= m.start() < b for a, b in spans):
            f.hand = name
            spans.append(m.span())
            break

    def free(s: int, e: int) -> bool:
        return not any(a < e and s < b for a, b in spans)

    keyword_spans: list[tuple[int, int]] = []
    for m in v.surface.finditer(folded):
        if not free(m.start(), m.end()):
            continue
        name = _SURFACE_NAMES[m.lastgroup or ""]
        guard = _text().get("not_after", {}).get(m.group())
        if guard and folded[:m.start()].endswith(guard):
            continue  # 強いっぽい is no discard
            if name in ("hyper_raise", "extra_raise", "check", "bet", "raise", "pot", "open",
                        "muck", "close", "ante", "aa", "discard", "keep", "play", "stay",
                        "showdown", "call"):
                f.content = True  # an action word this game does not have
            continue
        f.actions.append((m.start(), name))
        spans.append(m.span())
        keyword_spans.append(m.span())
    for m in _amount_re().finditer(folded):
        if not free(m.start(), m.end()):
            continue
        if any(w.start - clause.start == m.end() and w.surface in v.counter_words
               for w in clause.words):
            continue  # この2枚, 2回目: a count, not chips (but AA100つけて is chips)
        value = amount_value(m.group())
        if value is None:
            f.content = True
            continue
        f.amounts.append((m.start(), value))
        spans.append(m.span())
        for p in v.points:
            if folded.startswith(p, m.end()):
                spans.append((m.end(), m.end() + len(p)))
                break
    # a dialect's sentence-final words after the action (コールたい, 捨てるけぇ, オープンや,
    # レイズだがや): the analyser does not know them; they carry no content of their own
    tail_at = _dialect_tail(folded)
    if tail_at < len(folded):
        spans.append((tail_at, len(folded)))
        f.declared = f.polite = True
    # the other words, one by one
    ws = clause.words
    cw = vocab.cards()
    held = {c[0].lower() for _, cs in f.cards for c in cs}
    ranks = {w for w, r in cw.rank_of.items() if r in held} | held  # エース, A, 9
    i = 0
    prev: Word | None = None
    while i < len(ws):
        w = ws[i]
        s = w.start - clause.start
        e = s + len(w.surface)
        if not free(s, e):
            # an action word; a verb among them may still be an order (降りろ)
            if w.pos == _VERB and w.cform in v.imperative:
                f.vetoed = True
            prev = w
            i += 1
            continue
        if w.lemma in v.lemmas and v.lemmas[w.lemma] in allowed:
            if w.pos == _VERB and w.cform in v.imperative:
                f.vetoed = True
            f.actions.append((s, v.lemmas[w.lemma]))
            spans.append((s, e))
            f.declared = f.declared or w.pos == _VERB
            prev = w
            i += 1
            continue
        # dialect and slang spelled out, possibly over several of the analyser's words
        for n in (4, 3, 2, 1):
            if i + n <= len(ws):
                last = ws[i + n - 1]
                surf = fold_nfkc(clause.text[s:last.start - clause.start + len(last.surface)])
                surf = surf.strip()
                # a written-out word over several of the analyser's words is taken as written
                # (おなしゃす is no imperative of 成す); a single word must not be a veto
                if (surf in v.volitional and not clause.question) or (surf in v.around_words and (
                        n > 1 or not _is_veto(ws[i], v))):
                    break
        else:
            n = 0
        if n:
            f.declared = True
            prev = ws[i + n - 1]
            i += n
            continue
        past = w.pos == _AUX and w.lemma == _t("past") and (prev is None or prev.lemma != _t(
            "polite"))
        before = ws[i - 1].start - clause.start if i > 0 else -1
        if w.pos == _PARTICLE and w.lemma in _tl("topic") and any(
                a <= before < b for a, b in keyword_spans) and ws[i - 1].pos != _VERB:
            f.weak = True  # エクストラは…: talk about the action, unless declared
        if w.lemma in _tl("made_verbs"):
            f.made = True
        if w.pos == _PARTICLE and w.lemma in _tl("musing") and not f.vetoed:
            f.musing = True
        if _is_veto(w, v) or _is_remark(prev, w, v) or past or _past_remark(prev, w, v):
            if w.lemma in v.declined and w.pos == _AUX:
                f.negated = True
            else:
                f.vetoed = True
                f.why.append(w.surface)
        elif w.pos2 == _NUMERAL or (prev is not None and (prev.pos2 == _NUMERAL or prev.lemma in
                                  v.counter_words) and w.lemma in v.counter_words):
            pass  # 一つ, 二回目: a count (an amount is read above)
        elif fold_nfkc(w.surface) in ranks:
            pass  # エースだけ残します、スペードのエース: the rank of a card named here
        elif w.lemma in _tl("except"):
            f.except_ = True
        elif w.lemma in v.declining and (prev is None or prev.lemma != _t("agree")):
            f.negated = True  # AAは結構です / 交換は無し decline (アンティ300で結構です agrees)
        elif not _is_around(w, v):
            f.content = True
            f.why.append(w.surface)
        elif w.lemma in v.declining:
            # AAは結構です declines; アンティ300のみで結構です agrees
            if prev is None or prev.lemma != _t("agree"):
                f.negated = True
        elif w.pos in _CONTENT_POS and w.lemma in v.weak:
            f.weak = True
        if w.lemma in _tl("these"):
            f.these = True
        elif w.pos == _AUX or w.lemma in v.declaring or (
                w.pos == _PARTICLE and w.lemma in _tl("declaring_end") and w is ws[-1]) or (
                w.pos2 == _FINAL and prev is not None and prev.pos in (_VERB, _AUX)):
            f.declared = True
            f.polite = f.polite or w.pos in (_AUX, _PARTICLE) or w.lemma in v.declaring
        prev = w
        i += 1
    # a clause ending in the て of a request (オープンして, 全部残して) asks someone
    tail = [w for w in ws if w.pos not in (_SYMBOL, _BLANK) and (
        w.start - clause.start < tail_at)]  # (not the dialect's ending: 残すっちゃ)
    while len(tail) > 2 and tail[-1].pos2 == _FINAL:  # 見せてよ, 降りてね
        tail.pop()
    names_cards = bool(f.cards) and {n for _, n in f.actions} <= {"discard", "keep", "all"}
    if clause.last and not names_cards and tail and tail[-1].pos == _PARTICLE and \
            tail[-1].lemma in _tl("request") and \
            len(tail) > 1 and tail[-2].pos == _VERB:
        f.vetoed = True  # (残して、3sと4d捨て: a て that goes on is no request)
    gap = "".join(ch if free(k, k + 1) else " " for k, ch in enumerate(folded))
    if any(n in gap for n in v.negations):
        f.negated = True  # 見せへん, やんね: a dialect's negation
    starts = {w.start - clause.start for w in ws} | {0}
    if any(m.start() in starts or not gap[m.start() - 1:m.start()].strip()
           for m in v.veto_words.finditer(gap)):
        f.vetoed = True
    if clause.question:
        f.vetoed = True
    f.actions.sort()
    f.cards.sort()
    if f.negated and {n for _, n in f.actions} in ({"open", "close"}, {"open"}) and not f.cards:
        # 見せずに閉じます, 見せません: not showing is the close
        f.actions = [(p, "close") for p, _ in f.actions[:1]]
        f.negated = False
    return f


def _dialect_tail(folded: str) -> int:
    """Where the dialect endings at the end of a clause begin (len when there are none)."""
    v = _vocab()
    end = len(folded.rstrip())
    while True:
        for w in v.dialect_endings:
            if folded.startswith(w, end - len(w)) and end - len(w) > 0:
                before = folded[end - len(w) - 1]
                # after a word, not inside one: the kana before is no part of the ending
                if w in v.dialect_after_verb_only and before not in _t("verb_endings"):
                    continue
                head = folded[:end - len(w)]
                if w in _tl("wish_like") and before in _t("wish_stems"):
                    continue  # 降りたい wishes; 勝負たい, しとくたい assert
                if w in v.dialect_after_verb_only and head.endswith(_tl("remark_before")):
                    continue  # コールですね remarks; 降りますね declares
                end -= len(w)
                break
        else:
            return end if end < len(folded.rstrip()) else len(folded)


def _conditional(c: Clause) -> bool:
    """A clause of supposition (私なら, 若い頃でしたら): what follows is hypothetical."""
    if fold_nfkc(c.folded.strip()) in _vocab().openers:
        return False  # んだら、ほな: "well then" opens, it supposes nothing
    return any((w.pos == _PARTICLE and w.lemma in _tl("conditional")) or
               (w.pos == _AUX and w.surface in _tl("conditional_aux")) or
               (w.pos in (_VERB, _AUX) and w.cform.startswith(_t("conditional_form")))
               for w in c.words)


def _is_veto(w: Word, v: _Vocab) -> bool:
    if w.pos == _AUX and w.lemma in v.veto_aux:
        return True
    if w.pos == _PARTICLE and w.lemma in v.veto_particles:
        return True
    if w.pos in (_VERB, _AUX) and w.cform.startswith(_t("conditional_form")):
        return True  # わしなら, 降りれば: a supposition
    # an order (降りろ, チェックしとけ); not the ませ of くださいませ
    return w.pos in (_VERB, _AUX) and w.cform in v.imperative and w.lemma != _t("polite")


def _is_remark(prev: Word | None, w: Word, v: _Vocab) -> bool:
    """A copula remarking on an action rather than declaring it: コールだね, コールですよ,
    コールだった (but 「チェックっすね」 declares)."""
    if prev is None or prev.pos != _AUX or prev.lemma not in _tl("copula"):
        return False
    if fold_nfkc(prev.surface) in v.around_words:
        return False
    if w.pos == _PARTICLE and w.lemma in v.remark_particles:
        return True
    return w.pos == _AUX and w.lemma == _t("past")


def _past_remark(prev: Word | None, w: Word, v: _Vocab) -> bool:
    """でございましたね, だったよ: a past tense with a particle of remark."""
    return prev is not None and prev.pos == _AUX and prev.lemma == _t("past") and \
        w.pos == _PARTICLE and w.lemma in v.remark_particles


def _is_around(w: Word, v: _Vocab) -> bool:
    if w.lemma in v.around_lemmas or fold_nfkc(w.surface) in v.around_words:
        return True
    if not w.surface.strip():
        return True
    return w.pos in v.around_pos


def _build(f: _Frame, game: str) -> Parsed | None:
    """The action a clean frame declares, or None when its words do not make one action."""
    names = [n for _, n in f.actions]
    kinds = set(names)
    cards = [c for _, cs in f.cards for c in cs]
    amounts = [a for _, a in f.amounts]
    if f.hand is not None:
        if game != "seven" or kinds - {"discard", "showdown"} or cards or amounts:
            return None
        return Parsed(kind="action", action="discard", hand=f.hand, hand_info=True)
    if game == "deuces" and kinds & {"keep", "discard", "stay", "play", "all"}:
        return _deuces(f)
    if game == "seven" and {"discard", "keep"} <= kinds and len(cards) > 2:
        # 「JKは残して3dと4c捨て」: the cards after the word of keeping are the ones thrown
        keep_at = max(p for p, n in f.actions if n == "keep")
        cards = [c for p, cs in f.cards if p > keep_at for c in cs]
    if game == "seven" and "discard" in kinds:
        if kinds - {"discard", "showdown", "keep"} or len(cards) != 2 or amounts:
            # 「ジョーカーは残して、3sと4d捨て」: the kept card is a clause of its own
            return None
        return Parsed(kind="action", action="discard", cards=cards, hand_info=True)
    kinds.discard("showdown") if len(kinds) > 1 else None
    if "open" in kinds and kinds & {"fold", "muck"}:
        kinds.discard("open")  # a fold or muck that shows (見せて)
    if "all" in kinds and "open" in kinds:
        kinds.discard("all")
    if "pot" in kinds and kinds & {"bet", "raise"}:
        kinds.discard("pot")
        pot = True
    else:
        pot = "pot" in kinds
    if game == "holdem_aa" and "aa" in kinds:
        kinds.discard("aa")
        return _ante_aa(f, kinds)
    if len(kinds) != 1:
        return None
    (name,) = kinds
    if name == "showdown":
        if game != "holdem_aa" or cards or amounts:
            return None
        return Parsed(kind="action", action="call")
    if name in ("fold", "muck", "open"):
        if amounts:
            return None
        if f.negated and name == "open":
            return None if cards else Parsed(kind="action", action="close")
        return Parsed(kind="action", action=name, cards=cards or None, hand_info=bool(cards))
    if cards:
        return None
    if name == "pot":
        return Parsed(kind="action", action="raise", pot=True)
    if len(amounts) > 1:
        return None
    amount = amounts[0] if amounts else None
    if name == "raise":
        if pot:
            return Parsed(kind="action", action="raise", pot=True)
        # 上げる alone is only a raise with the total it brings the bet to
        return Parsed(kind="action", action="raise", to=amount)
    if name == "bet":
        return Parsed(kind="action", action="bet", amount=amount, pot=True if pot else None)
    if name in ("call", "allin", "ante"):
        return Parsed(kind="action", action=name, amount=amount)
    if name in ("check", "close", "hyper_raise", "extra_raise"):
        if amount is not None:
            return None
        return Parsed(kind="action", action=name)
    return None


def _ante_aa(f: _Frame, kinds: set[str]) -> Parsed | None:
    """holdem_aa: the ante and the AA side bet, each amount after (or before) its word."""
    aa_pos = [p for p, n in f.actions if n == "aa"]
    other = kinds - {"ante", "allin"}
    if other or len(kinds) > 1 or f.cards:
        return None
    name = next(iter(kinds), "ante")
    amounts = f.amounts
    aa_amount = None
    rest: list[int] = []
    for p, a in amounts:
        # the amount right after the AA word (AA100) is the side bet
        if aa_amount is None and any(0 <= p - q <= 6 for q in aa_pos):
            aa_amount = a
        else:
            rest.append(a)
    if aa_amount is None or len(rest) > (1 if name == "ante" else 0):
        return None
    if name == "ante" and "ante" not in kinds and not rest:
        return Parsed(kind="action", action="ante", aa=aa_amount)  # AAも100: the side bet
    return Parsed(kind="action", action=name,
                  amount=rest[0] if rest else None, aa=aa_amount)


def _deuces(f: _Frame) -> Parsed | None:
    names = [n for _, n in f.actions]
    kinds = set(names) - {"showdown", "play"}
    cards = [c for _, cs in f.cards for c in cs]
    if f.amounts:
        return None
    if f.except_ and cards and kinds in ({"discard"}, {"discard", "all"}, {"keep"},
                                          {"keep", "all"}):
        # 7cと7s以外ぜんぶ捨て: keep the cards named; 7c以外残す: throw them
        if "discard" in kinds:
            return Parsed(kind="action", action="play", keep=cards, hand_info=True)
        return Parsed(kind="action", action="play", discard=cards, hand_info=True)
    if kinds == {"stay"} and not cards:
        return Parsed(kind="action", action="play", discard=[])
    if kinds == {"keep"}:
        return Parsed(kind="action", action="play", keep=cards, hand_info=bool(cards))\
            if cards else None
    if kinds == {"discard"}:
        return Parsed(kind="action", action="play", discard=cards, hand_info=bool(cards))\
            if cards else None
    if kinds == {"all", "discard"} and not cards:
        return Parsed(kind="action", action="play", keep=[])
    if kinds == {"all", "keep"} and not cards:
        return Parsed(kind="action", action="play", discard=[])
    # 「Kd Kc 残して、あとは全部捨て」: the cards named go with the first verb
    if kinds in ({"keep", "discard"}, {"keep", "discard", "all"}) and cards:
        first = next(n for n in names if n in ("keep", "discard"))
        last_card = max(p for p, _ in f.cards)
        verbs_after = [n for p, n in f.actions if p > last_card and n in ("keep", "discard")]
        if "all" not in names or not verbs_after:
            return None
        if first == "keep":
            return Parsed(kind="action", action="play", keep=cards, hand_info=True)
        return Parsed(kind="action", action="play", discard=cards, hand_info=True)
    if not kinds and not cards and "play" in names:
        return Parsed(kind="action", action="play")
    return None


def _deuces_lists(plays: list[Parsed]) -> Parsed | None:
    """「6dは残すわ。Tcと4hだけ捨てるわ」: cards kept and cards thrown, said apart, that agree
    (no card in both): the cards thrown decide."""
    if any(p.action != "play" or (p.keep is None and p.discard is None) for p in plays):
        return None
    kept = {c for p in plays for c in (p.keep or [])}
    thrown = [c for p in plays for c in (p.discard or [])]
    if kept & set(thrown) or not thrown or not kept:
        return None
    return Parsed(kind="action", action="play", discard=list(dict.fromkeys(thrown)),
                  hand_info=True)


def _filled(got: Parsed, kept: list[Clause], game: str) -> Parsed | None:
    """「レイズしとくわ。千八百な」, 「オープン。ハートのAとKだけな」: the action's amount or
    cards said in a clause of their own after it."""
    extra = [c for c in kept if c.kind == "cards"]
    if len(extra) != 1:
        return None
    text = extra[0].folded
    cards = [x for _, _, cs in _cards_in(text) for x in cs]
    amounts = [m.group() for m in _amount_re().finditer(text)]
    if cards and not amounts and got.action in ("open", "fold", "muck") and not got.cards:
        return got.model_copy(update={"cards": cards, "hand_info": True})
    if len(amounts) == 1 and not cards:
        value = amount_value(amounts[0])
        if value is None:
            return None
        if got.action == "raise" and got.to is None and not got.pot:
            return got.model_copy(update={"to": value})
        if got.action in ("bet", "ante") and got.amount is None and not got.pot:
            return got.model_copy(update={"amount": value})
    return None


def _amended(clauses: list[Clause], last: int, after: list[Clause]) -> Parsed | None:
    """「アンティ1500、いや、500でお願いします」: a correction followed by a new amount (or new
    cards) only amends the amount (the cards) of the action before it."""
    if last < 1 or any(c.kind not in ("chat", "cards") for c in after):
        return None
    shown = [c for c in after if c.kind == "cards" and _cards_in(c.folded)]
    before = [c for c in clauses[:last] if c.kind == "action" and c.parsed is not None]
    if len(shown) == 1 and before:  # 「6cとJd捨て、あ、やっぱ6cだけ」: new cards
        got = before[-1].parsed
        assert got is not None
        cards = [x for _, _, cs in _cards_in(shown[0].folded) for x in cs]
        for key in ("cards", "discard", "keep"):
            if getattr(got, key):
                return got.model_copy(update={key: cards})
        return None
    amounts = [c for c in after if c.kind == "cards" or _amount_re().search(c.folded)]
    if len(amounts) != 1 or any(c.kind == "cards" and c is not amounts[0] for c in after):
        return None
    values = [m.group() for m in _amount_re().finditer(amounts[0].folded)]
    before = [c for c in clauses[:last] if c.kind == "action" and c.parsed is not None]
    if len(values) != 1 or not before:
        return None
    value = amount_value(values[0])
    got = before[-1].parsed
    assert got is not None
    slot = "to" if got.to is not None else "amount" if got.amount is not None else None
    if value is None or slot is None:
        return None
    return got.model_copy(update={slot: value})


# --- 4. resolve ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Reading:
    """What the clause reader made of a message: the action (or None) and whether some clause
    talks about actions without being the committed one (a near miss)."""

    action: Parsed | None
    talks_action: bool


def read(text: str, game: str, grammar: GrammarReader,
         hands: Iterable[tuple[str, re.Pattern[str]]] = (),
         advice: Callable[[str], bool] | None = None) -> Reading:
    """The committed action of ``text`` (NFKC), read clause by clause (module docstring)."""
    repaired = repair(text)
    hands = tuple(hands)
    first = _resolve(split(repaired), game, grammar, hands, advice)
    if first.action is not None:
        return first
    second = _resolve(split(repaired, fine=False), game, grammar, hands, advice)
    return second if second.action is not None else first


def _resolve(clauses: list[Clause], game: str, grammar: GrammarReader,
             hands: tuple[tuple[str, re.Pattern[str]], ...],
             advice: Callable[[str], bool] | None) -> Reading:
    if not clauses:
        return Reading(None, True)
    v = _vocab()
    for c in clauses:
        if c.correction and not v.surface.search(c.folded) and not _cards_in(c.folded):
            c.kind = "correction"
            continue
        got = None if c.question else grammar(c.text)
        if got is None and not c.question:
            f = frame(c, game, hands)
            c.musing = f.musing
            if f.hand and not f.actions and f.made:
                c.made_hand = f.hand
            if {n for _, n in f.actions} - {"all"} or f.hand:
                if f.vetoed or f.content:
                    c.kind = "blocking"
                elif f.negated:
                    c.kind = "declined"
                elif f.these and not f.cards and {n for _, n in f.actions} <= {
                        "discard", "keep", "all"}:
                    c.kind = "these"  # 「2hと4s！これ捨て！」
                elif (f.weak and not f.declared) or (f.hand and not f.actions and not f.polite):
                    c.kind = "blocking"  # 「ここはコール」: nothing says it is their own act
                else:
                    got = _build(f, game)
                    c.kind = "action" if got is not None else "blocking"
                    if got is None and game == "seven" and {n for _, n in f.actions} == {"keep"}:
                        c.kind = "kept"  # ジョーカーは残して、3sと4d捨て
                    if got is None and f.these and not f.cards:
                        c.kind = "these"  # 「2hと4s！これ捨て！」
            elif (f.cards or f.amounts) and not f.vetoed and not f.content:
                c.kind = "cards"  # 「、スペードのエース」 after 「エースだけ残します」
        if got is not None:
            c.kind, c.parsed = "action", got
            if c.ends_concessive:
                c.kind = "declined"  # 「コールしたいけど」: an alternative considered
        elif c.kind == "chat" and any(_SURFACE_NAMES[m.lastgroup or ""] != "all"
                                      for m in v.surface.finditer(c.folded)):
            c.kind = "blocking"  # an action word in a clause about something else
        elif c.kind == "chat" and _amount_re().fullmatch(c.folded.strip()):
            c.kind = "cards"  # 「八百、コールいたします」: read as one sentence
        elif c.kind == "chat" and _conditional(c):
            c.kind = "blocking"  # 「私なら、コール」: a hypothetical
    # take back what came before the last correction, and a concession followed by an action
    last = max((i for i, c in enumerate(clauses) if c.kind == "correction"), default=-1)
    live = clauses[last + 1:]
    kept: list[Clause] = []
    for i, c in enumerate(live):
        later = any(x.kind == "action" for x in live[i + 1:])
        if (c.ends_concessive or c.musing) and later:
            continue  # 「オープンしよっかな…うん、オープン」: the thought, then the decision
        kept.append(c)
    # a clause that is only cards completes the action before it (エースだけ残します、As)
    if any(c.kind == "action" and c.parsed is not None and (c.parsed.cards or c.parsed.keep or
                                                            c.parsed.discard) for c in kept):
        for c in kept:
            if c.kind == "these":
                c.kind = "chat"  # 「2hと4s！これ捨て！」: the cards, then "throw these"
    these = [c for c in kept if c.kind == "these"]
    shown = [c for c in kept if c.kind == "cards" and _cards_in(c.folded)]
    if len(these) == 1 and len(shown) == 1 and not any(c.kind == "action" for c in kept):
        c = these[0]
        joined = Clause(shown[0].text + " " + c.text, shown[0].folded + " " + c.folded,
                        shown[0].start, words=shown[0].words + c.words)
        got = _build(frame(joined, game, hands), game)
        if got is not None:
            return Reading(got, False)
    acts = [c for c in kept if c.kind == "action"]
    amended = _amended(clauses, last, kept)
    if amended is not None:
        return Reading(amended, False)
    if any(c.kind == "kept" for c in kept) and not any(
            c.parsed is not None and c.parsed.action == "discard" for c in acts):
        return Reading(None, True)
    declared = {c.parsed.hand for c in acts if c.parsed is not None and c.parsed.hand}
    for c in kept:  # 「ビッグハウスできた〜！ビッグハウスで！」: the hand made, then declared
        if c.kind == "blocking" and c.made_hand is not None and c.made_hand in declared:
            c.kind = "chat"
    if any(c.kind == "blocking" for c in kept):
        return Reading(None, True)
    if not acts:
        return Reading(None, any(c.kind in ("declined", "correction") for c in clauses))
    first = acts[0].parsed
    assert first is not None
    rest = [c.parsed for c in acts[1:] if c.parsed is not None]
    if game == "holdem_aa" and rest and all(p.action == "ante" for p in [first, *rest]):
        # アンティ200どす。AAも100置かしてもらいます: the ante and the side bet, apart
        amounts = {p.amount for p in [first, *rest]} - {None}
        sides = {p.aa for p in [first, *rest]} - {None}
        if len(amounts) <= 1 and len(sides) <= 1:
            first = first.model_copy(update={"amount": next(iter(amounts), None),
                                             "aa": next(iter(sides), None)})
            rest = []
    # 「降ります。A♠だけ見せます」: a fold or muck, then the cards it shows
    if first.action in ("fold", "muck") and not first.cards and rest and all(
            p.action == "open" and p.cards and p.cards == rest[0].cards for p in rest):
        first = first.model_copy(update={"cards": rest[0].cards, "hand_info": True})
        rest = []
    if game == "deuces" and rest:
        merged = _deuces_lists([first, *rest])
        if merged is not None:
            first, rest = merged, []
    if any(p != first for p in rest):
        return Reading(None, True)
    filled = _filled(first, kept, game)
    if filled is not None:
        first = filled
    elif any(c.kind == "cards" for c in kept):
        return Reading(None, True)
    if advice is not None:
        others = [c.text for c in kept if c.kind == "chat"]
        if others and advice(" ".join(others)):
            return Reading(None, True)
    return Reading(first, False)
