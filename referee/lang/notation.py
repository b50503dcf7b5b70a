"""Card notation in chat: which cards a message names, and how surely (:func:`named_cards`).

The hand-talk reader (:mod:`referee.lexicon`) and the leak judge (:mod:`referee.flags`) use it.
Compact cards are read in the NFKC text (``As``, ``A♠``, ``♠A``, ``10s``, runs such as
``AhKh``), word forms in the folded text (``スペードのA``, ``Aスペード``, ``エースのハート``). The
card and suit words are ``grammar/cards.toml``, the little words around a card (name suffixes,
verbs of holding, counters) ``grammar/lexicon/frame.toml``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from referee.cards import Card, CardError, parse_card
from referee.lang import vocab
from referee.lang.normalize import fold_nfkc

_CW = vocab.cards()
SUITS = _SUITS = _CW.symbols  # every suit symbol
SUIT_WORDS = _SUIT_WORDS = _CW.suit_words_re  # the suit words, as an alternation
RANK_WORDS = _RANK_WORDS = _CW.rank_words_re
_SUIT_OF_SYMBOL = {s: _CW.suit_of[s] for s in _CW.symbols}
_SUIT_OF_WORD = {w: _CW.suit_of[w] for w in _CW.suit_words}
_RANK_OF_WORD = {w: r.upper() for w, r in _CW.rank_of.items()}
# The small words of the lexicon's rules (grammar/lexicon/frame.toml), read once.
FRAME = vocab.load("lexicon/frame.toml")


def words_of(key: str) -> tuple[str, ...]:
    """A list of grammar/lexicon/frame.toml."""
    return tuple(vocab.strings(FRAME, key, "frame.toml"))


def word(key: str) -> str:
    """A string (a word, a set of characters or a pattern) of grammar/lexicon/frame.toml."""
    value = FRAME.get(key)
    if not isinstance(value, str):
        raise vocab.VocabularyError(f"frame.toml: {key} must be a string")
    return value


@dataclass(frozen=True, slots=True)
class NamedCard:
    card: Card
    certain: bool  # unmistakable card notation (not "Ah" the interjection, not "2h" two hours)


_RANK = "(?:10|[2-9TJQKA])"
# Compact cards in the NFKC text: rank + letter suit (case matters: "as" is English), rank +
# suit symbol, suit symbol + rank; a run (AhKh, 9s9d) is glued, and stands apart from letters.
_ONE = rf"(?:(?:{_RANK}|[tjqka])[cdhs{_SUITS}]|[{_SUITS}](?:{_RANK}|[tjqka]))"
_RUN = re.compile(rf"(?<![A-Za-z0-9])(?:{_ONE})+(?![A-Za-z0-9])")
_ONE_RE = re.compile(
    rf"(?:(?P<r1>{_RANK}|[tjqka])(?P<s1>[cdhs{_SUITS}])|(?P<s2>[{_SUITS}])(?P<r2>{_RANK}|[tjqka]))"
)
# Word forms in the folded text: スペードのA, ハートの10, Aスペード, エースのハート, Kのスペード.
_OF = re.escape(_CW.of)
_WORDY = re.compile(
    rf"(?P<sw>{_SUIT_WORDS}){_OF}?(?P<r3>10|[2-9tjqka]|{_RANK_WORDS})"
    rf"(?!{word('wordy_stop')})"
    rf"|(?<![a-z0-9])(?P<r4>10|[tjqka]|{_RANK_WORDS}|[2-9](?={_OF})){_OF}?(?P<sw2>{_SUIT_WORDS})"
)
# After "As" / "Ah" / "Ad" (also English words) the card is certain only when a word about
# holding follows (Ah持ってる, Asが来た), never punctuation or English (Ah, I see).
_HOLDING_NEXT = re.compile(word("holding_next"))
_ENGLISH_WORDS = {"As", "Ah", "Ad"}
NAME_SUFFIXES = _NAME_SUFFIXES = words_of("name_suffixes")
# After a digit rank with a letter suit: a verb of holding or drawing, nothing vaguer.
_SURE_NEXT = re.compile(word("sure_next"))


# Kanji that may follow a card directly (A♠持ってる, K♥来た, 9s引いた): verbs of holding,
# drawing, showing. Any other kanji or katakana glued on makes it another word (Th曜日, Kd値,
# クラブのA面, Kdモード).
_CARD_KANJI = frozenset(word("card_kanji"))
_PARTICLES = frozenset(word("card_particles"))
_QUOTES = words_of("quotes")
_UNSURE, _EXPLAINED, _SIGNATURE_END = map(word, ("card_unsure", "card_explained",
                                                "signature_end"))
# Scripts (Unicode blocks, not words): katakana, kanji, hiragana.
_KATAKANA = re.compile(r"[\u30a1-\u30fa]")
_KANJI = re.compile(r"[\u4e00-\u9fff]")
_HIRAGANA = re.compile(r"[\u3041-\u3096]")


def _after_card(text: str, end: int) -> str:
    """What follows a card at ``end``: "sure" (nothing, a space, punctuation, hiragana, a verb
    of holding), "unsure" (a question mark) or "drop" (glued to another word, or explained in
    brackets: not a card)."""
    if end >= len(text):
        return "sure"
    c = text[end]
    if c in _UNSURE:
        return "unsure"
    if c in _EXPLAINED:
        return "drop"
    if _KATAKANA.match(c):
        return "drop"
    if _KANJI.match(c):
        return "sure" if c in _CARD_KANJI else "drop"
    return "sure"


def _card(rank: str, suit: str) -> Card | None:
    r = _RANK_OF_WORD.get(rank, rank)
    try:
        return parse_card(("T" if r == "10" else r.upper()) + suit)
    except CardError:
        return None


def named_cards(text: str) -> list[NamedCard]:
    """Cards ``text`` (NFKC) names, each with whether the notation is certain.

    Certain: a letter rank with a letter suit (``Ks``, ``Td``) -- except ``As`` / ``Ah`` / ``Ad``,
    certain only in a run of cards or before a word about holding --, any rank with a suit
    symbol (``A♠``, ``9♥``, ``♠A``), and the word forms with a rank letter or digit
    (``スペードのA``, ``Aスペード``; not ``スペードのエース``, nor one followed by って). A digit
    rank with a letter suit (``2h``, ``5s``, ``10s``: hours, seconds) is certain only in a run.
    Never English words: ``as``, ``ah``, ``ks`` (lower-case rank with a letter suit).
    """
    out: list[NamedCard] = []
    runs = list(_RUN.finditer(text))
    for ri, run in enumerate(runs):
        if text.startswith(_NAME_SUFFIXES, run.end()):
            continue  # ♥Kさん: a name after a heart, not a card
        after = _after_card(text, run.end())
        if after == "drop":
            continue
        # a symbol card glued after a Japanese word, ending the message: a signature (ありがとうK♡)
        before = text[run.start() - 1] if run.start() else ""
        signed = (bool(before) and _HIRAGANA.match(before) is not None
                  and before not in _PARTICLES) and run.end() >= len(text.rstrip(_SIGNATURE_END))
        if signed:
            continue  # ありがとうK♡: a signature, not a card
        ones = list(_ONE_RE.finditer(run.group(0)))
        near = any(j != ri and (0 <= runs[j].start() - run.end() <= 2
                                or 0 <= run.start() - runs[j].end() <= 2) for j in range(len(runs)))
        in_run = len(ones) > 1 or near
        for m in ones:
            rank = m.group("r1") or m.group("r2") or ""
            suit = m.group("s1") or m.group("s2") or ""
            letter = suit in "cdhs"
            if letter and rank.islower():
                continue
            card = _card(rank, _SUIT_OF_SYMBOL.get(suit, suit))
            if card is None:
                continue
            end = run.start() + m.end()
            if not letter:
                certain = not rank.islower()
            elif rank.isdigit():  # 2h, 5s, 10s: hours and seconds too
                certain = in_run or _SURE_NEXT.match(text, end) is not None
            elif m.group(0) in _ENGLISH_WORDS:
                certain = in_run or (end < len(text) and _HOLDING_NEXT.match(text, end) is not None)
            else:
                certain = True
            if not certain and not in_run and _HOLDING_NEXT.match(text, end) is None:
                continue  # "Ah, I see", "2h待ち": not a card at all
            if after == "unsure" or text.startswith(_QUOTES, run.end()):
                certain = False  # Kh?, Jsって何の略？
            out.append(NamedCard(card, certain))
    folded = fold_nfkc(text)
    same = len(folded) == len(text)
    for m in _WORDY.finditer(folded):
        if same and m.end() < len(text) and _KATAKANA.match(text, m.end()):
            continue  # Aハートマーク, スペードのTシャツ: part of a longer katakana word
        after = _after_card(text, m.end()) if same else "sure"
        if after == "drop":
            continue  # クラブのA面
        rank = m.group("r3") or m.group("r4") or ""
        suit = _SUIT_OF_WORD[m.group("sw") or m.group("sw2") or ""]
        card = _card(rank, suit)
        if card is not None:
            # a rank written as a word (スペードのエース: also a song) or a phrase under
            # discussion (スペードのAって…) is not certain enough to act on alone
            quoted = folded.startswith(_QUOTES, m.end())
            out.append(NamedCard(card, rank not in _RANK_OF_WORD and not quoted
                                 and after == "sure"))
    return out
