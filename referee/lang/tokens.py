"""One card token and one amount token of the chat grammars, as values: shared by the
whole-message grammar (:mod:`referee.parse`) and the clause reader (:mod:`referee.lang.clauses`).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from referee.cards import RANKS, SUITS, card_str, make
from referee.lang import vocab
from referee.lang.vocab import marks

# More digits than any chip count: not read as a number (and int() would refuse > 4300 digits).
_MAX_DIGITS = 15

# The card vocabulary (grammar/cards.toml), as the CARD terminal of grammar/common.lark spells
# it (checked when a grammar is loaded).
_CW = vocab.cards()
_SUIT_OF = _CW.suit_of
_RANK_OF = {**_CW.rank_of, "10": "t"}
# A CARD token split into its rank and suit, in either order (As, ♠A, すぺーどのa, aすぺーど,
# えーすのはーと).
_RANKS_RE = f"10|[2-9tjqka]|{_CW.rank_words_re}"
_SUITS_RE = f"[cdhs{_CW.symbols}]|{_CW.suit_words_re}"
_SUITS_FIRST_RE = f"[{_CW.symbols}]|{_CW.suit_words_re}"
_OF = re.escape(_CW.of)
_CARD_PARTS = re.compile(
    rf"(?P<r1>{_RANKS_RE}){_OF}?(?P<s1>{_SUITS_RE})|(?P<s2>{_SUITS_FIRST_RE}){_OF}?(?P<r2>{_RANKS_RE})"
)


def card_token(tok: str) -> str:
    """A CARD token of grammar/common.lark (normalised) → canonical ``As``."""
    if tok in _CW.jokers:
        return "JK"
    m = _CARD_PARTS.fullmatch(tok)
    if m is None:  # the grammar's CARD and this pattern disagree: a bug, not a player's error
        raise ValueError(f"unreadable card token {tok!r}")
    rank = m.group("r1") or m.group("r2")
    suit = m.group("s1") or m.group("s2")
    r = _RANK_OF.get(rank, rank).upper()
    return card_str(make(RANKS.index(r), SUITS.index(_SUIT_OF[suit])))


_MAN, _SEN = marks("ten_thousand"), marks("thousand")
_SCALE = {"k": 1000, _SEN: 1000, _MAN: 10000}


def amount_value(text: str) -> int | None:
    """An AMOUNT token (1,800 / 1.5k / 2万 / 1万5千) → chips; None when not a whole number."""
    t = text.replace(",", "")
    if sum(ch.isdigit() for ch in t) > _MAX_DIGITS:
        return None
    try:
        if _MAN in t:
            head, _, tail = t.partition(_MAN)
            total = Decimal(head) * 10000
            if tail:
                total += Decimal(tail[:-1]) * 1000 if tail.endswith(_SEN) else Decimal(tail)
        elif t[-1] in _SCALE:
            total = Decimal(t[:-1]) * _SCALE[t[-1]]
        else:
            total = Decimal(t)
    except InvalidOperation:
        return None
    return int(total) if total == total.to_integral_value() else None


