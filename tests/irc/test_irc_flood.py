"""Live: one player's channel commands never stall the table (issue 45, observation 3:
``!status``/``!rules``/``!help`` at 30 a second for 10 s delayed cards by 46-90 s and a prompt
by 254-400 s, and the clock folded another player).

On a network of the test's own (conftest.flood_net), each of: ngIRCd with its per-client
penalty off (``MaxPenaltyTime = 0``: by default ngIRCd reads about a line a second from a busy
client, so a 30-a-second flood would reach the bot at that pace), and InspIRCd + Atheme with
and without account tags (no fake lag there; players are their NickServ accounts). alice,
seated, sends the three commands in turn at 30 a second for 10 s in the table's channel; the
dealer deals a second into it and everyone plays the hand out. The dealer's client sees
alice's 300 lines relayed at that rate (the bot, in the same channel, gets them so); every
player's cards arrive within 5 s of the deal and every prompt within 5 s of the action
before it; nobody is timed out (every action stored is one its player sent); the flood is
mostly not taken (irc.ASKS_PER_WINDOW a window).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from ircnet import Client, Net
from test_irc_hand import _PROMPT, _SHOWDOWN, PLAYERS, Table, _stored, timed_out

from referee.adapters.irc import ASK_WINDOW, ASKS_PER_WINDOW

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(240)]

RATE, SECONDS = 30, 10
ASKS = ("!status", "!rules", "!help")


async def _flood(alice: Client, channel: str, sent: list[float]) -> None:
    """RATE lines a second for SECONDS, on a fixed schedule (a late line does not shift the
    rest): the three commands in turn."""
    assert alice.writer is not None
    t0 = time.monotonic()
    for i in range(RATE * SECONDS):
        alice.say(channel, ASKS[i % len(ASKS)])
        sent.append(time.monotonic())
        if i % RATE == RATE - 1:
            await alice.writer.drain()
        await asyncio.sleep(max(0.0, t0 + (i + 1) / RATE - time.monotonic()))
    await alice.writer.drain()


def test_a_players_flood_of_asks_never_holds_up_the_table(flood_net: Net,
                                                           tmp_path: Path) -> None:
    db, channel = tmp_path / "bot.db", "#flood"
    bot = flood_net.bot(db, channel)
    table = Table(flood_net, channel, flood_net)
    card_waits: list[float] = []
    waits: list[float] = []
    sent: list[float] = []

    async def scenario() -> None:
        d = table.dealer
        try:
            await table.connect()
            await table.seat()
            flooding = asyncio.create_task(_flood(table.players["alice"], channel, sent))
            await asyncio.sleep(1.0)
            start, dealt, waited = await table.deal_timed(60)
            card_waits.extend(waited)
            pos, sent_at = start, dealt
            while True:  # the hand, played out (checks and calls) under the flood
                m = await table.room(lambda t: bool(_PROMPT.match(t) or _SHOWDOWN.match(t))
                                     or " → " in t, pos, 60)
                waits.append(m.at - sent_at)
                pos = d.messages.index(m) + 1
                pm, sd = _PROMPT.match(m.text), _SHOWDOWN.match(m.text)
                if pm is None and sd is None:
                    break
                name = (pm or sd).group(1)  # type: ignore[union-attr]
                text = ("オープン" if sd is not None
                        else "チェック" if "チェック" in pm.group(2) else "コール")  # type: ignore[union-attr]
                table.players[name].say(channel, text)
                table.sent.append((name, text))
                sent_at = time.monotonic()
            await flooding
            await asyncio.sleep(1.0)
        finally:
            await table.close()

    try:
        asyncio.run(scenario())
    finally:
        rc = bot.stop()
    assert rc == 0, bot.output()[-3000:]
    # the flood went through the server at its rate: the dealer saw alice's lines so
    seen = [m.at for m in table.dealer.messages if m.sender == "alice" and m.text in ASKS]
    span = seen[-1] - seen[0]
    print(f"\n{flood_net.kind}: {len(sent)} lines sent in {sent[-1] - sent[0]:.1f}s, relayed in "
          f"{span:.1f}s; cards after {max(card_waits):.2f}s at most; {len(waits)} prompts, "
          f"the slowest after {max(waits):.2f}s")
    assert len(sent) == len(seen) == RATE * SECONDS, (len(sent), len(seen))
    assert span < SECONDS * 1.2, span
    assert len(card_waits) == len(PLAYERS) and max(card_waits) < 5.0, card_waits
    assert len(waits) > 5 and max(waits) < 5.0, waits
    assert not timed_out(db)  # nobody who acted in time was timed out
    inputs, events = _stored(db)
    actions = [(e["player"], e["action"]) for e in events if e["event"] == "action"]
    assert len(actions) == len(table.sent), (actions, table.sent)  # each once, none more
    assert not [e for e in events if e["event"] == "rejected"]
    taken = [i for i in inputs if i.get("text") in ASKS]  # the flood: mostly not taken
    assert len(taken) <= ASKS_PER_WINDOW * (SECONDS / ASK_WINDOW + 2), len(taken)
