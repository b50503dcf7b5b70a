"""A player's device that logs in just before ``!deal`` reads that hand's cards, on the real
Synapse: the bot's DM session was already shared with the player's first device (a private
answer before the deal), and the new device (Element's crypto, matrix-js-sdk) starts a moment
before the deal, once it has published its keys but when the bot's own sync has not
necessarily told it about the device. Before sending private content the bot
refreshes the player's device list, claims sessions for new devices (waiting a little for one
that has no keys yet) and, for a device its room key never reached, starts a fresh session.
(The race is one of timing: without that refresh this test failed in 2 of 4 runs here.)"""

from __future__ import annotations

import pytest
from js_player import JsPlayer
from matrix_helpers import ENCRYPTED_DM, TableFactory, cards_in, run, wait_for
from synapse_server import Synapse

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(300)]


def test_a_device_logged_in_just_before_the_deal_reads_its_cards(
        make_table: TableFactory, synapse: Synapse, tmp_path: object) -> None:
    async def scenario() -> None:
        t = await make_table(["alice", "bob"])
        alice = t.players[0]
        bot_id = t.bot.user.user_id
        for p in t.players:
            await t.command(t.mod, f"!grant @{p.name} 2000", "残高")
        await t.command(t.mod, "!open omaha level=1", "テーブルを開きました")
        for p in t.players:
            await t.command(p, "!sit", "着席")
        # Alice's own DM with the bot, its room key shared with her first device.
        r = await alice.client.room_create(is_direct=True, invite=[bot_id],
                                           initial_state=[ENCRYPTED_DM])
        dm = str(r.room_id)
        await wait_for(lambda: bot_id in (alice.client.rooms[dm].users
                                          if dm in alice.client.rooms else {}), 60,
                       "the bot joined alice's DM")
        await alice.say(dm, "!penalties")
        await wait_for(lambda: any("ペナルティ記録" in m.body
                                   for m in alice.from_user(bot_id, dm)), 60,
                       "the private answer on the first device")

        # A second device (Element's crypto) logs in; the deal follows as soon as the device
        # has published its keys (no sender can encrypt for a device before that: the deal
        # would reach only the devices the server knows), while the bot's own sync has not
        # necessarily told it about the device.
        phone = JsPlayer(synapse, alice.user, log=tmp_path / "phone.log")  # type: ignore[operator]
        await phone.start()

        def published() -> bool:
            keys = synapse.request("POST", "/_matrix/client/v3/keys/query",
                                   {"device_keys": {alice.user_id: []}},
                                   token=alice.user.access_token)
            return phone.device_id in keys.get("device_keys", {}).get(alice.user_id, {})

        await wait_for(published, 60, "the new device's keys on the server")
        n = len(t.bot_room_messages())
        await t.say(t.mod, "!deal")
        await t.reply(n, "さんの番です")
        deal = next(i["deal"] for i in t.bot.inputs() if i.get("deal"))
        try:
            got = await wait_for(lambda: next(
                (m for m in alice.from_user(bot_id, dm) if cards_in(m.body)), None),
                60, "the hand's cards on the first device")
            assert cards_in(got.body) == deal["hands"][alice.name]
            on_phone = await wait_for(lambda: next(
                (m for m in phone.from_user(bot_id, dm) if cards_in(m.body)), None),
                60, "the hand's cards on the new device")
            assert cards_in(on_phone.body) == deal["hands"][alice.name]
            assert on_phone.encrypted and on_phone.failure is None
        finally:
            await phone.stop()

    run(scenario())
