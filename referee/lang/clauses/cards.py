"""Card phrases inside a clause: the grammar's card notation, and a suit said once for several
ranks (ハートのキングとクイーン, 9と10のハート), with kanji ranks (クラブの三)."""

from __future__ import annotations

import re
from functools import cache, lru_cache

from referee.cards import RANKS, SUITS, card_str, make
from referee.lang import vocab
from referee.lang.clauses.vocabulary import text_of, vocabulary, words_table
from referee.lang.tokens import card_token


@cache
def _kana_ranks() -> str:
    """The ranks read aloud in kana (はーとのに), longest first, as one alternation."""
    return "|".join(re.escape(k) for k in sorted(words_table().get("kana_ranks", {}),
                                                 key=len, reverse=True))


@cache
def _card_patterns() -> tuple[re.Pattern[str], ...]:
    cw = vocab.cards()
    suit = f"(?:{cw.suit_words_re})"  # symbols are the CARD terminal's (A♠K♠)
    kanji = "".join(words_table().get("kanji_ranks", {}))
    # a numeral before a counter is a count, never a rank (クラブのジャック、三枚捨てます)
    counted = "|".join(re.escape(c) for c in vocabulary().counters)
    rank = f"(?:(?:10|[2-9tjqka]|{cw.rank_words_re}|[{kanji}])(?!\\s*(?:{counted})))"
    sep = text_of("card_sep")
    of = re.escape(cw.of)
    gap = text_of("card_gap")
    spoken = _kana_ranks()
    # (a rank read aloud in kana stands after a suit and ends its word: はーとのに、すぺーどのよん)
    said = f"(?:(?:{spoken}){text_of('kana_rank_end')})"
    suit_first = re.compile(rf"(?P<suit>{suit}){gap}{of}?{gap}(?P<ranks>(?:{said}|{rank})"
                            rf"(?:{sep}(?:{said}|{rank}))*)")
    # (a kana rank said first: けーのはーと, にのだいや)
    spoken_first = re.compile(rf"{text_of('kana_rank_start')}(?P<ranks>(?:{spoken}))"
                              rf"{gap}{of}{gap}(?P<suit>{suit})")
    ranks_first = re.compile(rf"(?P<ranks>{rank}(?:{sep}{rank})*){gap}{of}{gap}(?P<suit>{suit})")
    # (or said as in English, a blank for の: えーす はーと きんぐ はーと)
    spaced = re.compile(rf"(?P<ranks>{rank})\s+(?P<suit>{suit})")
    # one rank of several suits (ハートとスペードのキング)
    suits_first = re.compile(rf"(?P<suits>{suit}(?:{sep}{suit})+){gap}{of}{gap}(?P<rank>{rank})")
    single = re.compile(vocab.card_terminal())
    return suit_first, ranks_first, suits_first, single, spoken_first, spaced


def _rank_letter(r: str) -> str:
    cw = vocab.cards()
    r = {**words_table().get("kanji_ranks", {}), **words_table().get("kana_ranks", {}),
         "10": "t"}.get(r, r)
    return cw.rank_of.get(r, r)


@cache
def _splits() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The ranks of a run of ranks and the suits of a run of suits (built once: every clause
    with a card in it is split with them)."""
    cw = vocab.cards()
    kanji = "".join(words_table().get("kanji_ranks", {}))
    spoken = _kana_ranks()
    return (re.compile(rf"10|[2-9tjqka]|{cw.rank_words_re}|[{kanji}]|{spoken}"),
            re.compile(cw.suit_words_re))


def _accented(ch: str) -> bool:
    """A letter of a cased script beyond ASCII (ô, ữ, é): the card notation's letters never
    touch one (the "th" of thôi is no card); kana, kanji and Hangul have no case."""
    return bool(ch) and not ch.isascii() and ch.isalpha() and ch.lower() != ch.upper()


def cards_in(folded: str) -> list[tuple[int, int, list[str]]]:
    """Card phrases of a folded clause: (start, end, cards) -- 「ハートのキングとクイーン」,
    「9と10のハート」, 「As Kd」, 「スペードのエース」.

    Kept by text (a clause is asked for its cards by several steps of the reader, in both of
    its readings); each caller gets lists of its own."""
    if len(folded) > _CACHED_CHARS:
        return _cards_in(folded)
    return [(s, e, list(cards)) for s, e, cards in _cards_kept(folded)]


_CACHED_CHARS = 400


def clear_cache() -> None:
    """Forget the cards kept (for measurements)."""
    _cards_kept.cache_clear()


def _cards_in(folded: str) -> list[tuple[int, int, list[str]]]:
    cw = vocab.cards()
    suit_first, ranks_first, suits_first, single, spoken_first, spaced = _card_patterns()
    found: list[tuple[int, int, list[str]]] = []
    taken = [False] * len(folded)

    def add(s: int, e: int, cards: list[str]) -> None:
        if any(taken[s:e]):
            return
        for i in range(s, e):
            taken[i] = True
        found.append((s, e, cards))

    rank_split, suit_split = _splits()
    for m in suits_first.finditer(folded):
        suits = [cw.suit_of.get(x) for x in suit_split.findall(m.group("suits"))]
        r = _rank_letter(m.group("rank"))
        try:
            add(m.start(), m.end(), [card_str(make(RANKS.index(r.upper()), SUITS.index(x)))
                                     for x in suits if x is not None])
        except ValueError:
            continue
    # a rank said before its suit with a blank between is read before the suit-first phrases
    # only when the message names a rank before any suit (えーす はーと きんぐ はーと, not
    # すぺーどのえーす すぺーどのきんぐ)
    first_rank, first_suit = rank_split.search(folded), suit_split.search(folded)
    rank_led = first_rank is not None and (first_suit is None or
                                           first_rank.start() < first_suit.start())
    order = (ranks_first, spoken_first, spaced, suit_first) if rank_led else (
        ranks_first, spoken_first, suit_first, spaced)
    for pat in order:
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
        if _accented(before) or _accented(folded[m.end():m.end() + 1]):
            continue  # not the th of Vietnamese thôi
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


_cards_kept = lru_cache(maxsize=16384)(_cards_in)
