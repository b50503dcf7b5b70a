"""Encrypted messages the bot cannot decrypt yet, in an encrypted table room on the
real Synapse. A player's client that sends its room key late (here: alice's nio client encrypts
with a fresh megolm session and shares it only later -- what a slow or offline-then-online client
does): the message is held, the room's later messages wait behind it, and once the key arrives
both are processed in their original order with their original timestamps. A key that does not
come within key_wait: a Japanese plaintext notice, the message not processed, and the key that
turns up afterwards only gets a "too late" notice -- never an out-of-turn action. A message held
when the bot is killed is still answered after the restart."""

from __future__ import annotations

import asyncio
import secrets
import urllib.parse
from typing import Any

import nio
import pytest
from matrix_helpers import Player, TableFactory, open_omaha, run, wait_for

from referee.lang.catalog import messages

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(300)]

KEY_WAIT = 10.0  # long enough for the first part on a loaded machine


def say_unshared(p: Player, room: str, text: str) -> str:
    """Send ``text`` encrypted with a new megolm session nobody has the key of yet; the key (at
    index 0) goes out with the next ``share_now``."""
    olm = p.client.olm
    olm.create_outbound_group_session(room)
    sess = olm.outbound_group_sessions[room]
    first_key = sess.session_key
    sess.shared = True  # encrypt now ...
    payload = olm.group_encrypt(
        room, {"type": "m.room.message", "content": {"msgtype": "m.text", "body": text}})
    sess.shared = False  # ... share later, the key as it was before this message

    class Late(type(sess)):  # type: ignore[misc]
        session_key = property(lambda self: first_key)

    sess.__class__ = Late
    path = (f"/_matrix/client/v3/rooms/{urllib.parse.quote(room)}/send/m.room.encrypted/"
            + secrets.token_hex(8))
    return str(p.hs.request("PUT", path, payload, token=p.user.access_token)["event_id"])


async def share_now(p: Player, room: str) -> None:
    r = await p.client.share_group_session(room, ignore_unverified_devices=True)
    assert isinstance(r, nio.ShareGroupSessionResponse), r


def server_ts(p: Player, room: str, event_id: str) -> float:
    ev = p.hs.request("GET", f"/_matrix/client/v3/rooms/{urllib.parse.quote(room)}/event/"
                      + urllib.parse.quote(event_id), token=p.user.access_token)
    return float(ev["origin_server_ts"]) / 1000.0


def _start(key: str) -> str:
    return messages()[key].split("{when}", 1)[1][:12]


def test_late_keys_in_order_or_refused(make_table: TableFactory) -> None:
    async def scenario() -> None:
        t = await make_table(["alice", "bob"], bot_config={"key_wait": KEY_WAIT})
        try:
            a, b = t.players
            r = await t.mod.client.room_put_state(t.room, "m.room.encryption",
                                                  {"algorithm": "m.megolm.v1.aes-sha2"})
            assert isinstance(r, nio.RoomPutStateResponse), r
            await wait_for(lambda: all(p.client.rooms[t.room].encrypted for p in t.everyone),
                           30, "the table room encrypted")
            await open_omaha(t)
            await t.command(t.mod, "!deal", f"{a.name} ?さんの番です")
            # alice's call comes without its key; bob's check (readable) waits behind it.
            call_id = say_unshared(a, t.room, "コール")
            check_id = await t.say(b, "チェック")
            await asyncio.sleep(1.5)
            assert call_id not in t.bot.input_ids() and check_id not in t.bot.input_ids()
            n = len(t.bot_room_messages())
            await share_now(a, t.room)
            await t.reply(n, "^フロップ", timeout=60)
            ids = t.bot.input_ids()
            assert ids.index(call_id) < ids.index(check_id)
            inp: dict[str, Any] = next(i for i in t.bot.inputs() if i["id"] == call_id)
            assert inp["time"] == server_ts(a, t.room, call_id)
            acts = [(e["player"], e["action"]) for e in t.bot.events()
                    if e.get("event") == "action"]
            assert acts[-2:] == [(a.name, "call"), (b.name, "check")], acts
            # A key that never comes in time: the sender is told, the message not processed.
            n = len(t.bot_room_messages())
            lost = say_unshared(a, t.room, "チェック")
            notice = await t.reply(n, _start("undecryptable_gave_up"), timeout=KEY_WAIT + 30)
            assert not notice.encrypted and a.name in notice.body
            assert messages()["undecryptable_reason_timeout"] in notice.body
            assert lost not in t.bot.input_ids()
            # ... and when it turns up after all, it is refused with a reason, not applied.
            n = len(t.bot_room_messages())
            await share_now(a, t.room)
            late = await t.reply(n, _start("undecryptable_late"), timeout=30)
            assert not late.encrypted
            assert lost not in t.bot.input_ids()
            # Held across a crash: the bot killed while it waits, the key sent while it is
            # down; the first sync after the restart brings the key, and the message is answered.
            bank = say_unshared(a, t.room, "!bank")
            await wait_for(lambda: "holding it" in t.bot.log_text().split(bank)[-1]
                           if bank in t.bot.log_text() else False, 30, "the bot holding it")
            t.bot.kill()
            await share_now(a, t.room)
            n = len(t.bot_room_messages())
            t.bot.start()
            await t.reply(n, f"{a.name} ?さんのバンク残高", timeout=90)
            assert bank in t.bot.input_ids()
        finally:
            await t.close()

    run(scenario())
