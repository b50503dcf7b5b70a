"""Live on Synapse: a table is only for the members of its room, and the bot reads what Element
shows.

- a stranger who knows the room id cannot ``!sit <room id>`` from a DM;
- a player banned from the table's room leaves the table and is dealt nothing more;
- a message whose ``formatted_body`` shows hand talk while its ``body`` says 「よろしく」 is
  flagged as a leak.
"""

from __future__ import annotations

import json
from pathlib import Path

import nio
import pytest
from matrix_helpers import (
    Player,
    TableFactory,
    await_private_cards,
    cards_in,
    open_omaha,
    run,
    wait_for,
)
from test_private import _own_dm, _prefix, _private_reply

from referee.adapters.matrix_delivery import ENCRYPTION

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(400)]


def test_members_only_and_what_is_shown(make_table: TableFactory, tmp_path: Path) -> None:
    async def scenario() -> None:
        t = await make_table(["alice", "bob", "carol"])
        eve = Player(t.hs, t.hs.register(f"eve{t.bot.user.localpart}"), tmp_path / "eve")
        await eve.start()
        try:
            a, b, c = t.players
            await open_omaha(t)
            await t.command(t.mod, f"!grant @{eve.name} 2000", "残高")  # points to sit with
            dm = await _own_dm(eve, t, encrypted=True)
            got = await _private_reply(eve, t, dm, f"!sit {t.room}", "")  # any answer
            assert not [e for e in t.bot.events() if e.get("event") == "say"
                        and eve.name in e.get("text", "") and "着席" in e.get("text", "")
                        ], got.body
            assert _prefix("private_not_member") in got.body, got.body
            r = await t.mod.client.room_ban(t.room, c.user_id, "cheating")
            assert isinstance(r, nio.RoomBanResponse), r
            await t.reply(0, f"{c.name} ?さん.*退席", timeout=60)
            await wait_for(lambda: any(e.get("event") == "leave" and e.get("player") == c.name
                                       for e in t.bot.events()), 30, "carol left the table")
            n = len(t.bot_room_messages())
            await t.say(t.mod, "!deal")
            await t.reply(n, "さんの番です", timeout=60)
            await wait_for(lambda: all(any(cards_in(m.body) for m in p.private_from(
                t.bot.user.user_id, t.room)) for p in (a, b)), 60, "alice's and bob's cards")
            deal = [i["deal"] for i in t.bot.inputs() if i.get("deal")][-1]
            assert c.name not in deal["hands"]
            assert not [m for m in c.private_from(t.bot.user.user_id, t.room)
                        if cards_in(m.body)]
            # alice shows the room her hand in the HTML; the plain body says hello
            r = await a.client.room_send(t.room, "m.room.message", {
                "msgtype": "m.text", "body": "よろしく", "format": "org.matrix.custom.html",
                "formatted_body": "エースのペア持ってるわ"}, ignore_unverified_devices=True)
            assert isinstance(r, nio.RoomSendResponse), r
            await wait_for(lambda: any(e.get("event") in ("flag", "penalty")
                                       and e.get("player") == a.name
                                       and e.get("kind") == "information_leak"
                                       for e in t.bot.events()), 60, "alice's leak flagged")
        finally:
            await eve.stop()
            await t.close()

    run(scenario(), timeout=380)


