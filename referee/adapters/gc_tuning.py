"""The garbage collector of a long-running bot, set once its start-up is done.

A bot holds every table's state (engines, seats, histories: hundreds of thousands of objects
at a thousand tables) for as long as it runs. CPython's full collection walks every tracked
object, so with the default thresholds a chat message that happens to trigger one waits for
all of them: ``bench/scale.py`` measured full collections of 135 ms CPU (502 ms wall) at
1,000 tables. After the start-up (imports, the grammars, the resumed tables) those objects live
as long as the process, so :func:`tune` moves them out of the collector's sight (``gc.freeze``:
reference counting still frees them), and the collections that remain walk only what was made
since: the longest full collection at 1,000 tables fell to 20 ms CPU. Cycles among frozen
objects are never collected; start-up makes none worth the walk.

The thresholds are CPython's defaults, set explicitly: larger young generations (2,000, 10,000,
20,000 allocations) were measured too and only made each young collection longer (up to 19 ms
for the youngest, 43 ms for the middle one) for no CPU saved.
"""

from __future__ import annotations

import gc

#: allocations between young collections, then the older generations' ratios (module doc)
THRESHOLDS = (700, 10, 10)


_tuned = False


def tune() -> None:
    """Collect what start-up left, freeze the survivors, set the thresholds (module doc).
    Once per process: a second bot or terminal session in it (tests) changes nothing."""
    global _tuned
    if _tuned:
        return
    _tuned = True
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
