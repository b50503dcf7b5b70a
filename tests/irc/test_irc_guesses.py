"""Acceptance: a stranger behind the owner's ``user@host`` (no ident, one gateway) cannot turn
the guess limits against the owner: five and more wrong guesses at bob from there leave bob's
proven connection and his next connection able to prove (live ngIRCd, ``referee irc`` in a
subprocess); the stranger's own connection is the one that waits. And the daily bound (issue
45, observation 7: 132 wrong guesses a name a day passed the ladder): from fresh connections on
the owner's gateway -- where the name's own ladder does not apply -- the stranger gets
``Guesses.DAILY`` wrong guesses at bob, then even a new connection waits about a day, while
bob's proven connection still proves. (A day later the bound is lifted:
tests/irc/test_irc_identity_units.py, with an injected clock.)

Not on InspIRCd + Atheme: there a player is their services account and ``!pass`` is no proof;
guessing a password is NickServ's to limit, not the bot's."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from ircnet import BOT, BotProcess, Client, Ngircd, bot_in_channel, secret_of
from test_irc_takeover import _bot_private, reply

from referee.adapters.irc_identity import Guesses
from referee.lang.catalog import text as msg

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


def test_a_name_takes_only_a_days_bound_of_wrong_guesses(tmp_path: Path) -> None:
    """On a server of its own (seven connections, 31 guesses: ~40 s) without ngIRCd's
    per-client penalty, which makes it ~50 s."""
    db, channel = tmp_path / "bot.db", "#daily"
    ngircd = Ngircd(penalties=False)
    ngircd.start()
    wrong = msg("irc.pass_wrong", nick="\0", name="bob").split("\0")[-1]
    waits = msg("irc.pass_too_many", nick="\0", seconds="\1")
    head, tail = waits.split("\0")[1].split("\1")

    async def guess(c: Client, n: int) -> tuple[str, int]:
        """One wrong guess at bob: ('wrong', 0) or ('wait', seconds)."""
        start = len(c.messages)
        c.say(BOT, f"!pass @bob wrong-guess-{n}")
        m = await c.wait_msg(lambda m: _bot_private(m) and (m.text.endswith(wrong)
                                                            or head in m.text), 20, start)
        if head in m.text:
            return "wait", int(m.text.split(head, 1)[1].removesuffix(tail).replace(",", ""))
        return "wrong", 0

    async def go() -> None:
        bot = BotProcess(ngircd.port, db, [channel], ["dealer"])
        clients: list[Client] = []
        try:
            bob = Client(ngircd.port, "bob", [channel], user="gw")
            clients.append(bob)
            await bob.connect()
            await bot_in_channel(bob, channel, 30.0)
            got = await reply(bob, f"!pass {secret_of('bob')}")
            assert "確認しました" in got.text, got.text
            answers: list[tuple[str, int]] = []
            for i in range(Guesses.DAILY // Guesses.FREE + 1):
                await asyncio.sleep(1.1)  # another sign-on second: another source
                mal = Client(ngircd.port, f"mal{i}", [], user="gw")  # bob's ~gw@127.0.0.1
                clients.append(mal)
                await mal.connect()
                for j in range(Guesses.FREE):
                    answers.append(await guess(mal, i * Guesses.FREE + j))
                    if answers[-1][0] == "wait":
                        break
                await mal.close()
                if answers[-1][0] == "wait":
                    break
            assert [a for a, _ in answers].count("wrong") == Guesses.DAILY, answers
            assert answers[-1][0] == "wait" and answers[-1][1] > 23 * 3600, answers
            got = await reply(bob, f"!pass {secret_of('bob')}")  # the proven owner: not bound
            assert "確認しました" in got.text, got.text
        finally:
            for c in clients:
                await c.close()
            assert bot.stop() == 0, bot.output()[-3000:]

    try:
        asyncio.run(go())
    finally:
        ngircd.close()
