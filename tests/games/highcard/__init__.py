"""ハイカード (``highcard``): a tiny house game that exists only in the tests, written by
``docs/adding-a-game.md`` as a fifth game would be (see ``spec.py`` and ``engine.py``)."""
