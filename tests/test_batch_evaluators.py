"""The batch (numpy) evaluators give the referee's own keys: ``standard_keys`` (best 5 of 5..7)
and ``omaha_keys`` (exactly 2 of 4 + 3 of 5) against ``best5_key`` / ``omaha_key`` and, as an
outside oracle, phevaluator's C evaluator (the same order: a higher key exactly where
phevaluator's rank is better), on 100,000 random hands and deals each, plus flush-rich deals
that take the flush paths."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from referee.analysis.batch import five_keys, standard_keys
from referee.analysis.batch_omaha import omaha_keys
from referee.cards import parse_cards
from referee.hands import best5_key, class_of, omaha_key
from referee.hands.standard import key_from_cards


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The five-card keys' disk cache goes to a temporary directory, never the user's."""
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def _deals(seed: int, n: int, size: int, deck: npt.NDArray[np.int64] | None = None
           ) -> npt.NDArray[np.uint8]:
    """``n`` rows of ``size`` distinct cards drawn from ``deck`` (all 52 by default)."""
    deck = np.arange(52) if deck is None else deck
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((n, deck.size)), axis=1)[:, :size]
    return deck[order].astype(np.uint8)


def _same_order(keys: npt.NDArray[np.int64], phe: list[int]) -> None:
    """``keys`` (higher = stronger) rank the hands as phevaluator's ranks (lower = stronger):
    equal exactly where equal, and ordered the other way round."""
    ranks = np.array(phe, dtype=np.int64)
    pairs = np.unique(np.stack([keys, ranks], axis=1), axis=0)  # sorted by key
    assert pairs.shape[0] == np.unique(keys).size == np.unique(ranks).size
    assert (np.diff(pairs[:, 1]) < 0).all()


def test_five_card_keys_are_the_reference_evaluators_on_every_rank_multiset() -> None:
    five, keys = five_keys()
    assert five.shape == (6175, 13) and (five.sum(axis=1) == 5).all()
    assert len({tuple(r) for r in five.tolist()}) == 6175
    for row, key in zip(five.tolist(), keys.tolist(), strict=True):
        ranks = [r for r in range(13) for _ in range(row[r])]
        cards = [r * 4 + i % 4 for i, r in enumerate(ranks)]  # suits never make a flush
        assert key == key_from_cards(cards), ranks


@pytest.mark.parametrize("size", [5, 6, 7])
def test_standard_keys_are_best5_key(size: int) -> None:
    hands = _deals(size, 100_000 if size == 7 else 20_000, size)
    assert standard_keys(hands).tolist() == [best5_key(h) for h in hands.tolist()]


def test_standard_keys_order_100000_seven_card_hands_as_phevaluator() -> None:
    pheval = pytest.importorskip("phevaluator._pheval")
    hands = _deals(77, 100_000, 7)
    _same_order(standard_keys(hands), [pheval.evaluate_7cards(*h) for h in hands.tolist()])


def test_standard_keys_take_any_integer_array() -> None:
    hands = _deals(3, 1000, 7)
    assert (standard_keys(hands.astype(np.int64)) == standard_keys(hands)).all()
    assert (standard_keys(np.asfortranarray(hands)) == standard_keys(hands)).all()


def test_omaha_keys_are_omaha_key_on_100000_deals() -> None:
    d = _deals(42, 100_000, 9)
    got = omaha_keys(d[:, :4], d[:, 4:])
    assert got.tolist() == [omaha_key(h, b) for h, b in zip(d[:, :4].tolist(),
                                                             d[:, 4:].tolist(), strict=True)]


def test_omaha_keys_order_100000_deals_as_phevaluator() -> None:
    pheval = pytest.importorskip("phevaluator._pheval")
    d = _deals(43, 100_000, 9)
    # phevaluator takes the five board cards first, then the four hole cards
    _same_order(omaha_keys(d[:, :4], d[:, 4:]),
                [pheval.evaluate_omaha_cards(*r[4:], *r[:4]) for r in d.tolist()])


@pytest.mark.parametrize("suits", [1, 2])
def test_omaha_keys_on_flush_rich_deals(suits: int) -> None:
    """Deals from one suit (every 2 + 3 is a flush or straight flush) and from two suits
    (boards of three, four and five of a suit; hole cards with zero to four of it)."""
    deck = np.array([c for c in range(52) if c & 3 < suits], dtype=np.int64)
    d = _deals(suits, 20_000, 9, deck)
    got = omaha_keys(d[:, :4], d[:, 4:])
    assert got.tolist() == [omaha_key(h, b) for h, b in zip(d[:, :4].tolist(),
                                                             d[:, 4:].tolist(), strict=True)]


def test_omaha_keys_known_deals() -> None:
    deals = [  # (hole, board, class)
        ("Ah Ad 3c 4d", "2c 4c 6c 8c Td", "one_pair"),  # one club in the hand: no flush
        ("Ac Ad 3c 4d", "2c 4c 6c 8c Td", "flush"),  # A-8-6-4-3 of clubs
        ("5c 6c Kd Kh", "2c 3c 4c Kc Ks", "straight_flush"),  # 6-high, not four kings
        ("Kd Kh 5c 6c", "Ks Kc 2c 3c 4c", "straight_flush"),  # the same, shuffled
        ("Th Js 2d 3c", "Qh Kh Ah 9c 2c", "straight"),  # T-J with Q-K-A; one heart: no flush
        ("Ah Kh 2d 2h", "Qh Jh Th 9c 2c", "royal_flush"),
    ]
    hole = np.array([parse_cards(h) for h, _, _ in deals])
    board = np.array([parse_cards(b) for _, b, _ in deals])
    got = omaha_keys(hole, board).tolist()
    assert got == [omaha_key(h, b) for h, b in zip(hole.tolist(), board.tolist(), strict=True)]
    assert [class_of("omaha", k) for k in got] == [c for _, _, c in deals]


@pytest.mark.parametrize("hole,board", [((10, 3), (10, 5)), ((10, 4), (9, 5)), ((10, 4), (10, 4))])
def test_omaha_keys_refuse_other_shapes(hole: tuple[int, int], board: tuple[int, int]) -> None:
    with pytest.raises(ValueError, match="omaha_keys"):
        omaha_keys(np.zeros(hole, dtype=np.uint8), np.zeros(board, dtype=np.uint8))
