"""How many examples a property test draws. The full run (``bash scripts/test.sh``, CI) draws
the number the test names; the one-minute loop (``bash scripts/test.sh --quick``, which sets
``REFEREE_QUICK=1``) draws a fifth of it, at least ten, so that every property still runs on
every save while the thorough search stays with CI. Hypothesis keeps the examples that failed
in its database (``.hypothesis/``) and tries them first in either run."""

from __future__ import annotations

import os

QUICK = os.environ.get("REFEREE_QUICK", "") == "1"


def examples(n: int) -> int:
    """``n`` in the full run; ``max(10, n // 5)`` in the quick loop."""
    return max(10, n // 5) if QUICK else n
