"""Waiting and stopping that never lose a cancellation, for the bots' asyncio parts.

On Python 3.11 (the oldest the project supports) :func:`asyncio.wait_for` swallows a
cancellation that arrives in the same loop step as the awaited thing completes: it returns the
result as if nothing had been asked, and the task goes on. A task that waits in a loop -- the
IRC outbox waiting for a line, the worker waiting for the next event -- then never ends, and a
bot that cancels its parts on SIGTERM and awaits them waits for ever (CPython gh-86296, fixed
in 3.12 by a new ``wait_for``). The helpers here wait with :func:`asyncio.wait`, which always
lets a cancellation through, and :func:`stop_tasks` asks again until its tasks have ended, so
a stop is bounded whatever the tasks were doing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Iterable
from typing import Any, TypeVar

log = logging.getLogger("referee.adapters")

T = TypeVar("T")


async def wait_event(*events: asyncio.Event, timeout: float) -> bool:
    """Wait until one of ``events`` is set or ``timeout`` seconds have passed; whether one was
    set (it may have been cleared since). A cancellation of the caller is never lost (unlike
    ``wait_for`` on 3.11)."""
    if any(e.is_set() for e in events):
        return True
    waits = [asyncio.ensure_future(e.wait()) for e in events]
    try:
        done, _ = await asyncio.wait(waits, timeout=timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits:
            w.cancel()
    return bool(done)


async def within(work: Awaitable[T], timeout: float) -> T:
    """``work``'s result, or TimeoutError after ``timeout`` seconds (``work`` is cancelled then,
    and when the caller is cancelled). What ``asyncio.wait_for`` does, without swallowing a
    cancellation that meets the result in the same loop step."""
    task = asyncio.ensure_future(work)
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except BaseException:
        task.cancel()
        raise
    if done:
        return task.result()
    task.cancel()
    await asyncio.wait({task}, timeout=1.0)  # its own clean-up, bounded
    raise TimeoutError


async def stop_tasks(tasks: Iterable[asyncio.Task[Any]], grace: float,
                     again: float = 0.2) -> list[asyncio.Task[Any]]:
    """Cancel ``tasks`` and wait at most ``grace`` seconds for them to end, cancelling the ones
    still running again every ``again`` seconds (a cancellation can be lost, see the module
    docstring; the bots' tasks clean up without awaiting, so a second one costs nothing). An
    error a task ended with is logged, not raised: the stop goes on. The tasks still running
    after ``grace``, which the caller names in its log."""
    loop = asyncio.get_running_loop()
    end = loop.time() + grace
    pending = {t for t in tasks if not t.done()}
    finished = [t for t in tasks if t.done()]
    while pending:
        for t in pending:
            t.cancel()
        left = end - loop.time()
        if left <= 0:
            break
        done, pending = await asyncio.wait(pending, timeout=min(left, again))
        finished.extend(done)
    for t in finished:
        if not t.cancelled() and t.exception() is not None:
            log.warning("%s ended with %s: %s", t.get_name(), type(t.exception()).__name__,
                        t.exception())
    return list(pending)
