"""A stop reaches every part of a bot: a cancellation that arrives in the same loop step as what
a part was waiting for is not lost (it was with ``asyncio.wait_for`` on Python 3.11, and the
IRC bot then never ended after SIGTERM), and :func:`referee.adapters.aio.stop_tasks` ends its
tasks even when one of them loses a cancellation. No server: the IRC bot's real outbox on a
real database file, never connected."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path

import pytest

from referee.adapters.aio import stop_tasks, wait_event, within
from referee.adapters.irc import IrcBot, IrcConfig

HANG = 3.0  # what "never ends" is taken to mean: the tasks here end in milliseconds


async def _ended(task: asyncio.Task[None]) -> bool:
    done, _ = await asyncio.wait({task}, timeout=HANG)
    if not done:  # leave nothing running behind the test
        for _ in range(5):
            task.cancel()
            await asyncio.sleep(0.01)
    return bool(done) and task.cancelled()


async def _cancel_as_it_wakes(task: asyncio.Task[None], wake: asyncio.Event) -> None:
    """The race: what the task waits for happens, and the cancel comes in the next loop step,
    after the awaited wait has finished but before the task has resumed."""
    await asyncio.sleep(0.05)  # the task is waiting now
    wake.set()
    await asyncio.sleep(0)  # the event's wait completes in this step …
    task.cancel()  # … and the cancel lands before the task resumes


async def _waits_the_311_way(wake: asyncio.Event) -> None:
    """A part that waits with ``asyncio.wait_for`` in a loop, as the adapters did."""
    while True:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), 1.0)
        wake.clear()


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="wait_for no longer loses it")
def test_the_race_loses_a_cancel_with_wait_for_on_311() -> None:
    """The control: the same race with ``asyncio.wait_for`` leaves the task running."""

    async def go() -> bool:
        wake = asyncio.Event()

        task = asyncio.create_task(_waits_the_311_way(wake))
        await _cancel_as_it_wakes(task, wake)
        return await _ended(task)

    assert not asyncio.run(go())


def test_wait_event_never_loses_a_cancel() -> None:
    async def go() -> bool:
        wake = asyncio.Event()

        async def waiter() -> None:
            while True:
                await wait_event(wake, timeout=1.0)
                wake.clear()

        task = asyncio.create_task(waiter())
        await _cancel_as_it_wakes(task, wake)
        return await _ended(task)

    assert asyncio.run(go())


def test_within_never_loses_a_cancel() -> None:
    """The whois wait: the answer (set by the connection's end) and the stop's cancel meet."""

    async def go() -> bool:
        answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        forever = asyncio.Event()

        async def worker() -> None:
            await within(asyncio.shield(answer), 10.0)
            await forever.wait()  # the next event, which never comes

        task = asyncio.create_task(worker())
        await asyncio.sleep(0.05)
        answer.set_result("whois")
        task.cancel()  # in the same step: the shield's result is not passed on yet
        return await _ended(task)

    assert asyncio.run(go())


def test_within_times_out_and_cancels_the_work() -> None:
    async def go() -> tuple[bool, bool]:
        work = asyncio.ensure_future(asyncio.sleep(60))
        with pytest.raises(TimeoutError):
            await within(work, 0.05)
        return work.cancelled(), await within(asyncio.sleep(0, "x"), 1.0) == "x"

    assert asyncio.run(go()) == (True, True)


def test_the_irc_outbox_ends_when_cancelled_as_a_line_is_queued(tmp_path: Path) -> None:
    """The IRC bot's outbox (what hung a stop under load: its wait for a line met the cancel)."""
    config = IrcConfig(server="127.0.0.1", port=6667, channels=["#t"],
                       database=tmp_path / "bot.db")

    async def go() -> bool:
        bot = IrcBot(config)
        try:
            task = asyncio.create_task(bot.outbox.run())
            await _cancel_as_it_wakes(task, bot.outbox.changed)
            return await _ended(task)
        finally:
            bot.close()

    assert asyncio.run(go())


def test_stop_tasks_ends_a_task_that_lost_a_cancel() -> None:
    """A part that waits the 3.11 way and loses the first cancel is cancelled again."""

    async def go() -> tuple[list[asyncio.Task[None]], bool]:
        wake = asyncio.Event()

        task = asyncio.create_task(_waits_the_311_way(wake))
        await asyncio.sleep(0.05)
        wake.set()
        await asyncio.sleep(0)
        left = await stop_tasks([task], grace=HANG)
        return left, task.cancelled()

    left, cancelled = asyncio.run(go())
    assert left == [] and cancelled


def test_stop_tasks_gives_up_after_its_grace() -> None:
    """A task that refuses every cancel is named, not waited for."""

    async def go() -> tuple[list[str], bool]:
        let_go = asyncio.Event()

        async def stubborn() -> None:
            while not let_go.is_set():
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.sleep(1)

        task = asyncio.create_task(stubborn(), name="stubborn")
        quick = asyncio.create_task(asyncio.sleep(60))
        await asyncio.sleep(0.01)
        left = await stop_tasks([task, quick], grace=0.3, again=0.05)
        let_go.set()
        task.cancel()
        await asyncio.wait({task})
        return [t.get_name() for t in left], quick.cancelled()

    assert asyncio.run(go()) == (["stubborn"], True)
