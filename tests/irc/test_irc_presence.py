"""Acceptance: identity follows presence. A proof (``!pass``) or an account binding ends when its
holder parts, is kicked, quits or gives up the nick -- also when the bot shares no channel with
them (MONITOR on InspIRCd with its module, ISON and a WHOIS before private lines on ngIRCd and
on InspIRCd without it) -- so a stranger who takes the nick, without joining, gets no cards, no
balance, no seat action and no moderator power. On ngIRCd (secrets), InspIRCd + Atheme with
account tags (and MONITOR) and without them (WHOIS, ISON); ``referee irc`` in a subprocess."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from ircnet import BOT, BotProcess, Client, Ngircd, bot_in_channel, prove
from test_irc_identity import (
    _CARD,
    Net,
    ask_cards,
    cards_in,
    dealt,
    no_private_content,
    open_table,
    stored,
)

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(180)]


def _bot_private(c: Client, start: int = 0) -> list[str]:
    return [m.text for m in c.messages[start:] if m.sender == BOT and m.private]


async def _parted_then_quit(net: Net, db: Path, channel: str, how: str = "quit") -> None:
    """alice and the moderator PART, then QUIT (``how="nick"``: change nick, so the bot,
    sharing no channel with them any more, learns it only by MONITOR or ISON); strangers take
    both nicks without joining."""
    bot = net.bot(db, channel)
    clients: list[Client] = []
    try:
        d, players = await open_table(net, channel, db)
        clients += [d, *players.values()]
        alice, bob = players["alice"], players["bob"]
        for c in (alice, d):
            c.raw(f"PART {channel}")
            await c.wait_line(lambda ln, c=c: ln.startswith(f":{c.nick}!") and " PART " in ln)
            if how == "quit":
                await c.close()
            else:
                old_nick = c.nick
                c.raw(f"NICK {old_nick}_")
                await c.wait_line(lambda ln, n=old_nick: ln.startswith(f":{n}!")
                                  and " NICK " in ln)
        await asyncio.sleep(0.5)  # the QUITs reach the server before the strangers register
        mallory = Client(net.port, "alice", [])
        fake = Client(net.port, "dealer", [])
        clients += [mallory, fake]
        await asyncio.gather(mallory.connect(), fake.connect())
        got = await ask_cards(mallory)
        assert "あなたの手札" not in got.text and not _CARD.search(got.text), got.text
        for text in ("!bank", f"!leave {channel}", f"{channel} フォールド"):
            mallory.say(BOT, text)
        fake.say(BOT, f"!grant @bob 77777 {channel}")
        fake.say(BOT, "!grant @mallory 77777")
        # the bot has read all of the above once bob's own question is answered after them
        await asyncio.sleep(1.0)
        got = await ask_cards(bob)
        assert cards_in(got) == dealt(db, "bob"), got.text
        # alice's PART took her off the table (folded, docs/rules.md), not the stranger
        start = len(bob.messages)
        bob.say(channel, "!status")
        status = await bob.wait_msg(lambda m: m.sender == BOT and "bob" in m.text, 20, start)
        assert "alice" not in status.text, status.text
        no_private_content(mallory)
        no_private_content(fake)
        assert not [t for t in _bot_private(mallory) if "P" in t and "バンク" in t]
    finally:
        for c in clients:
            await c.close()
        rc = bot.stop()
    assert rc == 0, bot.output()[-3000:]
    inputs, ledger = stored(db)
    taken = [i for i in inputs if i.get("sender") in ("alice", "dealer")
             and any(w in str(i.get("text")) for w in ("!bank", "!leave", "フォールド", "77777"))]
    assert not taken, taken
    assert [i["args"]["name"] for i in inputs if i.get("name") == "departed"] == ["alice"]
    assert not [d for _, d in ledger if d == 77777], ledger


async def _unshared_then_taken(net: Net, db: Path, channel: str, how: str) -> None:
    """carol sits by private message and never joins the channel: the bot shares nothing with
    her. She quits or changes nick (the bot cannot see it), a silent stranger takes "carol",
    and the dealer deals: the stranger gets no cards; the real carol, proven again, does."""
    bot = net.bot(db, channel)
    clients: list[Client] = []
    try:
        d = Client(net.port, "dealer", [channel])
        bob = Client(net.port, "bob", [channel])
        carol = Client(net.port, "carol", [])
        clients += [d, bob, carol]
        await asyncio.gather(d.connect(), bob.connect(), carol.connect())
        await bot_in_channel(d, channel, 30.0)
        await asyncio.gather(net.login(d), net.login(bob), net.login(carol))
        if net.accounts:  # the bot learns carol's account from a message of hers
            start = len(carol.messages)
            carol.say(BOT, "!help")
            await carol.wait_msg(lambda m: m.sender == BOT and m.private, 20, start)

        async def room(pred: object, start: int = 0) -> None:
            await d.wait_msg(lambda m: m.sender == BOT and m.target == channel
                             and pred(m.text), 20, start)  # type: ignore[operator]

        d.say(channel, "!open omaha level=3")
        await room(lambda t: "テーブルを開きました" in t)
        for n in ("bob", "carol"):
            d.say(channel, f"!grant @{n} 20000")
            await room(lambda t, n=n: t.startswith(f"{n}さんのバンクに"))
        bob.say(channel, "!sit")
        await room(lambda t: "着席しました" in t and t.startswith("bob"))
        carol.say(BOT, f"!sit {channel}")
        await room(lambda t: "着席しました" in t and t.startswith("carol"))
        if how == "quit":
            await carol.close()
            await asyncio.sleep(0.5)
        else:
            carol.raw("NICK carol_")
            await carol.wait_line(lambda ln: ln.startswith(":carol!") and " NICK " in ln)
        mallory = Client(net.port, "carol", [])  # takes the nick, says nothing
        clients.append(mallory)
        await mallory.connect()
        start = len(d.messages)
        d.say(channel, "!deal")
        await bob.wait_msg(lambda m: m.sender == BOT and m.private and "手札:" in m.text, 20)
        await room(lambda t: "ブラインド" in t or "の番" in t or "アクション" in t, start)
        await asyncio.sleep(3.0)  # the cards would have gone by now (a WHOIS at most first)
        no_private_content(mallory)
        if how == "nick":  # the real carol proves again under her new nick (her account
            # is still logged in): her cards come
            if not net.accounts:
                await net.login(carol, "carol")
            carol.say(BOT, "手札")
            got = await carol.wait_msg(lambda m: m.sender == BOT and m.private
                                       and "手札:" in m.text, 20)
            assert got.target == "carol_" and cards_in(got) == dealt(db, "carol"), got.text
        no_private_content(mallory)
    finally:
        for c in clients:
            await c.close()
        rc = bot.stop()
    assert rc == 0, bot.output()[-3000:]


#: The networks these observations are tried on: the fixture that starts each, and whether
#: its players log in to accounts.
NETWORKS = [("ngircd", False), ("services", True), ("services_whois", True)]


def _net(request: pytest.FixtureRequest, network: tuple[str, bool]) -> Net:
    name, accounts = network
    return Net(request.getfixturevalue(name).port, accounts)


@pytest.mark.parametrize("how", ["quit", "nick"])
@pytest.mark.parametrize("network", NETWORKS, ids=[n for n, _ in NETWORKS])
def test_part_then_quit(request: pytest.FixtureRequest, network: tuple[str, bool],
                        tmp_path: Path, how: str) -> None:
    asyncio.run(_parted_then_quit(_net(request, network), tmp_path / "b.db",
                                  f"#pq{NETWORKS.index(network)}{how}", how))


@pytest.mark.parametrize("how", ["quit", "nick"])
@pytest.mark.parametrize("network", NETWORKS, ids=[n for n, _ in NETWORKS])
def test_unshared_nick_taken(request: pytest.FixtureRequest, network: tuple[str, bool],
                             tmp_path: Path, how: str) -> None:
    asyncio.run(_unshared_then_taken(_net(request, network), tmp_path / "b.db",
                                     f"#u{NETWORKS.index(network)}{how}", how))



def test_a_moderator_named_with_brackets_proves_on_ngircd(ngircd: Ngircd, tmp_path: Path
                                                           ) -> None:
    """``referee irc-secret mod[1]`` folds by rfc1459 (``mod{1}``) unless told; ngIRCd compares
    nicks by ascii: the bot re-keys the secret to the server's casemapping when it connects, so
    the moderator proves and opens a table."""
    db, channel = tmp_path / "b.db", "#cm"

    async def go() -> None:
        bot = BotProcess(ngircd.port, db, [channel], ["mod[1]"])
        m = Client(ngircd.port, "mod[1]", [channel], user="mod1")
        try:
            await m.connect()
            await bot_in_channel(m, channel, 30.0)
            await prove(m)
            start = len(m.messages)
            m.say(channel, "!open omaha level=3")
            await m.wait_msg(lambda x: x.sender == BOT and "テーブルを開きました" in x.text, 20,
                             start)
        finally:
            await m.close()
            assert bot.stop() == 0, bot.output()[-3000:]

    asyncio.run(go())
