"""Step 1 of the clause reader: undo the slips of the action words (conversion errors, big
kana for small, a stray IME letter, stretches), drop emoji, faces and foreign letters, and
write kanji and kana numerals in digits. Only the text the action reader sees is repaired;
the lexicon judges what was typed."""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache

import jaconv
from kanjize import kanji2number

from referee.lang import vocab
from referee.lang.action_words import clause_actions
from referee.lang.clauses.vocabulary import (
    SURFACE_NAMES,
    text_of,
    texts_of,
    vocabulary,
    word_pattern,
    words_table,
)
from referee.lang.decor import drop_emoji
from referee.lang.normalize import fold_nfkc

_ASCII_STRETCH = re.compile(r"([aeiouyz])\1{2,}")  # gooo, plzzz


@cache
def _repairs() -> tuple[re.Pattern[str], ...]:
    kata, hira, long = text_of("katakana"), text_of("hiragana"), vocab.marks("long_vowel")
    kana = f"{hira}{kata}{long}"
    return (
        # コ一ル, ハイパ一で (not ボブ一人: a kanji after it)
        re.compile(rf"(?<=[{kata}{long}])[{text_of('dash_slips')}](?=[{kata}{hira}]|$|\s)"),
        re.compile(rf"(?<=[{kana}])n$"),  # おーるいn
        re.compile(rf"(?<=[{kana}])[a-mo-z]$"),  # ふぉーるどd: a key hit with the IME off
        re.compile(rf"(?:(?<=[{text_of('stretch_after')}])|(?<=[a-zA-Z]))[{text_of('stretch_marks')}]+"
                   rf"(?=[\s{re.escape(vocab.marks('trailing') + text_of('question'))}]*$)"),
    )


# An English action word with its last letter held down (folddd, calllll, checkkk)
_DRAWN = re.compile(r"(?<![a-zA-Z])([a-zA-Z]{2,}?)([a-zA-Z])\2{2,}(?![a-zA-Z])")


def _undrawn(m: re.Match[str]) -> str:
    """The action word under a held-down last letter (fold, call), else the text as typed."""
    surface = vocabulary().surface
    for n in (1, 2):
        word = m.group(1) + m.group(2) * n
        if surface.fullmatch(word.lower()):
            return word
    return m.group()


@cache
def _face_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    jp = vocab.marks("japanese_class")
    cw = vocab.cards()
    marks = f"{vocab.marks('long_vowel')}{text_of('wave')}{text_of('own_marks')}"
    # (Latin letters with accents are letters, not noise: Vietnamese, Portuguese, Tagalog)
    known = rf"\x00-\x7f{jp}{cw.symbols}{marks}{text_of('latin_accented')}"
    foreign = re.compile(rf"[^{known}\s]")  # ٩ ᗜ ꒳ ˙ (and ٩ is a digit to \d)
    # a bracket of marks only, a face: (*´꒳`*) (ﾟ∀ﾟ) (^^;
    # (a face has marks in it and is closed, or ends the text: not the bracket of （ちょっと…）)
    face = re.compile(rf"m?[(][^(){jp}a-zA-Z0-9]{{1,12}}(?:[)]m?(?![a-z])|$)")  # and m(_ _)m
    return foreign, face


@cache
def _kana_stretch() -> re.Pattern[str]:
    """Two or more drawn-out vowels after a kana, before the end or a blank or a mark."""
    vowels = text_of("drawn_vowels")
    return re.compile(rf"(?<=[{text_of('hiragana')}{text_of('katakana')}])([{vowels}])\1+"
                      rf"(?=$|[\s{re.escape(vocab.marks('trailing') + text_of('question'))}])")


@cache
def _foreign_words() -> re.Pattern[str]:
    """The action words written in letters the repair drops as noise (콜, bỏ): kept."""
    foreign, _ = _face_patterns()
    words = {w for words, _ in clause_actions().values() for w in words if foreign.search(w)}
    return word_pattern(words) if words else re.compile("(?!)")


