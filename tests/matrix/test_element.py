"""Players on the client stack Element runs -- matrix-js-sdk with its Rust crypto -- against the
bot on the real Synapse: hole cards decrypt in Element's default mode and in
"exclude insecure devices" (OnlySignedDevicesIsolationMode) because the bot's device is signed by
its owner's cross-signing identity; a player whose client withholds the room key from the bot
gets a Japanese notice instead of silence, and their next message, keys shared, is processed."""

from __future__ import annotations

import os
from pathlib import Path

import nio
import pytest
from js_player import JsPlayer, js_ready
from matrix_helpers import BotProcess, Player, Table, cards_in, run, wait_for
from needs import need
from synapse_server import Synapse

from referee.lang.catalog import messages

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(400)]

@pytest.fixture(scope="module")
def need_js() -> None:
    why = js_ready()
    need(why is None, f"the matrix-js-sdk players ({why})",
         "npm ci in tests/matrix/js, or bash scripts/setup.sh --test")


async def _js_table(hs: Synapse, tmp: Path, modes: list[str]) -> tuple[Table, list[JsPlayer]]:
    tag = f"{os.getpid() % 1000}e"
    bot_user = hs.register(f"refjs{tag}")
    mod = Player(hs, hs.register(f"dealerjs{tag}"), tmp / "dealer")
    players = [JsPlayer(hs, hs.register(f"js{i}{mode}{tag}"), mode, log=tmp / f"js{i}.log")
               for i, mode in enumerate(modes)]
    bot = BotProcess(hs, bot_user, tmp / "bot.db", [mod.user_id])
    bot.start()
    await mod.start()
    for p in players:
        await p.start()
    r = await mod.client.room_create(name="table", invite=[p.user_id for p in players])
    assert isinstance(r, nio.RoomCreateResponse), r
    await mod.client.room_invite(r.room_id, bot_user.user_id)

    def all_joined() -> bool:
        rm = mod.client.rooms.get(r.room_id)
        ids = [bot_user.user_id] + [p.user_id for p in players]
        return rm is not None and all(i in rm.users and i not in rm.invited_users for i in ids)

    await wait_for(all_joined, 60, "everyone joined the table room")
    return Table(hs, bot, mod, players, r.room_id), players  # type: ignore[arg-type]


def test_element_players(synapse: Synapse, tmp_path: Path, need_js: None) -> None:
    async def scenario() -> None:
        t, players = await _js_table(synapse, tmp_path, ["all", "signed"])
        bot_id = t.bot.user.user_id
        try:
            for p in players:
                await t.command(t.mod, f"!grant @{p.name} 2000", "残高")
            await t.command(t.mod, "!open omaha level=1", "テーブルを開きました")
            for p in players:
                await t.command(p, "!sit", "着席")  # type: ignore[arg-type]
            await t.command(t.mod, "!deal", "さんの番です")

            def cards_of(p: JsPlayer) -> list[str]:
                for m in p.from_user(bot_id):
                    if m.room != t.room and m.failure is None and cards_in(m.body):
                        return cards_in(m.body)
                return []

            await wait_for(lambda: all(cards_of(p) for p in players), 90,
                           "hole cards decrypted by both js players")
            deal = next(i["deal"] for i in t.bot.inputs() if i.get("deal"))
            for p in players:
                assert cards_of(p) == deal["hands"][p.name], p.isolation
                dm = [m for m in p.from_user(bot_id) if m.room != t.room]
                assert all(m.encrypted for m in dm)
                assert not [m for m in dm if m.failure], [m.failure for m in dm]
                status = await p.call("device", userId=bot_id, deviceId=t.bot.device_id())
                assert status["found"] and status["signedByOwner"], status

            # A player whose client withholds room keys from devices it has not verified.
            a = players[0]
            dm_room = next(m.room for m in a.from_user(bot_id) if cards_in(m.body))
            await a.call("withhold", on=True)
            n = len(a.from_user(bot_id, dm_room))
            lost = await a.say(dm_room, "!penalties")
            start = messages()["undecryptable_withheld"].split("{when}")[1][:10]

            def notice() -> object:
                return next((m for m in a.from_user(bot_id, dm_room)[n:]
                             if start in m.body), None)

            got = await wait_for(notice, 60, "the Japanese notice")
            assert got.msgtype == "m.notice" and not got.encrypted  # type: ignore[attr-defined]
            reason = messages()["undecryptable_reason_unverified"]
            assert reason in got.body  # type: ignore[attr-defined]
            assert lost not in t.bot.input_ids()
            # Keys shared again: the next message is processed (and answered, encrypted).
            await a.call("withhold", on=False)
            n = len(a.from_user(bot_id, dm_room))
            again = await a.say(dm_room, "!penalties")
            answer = await wait_for(lambda: next(
                (m for m in a.from_user(bot_id, dm_room)[n:] if "ペナルティ記録" in m.body),
                None), 60, "the answer to the resent message")
            assert answer.encrypted and answer.failure is None
            assert again in t.bot.input_ids() and lost not in t.bot.input_ids()
        finally:
            t.bot.stop()
            await t.mod.stop()
            for p in players:
                await p.stop()

    run(scenario(), timeout=360)
