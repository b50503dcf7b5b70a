"""How the bot looks in a Matrix client, on the real Synapse: every bot message is an
``m.notice`` and no suit is coloured black; an edited message is ignored, and the player is told
so instead of being left to wonder."""

from __future__ import annotations

import pytest
from matrix_helpers import TableFactory, open_omaha, run

from referee.lang.catalog import text

pytestmark = [pytest.mark.server, pytest.mark.timeout(240)]


def test_notices_colours_and_edits(make_table: TableFactory) -> None:
    async def scenario() -> None:
        t = await make_table(["alice", "bob"])
        try:
            a, b = t.players
            await open_omaha(t)
            await t.command(t.mod, "!deal", "さんの番です")
            # heads-up: the button (alice, seat 1) posts the SB and acts first preflop
            original = await t.say(a, "コール")
            await t.reply(0, f"{b.name} ?さんの番です")
            n = len(t.bot_room_messages())
            await a.client.room_send(t.room, "m.room.message", {
                "msgtype": "m.text", "body": "* フォールド",
                "m.new_content": {"msgtype": "m.text", "body": "フォールド"},
                "m.relates_to": {"rel_type": "m.replace", "event_id": original},
            }, ignore_unverified_devices=True)
            told = await t.reply(n, "編集は反映されません")
            assert told.body == text("edit_ignored", player=a.name)
            # the edit changed nothing: alice's call stands, she did not fold
            assert not [e for e in t.bot.events() if e.get("event") == "action"
                        and e.get("player") == a.name and e.get("action") == "fold"]
            ours = t.bot_room_messages() + b.private_from(t.bot.user.user_id, t.room)
            assert ours and all(m.msgtype == "m.notice" for m in ours)
            cards = [m for m in ours if m.formatted and "<b>" in m.formatted]
            assert cards, "a message with cards (the hole cards, the board)"
            assert not [m for m in ours if m.formatted and "#000000" in m.formatted]
        finally:
            await t.close()

    run(scenario())
