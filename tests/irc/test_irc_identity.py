"""Acceptance: a nick alone never gets another player's cards or a
moderator's powers -- on ngIRCd without services (players prove themselves with ``!pass``) and
on InspIRCd + Atheme with services (players are their NickServ accounts), before and after a
restart of the bot (``referee irc`` in a subprocess on a real SQLite file); the real player keeps
their seat and cards across a nick change and a restart."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from ircnet import (
    BOT,
    BotProcess,
    Client,
    Msg,
    Net,
    Ngircd,
    Services,
    bot_in_channel,
    prove,
    register,
    secret_of,
)

from referee.cards import card_str, parse_cards
from referee.store.log import register as install_log

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(150)]

_CARD = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]")




def _from_bot(m: Msg) -> bool:
    return m.sender == BOT


def stored(db: Path) -> tuple[list[dict[str, Any]], list[tuple[str, int]]]:
    conn = sqlite3.connect(str(db))
    install_log(conn)
    try:
        inputs = [json.loads(r[0]) for r in conn.execute("SELECT input FROM log ORDER BY seq")]
        ledger = [(str(p), int(d)) for p, d in conn.execute("SELECT player, delta FROM ledger")]
    finally:
        conn.close()
    return inputs, ledger


def dealt(db: Path, name: str) -> list[str]:
    inputs, _ = stored(db)
    deals = [i["deal"] for i in inputs if i.get("deal")]
    assert deals, "no deal recorded"
    return list(deals[-1]["hands"][name])


def cards_in(m: Msg) -> list[str]:
    return [card_str(c) for c in parse_cards(m.text.split("手札:", 1)[1])]


def no_private_content(c: Client) -> None:
    """Nothing the bot sent this client shows a card."""
    for m in c.messages:
        if _from_bot(m):
            assert not _CARD.search(m.text) and "あなたの手札" not in m.text, m.text


async def open_table(net: Net, channel: str, db: Path) -> tuple[Client, dict[str, Client]]:
    d = Client(net.port, "dealer", [channel])
    players = {n: Client(net.port, n, [channel]) for n in ("alice", "bob")}
    await asyncio.gather(d.connect(), *(p.connect() for p in players.values()))
    await bot_in_channel(d, channel, 30.0)
    await asyncio.gather(net.login(d), *(net.login(p) for p in players.values()))

    async def room(pred: Any, start: int = 0) -> Msg:
        return await d.wait_msg(lambda m: _from_bot(m) and m.target == channel and pred(m.text),
                                20, start)

    d.say(channel, "!open omaha level=3")
    await room(lambda t: "テーブルを開きました" in t)
    for n in players:
        d.say(channel, f"!grant @{n} 20000")
        await room(lambda t, n=n: t.startswith(f"{n}さんのバンクに"))
    for n, p in players.items():
        p.say(channel, "!sit")
        await room(lambda t, n=n: "着席しました" in t and t.startswith(n + "さん"))
    d.say(channel, "!deal")
    for n, p in players.items():
        m = await p.wait_msg(lambda m: _from_bot(m) and m.private and "手札:" in m.text, 20)
        assert cards_in(m) == dealt(db, n)
    return d, players


async def ask_cards(c: Client) -> Msg:
    start = len(c.messages)
    c.say(BOT, "手札")
    return await c.wait_msg(lambda m: _from_bot(m) and m.private, 20, start)


async def restart(net: Net, bot: BotProcess, db: Path, channel: str, watcher: Client
                  ) -> BotProcess:
    assert bot.stop() == 0, bot.output()[-3000:]
    new = net.bot(db, channel)
    await bot_in_channel(watcher, channel, 30.0)
    return new


async def attack_1(net: Net, db: Path, channel: str) -> None:
    """alice only changed nick; after a restart of the bot a stranger takes the nick alice.
    bob changes nick while the bot is down: with accounts he is still bob; with secrets he
    proves again (his saved proof was bound to the nick it was made under)."""
    bot = net.bot(db, channel)
    clients: list[Client] = []
    try:
        d, players = await open_table(net, channel, db)
        alice = players["alice"]
        clients += [d, *players.values()]
        alice.raw("NICK alice_")
        await alice.wait_line(lambda ln: ln.startswith(":alice!") and " NICK " in ln)
        assert bot.stop() == 0, bot.output()[-3000:]
        bob = players["bob"]  # bob changes nick while the bot is down: it never sees it
        bob.raw("NICK bobby")
        await bob.wait_line(lambda ln: ln.startswith(":bob!") and " NICK " in ln)
        bot = net.bot(db, channel)
        await bot_in_channel(d, channel, 30.0)
        mallory = Client(net.port, "alice", [channel])
        clients.append(mallory)
        await mallory.connect()
        got = await ask_cards(mallory)  # the stranger gets the way to prove, no cards
        assert ("NickServ" if net.accounts else "本人確認がまだです") in got.text, got.text
        start = len(mallory.messages)
        mallory.say(BOT, f"!pass @alice {secret_of('mallory')}")  # a guess
        await mallory.wait_msg(lambda m: _from_bot(m) and m.private, 20, start)
        mallory.say(channel, "!leave")  # acting on alice's seat: refused
        mallory.say(channel, "フォールド")
        got = await ask_cards(alice)  # the real alice, under her new nick, after the restart
        assert got.target == "alice_" and cards_in(got) == dealt(db, "alice"), got.text
        got = await ask_cards(bob)
        if net.accounts:  # the account, whatever its nick now
            assert got.target == "bobby" and cards_in(got) == dealt(db, "bob"), got.text
        else:  # a nick changed while the bot was away: nothing tells it from a second
            # connection through the same gateway in the same second, so bob proves again
            assert "本人確認がまだです" in got.text and not _CARD.search(got.text), got.text
            await prove(bob, "bob")
            got = await ask_cards(bob)
            assert got.target == "bobby" and cards_in(got) == dealt(db, "bob"), got.text
        start = len(d.messages)
        d.say(channel, "!status")
        status = await d.wait_msg(lambda m: _from_bot(m) and m.target == channel
                                  and "alice" in m.text, 20, start)
        assert "alice" in status.text and "bob" in status.text
        no_private_content(mallory)
    finally:
        for c in clients:
            await c.close()
        rc = bot.stop()
    assert rc == 0, bot.output()[-3000:]
    inputs, _ = stored(db)
    assert not [i for i in inputs if i.get("sender") == "alice" and i.get("text") in
                ("!leave", "フォールド")]


async def attack_2(net: Net, db: Path, channel: str) -> None:
    """bob quits mid-hand and the moderator quits; strangers connect as bob and as dealer."""
    bot = net.bot(db, channel)
    clients: list[Client] = []
    try:
        d, players = await open_table(net, channel, db)
        clients += [d, *players.values()]
        bob_cards = dealt(db, "bob")
        await players["bob"].close()
        await d.close()
        fake_bob = Client(net.port, "bob", [channel])
        fake_dealer = Client(net.port, "dealer", [channel])
        clients += [fake_bob, fake_dealer]
        await asyncio.gather(fake_bob.connect(), fake_dealer.connect())
        watcher = players["alice"]
        # table talk from the stranger is refereed all the same, under a name nobody has
        fake_bob.say(channel, "降りたほうがいいよ")
        for round_ in ("before", "after"):
            if round_ == "after":
                bot = await restart(net, bot, db, channel, watcher)
            got = await ask_cards(fake_bob)
            assert "あなたの手札" not in got.text, got.text
            start = len(fake_bob.messages)
            fake_bob.say(BOT, f"!pass {secret_of('mallory')}")  # bob has a secret: wrong
            await fake_bob.wait_msg(lambda m: _from_bot(m) and m.private, 20, start)
            start = len(fake_dealer.messages)
            fake_dealer.say(channel, "!grant @mallory 99999")
            await fake_dealer.wait_msg(lambda m: _from_bot(m) and m.private, 20, start)
            # (the way to prove goes at most once per 5 s to a nick: the !pass answer below,
            # always given, shows the bot has handled this line, in order)
            fake_dealer.say(BOT, "!grant @mallory 99999")
            start = len(fake_dealer.messages)
            fake_dealer.say(BOT, f"!pass {secret_of('mallory')}")  # a moderator: never TOFU
            m = await fake_dealer.wait_msg(lambda m: _from_bot(m) and m.private, 20, start)
            assert "確認しました" not in m.text, m.text
        no_private_content(fake_bob)
        no_private_content(fake_dealer)
        await fake_bob.close()
        await fake_dealer.close()
        # the real bob comes back, proves who he is, and has his seat and cards
        bob = Client(net.port, "bob", [channel])
        clients.append(bob)
        await bob.connect()
        await net.login(bob)
        got = await ask_cards(bob)
        assert cards_in(got) == bob_cards, got.text
        dealer = Client(net.port, "dealer", [channel])
        clients.append(dealer)
        await dealer.connect()
        await net.login(dealer)
        start = len(dealer.messages)
        dealer.say(channel, "!status")
        await dealer.wait_msg(lambda m: _from_bot(m) and "bob" in m.text, 20, start)
    finally:
        for c in clients:
            await c.close()
        rc = bot.stop()
    assert rc == 0, bot.output()[-3000:]
    inputs, ledger = stored(db)
    assert not [i for i in inputs if "mallory" in str(i.get("text", ""))]
    assert not [p for p, _ in ledger if p == "mallory"]
    assert not [i for i in inputs if "!pass" in str(i.get("text", ""))]  # secrets never logged
    conn = sqlite3.connect(str(db))
    install_log(conn)
    flagged = [json.loads(r[0]) for r in conn.execute(
        "SELECT data FROM events WHERE kind = 'flag'")]
    conn.close()
    assert [f["player"] for f in flagged] == ["bob?"], flagged  # the stranger's, not bob's


def test_no_services_nick_after_restart(ngircd: Ngircd, tmp_path: Path) -> None:
    asyncio.run(attack_1(Net(ngircd.port, accounts=False), tmp_path / "bot.db", "#id1"))


def test_no_services_nick_after_quit(ngircd: Ngircd, tmp_path: Path) -> None:
    asyncio.run(attack_2(Net(ngircd.port, accounts=False), tmp_path / "bot.db", "#id2"))


def test_services_nick_after_restart(services: Services, tmp_path: Path) -> None:
    asyncio.run(attack_1(Net(services.port, accounts=True), tmp_path / "bot.db", "#id3"))
    log = (tmp_path / "bot.log").read_text(errors="replace")
    assert "capabilities: account-notify account-tag extended-join" in log  # accounts used


def test_services_nick_after_quit(services: Services, tmp_path: Path) -> None:
    asyncio.run(attack_2(Net(services.port, accounts=True), tmp_path / "bot.db", "#id4"))


def test_services_by_whois_nick_after_restart(services_whois: Services, tmp_path: Path) -> None:
    """Services but no account tags: the accounts come from WHOIS (330)."""
    asyncio.run(attack_1(Net(services_whois.port, accounts=True), tmp_path / "bot.db", "#id5"))
    log = (tmp_path / "bot.log").read_text(errors="replace")
    assert "account-tag" not in log


def test_services_by_whois_nick_after_quit(services_whois: Services, tmp_path: Path) -> None:
    asyncio.run(attack_2(Net(services_whois.port, accounts=True), tmp_path / "bot.db", "#id6"))


def test_the_bot_logs_in_with_sasl(services: Services, tmp_path: Path) -> None:
    """With sasl_username the bot logs in to its own services account at connect (SASL PLAIN,
    before registration): WHOIS shows the account, so players can tell the real bot."""

    async def go() -> None:
        owner = Client(services.port, "refacct", [])
        await owner.connect()
        await register(owner, "bot-pass-1")
        await owner.close()
        bot = BotProcess(services.port, tmp_path / "bot.db", ["#sasl"], [], seed=False,
                         extra=["--sasl-username", "refacct"],
                         env={"REFEREE_IRC_SASL_PASSWORD": "bot-pass-1"})
        c = Client(services.port, "checker", ["#sasl"])
        try:
            await c.connect()
            await bot_in_channel(c, "#sasl", 30.0)
            start = len(c.lines)
            c.raw(f"WHOIS {BOT}")
            await c.wait_line(lambda ln: f" 318 checker {BOT} " in ln, 10, start)
            assert [ln for ln in c.lines[start:] if f" 330 checker {BOT} refacct " in ln]
        finally:
            await c.close()
            assert bot.stop() == 0
        assert "logged in to services as refacct" in bot.output()

    asyncio.run(go())
