"""Live on ngIRCd and InspIRCd + Atheme with and without account tags: a player who PARTs the
table's channel (or is KICKed) during a hand is folded at once and never awarded a pot, and the
table moves on without the clock; after a restart the bot tells the table's channel it is back,
with whom the table waits for."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from ircnet import BotProcess, Net
from test_irc_hand import _PROMPT, PLAYERS, Table, _stored

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(120)]


@pytest.fixture(params=["ngircd", "services", "services_whois"])
def net(request: pytest.FixtureRequest) -> Net:
    """The session's server of each kind (conftest.py)."""
    server = request.getfixturevalue(request.param)
    return Net(server.port, request.param != "ngircd", request.param)


def test_a_part_folds_at_once_and_a_restart_says_the_dealer_is_back(net: Net,
                                                                    tmp_path: Path) -> None:
    db, channel = tmp_path / "bot.db", f"#leave-{net.kind}"
    bot = net.bot(db, channel)
    table = Table(net, channel, net)

    async def scenario() -> str:
        try:
            await table.connect()
            await table.setup()
            prompt = await table.room(lambda t: bool(_PROMPT.match(t)))
            m = _PROMPT.match(prompt.text)
            assert m is not None
            who = m.group(1)
            pos = table.dealer.messages.index(prompt) + 1
            table.players[who].raw(f"PART {channel} :bye")
            # folded at once: the next player is asked well before the 60 s reminder
            nxt = await table.room(lambda t: bool(_PROMPT.match(t)) and not t.startswith(who),
                                   pos, 20)
            assert nxt is not None
            return who
        finally:
            await table.close()

    who = asyncio.run(scenario())
    _, events = _stored(db)
    folds = [e for e in events if e["event"] == "action" and e["player"] == who]
    assert folds and folds[-1]["action"] == "fold", folds
    assert who not in {p for e in events if e["event"] == "pot" for p in e.get("shares", {})}
    assert bot.stop() == 0, bot.output()[-3000:]

    # the bot comes back to a channel where the dealer waits: it is told the dealer is back
    table2 = Table(net, channel, net)
    table2.players = {n: table2.players[n] for n in PLAYERS if n != who}
    bots: list[BotProcess] = []

    async def back() -> None:
        try:
            await asyncio.gather(*(c.connect() for c in table2.clients))
            bots.append(net.bot(db, channel))
            await table2.room(lambda t: "ディーラーが戻りました" in t, 0, 30)
        finally:
            await table2.close()

    asyncio.run(back())
    assert bots[0].stop() == 0, bots[0].output()[-3000:]
