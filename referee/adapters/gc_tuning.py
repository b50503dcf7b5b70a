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
\\[2]-th time of that) is made there, between replies,
walking only what those inputs kept. Young collections still come by themselves in a burst
without a quiet moment; full ones only at a quiet moment (:data:`AUTOMATIC`).

A full collection walks every tracked object it can see: every table's objects and the
parser's and the voice's caches (~127,000-141,000 at 100-1,000 tables, 110-200 ms CPU on the
bench machine), and the referee's own work makes no cyclic garbage for it to find
(``bench/scale.py`` counts it: none in 469,455 messages; ``tests/test_gc_quiet.py``: a
referee replacing its table over the service transcripts and each game's leaves none). So the
survivors of each middle or full collection at a quiet moment are frozen, as :func:`tune`
freezes start-up's: they were all reachable when it walked them, and the oldest generation
then holds nothing, so no later collection walks them -- a full collection walks only what
came since the last quiet moment's, a few milliseconds instead of the whole state. Frozen
objects that die later are still freed by reference counting, and leave the frozen set; only
a cycle among them would never be freed. The bound on that: the frozen objects (live, or such
garbage) may grow to :data:`FROZEN_GROWTH` times what the last complete collection left
(:data:`FROZEN_SLACK` at least); past that, the next quiet full collection is a complete one
(:func:`recollect`: everything unfrozen, walked, frozen again) -- the one long pause, and only
after the state, or garbage nothing else could find, grew that much.

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

#: how far the frozen objects may grow past what the last complete collection left before
#: the next quiet full collection walks them all again (module doc); and the least growth
#: that counts (a small bot's few thousand objects)
FROZEN_GROWTH = 2.0
FROZEN_SLACK = 100_000


_tuned = False
_answered = 0
_frozen_base = 0  # the frozen objects after the last complete collection (module doc)
_middles = 0  # middle collections at quiet moments since the last full one
#: complete collections at quiet moments so far (the bench prints it)
complete = 0


def tune() -> None:
    """Collect what start-up left, freeze the survivors, set the thresholds (module doc).
    Once per process: a second bot or terminal session in it (tests) changes nothing."""
    global _tuned, _frozen_base
    if _tuned:
        return
    _tuned = True
    gc.collect()
    gc.freeze()
    gc.set_threshold(*AUTOMATIC)
    _frozen_base = gc.get_freeze_count()


def answered() -> None:
    """An input was processed (the adapters call this after each ``Referee.process``)."""
    global _answered
    _answered += 1


def quiet() -> int | None:
    """No input waits and the last replies are out: make the collection that is due, if
    :data:`QUIET_EVERY` inputs were answered since the last one here (module doc). The
    generation collected, or None. Nothing before :func:`tune` (tests, the commands)."""
    global _answered, _middles
    if not _tuned or _answered < QUIET_EVERY:
        return None
    _answered = 0
    # collections of the youngest generation since the middle one's (the middle ones since a
    # full one are counted here: gc.freeze() sets CPython's own counts back to 0 in 3.11)
    if gc.get_count()[1] < THRESHOLDS[1]:
        gc.collect(0)
        return 0
    _middles += 1
    if _middles < THRESHOLDS[2]:
        gc.collect(1)
        gc.freeze()  # what survived it was reachable: out of every later walk (module doc)
        return 1
    _middles = 0
    gc.collect(2)  # only what came since the last freeze: nothing older is walked
    gc.freeze()
    if gc.get_freeze_count() > _frozen_base * FROZEN_GROWTH + FROZEN_SLACK:
        recollect()
    return 2


def recollect() -> int:
    """The complete collection (module doc): every object unfrozen, walked, the survivors
    frozen again. The garbage found."""
    global _frozen_base, complete
    gc.unfreeze()
    found = gc.collect(2)
    gc.freeze()
    _frozen_base = gc.get_freeze_count()
    complete += 1
    return found


async def quiet_when(idle: Callable[[], bool]) -> None:
    """:func:`quiet` if ``idle()`` still holds after the other tasks had their turn (an
    outbox sending what the last input queued goes first). Only the bots are asynchronous: the
    terminal does not import asyncio for this."""
    import asyncio

    if idle():
        await asyncio.sleep(0)
        if idle():
            quiet()