@cache
def _hangul() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Hangul, and the foreign letters but Hangul."""
    foreign, _ = _face_patterns()
    hangul = text_of("hangul")
    return re.compile(f"[{hangul}]"), re.compile(f"(?![{hangul}]){foreign.pattern}")


def _faces(text: str) -> str:
    """``text`` without faces and foreign letters, but for the action words written in them
    (콜, bỏ). A message with a Korean action word keeps its other Korean words, set apart from
    the action word: they are read (콜 할게요) or make the clause something else (나라면 콜)."""
    foreign, face = _face_patterns()
    if text.isascii():
        return face.sub(" ", text) if "(" in text else text
    found = list(_foreign_words().finditer(text))
    hangul, not_hangul = _hangul()
    if hangul.search(text):  # Korean words are words (AI 너무 무서워 is no all-in)
        foreign = not_hangul
    parts: list[str] = []
    pos = 0
    for m in found:
        # (set apart from what follows, unless a blank already does: 콜 하세요 is one clause)
        parts += (foreign.sub("", text[pos:m.start()]), m.group(),
                  "" if text[m.end():m.end() + 1].isspace() else " ")
        pos = m.end()
    parts.append(foreign.sub("", text[pos:]))
    return face.sub(" ", "".join(parts))


@cache
def _marks() -> re.Pattern[str]:
    """A kana followed by a voicing mark typed on its own (と゛; NFKC makes it a blank and a
    combining mark)."""
    kana = text_of("hiragana") + text_of("katakana")
    return re.compile(rf"([{kana}]) ?([{text_of('voicing_marks')}{text_of('half_voicing_marks')}])")


# the combining voicing marks (U+3099, U+309A), by code point
_VOICED, _HALF_VOICED = 0x3099, 0x309A


def _voice(m: re.Match[str]) -> str:
    combining = chr(_VOICED) if m.group(2) in text_of("voicing_marks") else chr(_HALF_VOICED)
    return unicodedata.normalize("NFC", m.group(1) + combining)


@cache
def text_of_list(key: str) -> tuple[str, ...]:
    return tuple(fold_nfkc(w) for w in texts_of(key))


@cache
def _slip_gates() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Any slip, any big kana of ``small_kana``, as one pattern each: most messages have none,
    and one search costs less than a ``find`` per entry of the table."""
    v = vocabulary()

    def any_of(words: list[str]) -> re.Pattern[str]:
        return re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
                          or "(?!)")

    return any_of([w for w, _ in v.slips]), any_of([b for b, _ in v.small_kana])


# Texts up to this length are kept by their exact text: a message is repaired by the parser
# and again by the clause reader it hands the message to (longer texts are rare and not kept).
_CACHED_CHARS = 400


def repair(text: str) -> str:
    """``text`` (NFKC) with the slips of ``grammar/clauses.toml`` undone."""
    return _repaired(text) if len(text) <= _CACHED_CHARS else _repair(text)


def clear_cache() -> None:
    """Forget the repairs kept (for measurements)."""
    _repaired.cache_clear()


