"""Shared by every test directory: puts ``tests/`` on the import path, so that tests/irc and
tests/matrix import the helpers here (``needs``, ``browser_helpers``) by name; and marks the
tests of ``referee analyze`` (tests/test_analysis.py) ``analysis``, which the one-minute loop
(``scripts/test.sh --quick``) leaves to the full run with the server and browser tests."""

from __future__ import annotations

import pytest

ANALYSIS = ("test_analysis.py",)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in ANALYSIS:
            item.add_marker(pytest.mark.analysis)
