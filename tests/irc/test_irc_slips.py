"""Acceptance: the common ways of typing a secret into the channel by mistake -- ``/msg referee
!pass X``, ``msg referee !pass X``, ``referee: !pass X``, ``!!pass X``, ``!passX`` -- are
voided as ``!pass X`` is: the owner is told privately, whoever read it cannot prove with it,
and it reaches neither the referee's inputs nor the database file (live ngIRCd, ``referee
irc`` in a subprocess).

Not on InspIRCd + Atheme: with accounts the bot keeps no secret to void (a player is their
services account; a password typed in a channel is the services' to deal with). The slips are
still read as secrets there and kept out of the inputs -- the same reader
(tests/irc/test_irc_identity_units.py::test_secret_slips_are_secrets)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from ircnet import BotProcess, Client, Ngircd, bot_in_channel, prove, secret_of
from test_irc_takeover import _bot_private, connected, inputs, reply

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(240)]

SLIPS = {
    "sa": "/msg referee !pass {s}",
    "sb": "msg referee !pass {s}",
    "sc": "referee: !pass {s}",
    "sd": "!!pass {s}",
    "se": "!pass{s}",
    "sf": "／msg referee ！ｐａｓｓ {s}",
}


def test_secret_slips_in_the_channel_are_void_and_never_stored(ngircd: Ngircd,
                                                                tmp_path: Path) -> None:
    db, channel = tmp_path / "bot.db", "#slips"

    async def go() -> None:
        bot = BotProcess(ngircd.port, db, [channel], ["dealer"])
        clients: list[Client] = []
        try:
            clients[:] = await connected(ngircd.port, *SLIPS, "eve", channels=[channel])
            *players, eve = clients
            await bot_in_channel(eve, channel, 30.0)
            for c in players:
                await prove(c)  # sets each one's secret
            for c in players:
                start = len(c.messages)
                c.say(channel, SLIPS[c.nick].format(s=secret_of(c.nick)))
                told = await c.wait_msg(lambda m: _bot_private(m) and "無効" in m.text, 20,
                                        start)
                assert channel in told.text, told.text
                got = await reply(eve, f"!pass @{c.nick} {secret_of(c.nick)}")  # eve read it
                assert "確認しました" not in got.text and "無効" in got.text, (c.nick, got.text)
        finally:
            for c in clients:
                await c.close()
            assert bot.stop() == 0, bot.output()[-3000:]
        for nick in SLIPS:
            assert secret_of(nick) not in bot.output()
        texts = [str(i.get("text", "")) for i in inputs(db)]
        assert not [t for t in texts if any(secret_of(n) in t for n in SLIPS)], texts
        raw = db.read_bytes() + b"".join(p.read_bytes() for p in db.parent.glob("bot.db-*"))
        assert not [n for n in SLIPS if secret_of(n).encode() in raw]

    asyncio.run(go())