def _repair(text: str) -> str:
    v = vocabulary()
    slips, bigs = _slip_gates()
    text = drop_emoji(text, blank=True)
    text = _marks().sub(_voice, text)
    head = fold_nfkc(text.lstrip())
    for dealer in text_of_list("dealer_vocatives"):  # ディーラーさん、レイズ: said to the bot
        if head.startswith(dealer):
            lead = len(text) - len(text.lstrip())
            text = text[lead + len(dealer):].lstrip(vocab.marks("separators"))
            break
    if slips.search(text) is not None:  # (no slip in the text: no replacement can apply)
        for wrong, right in v.slips:
            if wrong in text:
                text = text.replace(wrong, right)
    before_amount, meant = _before_amount()
    text = before_amount.sub(lambda m: meant[m.group()], text)
    text = _faces(text)
    text = _glued_mark(_spoken_marks()[0].sub(_spoken_mark, text))
    text = _before_katakana().sub(_spoken_mark, text)
    if _LOWER.search(text) is not None:
        text = _half_converted().sub(_converted, text)  # kおーる, こーr: the IME left a letter
    if ">" in text:  # (…土曜なら空いてるよ！ >卓 アンティ100: to the table, after a DM's answer)
        text = _MID_REPLY.sub(_mid_reply, text)
    spelled, names = _spelled()
    text = spelled.sub(lambda m: _letters(m.group(), names), text)  # シー, 5ディー, エイチアール
    dash, stray_n, stray, stretch = _repairs()
    text = dash.sub(vocab.marks("long_vowel"), text)
    text = stray.sub("", stray_n.sub(text_of("n"), text))
    text = _DRAWN.sub(_undrawn, text)
    text = _ASCII_STRETCH.sub(r"\1", text)
    text = _kana_stretch().sub("", text)  # いくぞおおお, だあああ
    text = stretch.sub("", text)
    text = _ROMAJI.sub(_romaji, text)  # o-ruin, sebunfurassyu: the IME left off
    text = _undoubled(text)  # フォォールド, こーるる: a key pressed twice
    folded = fold_nfkc(text)
    if len(folded) == len(text) and bigs.search(folded) is not None:
        for big, small in v.small_kana:
            start = folded.find(big)
            while start >= 0:
                text = text[:start] + small + text[start + len(big):]
                start = folded.find(big, start + len(big))
    return numerals(text)


_repaired = lru_cache(maxsize=16384)(_repair)


@cache
def _before_amount() -> tuple[re.Pattern[str], dict[str, str]]:
    """The conversions that are slips only before an amount (安定100 for アンティ100, where
    安定 alone is a word of its own): ``slips.before_amount`` of clauses.toml, as one pattern
    and what each wrong spelling stands for."""
    table = vocab.load("clauses.toml").get("slips", {}).get("before_amount", {})
    meant = {str(k): str(w) for k, w in table.items()}
    if not meant:
        return re.compile("(?!)"), meant
    wrong = "|".join(re.escape(w) for w in sorted(meant, key=len, reverse=True))
    return re.compile(rf"(?:{wrong})(?=\s*[0-9{vocabulary().kanji}])"), meant


