"""Acceptance ("records tell the truth"): one hand each of holdem_aa, seven, deuces and omaha
played at one channel against ``referee irc`` on a real ngIRCd (the table closed with ``!close``
and the next game opened); then ``referee check --snapshots`` and ``referee verify`` pass on the
bot's database, whose records hold a hand of every game -- and a copy with one stored input
changed fails both, in one line."""

from __future__ import annotations

import asyncio
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
from ircnet import BOT, BotProcess, Client, Msg, Ngircd, bot_in_channel, prove

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(240)]

CHANNEL = "#four"
PLAYERS = ("alice", "bob")


class Channel:
    def __init__(self, ngircd: Ngircd) -> None:
        self.dealer = Client(ngircd.port, "dealer", [CHANNEL])
        self.players = {n: Client(ngircd.port, n, [CHANNEL]) for n in PLAYERS}
        self.pos = 0  # the dealer's messages read so far

    @property
    def clients(self) -> list[Client]:
        return [self.dealer, *self.players.values()]

    def _room(self, m: Msg) -> bool:
        return m.sender == BOT and m.target == CHANNEL

    async def reply(self, expect: str, timeout: float = 20.0) -> Msg:
        m = await self.dealer.wait_msg(lambda m: self._room(m) and expect in m.text, timeout,
                                       self.pos)
        self.pos = self.dealer.messages.index(m) + 1
        return m

    async def command(self, who: Client, text: str, expect: str) -> Msg:
        self.pos = len(self.dealer.messages)
        who.say(CHANNEL, text)
        return await self.reply(expect)

    async def hand(self, game: str) -> int:
        """Open ``game``, seat both players, deal and play one hand to its end, close; the
        number of actions the players typed."""
        d = self.dealer
        await self.command(d, OPEN[game], "テーブルを開きました")
        for n in PLAYERS:
            await self.command(self.players[n], "!sit", "着席しました")
        driver = Driver(game, list(PLAYERS))
        self.pos = len(d.messages)
        d.say(CHANNEL, "!deal")
        typed = 0
        while True:
            m = await d.wait_msg(self._room, 30, self.pos)
            self.pos = d.messages.index(m) + 1
            if END in m.text:
                break
            for who, text in driver.answers(m.text):
                self.players[who].say(CHANNEL, text)
                typed += 1
        await self.command(d, "!close", "テーブルを閉じました")
        return typed


async def _play(ch: Channel) -> dict[str, tuple[int, float]]:
    took: dict[str, tuple[int, float]] = {}
    try:
        await asyncio.gather(*(c.connect() for c in ch.clients))
        await bot_in_channel(ch.dealer, CHANNEL, 20.0)
        await asyncio.gather(*(prove(c) for c in ch.clients))
        for n in PLAYERS:
            await ch.command(ch.dealer, f"!grant @{n} 2000", f"{n}さんのバンクに")
        for game in GAMES:
            t0 = time.monotonic()
            typed = await ch.hand(game)
            took[game] = (typed, time.monotonic() - t0)
        return took
    finally:
        for c in ch.clients:
            await c.close()


def test_four_games_over_irc_check_and_verify(ngircd: Ngircd, tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    bot = BotProcess(ngircd.port, db, [CHANNEL], ["dealer"])
    took = asyncio.run(_play(Channel(ngircd)))
    rc = bot.stop()
    assert rc == 0, bot.output()[-3000:]
    print(f"\nfour games over IRC: {took}")
    assert hands_by_game(db) == {g: 1 for g in GAMES}
    assert rejected(db) == []
    check_and_verify(db)
    tampered_fails(db, tmp_path)
