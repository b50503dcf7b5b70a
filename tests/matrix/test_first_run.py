"""Live on Synapse: a moderator's first ``!open``, typed right after the bot joined the room but
before the bot's first sync ever, is processed. (The bot had been joined for it before it first
ran -- an operator joining its account, an auto-join -- and its very first sync took everything
in the room as history, so that !open was never processed.) What came before the join stays
history."""

from __future__ import annotations

import asyncio
import urllib.parse
from pathlib import Path

import pytest
from matrix_helpers import BotProcess, Player, run, wait_for
from synapse_server import Synapse

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(300)]


def test_the_first_open_after_the_join_is_not_lost(synapse: Synapse, tmp_path: Path) -> None:
    async def scenario() -> None:
        bot_user = synapse.register("refereefirst")
        mod = Player(synapse, synapse.register("dealerfirst"), tmp_path / "mod")
        await mod.start()
        bot = BotProcess(synapse, bot_user, tmp_path / "bot.db", [mod.user_id])
        try:
            r = await mod.client.room_create(name="table", invite=[bot_user.user_id])
            room = r.room_id
            # (the moderator's client sends only to a room its sync has brought)
            await wait_for(lambda: room in mod.client.rooms, 60, "the new room synced")
            before = await mod.say(room, "!open holdem_aa")  # before the bot is in: history
            q = urllib.parse.quote(room)
            synapse.request("POST", f"/_matrix/client/v3/rooms/{q}/join", {},
                            token=bot_user.access_token)  # joined for it, before it ever ran
            await asyncio.sleep(1.0)
            opened = await mod.say(room, "!open omaha level=1")  # ~1 s after the join
            bot.start()
            await wait_for(lambda: any("テーブルを開きました" in m.body
                                       for m in mod.from_user(bot_user.user_id, room)),
                           90, "the bot answered the !open typed after its join")
            ids = bot.input_ids()
            assert opened in ids and before not in ids
            omaha = [m for m in mod.from_user(bot_user.user_id, room)
                     if "テーブルを開きました" in m.body]
            assert len(omaha) == 1 and "オマハ" in omaha[0].body, [m.body for m in omaha]
        finally:
            bot.stop()
            await mod.stop()

    run(scenario(), timeout=280)
