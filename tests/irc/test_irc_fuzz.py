"""Containment: no line stops the tables. Against the live ngIRCd with the bot in-process, a raw
socket client sends malformed and unusual lines (CTCP fragments, bad UTF-8, half characters,
over-long lines, formatting soup, secrets in actions, multi-target messages, empty and
parameter-less commands, odd nicks), and lines the server itself would not send are fed into
the bot's connection (numerics without parameters, MONITOR and ISON replies of the wrong
shape, a PART without a channel…). After each one another table's command is answered, and
the bot logs what it skipped in one line, never a traceback."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from ircnet import Client, Ngircd, prove
from test_irc_delivery import with_bot

from referee.adapters.irc import IrcBot

pytestmark = [pytest.mark.server, pytest.mark.timeout(240)]

FROM_A_USER: list[bytes] = [
    b"PRIVMSG referee :\x01",
    b"PRIVMSG referee :\x01ACTION",
    b"PRIVMSG #fz1 :\x01ACTION !pass abcd1234\x01",
    b"PRIVMSG referee :\x01PING 123\x01",
    b"PRIVMSG referee :\x01VERSION\x01",
    b"PRIVMSG referee :" + b"x" * 480,  # (a longer line and ngIRCd drops the sender)
    b"PRIVMSG #fz1 :" + "手札".encode() * 80,
    b"PRIVMSG referee :\xff\xfe\x80 bad utf-8",
    b"PRIVMSG #fz1 :\xe3\x81 half a character",
    b"PRIVMSG referee :!grant @mallory 99999999999999999999999999999",
    b"PRIVMSG referee :!pass",
    b"PRIVMSG referee :!pass @",
    b"PRIVMSG referee :!pass @ x y z",
    b"PRIVMSG referee :!pass @@@@ a b c d e",
    b"PRIVMSG referee :!pass @" + b"n" * 300 + b" secret1",
    b"NOTICE referee :!sit",
    b"NOTICE #fz1 :hi",
    b"PRIVMSG referee,#fz1 :hello both",
    b"PRIVMSG #fz1 :\x03" + b"99,99\x02\x1f\x16" * 50,
    b"PRIVMSG referee :" + b"!" * 400,
    "PRIVMSG referee :{}".format("！" * 120).encode(),
    b"PRIVMSG referee :#fz2 #fz1 !sit #nowhere",
    b"PRIVMSG referee :@@@ ",
    "PRIVMSG #fz1 :\u202e\u200b\u2060 !pass x\ufeff".encode(),
    "PRIVMSG referee :\U0001f0a1\U0001f0b1 \udb40\udc01".encode("utf-8", "surrogatepass"),
    b"PRIVMSG referee :!help " + b"a " * 200,
    b"PRIVMSG referee",
    b"PRIVMSG",
    b"PART #fz1 :" + b"x" * 300,
    b"JOIN #fz1",
    b"NICK {weird|nick}",
    b"PRIVMSG referee :still here",
    b"NICK mal",
]

FROM_THE_SERVER: list[str] = [
    ":irc.test 731 referee",
    ":irc.test 731 referee :",
    ":irc.test 730 referee :!!!,@@@,nick!",
    ":irc.test 303 referee",
    ":irc.test 303 referee :" + "x " * 300,
    ":irc.test 353 referee",
    ":irc.test 353 referee = #fz1",
    ":irc.test 005 referee MONITOR=abc CASEMAPPING= :are supported",
    ":irc.test 005 referee CHANLIMIT=:: PREFIX=( TARGMAX=a:b :are supported",
    ":irc.test 311 referee",
    ":irc.test 317 referee bob ² x",
    ":irc.test 317 referee bob 99999999999999999999999999 1",
    ":irc.test 318 referee",
    ":irc.test 330 referee",
    ":irc.test 999 referee :an unknown numeric",
    ":irc.test 433 referee",
    ":x!y@z PART",
    ":x!y@z KICK #fz1",
    ":x!y@z KICK",
    ":x!y@z QUIT",
    ":x!y@z NICK",
    ":x!y@z JOIN",
    ":x!y@z ACCOUNT",
    ":x!y@z PRIVMSG referee",
    ":x!y@z PRIVMSG",
    ":x!y@z PRIVMSG #fz1 :\x01",
    "@a=b;c :x!y@z PRIVMSG referee :tagged",
    "@account= :x!y@z PRIVMSG referee :empty account tag",
    "garbage",
    ":",
    ":x",
    "CAP",
    ":irc.test CAP referee",
    ":irc.test CAP referee ACK",
    "AUTHENTICATE",
]


def test_malformed_lines_never_stop_another_table(ngircd: Ngircd, tmp_path: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="referee.irc")

    async def body(bot: IrcBot) -> None:
        d = Client(ngircd.port, "dealer", ["#fz2"])
        await d.connect()
        await prove(d)
        reader, writer = await asyncio.open_connection("127.0.0.1", ngircd.port)
        writer.write(b"NICK mal\r\nUSER mal 0 * :mal\r\nJOIN #fz1\r\n")

        pongs: asyncio.Queue[bytes] = asyncio.Queue()  # NAMES answered: the lines before it are

        async def drain() -> None:  # answer PINGs, note NAMES answers, read everything
            while line := await reader.readline():
                if line.startswith(b"PING"):
                    writer.write(b"PONG" + line[4:])
                elif b" 366 " in line:
                    await pongs.put(line)

        reading = asyncio.create_task(drain())
        while b" 366 " not in await asyncio.wait_for(pongs.get(), 30):
            pass  # registered and in #fz1
        try:
            start = len(d.messages)
            d.say("#fz2", "!open omaha level=3")
            await d.wait_msg(lambda m: m.sender == "referee" and "テーブルを開きました" in m.text,
                             20, start)

            async def acknowledged(what: str) -> None:
                start = len(d.messages)
                d.say("#fz2", "!status")
                await d.wait_msg(lambda m: m.sender == "referee" and m.target == "#fz2", 20,
                                 start)

            for n, raw in enumerate(FROM_A_USER):
                # the server has relayed the line once it answers the NAMES sent after it
                writer.write(raw + b"\r\n" + f"NAMES #s{n}\r\n".encode())
                await writer.drain()
                while f" #s{n} ".encode() not in await asyncio.wait_for(pongs.get(), 30):
                    pass
                await acknowledged(repr(raw[:40]))
            for line in FROM_THE_SERVER:
                bot.link.conn._process_line(line)
                await acknowledged(line)
            assert bot.session.connects == 1  # never thrown off
        finally:
            reading.cancel()
            writer.close()
            await d.close()

    asyncio.run(with_bot(ngircd, tmp_path, "#fz1", body, channels_extra=["#fz2"]))
    # An aiohttp session of another file's Matrix test, collected while this one ran, is no
    # line of the IRC bot's (the bot has no HTTP client).
    ours = [r for r in caplog.records
            if not (r.name == "asyncio" and r.getMessage().startswith("Unclosed"))]
    bad = [r for r in ours if r.exc_info or r.levelno >= logging.ERROR]
    assert not bad, [r.getMessage() for r in bad]
    assert all("\n" not in r.getMessage() for r in ours)
