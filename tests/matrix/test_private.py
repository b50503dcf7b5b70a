"""Private rooms the bot can vouch for, and commands typed in them,
on the real Synapse.

3. A player makes an *unencrypted* room marked ``is_direct`` with the bot and a third person;
   another player adopts their own encrypted DM and then invites someone into it. No private
   content ever lands in either room: the bot makes its own DM instead.
4. ``!deal``, ``!leave`` and ``!open`` typed in a DM: the first two act on the sender's (or the
   named) table and announce in the table's room; ``!open`` is refused with a reason.
"""

from __future__ import annotations

from typing import Any

import nio
import pytest
from matrix_helpers import ENCRYPTED_DM, Player, Table, TableFactory, cards_in, run, wait_for

from referee.lang.catalog import messages

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(300)]


def _bot_msgs(p: Player, t: Table, room: str) -> list[Any]:
    return [m for m in p.messages if m.sender == t.bot.user.user_id and m.room == room]


def _prefix(key: str) -> str:
    """The fixed start of a catalogue message (up to its first parameter after the name)."""
    return messages()[key].split("{sender}さん: ", 1)[-1].split("{", 1)[0]


async def _own_dm(p: Player, t: Table, encrypted: bool, invite: tuple[str, ...] = ()) -> str:
    """A room ``p`` makes: is_direct, inviting the bot (and ``invite``); joined by the bot."""
    r = await p.client.room_create(
        is_direct=True, invite=[t.bot.user.user_id, *invite],
        initial_state=[ENCRYPTED_DM] if encrypted else [])
    assert isinstance(r, nio.RoomCreateResponse), r
    room = r.room_id

    def bot_joined() -> bool:
        rm = p.client.rooms.get(room)
        return bool(rm and t.bot.user.user_id in rm.users
                    and t.bot.user.user_id not in rm.invited_users)

    await wait_for(bot_joined, 60, "the bot joined the DM")
    return str(room)


async def _private_reply(p: Player, t: Table, room: str, text: str, pattern: str) -> Any:
    """Say ``text`` in ``room``; the bot's private answer matching ``pattern`` (any room)."""
    n = len(p.from_user(t.bot.user.user_id))
    await p.say(room, text)

    def found() -> Any:
        for m in p.from_user(t.bot.user.user_id)[n:]:
            if m.room != t.room and pattern in m.body:
                return m
        return None

    return await wait_for(found, 30, f"a private answer with {pattern!r}")


