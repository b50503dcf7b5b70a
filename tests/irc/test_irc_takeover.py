"""Acceptance: nobody takes over a player on IRC. Live, on ngIRCd without services (secrets) and
InspIRCd + Atheme (accounts), with ``referee irc`` in a subprocess on a real SQLite file:

- a secret typed in a channel is void at once, its owner is told privately and sets a new one;
  a proof moved to another connection is announced to the one that had it;
- ``！ｐａｓｓ`` in full width (what a Japanese IME types) is the command, and no secret, old or
  new, reaches the inputs, the database file, a back-up or the log;
- wrong guesses are limited per name and per source, across nick changes and restarts, and the
  limit never keeps the owner out from the connection that proved the name before;
- when and from which nick a secret was last set is told to the name's own connection only,
  never to a stranger's wrong guess;
- a second connection from the same gateway in the same second never inherits a saved proof;
- points granted to a name nobody owns yet are refused until its owner has proven it.

The ``!pass`` tests run on ngIRCd only: with services a player is their account and the bot
keeps no secret (``!pass`` is answered with where to log in).
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from pathlib import Path

import pytest
from ircnet import BOT, BotProcess, Client, Msg, Ngircd, Services, bot_in_channel, prove, secret_of

from referee.adapters.irc import ASKS_PER_WINDOW
from referee.lang.catalog import text as msg
from referee.store.log import register

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(240)]


def _bot_private(m: Msg) -> bool:
    return m.sender == BOT and m.private


async def reply(c: Client, text: str, pred: object = None, timeout: float = 20.0) -> Msg:
    """Send the bot ``text`` privately; its next private answer (matching ``pred``)."""
    start = len(c.messages)
    c.say(BOT, text)
    return await c.wait_msg(lambda m: _bot_private(m) and (pred is None or pred(m.text)),  # type: ignore[operator]
                            timeout, start)


async def connected(port: int, *nicks: str, channels: list[str] | None = None) -> list[Client]:
    cs = [Client(port, n, channels or []) for n in nicks]
    await asyncio.gather(*(c.connect() for c in cs))
    return cs


def inputs(db: Path) -> list[dict[str, object]]:
    conn = sqlite3.connect(str(db))
    register(conn)
    try:
        return [json.loads(r[0]) for r in conn.execute("SELECT input FROM log ORDER BY seq")]
    finally:
        conn.close()


def test_a_secret_shown_in_a_channel_is_void_at_once(ngircd: Ngircd, tmp_path: Path) -> None:
    db, channel = tmp_path / "bot.db", "#slip"

    async def go() -> None:
        bot = BotProcess(ngircd.port, db, [channel], ["dealer"])
        clients: list[Client] = []
        try:
            bob, eve = clients[:] = await connected(ngircd.port, "bob", "eve", channels=[channel])
            await bot_in_channel(bob, channel, 30.0)
            await prove(bob)  # sets bob's secret
            start = len(bob.messages)
            bob.say(channel, f"!pass {secret_of('bob')}")  # the slip
            told = await bob.wait_msg(lambda m: _bot_private(m) and "無効" in m.text, 20, start)
            assert channel in told.text
            got = await reply(eve, f"!pass @bob {secret_of('bob')}")  # eve read it
            assert "確認しました" not in got.text and "無効" in got.text, got.text
            got = await reply(eve, f"!pass @bob {secret_of('bob')} pw-eve-owns-bob")
            assert "無効" in got.text, got.text  # nor can she change it
            got = await reply(eve, "!bank")
            assert "本人確認がまだです" in got.text, got.text
            # bob sets a new one from his connection, and proves with it from another
            got = await reply(bob, f"!pass {secret_of('bob')}")
            assert "別の合言葉" in got.text, got.text  # not the void one again
            got = await reply(bob, "!pass pw-bob-new-8")
            assert "新しい合言葉を登録" in got.text, got.text
            bob2, = await connected(ngircd.port, "bob2")
            clients.append(bob2)
            start = len(bob.messages)
            got = await reply(bob2, "!pass @bob pw-bob-new-8")
            assert "確認しました" in got.text, got.text
            # the connection that was bob learns that the name moved elsewhere
            moved = await bob.wait_msg(lambda m: _bot_private(m) and "bob2" in m.text
                                       and "移りました" in m.text, 20, start)
            assert moved.target == "bob"
        finally:
            for c in clients:
                await c.close()
            assert bot.stop() == 0, bot.output()[-3000:]
        assert "pw-bob-new-8" not in bot.output() and secret_of("bob") not in bot.output()

    asyncio.run(go())


def test_full_width_pass_is_the_command_and_no_secret_is_kept(ngircd: Ngircd,
                                                              tmp_path: Path) -> None:
    db, channel = tmp_path / "bot.db", "#wide"
    backups = tmp_path / "backups"
    old, new = "ｗｉｄｅ－ｓｅｃｒｅｔ－１", "ｗｉｄｅ－ｓｅｃｒｅｔ－２"

    async def go() -> None:
        bot = BotProcess(ngircd.port, db, [channel], ["dealer"],
                         extra=["--backup-dir", str(backups)])
        clients: list[Client] = []
        try:
            alice, d = clients[:] = await connected(ngircd.port, "alice", "dealer",
                                                    channels=[channel])
            await bot_in_channel(alice, channel, 30.0)
            got = await reply(alice, f"！ｐａｓｓ {old}")  # as a Japanese IME types it
            assert "登録し" in got.text and "確認しました" in got.text, got.text
            got = await reply(alice, f"！\u200bｐａｓｓ {old} {new}")  # a zero-width space too
            assert "変更" in got.text, got.text
            alice2, = await connected(ngircd.port, "alice2")
            clients.append(alice2)
            got = await reply(alice2, "!pass @alice wide-secret-2")
            assert "確認しました" in got.text, got.text  # NFKC: in half width, the same secret
            start = len(alice.messages)
            alice.say(channel, f"！ｐａｓｓ {new}")  # in the channel: not the command there
            await alice.wait_msg(lambda m: m.sender == BOT and m.target == channel
                                 and "書かないで" in m.text, 20, start)
            await prove(d)
            d.say(channel, "!open omaha level=3")
            await d.wait_msg(lambda m: m.sender == BOT and "テーブルを開きました" in m.text, 20)
            d.say(channel, "!close")  # a back-up
            await d.wait_msg(lambda m: m.sender == BOT and m.target == channel
                             and "閉じ" in m.text, 20)
            await asyncio.sleep(1.0)
        finally:
            for c in clients:
                await c.close()
            assert bot.stop() == 0, bot.output()[-3000:]
        kept = [db.read_bytes(), bot.output().encode()]
        kept += [p.read_bytes() for p in backups.rglob("*") if p.is_file()]
        assert len(kept) > 2, "no back-up made"
        for secret in (old, new, "wide-secret-1", "wide-secret-2"):
            for blob in kept:
                assert secret.encode() not in blob
        assert not [i for i in inputs(db) if "pass" in str(i.get("text", "")).lower()
                    or "ｐａｓｓ" in str(i.get("text", ""))]

    asyncio.run(go())


def test_guessing_never_locks_out_the_owner_and_survives_a_restart(ngircd: Ngircd,
                                                                  tmp_path: Path) -> None:
    db, channel = tmp_path / "bot.db", "#guess"

    async def go() -> None:
        bot = BotProcess(ngircd.port, db, [channel], ["dealer"])
        clients: list[Client] = []
        try:
            bob, = clients[:] = await connected(ngircd.port, "bob", channels=[channel])
            await bot_in_channel(bob, channel, 30.0)
            await prove(bob)
            await bob.close()  # QUIT: bob's proof ended; he proves again when he is back
            for i in range(5):  # throwaway nicks, each under the per-source limit
                x, = await connected(ngircd.port, f"thr{i}")
                clients.append(x)
                for j in range(2):
                    got = await reply(x, f"!pass @bob guess-{i}-{j}")
                    assert "確認しました" not in got.text
                await x.close()
            assert bot.stop() == 0, bot.output()[-3000:]
            bot = BotProcess(ngircd.port, db, [channel], ["dealer"])
            watcher, = await connected(ngircd.port, "watcher")
            clients.append(watcher)
            await bot_in_channel(watcher, channel, 30.0)
            got = await reply(watcher, "!pass @bob guess-after-restart")
            assert "受け付けません" in got.text, got.text  # the name's limit was kept
            back = Client(ngircd.port, "bob", [channel])  # the owner, from his own connection
            clients.append(back)
            await back.connect()
            got = await reply(back, f"!pass {secret_of('bob')}")
            assert "確認しました" in got.text, got.text
        finally:
            for c in clients:
                await c.close()
            assert bot.stop() == 0, bot.output()[-3000:]

    asyncio.run(go())


def test_who_changed_a_secret_is_told_only_to_its_owner(ngircd: Ngircd, tmp_path: Path) -> None:
    """When and from which nick a secret was last set names the connection that holds the
    name's proof: a stranger's wrong guess is told only that it is wrong; the owner's own
    connection (the user@host that proved the name before) learns it, to notice a change."""
    db, channel = tmp_path / "bot.db", "#setby"
    told = msg("irc.pass_changed_by", name="alice", by="alice2", when="\0").split("\0")[0]

    async def go() -> None:
        bot = BotProcess(ngircd.port, db, [channel], ["dealer"])
        clients: list[Client] = []
        try:
            alice, eve = clients[:] = await connected(ngircd.port, "alice", "eve",
                                                      channels=[channel])
            await bot_in_channel(alice, channel, 30.0)
            await prove(alice)  # sets alice's secret
            alice2, = await connected(ngircd.port, "alice2")
            clients.append(alice2)
            got = await reply(alice2, f"!pass @alice {secret_of('alice')} pw-alice-new-8")
            assert "確認しました" in got.text, got.text  # changed from the nick alice2
            start = len(eve.messages)
            got = await reply(eve, "!pass @alice wrong-guess-1")
            assert "確認しました" not in got.text, got.text
            await asyncio.sleep(2.0)  # a second line would have come by now
            leaked = [m.text for m in eve.messages[start:] if _bot_private(m)
                      and ("alice2" in m.text or m.text.startswith(told))]
            assert not leaked, leaked
            start = len(alice.messages)  # the owner's connection, with the old secret
            alice.say(BOT, f"!pass {secret_of('alice')}")
            await alice.wait_msg(lambda m: _bot_private(m) and m.text.startswith(told), 20,
                                 start)
        finally:
            for c in clients:
                await c.close()
            assert bot.stop() == 0, bot.output()[-3000:]

    asyncio.run(go())


async def _same_second(port: int, nicks: tuple[str, str], user: str) -> list[Client]:
    """Two connections with one user@host and one sign-on second (a shared gateway)."""
    for _ in range(10):
        cs = [Client(port, n) for n in nicks]

        async def connect(c: Client) -> None:
            c.reader, c.writer = await asyncio.open_connection("127.0.0.1", port)
            c.task = asyncio.create_task(c._read())
            c.raw(f"NICK {c.nick}")
            c.raw(f"USER {user} 0 * :{user}")
            await c.wait_line(lambda ln: f" 001 {c.nick} " in ln, 10)

        await asyncio.gather(*(connect(c) for c in cs))
        a = cs[0]
        signons = []
        for n in nicks:
            start = len(a.lines)
            a.raw(f"WHOIS {n}")
            want = f" 317 {a.nick} {n} "
            line = await a.wait_line(lambda ln, want=want: want in ln, 10, start)
            signons.append(line.split()[5])
        if signons[0] == signons[1]:
            return cs
        for c in cs:
            await c.close()
        await asyncio.sleep(0.3)
    raise AssertionError("could not connect twice in one second")


def test_a_second_connection_never_inherits_a_saved_proof(ngircd: Ngircd,
                                                          tmp_path: Path) -> None:
    db, channel = tmp_path / "bot.db", "#gate"

    async def go() -> None:
        bot = BotProcess(ngircd.port, db, [channel], ["dealer"])
        clients: list[Client] = []
        try:
            watcher, = clients[:] = await connected(ngircd.port, "watcher")
            await bot_in_channel(watcher, channel, 30.0)
            bob, eve = await _same_second(ngircd.port, ("bob", "eve"), "gw")
            clients += [bob, eve]
            await prove(bob)
            assert bot.stop() == 0, bot.output()[-3000:]
            bot = BotProcess(ngircd.port, db, [channel], ["dealer"])
            await bot_in_channel(watcher, channel, 30.0)
            got = await reply(eve, "!bank")  # same user@host, same second, another nick
            assert "本人確認がまだです" in got.text, got.text
            got = await reply(bob, "!bank")  # the proven connection itself is still bob
            assert got.text.startswith("bob"), got.text
        finally:
            for c in clients:
                await c.close()
            assert bot.stop() == 0, bot.output()[-3000:]

    asyncio.run(go())


async def _grant_waits_for_the_owner(port: int, db: Path, channel: str, accounts: bool) -> None:
    from test_irc_identity import Net

    net = Net(port, accounts)
    bot = net.bot(db, channel)
    clients: list[Client] = []
    try:
        d, = clients[:] = await connected(port, "dealer", channels=[channel])
        await bot_in_channel(d, channel, 30.0)
        await net.login(d)
        name = "carol" if not accounts else "carolacct"

        async def grant() -> Msg:
            start = len(d.messages)
            d.say(channel, f"!grant @{name} 2000")
            return await d.wait_msg(lambda m: m.sender == BOT and name in m.text, 20, start)

        got = await grant()
        assert "だれのものでもない" in got.text, got.text
        carol, = await connected(port, name, channels=[channel])
        clients.append(carol)
        await net.login(carol)  # the owner proves the name
        got = await grant()
        assert re.search(rf"{name}さんのバンクに", got.text), got.text
    finally:
        for c in clients:
            await c.close()
        assert bot.stop() == 0, bot.output()[-3000:]
    conn = sqlite3.connect(str(db))
    try:
        rows = conn.execute("SELECT player, delta FROM ledger").fetchall()
    finally:
        conn.close()
    assert rows == [(name, 2000)]


def test_a_grant_to_a_name_nobody_owns_waits(ngircd: Ngircd, tmp_path: Path) -> None:
    asyncio.run(_grant_waits_for_the_owner(ngircd.port, tmp_path / "bot.db", "#grant1", False))


def test_a_grant_to_an_account_nobody_holds_waits(services: Services, tmp_path: Path) -> None:
    asyncio.run(_grant_waits_for_the_owner(services.port, tmp_path / "bot.db", "#grant2", True))


def test_one_players_flood_never_delays_the_table(ngircd: Ngircd, tmp_path: Path) -> None:
    """alice floods the bot with private !help (at the real 1 line/s pace); the dealer deals
    at once: bob's cards and the table's lines do not wait behind alice's replies, and alice
    gets a few replies and one line saying how many were left out."""
    db, channel = tmp_path / "bot.db", "#fair"

    async def go() -> None:
        bot = BotProcess(ngircd.port, db, [channel], ["dealer"],
                         extra=["--interval", "1.0", "--burst", "2"])
        clients: list[Client] = []
        try:
            d, alice, bob = clients[:] = await connected(ngircd.port, "dealer", "alice", "bob",
                                                         channels=[channel])
            await bot_in_channel(d, channel, 30.0)
            for c in clients:
                await prove(c, timeout=40)

            async def room(pred: object, start: int = 0) -> Msg:
                return await d.wait_msg(lambda m: m.sender == BOT and m.target == channel
                                        and pred(m.text), 40, start)  # type: ignore[operator]

            d.say(channel, "!open omaha level=3")
            await room(lambda t: "テーブルを開きました" in t)
            for n in ("alice", "bob"):
                d.say(channel, f"!grant @{n} 20000")
                await room(lambda t, n=n: t.startswith(f"{n}さんのバンクに"))
            for n, p in (("alice", alice), ("bob", bob)):
                p.say(channel, "!sit")
                await room(lambda t, n=n: "着席しました" in t and t.startswith(n + "さん"))
            flood = 30
            for _ in range(flood):
                alice.say(BOT, "!help")
            # the server lets a client's lines in at its own pace: wait until the bot has taken
            # in what it takes of the flood (ASKS_PER_WINDOW: a question beyond them is not
            # taken at all), so its replies are queued before the deal
            end = asyncio.get_running_loop().time() + 90
            while sum(i.get("text") == "!help" for i in inputs(db)) < ASKS_PER_WINDOW:
                assert asyncio.get_running_loop().time() < end, "the flood did not arrive"
                await asyncio.sleep(0.5)
            start = len(d.messages)
            dealt_at = asyncio.get_running_loop().time()
            d.say(channel, "!deal")
            got = await bob.wait_msg(lambda m: _bot_private(m) and "手札:" in m.text, 30)
            waited = got.at - dealt_at
            await room(lambda t: "アクション" in t or "の番" in t or "ブラインド" in t, start)
            assert waited < 10, f"bob's cards waited {waited:.1f}s behind alice's flood"
            await asyncio.sleep(2.0)
            helps = [m for m in alice.messages if _bot_private(m) and "コマンド一覧" in m.text]
            # a few answered, the rest of the flood never taken
            assert len(helps) <= ASKS_PER_WINDOW, len(helps)
            assert sum(i.get("text") == "!help" for i in inputs(db)) <= ASKS_PER_WINDOW * 2
        finally:
            for c in clients:
                await c.close()
            assert bot.stop() == 0, bot.output()[-3000:]

    asyncio.run(go())
