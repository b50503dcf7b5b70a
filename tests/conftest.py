"""Shared by every test directory: puts ``tests/`` on the import path, so that tests/irc and
tests/matrix import the helpers here (``needs``, ``browser_helpers``) by name; and marks, by
file, the tests the one-minute loop (``scripts/test.sh --quick``) leaves to the full run
besides the ``server``, ``browser`` and ``slow`` ones:

* ``analysis``: tests/test_analysis.py runs ``referee analyze``'s evaluations;
* ``server``: tests/test_console.py and tests/test_console_pages.py start the console's Datasette
  server (and a browser);
* ``integrity``: tests/test_store_integrity.py runs every command as a process against
  damaged databases and copies databases under concurrent writers.

In the quick loop (``REFEREE_QUICK=1``, set by ``scripts/test.sh --quick``) a property test
draws fewer examples: ``examples.examples`` for those that name their number, the ``quick``
Hypothesis profile (20) for the rest.
"""

from __future__ import annotations

import pytest
from examples import QUICK
from hypothesis import settings

if QUICK:
    settings.register_profile("quick", max_examples=20)
    settings.load_profile("quick")

BY_FILE = {
    "test_analysis.py": pytest.mark.analysis,
    "test_console.py": pytest.mark.server,
    "test_console_pages.py": pytest.mark.server,
    "test_store_integrity.py": pytest.mark.integrity,
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        mark = BY_FILE.get(item.path.name)
        if mark is not None:
            item.add_marker(mark)
