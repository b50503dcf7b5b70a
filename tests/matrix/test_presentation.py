"""How the bot looks in a Matrix client, on the real Synapse: every bot message is an
``m.notice`` and no suit is coloured black; an edited message is ignored, and the player is told
so, privately and once a hand, instead of being left to wonder; what an edit makes the room read
is judged like a new message (an edit into hand talk is flagged)."""

from __future__ import annotations

import nio
import pytest
from matrix_helpers import TableFactory, open_omaha, run, wait_for

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
            told = await wait_for(lambda: [m for m in a.private_from(t.bot.user.user_id, t.room)
                                           if "編集は反映されません" in m.body], 60, "told")
            assert told[0].body.endswith(text("edit_ignored", player=a.name))
            assert not [m for m in t.bot_room_messages()[n:] if "編集" in m.body]
            # a chat line edited into hand talk is judged as the room now reads it
            hello = await t.say(a, "よろしく")
            await a.client.room_send(t.room, "m.room.message", {
                "msgtype": "m.text", "body": "* エースのペア持ってるわ",
                "m.new_content": {"msgtype": "m.text", "body": "エースのペア持ってるわ"},
                "m.relates_to": {"rel_type": "m.replace", "event_id": hello},
            }, ignore_unverified_devices=True)
            await wait_for(lambda: any(e.get("event") in ("flag", "penalty")
                                       and e.get("player") == a.name
                                       and e.get("kind") == "information_leak"
                                       for e in t.bot.events()), 60, "the edited leak flagged")
            # a display name is read by the room too
            def leaks() -> int:
                return sum(1 for e in t.bot.events() if e.get("event") in ("flag", "penalty")
                           and e.get("player") == a.name and e.get("kind") == "information_leak")

            seen = leaks()
            r = await a.client.set_displayname("Aのペア持ってる")
            assert isinstance(r, nio.ProfileSetDisplayNameResponse), r
            await wait_for(lambda: leaks() > seen, 60, "the display name's leak judged")
            # a plain line that starts with "> " is no reply: none of it is stripped unread
            def bob_leaks() -> int:
                return sum(1 for e in t.bot.events() if e.get("event") in ("flag", "penalty")
                           and e.get("player") == b.name and e.get("kind") == "information_leak")

            await b.client.room_send(t.room, "m.room.message", {
                "msgtype": "m.text", "body": "> Qのペア持ってる"}, ignore_unverified_devices=True)
            await wait_for(lambda: bob_leaks() > 0, 60, "the quoted-looking leak judged")
            bob_seen = bob_leaks()
            # an emote is read like any line the room sees; a plain line that starts with
            # "> " is no reply: nothing of it is stripped
            await b.client.room_send(t.room, "m.room.message", {
                "msgtype": "m.emote", "body": "キングのペア持ってる"},
                ignore_unverified_devices=True)
            await wait_for(lambda: bob_leaks() > bob_seen, 60, "the emote's leak flagged")
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
