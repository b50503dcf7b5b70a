"""What a test needs from the machine (a server binary, a browser, node): a test whose part is
missing is skipped with the reason and the command that installs it -- except under CI
(``CI=true``), where every part must be there and a missing one fails the test instead of
hiding it behind a skip. ``bash scripts/setup.sh --test`` installs them all."""

from __future__ import annotations

import os

import pytest

SETUP = "bash scripts/setup.sh --test"


def on_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


def need(found: object, what: str, install: str = SETUP) -> None:
    """Skip (locally) or fail (under CI) unless ``found`` is truthy."""
    if found:
        return
    reason = f"{what} not installed here ({install} installs it)"
    if on_ci():
        pytest.fail(f"CI must have it: {reason}", pytrace=False)
    pytest.skip(reason)
