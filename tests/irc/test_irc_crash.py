"""Live on ngIRCd and InspIRCd + Atheme with and without account tags (a server of the test's
own, conftest.own_net): the bot killed mid-hand (SIGKILL) and started again (issue 45, observation
9: after a crash the bot was silent, did not repeat the prompt, and actions sent while it was
down were lost without a word). The action the awaited player sends while the bot is down
never reaches it; when it is back it says so in the channel with whom it waits for, and that
what was said meanwhile did not reach it; the same action sent again is taken, and the hand
ends with the stacks a replay of the actions taken gives, every action once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from ircnet import Net
from test_irc_hand import _PROMPT, Table, check_cards_and_stacks, policy_factory

from referee.lang.catalog import text as msg

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(240)]


def test_after_a_crash_the_bot_says_it_is_back_and_whom_it_waits_for(own_net: Net,
                                                                      tmp_path: Path) -> None:
    db, channel = tmp_path / "bot.db", "#crash"
    bots = [own_net.bot(db, channel)]
    table = Table(own_net, channel, own_net)
    policy = policy_factory()
    unseen = msg("irc.back_unseen")

    async def scenario() -> tuple[str, str]:
        try:
            await table.connect()
            await table.setup()
            pos = await table.play(policy, until=lambda n: n >= 2)
            m = await table.room(lambda t: bool(_PROMPT.match(t)), pos, 30)
            pos = table.dealer.messages.index(m) + 1
            pm = _PROMPT.match(m.text)
            assert pm is not None
            name, action = pm.group(1), policy(pm.group(1), pm.group(2))
            bots[0].proc.kill()  # a crash: no goodbye, nothing flushed but what was committed
            bots[0].proc.wait(10)
            table.players[name].say(channel, action)  # said while the bot is down: lost
            await asyncio.sleep(1.0)
            bots.append(own_net.bot(db, channel, seed=False))
            back = await table.room(lambda t: "ディーラーが戻りました" in t, pos, 60)
            await table.room(lambda t: t == unseen, pos, 30)
            table.players[name].say(channel, action)  # sent again: taken
            table.sent.append((name, action))
            await table.play(policy, start=pos)
            return name, back.text
        finally:
            await table.close()

    try:
        name, back = asyncio.run(scenario())
    finally:
        rc = bots[-1].stop()
    assert rc == 0, bots[-1].output()[-3000:]
    assert msg("status_turn", player=name) in back, back  # whom it waits for: the prompt again
    check_cards_and_stacks(table, db, tmp_path)
