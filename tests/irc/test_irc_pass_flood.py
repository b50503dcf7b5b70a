"""Live on ngIRCd: strangers' ``!pass`` never stall the table (issue 45, observation 4). Ten
strangers send forty ``!pass`` lines each by private message -- guesses at a player's name and
at their own -- while three players play a hand: each player's cards arrive within 5 s of the
deal, each prompt within 5 s of the action before it, nobody who acted is timed out (every
action stored is one a player sent, none a clock's), and the bot stops within a few seconds of
SIGTERM sent during the flood. Twice: on ngIRCd as shipped and without its per-client penalty
(all 400 lines at the bot within about a second).

Not on InspIRCd + Atheme: with accounts ``!pass`` is no proof; the bot answers it at once that
the network's accounts are used (no WHOIS, no scrypt, no guess limit: nothing that could stall
the worker), and that answer is an ordinary reply under the per-recipient budget
(tests/irc/test_irc_flood.py floods a services network with replies)."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from ircnet import BOT, BotProcess, Client, Ngircd
from test_irc_hand import _PROMPT, PLAYERS, Table, _stored, timed_out

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(240)]


@pytest.fixture(params=["penalties", "no-penalties"])
def ngircd(request: pytest.FixtureRequest) -> Iterator[Ngircd]:
    """A server of the test's own: ngIRCd as shipped (it reads about a line a second from each
    stranger, so the flood reaches the bot over ~40 s) and without its per-client penalty
    (``MaxPenaltyTime = 0``: the 400 lines reach the bot within about a second)."""
    server = Ngircd(penalties=request.param == "penalties")
    try:
        server.start()
        yield server
    finally:
        server.close()

STRANGERS, LINES = 10, 40


async def _flood(c: Client, i: int, done: list[int]) -> None:
    """Forty ``!pass`` lines: the even strangers guess at alice's secret, the odd ones at
    their own name (a first one sets it, the rest are wrong)."""
    for n in range(LINES):
        target = "@alice " if i % 2 == 0 else ""
        c.say(BOT, f"!pass {target}guess-{i}-{n}" if n else f"!pass {target}mine-{i}-secret")
        done[0] += 1
        await asyncio.sleep(0.02)
    assert c.writer is not None
    await c.writer.drain()


def test_strangers_pass_flood_never_holds_up_the_table(ngircd: Ngircd, tmp_path: Path) -> None:
    db, channel = tmp_path / "bot.db", "#passflood"
    # paced under what ngIRCd reads from a client (about three lines a second): faster, the
    # server's own queue would hold the table's lines behind the replies whatever the bot does
    bot = BotProcess(ngircd.port, db, [channel], ["dealer"], extra=["--interval", "0.4"])
    table = Table(ngircd, channel)
    card_waits: list[float] = []
    waits: list[float] = []
    sent_lines = [0]

    async def deal_under_flood() -> None:
        await table.seat()
        card_waits.extend((await table.deal_timed(30))[2])

    async def scenario() -> None:
        strangers = [Client(ngircd.port, f"stranger{i}") for i in range(STRANGERS)]
        try:
            await table.connect()
            await asyncio.gather(*(s.connect() for s in strangers))
            flooding = [asyncio.create_task(_flood(s, i, sent_lines))
                        for i, s in enumerate(strangers)]
            await deal_under_flood()
            pos, sent_at = 0, None
            # the hand's first 8 actions while the flood is still being served, each answered
            # by the next prompt -- the last one's too, before the stop: an action still on its
            # way to the bot when SIGTERM comes is not the bot's to take
            for n in range(9):
                m = await table.room(lambda t: bool(_PROMPT.match(t)), pos, 60)
                if sent_at is not None:
                    waits.append(m.at - sent_at)
                if n == 8:
                    break
                pos = table.dealer.messages.index(m) + 1
                pm = _PROMPT.match(m.text)
                assert pm is not None
                name, options = pm.group(1), pm.group(2)
                text = "チェック" if "チェック" in options else "コール"
                table.players[name].say(channel, text)
                table.sent.append((name, text))
                sent_at = time.monotonic()
            await asyncio.gather(*flooding)
            # SIGTERM while the bot still has the flood's lines to check and answer
            t0 = time.monotonic()
            bot.proc.send_signal(signal.SIGTERM)
            rc = await asyncio.to_thread(bot.proc.wait, 30)
            stop_took = time.monotonic() - t0
            assert rc == 0, bot.output()[-3000:]
            assert stop_took < 5.0, stop_took
            print(f"\n{sent_lines[0]} !pass lines; cards after {max(card_waits):.2f}s; prompts "
                  f"after {max(waits):.2f}s at most; stopped in {stop_took:.2f}s")
        finally:
            for s in strangers:
                await s.close()
            await table.close()

    try:
        asyncio.run(scenario())
    finally:
        bot.stop()
    assert sent_lines[0] == STRANGERS * LINES
    log = bot.output()  # the checks still running at the stop end quietly, before the store
    assert "Traceback" not in log and "check failed" not in log, log[-3000:]
    assert len(card_waits) == len(PLAYERS) and max(card_waits) < 5.0, card_waits
    assert waits and max(waits) < 5.0, waits
    # nobody who acted was timed out: every action stored is one a player sent
    _, events = _stored(db)
    actions = [(e["player"], e["action"]) for e in events if e["event"] == "action"]
    assert len(actions) == len(table.sent), (actions, table.sent)
    assert not timed_out(db)
    assert not [e for e in events if e["event"] == "rejected"]
