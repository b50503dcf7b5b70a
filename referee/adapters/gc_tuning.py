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

Quiet collections (:func:`answered`, :func:`quiet`): CPython 3.11 starts a young collection
when allocations *minus deallocations* of tracked objects pass the first threshold. Tables that
replace their state hand after hand free about as many objects as they make, so that count
stays low while the youngest generation fills with survivors: young collections then come
rarely and each walks everything kept since (up to 54 ms CPU at 1,000 tables, on whichever
reply met it). So the adapters tell the collector when an input was answered and when no other
input waits, and every :data:`QUIET_EVERY` inputs the collection CPython would make next (the
youngest generation; the middle one each :data:`THRESHOLDS`\\[1]-th time; everything each
\\[2]-th time of that, once CPython's own condition holds) is made there, between replies,
walking only what those inputs kept. Young collections still come by themselves in a burst
without a quiet moment; full ones only at a quiet moment (:data:`AUTOMATIC`): a full one walks
every table's objects and the parser's caches (~127,000-141,000 at 100-1,000 tables, 110-200
ms CPU on the bench machine), and the referee's own work makes no cyclic garbage for it to
find (``bench/scale.py`` counts it: none in 469,455 messages). So a full collection that found
nothing makes the next one wait twice as long (CPython's quarter of the oldest generation, then
a half, ... up to :data:`MAX_SHARE` times it); one that found garbage brings back CPython's
cadence.

The thresholds are CPython's defaults, set explicitly: larger young generations (2,000, 10,000,
20,000 allocations) were measured too and only made each young collection longer (up to 19 ms
for the youngest, 43 ms for the middle one) for no CPU saved.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

#: allocations between young collections, then the older generations' ratios (module doc)
THRESHOLDS = (700, 10, 10)

#: the thresholds set: the same, but no full collection by itself (:func:`quiet` makes them)
AUTOMATIC = (THRESHOLDS[0], THRESHOLDS[1], 1_000_000)

#: inputs answered between two collections at a quiet moment (module doc)
QUIET_EVERY = 100

#: the most a full collection waits for, as a share of the oldest generation (module doc)
MAX_SHARE = 16.0


_tuned = False
_answered = 0
# CPython's rule for a full collection, kept here for the quiet ones: only once the objects
# moved into the oldest generation since its last collection are a share of what it held
# then (the garbage a full collection can find grows with what reaches it). CPython's share
# is a quarter; here it doubles after each full collection that found no garbage (up to
# MAX_SHARE) and is a quarter again after one that found some (module doc).
_moved = 0
_held = 0
_share = 0.25


def tune() -> None:
    """Collect what start-up left, freeze the survivors, set the thresholds (module doc).
    Once per process: a second bot or terminal session in it (tests) changes nothing."""
    global _tuned, _held
    if _tuned:
        return
    _tuned = True
    gc.collect()
    gc.freeze()
    gc.set_threshold(*AUTOMATIC)
    _held = gc.get_freeze_count()  # what the oldest generation held after that collection


def answered() -> None:
    """An input was processed (the adapters call this after each ``Referee.process``)."""
    global _answered
    _answered += 1


def quiet() -> int | None:
    """No input waits and the last replies are out: make the collection that is due, if
    :data:`QUIET_EVERY` inputs were answered since the last one here (module doc). The
    generation collected, or None. Nothing before :func:`tune` (tests, the commands)."""
    global _answered, _moved, _held, _share
    if not _tuned or _answered < QUIET_EVERY:
        return None
    _answered = 0
    # collections of the youngest generation since the middle one's, of that since a full one
    _, youngest, middle = gc.get_count()
    if youngest < THRESHOLDS[1]:
        gc.collect(0)
        return 0
    if middle < THRESHOLDS[2] or _moved < _held * _share:
        # what survives moves to the oldest generation: all of it, but for the garbage found
        _moved += len(gc.get_objects(0)) + len(gc.get_objects(1)) - gc.collect(1)
        return 1
    found = gc.collect(2)
    _moved, _held = 0, len(gc.get_objects(2))
    _share = 0.25 if found else min(_share * 2, MAX_SHARE)
    return 2


async def quiet_when(idle: Callable[[], bool]) -> None:
    """:func:`quiet` if ``idle()`` still holds after the other tasks had their turn (an
    outbox sending what the last input queued goes first). Only the bots are asynchronous: the
    terminal does not import asyncio for this."""
    import asyncio

    if idle():
        await asyncio.sleep(0)
        if idle():
            quiet()