@cache
def _spoken_marks() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Punctuation read aloud to voice input (こーる まる): ``spoken_marks`` of clauses.toml,
    after a blank or a word it cannot belong to; and any such word at all before a blank or the
    end, for :func:`_glued_mark`."""
    said = "|".join(map(re.escape, sorted(words_table().get("spoken_marks", {}), key=len,
                                          reverse=True)))
    end = rf"(?=\s|$|[{vocab.marks('after_spoken_mark')}])"
    return (re.compile(rf"{text_of('spoken_mark_before')}({said}){end}"),
            re.compile(rf"(?<=[{vocab.marks('hiragana_class')}{vocab.marks('kanji_class')}])({said}){end}"))


@cache
def _before_katakana() -> re.Pattern[str]:
    """A spoken comma glued to what follows it, where no word could hold it: after a polite
    ending or a rank, before katakana (降りますてんエースのハート, ハートの10てんハートのJ)."""
    return re.compile(text_of("spoken_comma_glued"))


def _spoken_mark(m: re.Match[str]) -> str:
    return str(words_table()["spoken_marks"][m.group(1)])


def _glued_mark(text: str) -> str:
    """A spoken mark glued to the word before it (おーるいんびっくり, 残すびっくり, こーるまる,
    みどるはうすまる): taken as the mark only when an action word or a hand ends right before
    it, so 決まる and 始まる stay words."""
    pattern = _spoken_marks()[1]
    folded = fold_nfkc(text)
    if len(folded) != len(text) or pattern.search(folded) is None:
        return text
    v = vocabulary()
    for m in reversed(list(pattern.finditer(folded))):
        head = folded[max(0, m.start() - 12):m.start()]
        if any(x.end() == len(head) for x in v.surface.finditer(head)) or any(
                x.end() == len(head) for x in _hand_claims().finditer(head)):
            text = text[:m.start()] + _spoken_mark(m) + text[m.end():]
    return text


#: A run of Latin words that may be romaji: words of three letters or more, with Hepburn's
#: long-vowel dash or apostrophe inside (o-ruin, re-zu, sebunfurassyu, o-ruin sitaikedo).
#: A figure may follow the last word (anntei300: the IME was off for the whole line).
_ROMAJI = re.compile(r"(?<![a-zA-Z0-9])[a-zA-Z][a-zA-Z'-]{2,}(?: +[a-zA-Z][a-zA-Z'-]*)*"
                     r"(?![a-zA-Z])")
#: A vowel typed twice: the long vowel of a loanword (ooruinn is o-ruin).
_DOUBLED_VOWEL = re.compile(r"([aeiou])\1")
_LATIN = re.compile(r"[a-zA-Z]")
_CARD = re.compile(r"(?:10|[2-9tjqka])[shdc]")
_HANGUL = re.compile(r"[가-힣]")


# A reply mark in the middle of a message (>aki …, >卓 …): a new sentence, said to whom it names.
_MID_REPLY = re.compile(r"(?<=\S)\s+>{1,2}\s*([^\s>]{1,16})\s+")


def _mid_reply(m: re.Match[str]) -> str:
    """A reply mark's target as a vocative opening a sentence, unless it is an action word or
    a figure (コール > レイズ compares; it addresses no one)."""
    target = m.group(1)
    if vocabulary().surface.search(fold_nfkc(target)) is not None or any(
            ch.isdigit() for ch in target):
        return m.group()
    return f"{text_of('reply_stop')}{target}{text_of('reply_comma')}"


@cache
def _spelled() -> tuple[re.Pattern[str], tuple[tuple[str, str], ...]]:
    """A run of katakana made only of letter names (``letters`` of clauses.toml), and the
    names, longest first."""
    table = vocab.load("clauses.toml").get("letters", {})
    names = tuple(sorted(((str(k), str(w)) for k, w in table.items()), key=lambda kv: -len(kv[0])))
    if not names:
        return re.compile("(?!)"), ()
    kata = f"{text_of('katakana')}{vocab.marks('long_vowel')}"
    alt = "|".join(re.escape(k) for k, _ in names)
    return re.compile(rf"(?<![{kata}])(?:{alt})+(?![{kata}])"), names


def _letters(run: str, names: tuple[tuple[str, str], ...]) -> str:
    """The letters a run of letter names spells (エーエス: AS)."""
    out = ""
    while run:
        name, letter = next((k, w) for k, w in names if run.startswith(k))
        out, run = out + letter, run[len(name):]
    return out


_LOWER = re.compile("[a-z]")
_VOWELS = "aeiou"
_JOINS = _VOWELS + "y"  # (a kana whose sound starts so takes the letter before it: s+よ しょ)


@cache
def _half_converted() -> re.Pattern[str]:
    """A word of kana with a lower-case letter or two left unconverted beside them (kおーる,
    おーpんします, こーr, sて): the IME turned the vowel into kana and left the consonant. Not
    a laughing w (コールw)."""
    kana = f"{text_of('hiragana')}{text_of('katakana')}{vocab.marks('long_vowel')}"
    letters = "a-vx-z"
    return re.compile(rf"(?<![0-9A-Za-z.])[{kana}]*(?:[{letters}]{{1,2}}[{kana}]+)+"
                      rf"[{letters}]{{0,2}}(?![a-zA-Z0-9])"
                      rf"|[{kana}]+[{letters}]{{1,2}}(?![a-zA-Z0-9])")


def _converted(m: re.Match[str]) -> str:
    """The word of :func:`_half_converted` as it was meant, each left letter joined to the kana
    after it (k+お: こ, s+よ: しょ) or given the vowel u that Japanese puts after a lone consonant
    (こーr: こーる, sて: すて); kept as typed unless an action word then runs through what the
    letters became (じゃあto all: あと is no action made of the "to")."""
    word = jaconv.kata2hira(m.group())
    v = vocabulary()
    if v.surface.search(fold_nfkc(_LATIN.sub("", word))) is not None:
        return m.group()  # (ふぉーるどd: the word is whole, the letter a stray)
    out, i = "", 0
    made: list[tuple[int, int]] = []  # where in ``out`` the letters went
    while i < len(word):
        j = i
        while j < len(word) and word[j].isascii():
            j += 1
        if j == i:
            out += word[i]
            i += 1
            continue
        letters = word[i:j]
        nxt = word[j:j + 2] if word[j + 1:j + 2] in vocab.marks("small_kana") else word[j:j + 1]
        sound = jaconv.kana2alphabet(nxt) if nxt else ""
        joined = jaconv.alphabet2kana(letters + sound) if sound[:1] in tuple(_JOINS) else ""
        if not joined or _LATIN.search(joined):
            lone = letters if letters[-1] in _VOWELS or letters == "n" else letters + "u"
            joined, nxt = jaconv.alphabet2kana(lone), ""
        made.append((len(out), len(out) + len(joined)))
        out, i = out + joined, j + len(nxt)
    if _LATIN.search(out) is not None or len(fold_nfkc(out)) != len(out):
        return m.group()
    for hit in v.surface.finditer(fold_nfkc(out)):
        if SURFACE_NAMES.get(hit.lastgroup or "") not in ("all", "none") and any(
                a < hit.end() and hit.start() < b for a, b in made):
            return out
    return m.group()


def _kana_of(word: str) -> str | None:
    """The kana a romaji word spells (jaconv's romaji table, the well-kept one; writing our own
    would repeat it), or None when it is no romaji (letters are left) or already an action
    word as it is (call, hyper)."""
    low = word.lower()
    if vocabulary().surface.fullmatch(low) is not None or _CARD.fullmatch(low) is not None:
        return None  # (ho-rudo Ah Kh Qh: a card is no romaji -- Ah is not あう)
    kana = jaconv.alphabet2kana(low)
    if _LATIN.search(kana) is not None or kana.startswith(tuple(vocab.marks("small_kana"))):
        return None
    return kana


def _romaji(m: re.Match[str]) -> str:
    """Words typed with the IME off, as kana: only when one of them spells an action word or a
    hand the reader knows; then every word of the run that is romaji (o-ruin sitaikedo: the
    wish is read too)."""
    words = m.group().split(" ")
    for spelled in (words, [_DOUBLED_VOWEL.sub(r"\1-", w) for w in words]):
        kana = [_kana_of(w) if len(w) >= 2 else None for w in spelled]
        v = vocabulary()
        if any(k is not None and (v.surface.search(k) is not None
                                  or _hand_claims().search(k) is not None) for k in kana):
            return " ".join(k if k is not None else w for w, k in zip(words, kana, strict=True))
    return m.group()


@cache
def _hand_claims() -> re.Pattern[str]:
    """The hand-class words players claim (grammar/hands.toml [claims]), for romaji that
    spells one (sebunfurassyu)."""
    claims = vocab.load("hands.toml").get("claims", {})
    words = {fold_nfkc(w) for ws in claims.values() for w in ws if not w[:1].isdigit()}
    return re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)))


@cache
def _doubled() -> re.Pattern[str]:
    return re.compile(rf"([{vocab.marks('hiragana_class')}{vocab.marks('long_vowel')}])\1+")


def _undoubled(text: str) -> str:
    """A kana typed twice (フォォールド, こーるるで) taken once, where the one left ends or is
    inside an action word (never a particle: ベットと…)."""
    folded = fold_nfkc(text)
    if len(folded) != len(text) or _doubled().search(folded) is None:
        return text
    surface = vocabulary().surface
    particles = text_of("after_kana_numeral")  # (ベットとコール: a word, then the particle)
    for m in reversed(list(_doubled().finditer(folded))):
        if m.group(1) in particles:
            continue
        lo, hi = max(0, m.start() - 8), min(len(folded), m.end() + 8)
        single = folded[lo:m.start() + 1] + folded[m.end():hi]
        at = m.start() - lo
        if any(x.start() <= at < x.end() for x in surface.finditer(single)):
            text = text[:m.start() + 1] + text[m.end():]
            folded = folded[:m.start() + 1] + folded[m.end():]
    return text


def _kana_number(run: str) -> str | None:
    """A run of kana numerals (にせん ごひゃく) as kanji (二千五百), or None."""
    v = vocabulary()
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
    if not any(u in kanji for u in v.units.values()) or kanji == vocab.marks("thousand"):
        return None  # (せん alone is as often a negation as a thousand)
    return kanji


@cache
def _numeral_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    v = vocabulary()
    k = re.escape(v.kanji)
    counters = "".join(re.escape(c) for c in v.counters)
    kanji = re.compile(rf"[0-9{k}]*[{k}][0-9{k}]*(?![{counters}])")
    parts = "|".join(re.escape(x) for x in sorted({*v.numerals, *v.units}, key=len, reverse=True))
    # a kana numeral run stands apart: not inside a word (ません), maybe before a particle
    hira = text_of("hiragana")
    # (not after a word's kanji either: 交換せんで is a negation, not a thousand)
    run = rf"(?<![{hira}{vocab.marks('japanese_class')}])(?:(?:{parts})\s?)+"
    # (or right before the word it is the amount of: ひゃくあんてぃ)
    after = text_of("after_kana_numeral")
    kana = re.compile(rf"{run}(?=[^{hira}]|[{after}]|{_amount_words()}|$)")
    return kanji, kana


@cache
def _amount_words() -> str:
    """The action words an amount follows (あんてぃ, べっと, めいく), longest first, as one
    alternation: the kana numerals before and after them are read by it."""
    return "|".join(re.escape(w) for w in sorted(texts_of("numeral_after"), key=len,
                                                  reverse=True))


@cache
def _glued() -> re.Pattern[str]:
    """An action word that takes an amount, with a kana numeral typed right after it (voice
    input writes あんてぃひゃく, ベットはさんびゃく): set apart so the numeral reads."""
    v = vocabulary()
    parts = "|".join(re.escape(x) for x in sorted({*v.numerals, *v.units}, key=len, reverse=True))
    words = _amount_words()
    # (not せん of a negation: レイズせんでよかった)
    return re.compile(rf"({words})(?=(?:{parts}))(?!{text_of('negative_sen')})")


@cache
def _lone_thousand() -> re.Pattern[str]:
    """せん alone right after a word an amount follows (あんてぃせん, べっと せん): a thousand,
    where elsewhere it is as often a negation (しません)."""
    words = _amount_words()
    hira = text_of("hiragana")
    # (で after it at the end declares: あんてぃせんで)
    ending = re.escape(text_of("lone_thousand_end"))
    return re.compile(rf"({words})\s*{text_of('lone_thousand')}(?=$|[^{hira}]|{ending}$)")


@cache
def _foreign_units() -> tuple[re.Pattern[str], re.Pattern[str]]:
    units = "|".join(re.escape(u) for u in sorted(words_table().get("foreign_units", {}),
                                                   key=len, reverse=True))
    return (re.compile(rf"(?<![0-9.])([0-9]+(?:\.[0-9]+)?)\s*({units})(?![a-zà-ỹ])"),
            re.compile(text_of("spoken_point")))


@cache
def _hangul_number() -> re.Pattern[str]:
    digits = "".join(words_table().get("hangul_digits", {}))
    units = "".join(words_table().get("hangul_units", {}))
    return re.compile(rf"(?<![가-힣])(?:[{digits}]?[{units}])+(?![가-힣]|$)|"
                      rf"(?<![가-힣])(?:[{digits}]?[{units}])+$")


def _hangul_value(m: re.Match[str]) -> str:
    """A Korean numeral (이천오백) as digits: each unit times the digit before it."""
    digits = words_table()["hangul_digits"]
    units = words_table()["hangul_units"]
    total, digit = 0, 1
    for ch in m.group():
        if ch in digits:
            digit = int(digits[ch])
        else:
            total += digit * int(units[ch])
            digit = 1
    return str(total)


def _foreign_unit(m: re.Match[str]) -> str:
    value = float(m.group(1)) * int(words_table()["foreign_units"][m.group(2)])
    return str(int(value)) if value == int(value) else m.group()


@cache
def _kana_digits() -> re.Pattern[str]:
    """A run of digits read one by one in kana, with a zero among them (にーぜろぜろぜろ)."""
    digits = words_table().get("kana_digits", {})
    one = "|".join(re.escape(d) for d in sorted(digits, key=len, reverse=True))
    zero = re.escape(text_of("kana_zero"))
    long = vocab.marks("long_vowel")
    return re.compile(rf"(?:(?:{one}){long}?)*{zero}(?:(?:{one}){long}?)*")


def _kana_digit_run(m: re.Match[str]) -> str:
    digits = words_table().get("kana_digits", {})
    pattern = "|".join(re.escape(d) for d in sorted(digits, key=len, reverse=True))
    said = re.findall(pattern, m.group())
    if len(said) < 2 or said[0] == text_of("kana_zero"):
        return m.group()  # (a lone ぜろ, or one that starts: no figure of chips)
    return "".join(str(digits[d]) for d in said)


def numerals(text: str) -> str:
    """Kanji and kana numerals with a unit (千八百, 五百, にせん ごひゃく) written in digits; the
    units of the community's other languages (2천, 3 nghìn) and a decimal point said aloud
    (1点2k) too."""
    v = vocabulary()
    units, point = _foreign_units()
    text = units.sub(_foreign_unit, point.sub(".", text))
    if text_of("kana_zero") in text:  # にーぜろぜろぜろ, いちぜろぜろ: digits read one by one
        text = _kana_digits().sub(_kana_digit_run, text)
    if _HANGUL.search(text):
        text = _hangul_number().sub(_hangul_value, text)
    kanji, kana = _numeral_patterns()

    def kana_sub(m: re.Match[str]) -> str:
        got = _kana_number(m.group().rstrip())
        if got is None:
            return m.group()
        return got + (" " if m.group()[-1:].isspace() else "")

    if any(k in text for k in v.units):
        text = _glued().sub(r"\1 ", text)  # あんてぃひゃく: the amount glued to its word
        text = _lone_thousand().sub(r"\1 1000", text)  # あんてぃせん
        text = kana.sub(kana_sub, text)

    def kanji_sub(m: re.Match[str]) -> str:
        s = m.group()
        for old, new in words_table().get("old_numerals", {}).items():
            s = s.replace(old, new)
        if not any(u in s for u in text_of("units")) or s.isdigit():
            return m.group()
        if any(ch.isdigit() for ch in s) and not any(u in s for u in text_of("small_units")):
            return m.group()  # 2万, 1万5千: the grammar's own amounts
        try:
            return str(kanji2number(s))
        except (ValueError, KeyError, IndexError, TypeError):
            return m.group()

    if any(ch in v.kanji for ch in text):
        text = kanji.sub(kanji_sub, text)
    return text
