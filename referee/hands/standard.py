"""Fast standard-poker evaluation (``omaha``, ``holdem_aa``): one 52-card deck, no joker.

How it is fast in pure Python:

* every card maps to ``5**rank`` plus a 4-bit suit counter above bit 32 (:data:`CARD_KEY`); the
  sum over a hand identifies its rank multiset exactly (base-5 digits, at most 4 of a rank) and
  counts its suits;
* a flush (some counter >= 5) is looked up by the suit's rank bitmask in :data:`FLUSH`
  (8192 entries, built at import in a few milliseconds) -- with 7 cards from one deck a flush
  rules out quads and full houses, so that lookup is final;
* otherwise the rank multiset's best key comes from a dict filled lazily (the first time a
  multiset is seen it is worked out by :func:`referee.hands.core.categories`); the 6,175
  five-card multisets that Omaha needs are filled on first use of :func:`omaha_key`.

All keys follow :mod:`referee.hands.names` (``category << 20 | 5 rank nibbles``); functions here
assume valid input (card ints 0..51, no duplicates) -- :func:`referee.hands.evaluate` validates.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from referee.hands.core import best_of, categories
from referee.hands.names import STANDARD, pack

_CAT = {name: len(STANDARD) - 1 - i for i, name in enumerate(STANDARD)}

RANK_KEY: list[int] = [5 ** (c >> 2) for c in range(52)]
CARD_KEY: list[int] = [5 ** (c >> 2) + (1 << (32 + 4 * (c & 3))) for c in range(52)]
_RMASK = (1 << 32) - 1
_FOFF = 0x3333 << 32  # +3 on each suit counter: a count >= 5 sets that counter's bit 3
_FMASK = 0x8888 << 32


def key_from_cards(cards: Sequence[int]) -> int:
    """Reference evaluation (slow): best standard key of 5..7 natural cards."""
    name, tb = best_of(categories(cards), STANDARD)
    return pack(5, _CAT[name], tb)


# rank bitmasks of the ten straights, highest first (the wheel: A-2-3-4-5)
_STRAIGHTS = [(0x1F << low, low + 4) for low in range(8, -1, -1)] + [(0x100F, 3)]


def _build_flush() -> list[int]:
    """Best straight-flush/flush key for every rank bitmask of 5..7 ranks (else 0)."""
    table = [0] * 8192
    royal, sf, fl = _CAT["royal_flush"] << 20, _CAT["straight_flush"] << 20, _CAT["flush"] << 20
    for n in (5, 6, 7):
        for ranks in combinations(range(12, -1, -1), n):
            mask = 0
            for r in ranks:
                mask |= 1 << r
            for smask, top in _STRAIGHTS:
                if mask & smask == smask:
                    table[mask] = royal | 12 << 16 if top == 12 else sf | top << 16
                    break
            else:
                a, b, c, d, e = ranks[:5]
                table[mask] = fl | a << 16 | b << 12 | c << 8 | d << 4 | e
    return table


FLUSH = _build_flush()
_NF: dict[int, int] = {}  # rank-multiset sum -> best non-flush key
_nf5_ready = False


def _fill(rsum: int, cards: Sequence[int]) -> int:
    # Only reached when the hand holds no flush, so the real cards give the rank-only answer.
    k = key_from_cards(cards)
    _NF[rsum] = k
    return k


def _flush_key(cards: Sequence[int], h: int) -> int:
    for s in range(4):
        if (h >> (32 + 4 * s)) & 0xF >= 5:
            mask = 0
            for c in cards:
                if c & 3 == s:
                    mask |= 1 << (c >> 2)
            return FLUSH[mask]
    raise AssertionError("no flush suit")  # pragma: no cover


def best5_key(cards: Sequence[int]) -> int:
    """Best standard key of 5, 6 or 7 distinct cards (``holdem_aa``: hole + board)."""
    h = sum(map(CARD_KEY.__getitem__, cards))
    if (h + _FOFF) & _FMASK:
        return _flush_key(cards, h)
    r = h & _RMASK
    k = _NF.get(r)
    if k is None:
        return _fill(r, cards)
    return k


def _ensure_nf5() -> None:
    global _nf5_ready
    if _nf5_ready:
        return
    # every 5-card rank multiset with at most 4 of a rank, using distinct suits where possible
    from itertools import combinations_with_replacement

    for ranks in combinations_with_replacement(range(13), 5):
        if any(ranks.count(r) > 4 for r in ranks):
            continue
        seen: dict[int, int] = {}
        cards = []
        for r in ranks:
            cards.append(r * 4 + seen.get(r, 0))
            seen[r] = seen.get(r, 0) + 1
        if len({c & 3 for c in cards}) == 1:  # five distinct ranks all clubs: break the flush
            cards[0] += 1
        rsum = sum(5**r for r in ranks)
        if rsum not in _NF:
            _NF[rsum] = key_from_cards(cards)
    _nf5_ready = True


def omaha_key(hole: Sequence[int], board: Sequence[int]) -> int:
    """Best key using exactly 2 of the 4 ``hole`` cards and 3 of the (3..5) ``board`` cards."""
    if not _nf5_ready:
        _ensure_nf5()
    rk = RANK_KEY
    hs = {rk[a] + rk[b] for a, b in combinations(hole, 2)}
    bs = {rk[a] + rk[b] + rk[c] for a, b, c in combinations(board, 3)}
    nf = _NF
    best = max([nf[x + y] for x in hs for y in bs])
    # Flushes: three board cards and two hole cards of one suit.
    bsuits = [0, 0, 0, 0]
    for c in board:
        bsuits[c & 3] += 1
    for s in range(4):
        if bsuits[s] >= 3:
            hm = [1 << (c >> 2) for c in hole if c & 3 == s]
            if len(hm) < 2:
                continue
            bm = [1 << (c >> 2) for c in board if c & 3 == s]
            fl = FLUSH
            for a, b in combinations(hm, 2):
                for x, y, z in combinations(bm, 3):
                    k = fl[a | b | x | y | z]
                    if k > best:
                        best = k
    return best


def best5_cards(cards: Sequence[int]) -> tuple[int, list[int]]:
    """Best key of 5..7 cards and five cards that make it."""
    key = best5_key(cards)
    for combo in combinations(cards, 5):
        if best5_key(combo) == key:
            return key, list(combo)
    raise AssertionError("no five cards make the best key")  # pragma: no cover


def omaha_cards(hole: Sequence[int], board: Sequence[int]) -> tuple[int, list[int]]:
    """Best Omaha key and the 2 hole + 3 board cards that make it."""
    key = omaha_key(hole, board)
    for h in combinations(hole, 2):
        for b in combinations(board, 3):
            if best5_key(h + b) == key:
                return key, [*h, *b]
    raise AssertionError("no 2+3 cards make the best key")  # pragma: no cover
