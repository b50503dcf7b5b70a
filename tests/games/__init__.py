"""Games that exist only in the tests (registered by the tests that play them)."""
