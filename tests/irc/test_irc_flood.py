"""Live on ngIRCd: one player's channel commands never stall the table. While a spectator
sends !status several times a second, each player's action is followed by the next prompt
within 5 s, and the flood is mostly not taken."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from ircnet import BotProcess, Client, Ngircd, prove
from test_irc_hand import _PROMPT, Table

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(180)]


def test_a_flood_of_status_never_holds_up_the_prompts(ngircd: Ngircd, tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    bot = BotProcess(ngircd.port, db, ["#flood"], ["dealer"])
    table = Table(ngircd, "#flood")

    async def flood(dave: Client, stop: asyncio.Event) -> int:
        n = 0
        # at least ten, however quickly the hand's actions go (they took 1-3 s: the flood
        # sometimes ended at 7 before the assertion below could be about a flood)
        while not stop.is_set() or n < 10:
            dave.say("#flood", "!status")
            n += 1
            await asyncio.sleep(0.2)
        return n

    async def scenario() -> tuple[list[float], int, int]:
        try:
            await table.connect()
            dave = Client(ngircd.port, "dave", ["#flood"])
            await dave.connect()
            await prove(dave)
            await table.setup()
            stop = asyncio.Event()
            flooding = asyncio.create_task(flood(dave, stop))
            waits: list[float] = []
            pos = 0
            sent_at: float | None = None
            for _ in range(6):  # a few actions of the hand while the flood runs
                m = await table.room(lambda t: bool(_PROMPT.match(t)), pos, 30)
                if sent_at is not None:
                    waits.append(time.monotonic() - sent_at)
                pos = table.dealer.messages.index(m) + 1
                pm = _PROMPT.match(m.text)
                assert pm is not None
                name, options = pm.group(1), pm.group(2)
                if name not in table.players:
                    break
                table.players[name].say("#flood", "チェック" if "チェック" in options else "コール")
                sent_at = time.monotonic()
            stop.set()
            sent = await flooding
            answers = sum(1 for m in table.dealer.messages if m.sender == "referee"
                          and "ハンド" in m.text and "番" in m.text and " / " in m.text)
            await dave.close()
            return waits, sent, answers
        finally:
            await table.close()

    waits, sent, answers = asyncio.run(scenario())
    assert bot.stop() == 0, bot.output()[-3000:]
    assert waits and max(waits) < 5.0, waits
    assert sent >= 10 and answers < sent, (sent, answers)