def test_leaving_the_room_folds_at_once(make_table: TableFactory) -> None:
    """The player the table waits for leaves the room: folded at once (never awarded a pot),
    the next player is asked without waiting for the clock; a rejoin is a new arrival."""
    async def scenario() -> None:
        t = await make_table(["alice", "bob", "carol"])
        try:
            await open_omaha(t)
            n = len(t.bot_room_messages())
            await t.say(t.mod, "!deal")
            prompt = await t.reply(n, "さんの番です", timeout=60)
            who = next(p for p in t.players if prompt.body.startswith(p.name))
            r = await who.client.room_leave(t.room)
            assert isinstance(r, nio.RoomLeaveResponse), r
            await wait_for(lambda: any(e.get("event") == "action" and e.get("player") == who.name
                                       and e.get("action") == "fold"
                                       for e in t.bot.events()), 30, "folded at once")
            others = [p for p in t.players if p is not who]
            await wait_for(lambda: any(m.body.startswith(tuple(p.name for p in others))
                                       and "さんの番です" in m.body
                                       for m in t.bot_room_messages()[n + 1:]
                                       if m.body != prompt.body), 30, "the next player asked")
            assert who.name not in {s for e in t.bot.events() if e.get("event") == "pot"
                                    for s in e.get("shares", {})}
            assert any(i.get("kind") == "directive" and i.get("name") == "departed"
                       for i in t.bot.inputs())
        finally:
            await t.close()

    run(scenario(), timeout=280)


def test_a_reaction_to_the_question_answers_it(make_table: TableFactory) -> None:
    """「…はコールですか？」 answered with 👍 on that very message: the asked player's yes takes
    exactly the offered action; a spectator's reaction confirms nothing."""
    async def scenario() -> None:
        t = await make_table(["alice", "bob"])
        try:
            a, b = t.players
            await open_omaha(t)
            await t.command(t.mod, "!deal", "さんの番です")
            # heads-up: the button (alice, seat 1) posts the SB and acts first preflop
            n = len(t.bot_room_messages())
            await t.say(a, "コーノレで")
            asked = await t.reply(n, "ですか", timeout=60)

            def called() -> bool:
                return any(e.get("event") == "action" and e.get("player") == a.name
                           and e.get("action") == "call" for e in t.bot.events())

            for who in (b, a):
                r = await who.client.room_send(t.room, "m.reaction", {"m.relates_to": {
                    "rel_type": "m.annotation", "event_id": asked.event_id, "key": "👍"}},
                    ignore_unverified_devices=True)
                assert isinstance(r, nio.RoomSendResponse), r
                if who is b:
                    await t.command(t.mod, f"!bank @{b.name}", "残高")  # processed in order
                    assert not called()
            await wait_for(called, 60, "alice's call from her reaction")
        finally:
            await t.close()

    run(scenario(), timeout=280)


def test_a_dm_room_made_before_a_stop_is_adopted(make_table: TableFactory) -> None:
    """The bot made a player's private room and stopped before saving it (made here with the
    bot's own session, as the stopped bot would have): the next private message goes to that
    room, and no second room is made beside it."""
    async def scenario() -> None:
        t = await make_table(["alice", "bob"])
        try:
            a = t.players[0]
            session = json.loads(t.bot._query(
                "SELECT value FROM matrix_kv WHERE key = 'session'")[0][0])
            as_bot = nio.AsyncClient(t.hs.url, t.bot.user.user_id)
            as_bot.restore_login(t.bot.user.user_id, session["device_id"],
                                 session["access_token"])
            try:
                r = await as_bot.room_create(
                    is_direct=True, invite=[a.user_id], preset=nio.RoomPreset.private_chat,
                    initial_state=[ENCRYPTION], name="referee",
                    power_level_override={"invite": 100})
                assert isinstance(r, nio.RoomCreateResponse), r
            finally:
                await as_bot.close()
            orphan = r.room_id
            await wait_for(lambda: orphan in a.client.rooms, 60, "alice joined the orphan")
            await open_omaha(t)
            await t.command(t.mod, "!deal", "さんの番です")
            await await_private_cards(t)
            cards = [m for m in a.private_from(t.bot.user.user_id, t.room) if cards_in(m.body)]
            assert cards and all(m.room == orphan for m in cards), [m.room for m in cards]
            made = [rid for rid, rm in a.client.rooms.items()
                    if rid not in (t.room, orphan) and t.bot.user.user_id in rm.users]
            assert not made, made
        finally:
            await t.close()

    run(scenario(), timeout=280)
