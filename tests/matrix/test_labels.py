"""Private messages of a player seated at several tables name the table, uniquely, on the real
Synapse: two tables whose rooms have the same name and two whose rooms have none -- a client
shows those as their member list ("alice, bob and dealer"), which the label never is."""

from __future__ import annotations

import re

import nio
import pytest
from matrix_helpers import TableFactory, cards_in, run, wait_for

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(300)]

_LABEL = re.compile(r"^【([^】]*)】")


def test_every_table_has_its_own_label(make_table: TableFactory) -> None:
    async def scenario() -> None:
        t = await make_table(["alice", "bob"])  # its room is named "table"
        bot_id = t.bot.user.user_id
        rooms = [t.room]
        for name in ("table", None, None):
            r = await t.mod.client.room_create(
                name=name, invite=[p.user_id for p in t.players] + [bot_id])
            assert isinstance(r, nio.RoomCreateResponse), r
            rooms.append(str(r.room_id))

        def joined(room: str) -> bool:
            rm = t.mod.client.rooms.get(room)
            ids = [bot_id] + [p.user_id for p in t.players]
            return rm is not None and all(i in rm.users and i not in rm.invited_users
                                          for i in ids)

        for room in rooms:
            await wait_for(lambda room=room: joined(room), 60, f"everyone joined {room}")
        for p in t.players:
            await t.command(t.mod, f"!grant @{p.name} 8000", "残高")
        for room in rooms:  # seated everywhere first: one table alone needs no label
            n = len(t.mod.from_user(bot_id, room))
            await t.mod.say(room, "!open omaha level=1 maxbuyin=2000")
            for p in t.players:
                await p.say(room, "!sit")
            await wait_for(lambda room=room, n=n: sum(
                "着席しました" in m.body for m in t.mod.from_user(bot_id, room)[n:]) >= 2, 60,
                f"both seated in {room}")
        for room in rooms:
            n = len(t.mod.from_user(bot_id, room))
            await t.mod.say(room, "!deal")
            await wait_for(lambda room=room, n=n: any(
                "さんの番です" in m.body for m in t.mod.from_user(bot_id, room)[n:]), 60,
                f"the deal in {room}")
        for p in t.players:
            def hands(p: object = p) -> list[str]:
                return [m.body for m in t.by_name(p.name).from_user(bot_id)  # type: ignore[attr-defined]
                        if m.room not in rooms and cards_in(m.body)]

            await wait_for(lambda hands=hands: len(hands()) >= len(rooms), 90,
                           f"{p.name}'s four hands")
            labels = [_LABEL.match(body) for body in hands()]
            assert all(labels), hands()
            texts = [m.group(1) for m in labels if m]
            assert len(set(texts)) == len(rooms), texts  # every table told apart
            for text in texts:  # never the member list of an unnamed room
                assert not any(q.name in text for q in t.everyone), text

    run(scenario())
