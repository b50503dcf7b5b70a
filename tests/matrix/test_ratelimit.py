"""Synapse's real default rate limit (rc_message: 0.2/s, burst 10) on the bot: replies beyond
the burst get 429 M_LIMIT_EXCEEDED, are retried after the server's delay, and none is dropped."""

from __future__ import annotations

import re

import pytest
from matrix_helpers import TableFactory, run, wait_for

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(300)]

N = 14  # > the default burst of 10


def test_default_rate_limit_is_retried_not_dropped(make_table: TableFactory) -> None:
    async def scenario() -> None:
        t = await make_table(["erin"], bot_exempt=False)
        try:
            (e,) = t.players
            for i in range(N):
                await t.command(t.mod, f"!grant @{e.name} {i + 1}", "残高")  # sequential: waits
            replies = [m.body for m in t.bot_room_messages() if "残高" in m.body]
            assert len(replies) == N
            balances = [int(x.replace(",", "")) for r in replies
                        for x in re.findall(r"残高 ([\d,]+)P", r)]
            assert balances == [sum(range(1, k + 2)) for k in range(N)]
            await wait_for(lambda: "rate limited by the homeserver" in t.bot.log_text(), 10,
                           "a 429 seen by the bot")
            hits = re.findall(r"rate limited by the homeserver \((\d+) so far", t.bot.log_text())
            print(f"\n429 responses retried: {hits[-1]}")
            assert int(hits[-1]) >= 1
        finally:
            await t.close()

    run(scenario(), timeout=280)
