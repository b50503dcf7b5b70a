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
