"""Acceptance: a stranger behind the owner's ``user@host`` (no ident, one gateway) cannot turn
the guess limits against the owner: five and more wrong guesses at bob from there leave bob's
proven connection and his next connection able to prove (live ngIRCd, ``referee irc`` in a
subprocess); the stranger's own connection is the one that waits."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from ircnet import BotProcess, Client, Ngircd, bot_in_channel, secret_of
from test_irc_takeover import reply

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(240)]


def test_a_stranger_on_the_owners_userhost_never_locks_the_owner_out(ngircd: Ngircd,
                                                                      tmp_path: Path) -> None:
    db, channel = tmp_path / "bot.db", "#gw"

    async def go() -> None:
        bot = BotProcess(ngircd.port, db, [channel], ["dealer"])
        clients: list[Client] = []
        try:
            bob = Client(ngircd.port, "bob", [channel], user="gw")
            mal = Client(ngircd.port, "mal", [], user="gw")  # the same ~gw@127.0.0.1
            clients += [bob, mal]
            await asyncio.gather(bob.connect(), mal.connect())
            await bot_in_channel(bob, channel, 30.0)
            got = await reply(bob, f"!pass {secret_of('bob')}")
            assert "登録" in got.text or "確認しました" in got.text, got.text
            answers: list[str] = []
            for i in range(12):  # (a wrong guess may be answered in two lines, or summarised)
                answers.append((await reply(mal, f"!pass @bob wrong-guess-{i}")).text)
                if "受け付けません" in answers[-1]:
                    break
            assert not [a for a in answers if "確認しました" in a], answers
            assert "受け付けません" in answers[-1], answers  # the stranger's connection waits
            got = await reply(bob, f"!pass {secret_of('bob')}")  # bob, proven, is not locked
            assert "確認しました" in got.text, got.text
            await bob.close()
            back = Client(ngircd.port, "bob", [channel], user="gw")  # his next connection
            clients.append(back)
            await back.connect()
            got = await reply(back, f"!pass {secret_of('bob')}")
            assert "確認しました" in got.text, got.text
        finally:
            for c in clients:
                await c.close()
            assert bot.stop() == 0, bot.output()[-3000:]

    asyncio.run(go())
