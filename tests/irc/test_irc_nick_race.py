"""Live on ngIRCd and InspIRCd + Atheme with and without account tags: a nick change between
the deal and the delivery of the cards (issue 45, observation 5: under load, 5 of 5 trials sent
the cards to whoever took the old nick). The bot is paced at one line a second with no burst,
so the cards of a deal wait seconds in the outbox; as soon as the deal's first line is out,
five newcomers write to the bot (each looked up by WHOIS, a second each on ngIRCd: the bot is
busy), every player changes nick and a stranger takes each old nick (never logging in, on the
networks with accounts). Each player's cards reach the new nick (a private line is resolved to
a nick when it is sent, and a NICK is taken in as it arrives), and no stranger gets anything
private."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from ircnet import BOT, Client, Net
from test_irc_hand import _START, PLAYERS, Table
from test_irc_identity import cards_in, dealt, no_private_content

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(180)]


def test_cards_follow_a_nick_changed_right_after_the_deal(own_net: Net, tmp_path: Path) -> None:
    """(own_net: a server of the test's own, each of the three kinds)"""
    db, channel = tmp_path / "bot.db", "#race"
    bot = own_net.bot(db, channel, extra=["--interval", "1.0", "--burst", "1"])
    table = Table(own_net, channel, own_net)
    strangers = [Client(own_net.port, n) for n in PLAYERS]
    busy = [Client(own_net.port, f"newcomer{i}") for i in range(5)]

    async def scenario() -> dict[str, str]:
        try:
            await table.connect()
            await asyncio.gather(*(c.connect() for c in busy))
            d = table.dealer
            d.say(channel, "!open omaha level=3")
            await table.room(lambda t: "テーブルを開きました" in t, 0, 30)
            for n in PLAYERS:
                d.say(channel, f"!grant @{n} 20000")
            for n in PLAYERS:
                await table.room(lambda t, n=n: t.startswith(f"{n}さんのバンクに"), 0, 30)
            for n in PLAYERS:
                table.players[n].say(channel, "!sit")
                await table.room(lambda t, n=n: t.startswith(f"{n}さんが") and "番席に着席" in t,
                                 0, 30)
            start = len(d.messages)
            d.say(channel, "!deal")
            # the deal is taken (its first line is out): the cards wait in the outbox
            await table.room(lambda t: bool(_START.match(t)), start, 30)
            for c in busy:  # newcomers to look up: the bot is busy when the NICKs arrive
                c.say(BOT, "こんにちは")
            for n, c in table.players.items():
                c.raw(f"NICK {n}_")
            for n, c in table.players.items():
                await c.wait_line(lambda ln, n=n: ln.startswith(f":{n}!") and " NICK " in ln)
            assert not [m for c in table.players.values() for m in c.messages
                        if m.sender == BOT and m.private and "手札:" in m.text], \
                "the cards went before the nick change: no race was run"
            await asyncio.gather(*(s.connect() for s in strangers))  # the old nicks, taken
            taken = time.monotonic()
            got: dict[str, str] = {}
            last = 0.0
            for n, c in table.players.items():
                m = await c.wait_msg(lambda m: m.sender == BOT and m.private
                                     and "手札:" in m.text, 30)
                assert m.target == f"{n}_", (n, m.target)
                assert cards_in(m) == dealt(db, n), n
                got[n] = m.target
                last = max(last, m.at)
            # some cards were still queued when the strangers held the old nicks
            assert last > taken, "every card went before a stranger took a nick: no race"
            await asyncio.sleep(2.0)  # anything misdirected would have arrived by now
            for s in strangers:
                no_private_content(s)
            return got
        finally:
            for s in [*strangers, *busy]:
                await s.close()
            await table.close()

    try:
        got = asyncio.run(scenario())
    finally:
        rc = bot.stop()
    assert rc == 0, bot.output()[-3000:]
    assert got == {n: f"{n}_" for n in PLAYERS}
