"""Acceptance ("records tell the truth"): one hand each of holdem_aa, seven, deuces and omaha
played at one table room through ``referee matrix`` on a real Synapse (the table closed with
``!close`` and the next game opened); then ``referee check --snapshots`` and ``referee verify``
pass on the bot's database, whose records hold a hand of every game -- and a copy with one
stored input changed fails both, in one line."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from four_games import (
    END,
    GAMES,
    OPEN,
    Driver,
    check_and_verify,
    hands_by_game,
    rejected,
    tampered_fails,
)
from matrix_helpers import Table, TableFactory, run, wait_for

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(420)]


async def _hand(t: Table, game: str) -> int:
    """Open ``game``, seat everyone, deal and play one hand to its end (the deal's reveal),
    close the table; the number of actions the players typed."""
    await t.command(t.mod, OPEN[game], "テーブルを開きました")
    for p in t.players:
        await t.command(p, "!sit", "着席")
    driver = Driver(game, [p.name for p in t.players])
    seen = len(t.bot_room_messages())
    await t.say(t.mod, "!deal")
    typed = 0
    while True:
        await wait_for(lambda n=seen: len(t.bot_room_messages()) > n, 60,
                       f"the bot's next message ({game})")
        m = t.bot_room_messages()[seen]
        seen += 1
        if END in m.body:
            break
        for who, text in driver.answers(m.body):
            await t.say(t.by_name(who), text)
            typed += 1
    await t.command(t.mod, "!close", "テーブルを閉じました")
    return typed


def test_four_games_at_one_table_check_and_verify(make_table: TableFactory,
                                                  tmp_path: Path) -> None:
    took: dict[str, tuple[int, float]] = {}

    async def scenario() -> None:
        t = await make_table(["alice", "bob"])
        try:
            for p in t.players:
                await t.command(t.mod, f"!grant @{p.name} 2000", "残高")
            for game in GAMES:
                t0 = time.monotonic()
                took[game] = (await _hand(t, game), time.monotonic() - t0)
        finally:
            await t.close()
        print(f"\nfour games over Matrix: {took}")
        assert hands_by_game(t.bot.db) == {g: 1 for g in GAMES}
        assert rejected(t.bot.db) == []
        check_and_verify(t.bot.db)
        tampered_fails(t.bot.db, tmp_path)

    run(scenario(), timeout=360)
