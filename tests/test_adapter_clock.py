"""The live adapters' action-clock timer, without a server: which tables get a tick, how often,
and that the bots save the tick as an input and deliver what it says."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from event_helpers import handle

from referee.adapters.irc import IrcBot, IrcConfig
from referee.inputs import Message
from referee.service import Referee
from referee.store import Store

pytest.importorskip("referee.parse")


def _table(ref: Referee, room: str, t: float) -> str:
    """A running omaha hand in ``room``; the player to act."""
    for who, text in [("dealer", "!grant @alice 2000"), ("dealer", "!grant @bob 2000"),
                      ("dealer", "!open omaha"), ("alice", "!sit"), ("bob", "!sit"),
                      ("dealer", "!deal")]:
        handle(ref, Message(id=f"{room}{who}{text}", room=room, sender=who, text=text, time=t))
    first = ref.tables[room].engine.to_act()
    assert first is not None
    return first


def test_irc_bot_ticks_a_waiting_table_only_while_registered_and_every_n_seconds(
        tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db")
    ref = Referee(moderators=["dealer"], persistence=store)
    cfg = IrcConfig(server="x", channels=["#poker"], database=tmp_path / "r.db", tick_every=5.0)
    bot = IrcBot(cfg, referee=ref, store=store)
    room = bot.session.room("#poker")
    t = 1000.0
    first = _table(ref, room, t)
    act_after = ref.tables[room].engine.definition.clock.act_after
    assert bot.clock_tick(t + 1) == []  # not registered: players cannot act, no clock
    bot.session.registered = True
    assert bot.clock_tick(t + 1) == [room]
    assert bot.clock_tick(t + 5.9) == []  # rationed: at most one tick per 5 s
    assert bot.clock_tick(t + 6) == [room]
    saved = [i for i in store.inputs() if i.get("kind") == "tick"]
    assert [i["time"] for i in saved] == [t + 1, t + 6]
    bot.outbox.lines.clear()
    assert bot.clock_tick(t + 1 + act_after) == [room]
    texts = [x.text for x in bot.outbox.lines if x.target == "#poker"]
    assert any(first in x and "時間切れ" in x for x in texts)
    assert not ref.tables[room].engine.in_hand  # heads-up: the fold ended the hand
    assert bot.clock_tick(t + 100 + act_after) == []  # between hands: nothing awaited


def test_irc_bot_does_not_tick_a_paused_table(tmp_path: Path) -> None:
    ref = Referee(moderators=["dealer"])
    cfg = IrcConfig(server="x", channels=["#poker"], database=tmp_path / "r.db")
    bot = IrcBot(cfg, referee=ref, store=Store(tmp_path / "r.db"))
    bot.session.registered = True
    room = bot.session.room("#poker")
    _table(ref, room, 1000.0)
    _table(ref, "#elsewhere", 1000.0)  # not one of our channels
    handle(ref, Message(id="p", room=room, sender="dealer", text="!clock off", time=1001.0))
    assert bot.clock_tick(1_000_000.0) == []
    handle(ref, Message(id="r", room=room, sender="dealer", text="!時計再開", time=1002.0))
    assert bot.clock_tick(1_000_000.0) == [room]


def test_matrix_bot_queues_the_tick_replies_after_the_first_sync(tmp_path: Path) -> None:
    from referee.adapters.matrix import MatrixBot, MatrixConfig

    db = tmp_path / "m.db"
    store = Store(db)
    ref = Referee(moderators=["dealer"], persistence=store)
    cfg = MatrixConfig(homeserver="http://x", user_id="@bot:x", database=db, password="p",
                       tick_every=5.0)
    bot = MatrixBot(cfg, referee=ref, store=store)
    room = "!table:x"
    t = 1000.0
    first = _table(ref, room, t)
    act_after = ref.tables[room].engine.definition.clock.act_after

    async def go() -> tuple[list[str], list[str], list[str]]:
        before = await bot.clock_tick(t + 1)  # no sync yet: backlog first
        bot.synced = 1
        started = await bot.clock_tick(t + 1)
        late = await bot.clock_tick(t + 1 + act_after)
        return before, started, late

    try:
        before, started, late = asyncio.run(go())
        assert before == [] and started == [room] and late == [room]
        bodies = [c.get("body", "") for _, _, _, rid, c in bot.state.unsent() if rid == room]
        assert any(first in b and "時間切れ" in b for b in bodies)
        assert [i["time"] for i in store.inputs() if i.get("kind") == "tick"] == [
            t + 1, t + 1 + act_after]
    finally:
        bot.state.close()
