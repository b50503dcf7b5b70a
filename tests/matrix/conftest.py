"""Fixtures of the Matrix tests (defined in matrix_helpers, which the tests also import)."""

from collections.abc import Iterator
from typing import Any

import pytest
from matrix_helpers import make_table, synapse

__all__ = ["make_table", "synapse"]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Iterator[None]:
    """A failed test shows the tail of each bot's log (``make_table`` lists its bots on the
    item): a failure on the real server, in CI, explains itself."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        for bot in getattr(item, "referee_bots", []):
            tail = "\n".join(bot.log_text().splitlines()[-60:])
            report.sections.append((f"bot log {bot.log.name}", tail))
