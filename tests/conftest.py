"""Shared by every test directory: puts ``tests/`` on the import path, so that tests/irc and
tests/matrix import the helpers here (``needs``, ``browser_helpers``) by name; and marks, by
file, the tests the one-minute loop (``scripts/test.sh --quick``) leaves to the full run
besides the ``server``, ``browser`` and ``slow`` ones:

* ``analysis``: tests/test_analysis.py runs ``referee analyze``'s evaluations;
* ``server``: tests/test_console.py starts the console's Datasette server (and a browser);
* ``integrity``: tests/test_store_integrity.py runs every command as a process against
  damaged databases and copies databases under concurrent writers.
"""

from __future__ import annotations

import pytest

BY_FILE = {
    "test_analysis.py": pytest.mark.analysis,
    "test_console.py": pytest.mark.server,
    "test_store_integrity.py": pytest.mark.integrity,
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        mark = BY_FILE.get(item.path.name)
        if mark is not None:
            item.add_marker(mark)