def test_private_content_only_in_rooms_the_bot_vouches_for(make_table: TableFactory) -> None:
    async def scenario() -> None:
        t = await make_table(["alice", "carol"])
        try:
            a, c = t.players
            bot = t.bot.user.user_id
            # Attack 3: alice's unencrypted "DM", with carol in it too.
            trap = await _own_dm(a, t, encrypted=False, invite=(c.user_id,))
            await wait_for(lambda: trap in c.client.rooms, 30, "carol in the trap room")
            # carol's own encrypted DM: adopted (bot and carol only) -- for now.
            carol_dm = await _own_dm(c, t, encrypted=True)
            for p in t.players:
                await t.command(t.mod, f"!grant @{p.name} 2000", "残高")
            await t.command(t.mod, "!open omaha level=1", "テーブルを開きました")
            for p in t.players:
                await t.command(p, "!sit", "着席")
            await t.command(t.mod, "!deal", "さんの番です")
            await wait_for(lambda: all(
                any(cards_in(m.body) for m in p.private_from(bot, t.room)) for p in t.players),
                60, "private cards")
            # alice's cards came in a room the bot made: encrypted, only her and the bot.
            a_cards = next(m for m in a.private_from(bot, t.room) if cards_in(m.body))
            assert a_cards.room != trap and a_cards.encrypted
            assert set(a.client.rooms[a_cards.room].users) == {a.user_id, bot}
            # carol's came in her own DM, which held only her and the bot.
            c_cards = next(m for m in c.private_from(bot, t.room) if cards_in(m.body))
            assert c_cards.room == carol_dm and c_cards.encrypted
            # A private question typed in the trap room is answered in the private room.
            answer = await _private_reply(a, t, trap, "手札は？", "あなたの手札")
            assert answer.room == a_cards.room and answer.encrypted
            # carol lets alice into her DM: it is no private channel any more.
            r = await c.client.room_invite(carol_dm, a.user_id)
            assert isinstance(r, nio.RoomInviteResponse), r
            await wait_for(lambda: carol_dm in a.client.rooms, 30, "alice invited")
            answer = await _private_reply(c, t, carol_dm, "手札は？", "あなたの手札")
            assert answer.room not in (carol_dm, trap, t.room) and answer.encrypted
            assert set(c.client.rooms[answer.room].users) == {c.user_id, bot}
            # The rooms the bot made cannot be opened to anyone by the player.
            r = await a.client.room_invite(a_cards.room, c.user_id)
            assert isinstance(r, nio.RoomInviteError), r
            # Nothing the bot ever said reached the trap room; after the invite, carol's old DM
            # got nothing more.
            assert _bot_msgs(a, t, trap) == [] and _bot_msgs(c, t, trap) == []
            before_invite = {m.event_id for m in _bot_msgs(c, t, carol_dm)}
            assert all(not cards_in(m.body) or m.event_id in before_invite
                       for m in _bot_msgs(a, t, carol_dm))
            log = t.bot.log_text()
            assert "no private channel (not encrypted)" in log
            assert "no private channel (members:" in log
        finally:
            await t.close()

    run(scenario())


def test_commands_in_a_dm_act_on_the_table(make_table: TableFactory) -> None:
    async def scenario() -> None:
        t = await make_table(["alice", "bob"])
        try:
            a = t.players[0]
            mod_dm = await _own_dm(t.mod, t, encrypted=True)
            alice_dm = await _own_dm(a, t, encrypted=True)
            # !open in a DM: refused, with the reason; no table is opened anywhere.
            refused = await _private_reply(t.mod, t, mod_dm, "!open holdem_aa",
                                           _prefix("private_open_refused"))
            assert refused.room == mod_dm
            assert not [e for e in t.bot.events() if "テーブルを開きました" in e.get("text", "")]
            for p in t.players:
                await t.command(t.mod, f"!grant @{p.name} 2000", "残高")
            await t.command(t.mod, "!open omaha level=1", "テーブルを開きました")
            for p in t.players:
                await t.command(p, "!sit", "着席")
            # The moderator sits at no table: a bare !deal names none, and is refused.
            await _private_reply(t.mod, t, mod_dm, "!deal", _prefix("private_no_table"))
            assert not any(i.get("deal") for i in t.bot.inputs())
            # Named by the room's alias, it deals at that table; the room hears it.
            alias = f"#tbl{t.bot.user.localpart}:{t.hs.server_name}"
            t.hs.request("PUT", "/_matrix/client/v3/directory/room/" + alias.replace("#", "%23"),
                         {"room_id": t.room}, token=t.mod.user.access_token)
            r = await t.mod.client.room_put_state(t.room, "m.room.canonical_alias",
                                                  {"alias": alias})
            assert isinstance(r, nio.RoomPutStateResponse), r
            n = len(t.bot_room_messages())
            await t.mod.say(mod_dm, f"!deal {alias}")
            await t.reply(n, "さんの番です", timeout=60)
            assert sum(1 for i in t.bot.inputs() if i.get("deal")) == 1
            # alice's !leave in her DM: the table's room is told.
            n = len(t.bot_room_messages())
            await a.say(alice_dm, "!leave")
            left = await t.reply(n, f"{a.name} ?さん.*退席")
            assert left.room == t.room
            assert not [m for m in _bot_msgs(a, t, alice_dm) if "退席" in m.body]
        finally:
            await t.close()

    run(scenario())
