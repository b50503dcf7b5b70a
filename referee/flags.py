"""Leak judgement: how sure the referee is that a chat message revealed the speaker's hand.

The lexicon (:mod:`referee.lexicon`) says *that* a message talks about cards or hand strength and
which cards it names in what notation. Here the claim meets what the speaker really holds
(docs/rules.md "When the referee acts alone"):

- **automatic**: the message names, in certain card notation (``As``, ``A♠``, ``スペードのA``,
  ``Aスペード``), a card the speaker holds hidden in the current hand, and it is not a fold / muck
  / open with a show nor talk about a finished hand. Only this is penalised without a human.
- otherwise a flag for a moderator, with a priority: ``high`` when the claim matches the holding
  (a hidden card in uncertain notation, a pair of ranks, a suit count, the hand class they
  make), ``low`` for everything else (a false claim is a violation too, but less sure).
- ``None``: nothing hidden is revealed (only public cards named, a finished hand, card words
  about a tattoo or a song, a fold with a show the action path or the near-miss question
  handles, nothing hidden left to leak).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from referee.cards import RANKS, SUITS, Card, rank_of, suit_of
from referee.lang import vocab
from referee.lang.normalize import fold, nfkc
from referee.lexicon import read

Confidence = Literal["high", "low"]


@dataclass(frozen=True, slots=True)
class LeakVerdict:
    priority: Confidence
    automatic: bool  # penalise at once (a hidden card named in certain notation)


# The words: the card table (grammar/cards.toml), the claim patterns (grammar/lexicon/frame.toml)
# and the hand-class claims (grammar/hands.toml [claims]).
_CW = vocab.cards()
_FRAME = vocab.load("lexicon/frame.toml")
_RANK_PAIR = re.compile(rf"(?<![a-z0-9])(10|[2-9tjqka])\1(?!{_FRAME['pair_stop']})")
_RANK_NAMES = _CW.rank_of
_RANK_OF_PAIR = re.compile(
    rf"(?<![a-z0-9])(10|[2-9tjqka]|{_CW.rank_words_re})(?![a-z0-9])"
    rf"{re.escape(_CW.of)}?{_FRAME['pair_of']}"
)
_TWO_PAIR = str(_FRAME["two_pair"])
_SUIT_COUNT = re.compile(
    rf"({_CW.suit_words_re}|[{_CW.symbols}]){_FRAME['suit_count_claim']}"
)
_SUIT_INDEX = {w: SUITS.index(s) for w, s in _CW.suit_of.items() if w not in SUITS}
_KANJI_NUM: dict[str, int] = dict(vocab.load("cards.toml").get("numerals", {}))

# Hand-class names (folded), longest first, so "ストレートフラッシュ" is not also "ストレート".
_CLASS_WORDS: list[tuple[str, str]] = sorted(
    [(fold(w), k) for k, ws in vocab.load("hands.toml")["claims"].items() for w in ws],
    key=lambda kv: -len(kv[0]),
)


def named_cards(text: str) -> list[Card]:
    """Cards a message names, in any notation people use in chat (``A♥``, ``Ah``, ``ハートのA``,
    ``Aハート``, ``エースのハート``), never English words (``as``)."""
    return [n.card for n in read(text, "").cards]  # cards read the same in every game


def named_rank_pairs(text: str) -> list[int]:
    """Ranks claimed as a pair (``AA``, ``QQ``, ``1010``, ``Aのペア``, ``エースのペア``): rank
    indices 0..12."""
    norm = fold(text)
    out = []
    for m in _RANK_PAIR.finditer(norm):
        r = m.group(1)
        out.append(RANKS.index("T" if r == "10" else r.upper()))
    for m in _RANK_OF_PAIR.finditer(norm):
        if m.group(0) == _TWO_PAIR:
            continue  # "2ペア" is two pair; a pair of deuces is "2のペア"
        r = _RANK_NAMES.get(m.group(1), m.group(1))
        out.append(RANKS.index("T" if r == "10" else r.upper()))
    return out


def named_suit_counts(text: str) -> list[tuple[int, int]]:
    """``スペード2枚`` → (3, 2): at least that many cards of that suit."""
    out = []
    for m in _SUIT_COUNT.finditer(fold(text)):
        n = m.group(2)
        out.append((_SUIT_INDEX[m.group(1)], _KANJI_NUM.get(n) or int(n)))
    return out


def named_classes(text: str) -> set[str]:
    norm = fold(text)
    found: set[str] = set()
    for w, klass in _CLASS_WORDS:
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
    evaluators cannot judge it yet (no board in omaha/holdem_aa, an incomplete hand): the
    game registry knows how each game reads a holding.

    Only the best class counts: a player holding a pair who says "ペアボード" about the board
    must not be taken for naming their hand. Preflop claims ("AA持ってる") are caught by the
    rank-pair rule instead.
    """
    from referee.rules.registry import made_class as best

    return best(game, holdings, board)


def judge_leak(
    text: str,
    game: str,
    holdings: Sequence[Card],
    shown: Sequence[Card],
    board: Sequence[Card] = (),
) -> LeakVerdict | None:
    """What the referee does about ``text`` from a player holding ``holdings`` (``shown`` of them
    face up, ``board`` public): see the module docstring."""
    hidden = _multiset_minus(holdings, shown)
    if holdings and not hidden:
        return None  # everything the speaker holds is face up (seven): nothing left to leak
    reading = read(text, game)
    if not reading.hand_info or reading.topic:
        return None  # (a tattoo or a song that names a card is no hand, held or not)
    if reading.show and reading.folding:
        return None  # a fold or muck with a show: the action path (or its near-miss question)
    named = [n for n in reading.cards if n.card in hidden]
    if named and any(n.certain for n in named) and not reading.show and not reading.past:
        return LeakVerdict("high", True)
    if named:
        return LeakVerdict("high", False)
    norm = fold(nfkc(text))
    # A pair of ranks or a suit count the board itself shows may be talk about the board.
    board_ranks = Counter(rank_of(c) for c in board)
    hidden_ranks = Counter(rank_of(c) for c in hidden)
    pairs = named_rank_pairs(norm)
    board_suits = Counter(suit_of(c) for c in board)
    hidden_suits = Counter(suit_of(c) for c in hidden)
    suits = named_suit_counts(norm)
    classes = named_classes(norm)
    cards = [n.card for n in reading.cards]
    public = list(shown) + list(board)
    if cards and all(c in public for c in cards) and not (pairs or suits or classes):
        return None  # talks only about cards everyone can see
    if reading.past or reading.board:
        return None  # about a finished hand, the rules or the board (public)
    if any(hidden_ranks[r] >= 2 and board_ranks[r] < 2 for r in pairs):
        return LeakVerdict("high", False)
    if any(hidden_suits[s] >= n and board_suits[s] < n for s, n in suits):
        return LeakVerdict("high", False)
    if classes and holdings and made_class(game, holdings, board) in classes:
        return LeakVerdict("high", False)
    return LeakVerdict("low", False)


