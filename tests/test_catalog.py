"""The message catalogue loads, every key is unique and integers are formatted one way."""

from referee.lang import catalog


def test_catalogue_loads_and_keys_are_unique() -> None:
    catalog.messages.cache_clear()
    assert isinstance(catalog.messages(), dict)


def test_numbers_and_excerpts() -> None:
    assert catalog.chips(1234567) == "1,234,567"
    long = "x" * 9000
    assert len(catalog.excerpt(long)) == catalog.EXCERPT_CHARS
    assert catalog.excerpt("a\nb") == "a b"


def test_figures_get_separators_and_identifiers_do_not() -> None:
    from referee.lang.catalog import text

    assert text("status_in_hand", hand=1234) == "ハンド#1234 進行中"
    assert text("bank_balance", player="alice", points=12000) == "aliceさんのバンク残高: 12,000P"
    assert text("sit_seat_taken", seat=3) == "3番席は埋まっています"
