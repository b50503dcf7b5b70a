import random

import pytest

from referee.cards import (
    JOKER,
    CardError,
    Shoe,
    card_str,
    cards_str,
    parse_card,
    parse_cards,
    pretty,
)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("As", "As"), ("A♠", "As"), ("Ａ♠", "As"), ("10s", "Ts"), ("Ts", "Ts"), ("ts", "Ts"),
        ("スペードのA", "As"), ("ハートの10", "Th"), ("ダイヤK", "Kd"), ("クラブの2", "2c"),
        ("♥Q", "Qh"), ("JK", "JK"), ("jk", "JK"), ("１０♦", "Td"), ("ｋｈ", "Kh"),
    ],
)
def test_every_notation(text: str, expected: str) -> None:
    assert card_str(parse_card(text)) == expected


def test_all_52_round_trip() -> None:
    for i in range(52):
        c = parse_card(card_str(i))  # type: ignore[arg-type]
        assert c == i
        assert parse_card(pretty(c)) == c
    assert parse_card(card_str(JOKER)) == JOKER


def test_faces_are_the_notations_own() -> None:
    """The console's card faces (referee/faces.py, without the parser) name and draw every
    card as card_str and pretty do."""
    from referee.faces import CARD_FACES

    assert CARD_FACES == {card_str(c): pretty(c) for c in (*range(52), JOKER)}


@pytest.mark.parametrize("text", ["", "1s", "Ax", "11h", "As Kd", "ジョーカ", "Z"])
def test_unreadable_card_names_the_text(text: str) -> None:
    with pytest.raises(CardError) as e:
        parse_card(text)
    assert "カード" in str(e.value)


def test_parse_cards_separators_and_compact() -> None:
    assert cards_str(parse_cards("Ah Kh, Qd、Jd")) == ["Ah", "Kh", "Qd", "Jd"]
    assert cards_str(parse_cards("AhKhQdJd")) == ["Ah", "Kh", "Qd", "Jd"]
    assert cards_str(parse_cards("Ａ♠ １０♥")) == ["As", "Th"]
    with pytest.raises(CardError, match="Xx"):
        parse_cards("Ah Xx Kd")


def test_shoe_counts_and_injected_randomness() -> None:
    shoe = Shoe(decks=6, jokers=1, rng=random.Random(7))
    assert len(shoe) == 313
    assert shoe.cards.count(JOKER) == 1
    assert shoe.cards.count(parse_card("As")) == 6
    again = Shoe(decks=6, jokers=1, rng=random.Random(7))
    assert shoe.draw(10) == again.draw(10)
    assert len(shoe) == 303


def test_default_shoe_uses_a_csprng() -> None:
    import secrets

    assert isinstance(Shoe()._rng, secrets.SystemRandom)
