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

The full run hands whole files to its xdist workers (``--dist loadfile --no-loadscope-reorder``)
in the order this hook leaves them: the longest files first (``LONGEST``: minutes of one worker's
CPU each), then those holding a long test (``slow`` ones, then ``analysis``, ``integrity``,
``server`` and ``browser``), the rest after, most items first. A file
of one or two long tests started last would be the run's tail, with five workers idle: xdist's own
reordering (most items first) puts exactly those last. The tests of the files in ``SPREAD`` (long,
CPU-bound, no module fixtures) are handed out one by one instead, to several workers at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

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


# The files that take one worker longest (bench/RESULTS.md, "Test loops"): handed out first.
LONGEST = ("test_omaha_pokerkit.py", "test_crash.py", "test_analysis.py", "test_hands_standard.py")
# Files whose tests each take a worker for minutes: under ``--dist loadfile`` each test is its own
# unit of work (``pytest_xdist_make_scheduler``), not the whole file one after the other.
SPREAD = ("test_crash.py", "test_omaha_pokerkit.py", "test_hands_standard.py", "test_analysis.py")
# The marks of long tests, longest kind first: a file holding one is handed out before the rest.
LONG = ("slow", "analysis", "integrity", "server", "browser")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        mark = BY_FILE.get(item.path.name)
        if mark is not None:
            item.add_marker(mark)
    by_file: dict[Path, list[pytest.Item]] = {}
    for item in items:
        by_file.setdefault(item.path, []).append(item)

    def rank(path: Path) -> tuple[int, int, int]:
        first = LONGEST.index(path.name) if path.name in LONGEST else len(LONGEST)
        found = [LONG.index(m.name) for i in by_file[path] for m in i.iter_markers()
                 if m.name in LONG]
        return (first, min(found) if found else len(LONG), -len(by_file[path]))

    items[:] = [i for path in sorted(by_file, key=rank) for i in by_file[path]]


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile`` but for the files in ``SPREAD``, whose tests are units of their own."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SpreadLongFiles(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if Path(nodeid.split("::", 1)[0]).name in SPREAD:
                return nodeid
            return str(super()._split_scope(nodeid))

    return SpreadLongFiles(config, log)
