"""Leak detection: how sure the referee is that a chat message revealed the speaker's hand.

The parser only says *that* a message talks about cards or hand strength (``hand_info``). Here we
check the claim against what the speaker really holds: naming a hidden card they hold, a pair of
ranks they hold, a suit count they hold or the hand class they actually make is ``high``
confidence (the penalty applies at once); anything else is ``low`` (a moderator decides). True and
false claims are both violations (RULES.md), but only a verified one is certain enough to act on
without a human.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import Literal

from referee.cards import (
    CARD_PATTERN,
    RANKS,
    Card,
    CardError,
    normalize,
    parse_card,
    rank_of,
    suit_of,
)

Confidence = Literal["high", "low"]

# Cards must not be glued to other ASCII letters, and a compact card with a letter suit needs an
# upper-case or numeric rank: "as" in "as well" is not the ace of spades, "As" is.
_BOUNDED_CARD = re.compile(rf"{CARD_PATTERN}(?!(?-i:[a-z]))", re.IGNORECASE)
_RANK_PAIR = re.compile(r"(?<![a-z0-9])(10|[2-9tjqka])\1(?![a-z0-9])")
_RANK_NAMES = {"エース": "a", "キング": "k", "クイーン": "q", "ジャック": "j"}
_RANK_OF_PAIR = re.compile(
    r"(?<![a-z0-9])(10|[2-9tjqka]|エース|キング|クイーン|ジャック)(?![a-z0-9])の?(?:ワン)?ペア"
)
_SUIT_COUNT = re.compile(
    r"(スペード|ハート|ダイヤ|ダイア|クラブ|[♠♤♥♡♦♢♣♧])(?:が|を)?\s*([2-7二三四五])\s*枚"
)
_SUIT_INDEX = {
    "クラブ": 0, "♣": 0, "♧": 0, "ダイヤ": 1, "ダイア": 1, "♦": 1, "♢": 1,
    "ハート": 2, "♥": 2, "♡": 2, "スペード": 3, "♠": 3, "♤": 3,
}
_KANJI_NUM = {"二": 2, "三": 3, "四": 4, "五": 5}

# Hand-class vocabulary of the community (normalized: NFKC + lower case). Longest names first,
# so "ストレートフラッシュ" is not also read as "ストレート" and "フラッシュ".
_CLASS_WORDS: list[tuple[str, str]] = sorted(
    [
        ("ロイヤルストレートフラッシュ", "royal_flush"), ("ロイヤルフラッシュ", "royal_flush"),
        ("ロイヤル", "royal_flush"), ("ストレートフラッシュ", "straight_flush"),
        ("ストフラ", "straight_flush"), ("フォーカード", "four_of_a_kind"),
        ("4カード", "four_of_a_kind"), ("クワッズ", "four_of_a_kind"),
        ("フルハウス", "full_house"), ("フルハ", "full_house"), ("フラッシュ", "flush"),
        ("ストレート", "straight"), ("スリーカード", "three_of_a_kind"),
        ("3カード", "three_of_a_kind"), ("トリップス", "three_of_a_kind"),
        ("セット", "three_of_a_kind"), ("ツーペア", "two_pair"), ("2ペア", "two_pair"),
        ("ワンペア", "one_pair"), ("1ペア", "one_pair"), ("ハイカード", "high_card"),
        ("ブタ", "high_card"), ("ファイブカード", "five_of_a_kind"),
        ("5カード", "five_of_a_kind"), ("フォーデュース", "four_deuces"),
    ],
    key=lambda kv: -len(kv[0]),
)


# Rank first, then a suit word ("Aハート", "Kのスペード", "エースのハート"): not card notation the
# parser needs, but how people talk about a card they hold.
_RANK_SUIT_WORDS = re.compile(
    r"(?<![a-z0-9])(10|[2-9tjqka]|エース|キング|クイーン|ジャック)の?"
    r"(スペード|ハート|ダイヤ|ダイア|クラブ|クローバー)",
    re.IGNORECASE,
)
_SUIT_LETTER = {"スペード": "s", "ハート": "h", "ダイヤ": "d", "ダイア": "d", "クラブ": "c",
                "クローバー": "c"}


def named_cards(text: str) -> list[Card]:
    """Cards a message names, in any notation people use in chat (``A♥``, ``Ah``, ``ハートのA``,
    ``Aハート``, ``エースのハート``), never English words (``as``)."""
    out = _named_notation(text)
    for m in _RANK_SUIT_WORDS.finditer(unicodedata.normalize("NFKC", text)):
        rank = _RANK_NAMES.get(m.group(1), m.group(1))
        try:
            out.append(parse_card(rank + _SUIT_LETTER[m.group(2)]))
        except CardError:
            continue
    return out


def _named_notation(text: str) -> list[Card]:
    out: list[Card] = []
    norm = unicodedata.normalize("NFKC", text)
    last_end = -1
    for m in _BOUNDED_CARD.finditer(norm):
        before = norm[m.start() - 1] if m.start() > 0 else ""
        if before.isascii() and before.islower() and m.start() != last_end:
            continue  # glued to a word ("Tsunami"), unless right after a card ("AhKh")
        rank, suit = m.group("srank"), m.group("ssym")
        if rank and suit and suit.isascii() and rank.islower():
            continue  # "as", "ks", "th": English words, not cards
        try:
            out.append(parse_card(m.group(0)))
        except CardError:
            continue
        last_end = m.end()
    return out


def named_rank_pairs(text: str) -> list[int]:
    """Ranks claimed as a pair (``AA``, ``QQ``, ``1010``, ``Aのペア``, ``エースのペア``): rank
    indices 0..12."""
    norm = normalize(text)
    out = []
    for m in _RANK_PAIR.finditer(norm):
        r = m.group(1)
        out.append(RANKS.index("T" if r == "10" else r.upper()))
    for m in _RANK_OF_PAIR.finditer(norm):
        if m.group(0) == "2ペア":
            continue  # "2ペア" is two pair; a pair of deuces is "2のペア"
        r = _RANK_NAMES.get(m.group(1), m.group(1))
        out.append(RANKS.index("T" if r == "10" else r.upper()))
    return out


def named_suit_counts(text: str) -> list[tuple[int, int]]:
    """``スペード2枚`` → (3, 2): at least that many cards of that suit."""
    out = []
    for m in _SUIT_COUNT.finditer(normalize(text)):
        n = m.group(2)
        out.append((_SUIT_INDEX[m.group(1)], _KANJI_NUM.get(n) or int(n)))
    return out


def named_classes(text: str) -> set[str]:
    norm = normalize(text)
    found: set[str] = set()
    for word, klass in _CLASS_WORDS:
        w = normalize(word)
        if w in norm:
            found.add(klass)
            norm = norm.replace(w, " ")
    return found


def _multiset_minus(a: Sequence[Card], b: Sequence[Card]) -> list[Card]:
    left = Counter(a)
    left.subtract(Counter(b))
    return [c for c, n in left.items() for _ in range(max(n, 0))]


def made_class(game: str, holdings: Sequence[Card], board: Sequence[Card]) -> str | None:
    """The best hand class the holder makes now with the visible board, or None when the
    evaluators cannot judge it yet (no board in omaha/holdem_aa, an incomplete hand).

    Only the best class counts: a player holding a pair who says "ペアボード" about the board
    must not be taken for naming their hand. Preflop claims ("AA持ってる") are caught by the
    rank-pair rule instead.
    """
    try:
        from referee.hands import evaluate
    except ImportError:  # evaluators not there yet
        return None
    try:
        if game == "omaha" and len(board) >= 3 and len(holdings) >= 2:
            best = max(
                evaluate("holdem_aa", list(two), list(three))
                for two in itertools.combinations(holdings, 2)
                for three in itertools.combinations(board, 3)
            )
            return best.klass
        if game == "holdem_aa" and len(board) >= 3 and len(holdings) == 2:
            return evaluate(game, list(holdings), list(board)).klass
        if game == "seven" and len(holdings) == 7:
            return evaluate(game, list(holdings), []).klass
        if game == "deuces" and len(holdings) == 5:
            return evaluate(game, list(holdings), []).klass
    except Exception:  # an evaluator refusing an odd holding must never break the table
        return None
    return None


def assess_leak(
    text: str,
    game: str,
    holdings: Sequence[Card],
    shown: Sequence[Card],
    board: Sequence[Card] = (),
) -> Confidence | None:
    """``None`` when the message reveals nothing hidden (it only names legally shown cards, or the
    speaker holds nothing hidden); otherwise ``high`` when the claim is verified, else ``low``."""
    hidden = _multiset_minus(holdings, shown)
    if holdings and not hidden:
        return None  # everything the speaker holds is face up (seven): nothing left to leak
    cards = named_cards(text)
    if any(c in hidden for c in cards):
        return "high"
    # A pair of ranks or a suit count the board itself shows may be talk about the board.
    board_ranks = Counter(rank_of(c) for c in board)
    hidden_ranks = Counter(rank_of(c) for c in hidden)
    pairs = named_rank_pairs(text)
    if any(hidden_ranks[r] >= 2 and board_ranks[r] < 2 for r in pairs):
        return "high"
    board_suits = Counter(suit_of(c) for c in board)
    hidden_suits = Counter(suit_of(c) for c in hidden)
    suits = named_suit_counts(text)
    if any(hidden_suits[s] >= n and board_suits[s] < n for s, n in suits):
        return "high"
    classes = named_classes(text)
    if classes and holdings and made_class(game, holdings, board) in classes:
        return "high"
    public = list(shown) + list(board)
    if cards and all(c in public for c in cards) and not (pairs or suits or classes):
        return None  # talks only about cards everyone can see
    return "low"
