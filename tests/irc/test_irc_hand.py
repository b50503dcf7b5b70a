"""Acceptance: scripted IRC clients play a full omaha hand against ``referee irc`` on a
real ngIRCd; each receives exactly their own cards by PRIVMSG; final stacks equal the same hand
replayed from a transcript (``referee replay``); an IRC server restart mid-hand loses and repeats
no action."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from four_games import check_and_verify
from ircnet import BOT, ROOT, BotProcess, Client, Msg, Net, Ngircd, bot_in_channel, prove

from referee.cards import card_str, parse_cards
from referee.store.log import register

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(90)]

PLAYERS = ("alice", "bob", "carol")
_PROMPT = re.compile(r"^(\S+?)さんの番です（(.*)）$")
_SHOWDOWN = re.compile(r"^(\S+)さん、オープンかマックを宣言してください")
_SEAT = re.compile(r"^(\S+?)さんが(\d+)番席に着席しました（チップ ([\d,]+)）")
_START = re.compile(r"^ハンド#(\d+) 開始 ボタン: (\d+)番")


def _from_bot(m: Msg) -> bool:
    return m.sender == BOT




def _log_rows(db: Path) -> list[tuple[str, str]]:
    """Each stored input and its events, as the log keeps them (JSON texts), in order."""
    conn = sqlite3.connect(str(db))
    register(conn)
    try:
        return [(str(a), str(b)) for a, b in conn.execute(
            "SELECT input, events FROM log ORDER BY seq").fetchall()]
    finally:
        conn.close()


def _stored(db: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rows = _log_rows(db)
    return [json.loads(r[0]) for r in rows], [e for r in rows for e in json.loads(r[1])]


def timed_out(db: Path) -> list[dict[str, Any]]:
    """Every action stored that its player did not send: what the clock did for them (a
    timed-out player's fold or check comes from a tick, not from their message)."""
    rows = _log_rows(db)
    out = []
    for inp, evs in rows:
        sender = json.loads(inp).get("sender")
        out += [e for e in json.loads(evs) if e["event"] == "action" and e["player"] != sender]
    return out


def replay(transcript: str, tmp: Path) -> list[dict[str, Any]]:
    path = tmp / "hand.txt"
    path.write_text(transcript, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "referee.cli", "replay", str(path)], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in r.stdout.splitlines() if line.strip()]


class Table:
    """Three players and a dealer in one channel, driven by the bot's prompts. ``ngircd``: any
    server (its ``port``); ``net``: how its players prove who they are (default: ``!pass``)."""

    def __init__(self, ngircd: Ngircd | Net, channel: str, net: Net | None = None) -> None:
        self.channel = channel
        self.net = net
        self.dealer = Client(ngircd.port, "dealer", [channel])
        self.players = {n: Client(ngircd.port, n, [channel]) for n in PLAYERS}
        self.sent: list[tuple[str, str]] = []  # (player's table name, text) of every action
        self.seats: dict[str, tuple[int, int]] = {}
        self.button = 0

    @property
    def clients(self) -> list[Client]:
        return [self.dealer, *self.players.values()]

    async def connect(self) -> None:
        await asyncio.gather(*(c.connect() for c in self.clients))
        await bot_in_channel(self.dealer, self.channel, 20.0)
        await self.prove_all()

    async def prove_all(self) -> None:
        """Everyone proves who they are once per connection (!pass, or NickServ)."""
        if self.net is not None:
            await asyncio.gather(*(self.net.login(c) for c in self.clients))
        else:
            await asyncio.gather(*(prove(c) for c in self.clients))

    async def room(self, pred: Any, start: int = 0, timeout: float = 20.0) -> Msg:
        return await self.dealer.wait_msg(
            lambda m: _from_bot(m) and m.target == self.channel and pred(m.text), timeout, start)

    async def setup(self) -> None:
        await self.seat()
        d = self.dealer
        start = len(d.messages)
        d.say(self.channel, "!deal")
        await self._dealt(start)

    async def seat(self) -> None:
        """The table opened, every player granted 20,000 and seated (their seats noted)."""
        d = self.dealer
        d.say(self.channel, "!open omaha level=3")
        await self.room(lambda t: "テーブルを開きました" in t)
        for n in PLAYERS:
            d.say(self.channel, f"!grant @{n} 20000")
        for n in PLAYERS:
            await self.room(lambda t, n=n: t.startswith(f"{n}さんのバンクに"))
        for n in PLAYERS:
            self.players[n].say(self.channel, "!sit")
            m = await self.room(lambda t, n=n: bool(_SEAT.match(t)) and t.startswith(n + "さん"))
            sm = _SEAT.match(m.text)
            assert sm is not None
            self.seats[n] = (int(sm.group(2)), int(sm.group(3).replace(",", "")))

    async def deal_timed(self, timeout: float) -> tuple[int, float, list[float]]:
        """``!deal``, then each player's cards: the dealer's message index at the deal, the
        monotonic time it was sent, and how long each player's cards took."""
        starts = {n: len(c.messages) for n, c in self.players.items()}
        start = len(self.dealer.messages)
        self.dealer.say(self.channel, "!deal")
        dealt = time.monotonic()
        await self.room(lambda t: bool(_START.match(t)), start, timeout)
        waits = []
        for n, c in self.players.items():
            m = await c.wait_msg(lambda m: m.sender == BOT and m.private and "手札:" in m.text,
                                 timeout, starts[n])
            waits.append(m.at - dealt)
        return start, dealt, waits

    async def _dealt(self, start: int) -> None:
        m = await self.room(lambda t: bool(_START.match(t)), start)
        sm = _START.match(m.text)
        assert sm is not None
        self.button = int(sm.group(2))

    async def play(self, policy: Any, until: Any = None, start: int = 0) -> int:
        """Answer the bot's prompts with ``policy(name, options, street)`` until the hand ends
        (or ``until(message)`` holds); returns the dealer's message index reached."""
        d = self.dealer
        pos = start
        while True:
            m = await self.room(lambda t: bool(_PROMPT.match(t) or _SHOWDOWN.match(t)
                                               or " → " in t), pos, 30)
            pos = d.messages.index(m) + 1
            pm = _PROMPT.match(m.text)
            sd = _SHOWDOWN.match(m.text)
            if pm is None and sd is None:
                return pos
            name = (pm or sd).group(1)  # type: ignore[union-attr]
            text = "オープン" if sd is not None else policy(name, pm.group(2))  # type: ignore[union-attr]
            client = self.client_of(name)
            client.say(self.channel, text)
            self.sent.append((name, text))
            if until is not None and until(len(self.sent)):
                return pos

    def client_of(self, name: str) -> Client:
        return self.players[name]

    def cards_received(self, name: str) -> list[list[str]]:
        """Every card list the bot sent this player privately."""
        out = []
        for m in self.players[name].messages:
            if _from_bot(m) and m.private and "手札:" in m.text:
                out.append([card_str(c) for c in parse_cards(m.text.split("手札:", 1)[1])])
        return out

    def transcript(self, board: list[str], hands: dict[str, list[str]]) -> str:
        lines = ["# table: omaha level=3"]
        for n, (seat, chips) in sorted(self.seats.items(), key=lambda x: x[1][0]):
            lines.append(f"# seat {seat}: {n} {chips}")
        lines.append(f"# button: {self.button}")
        deal = " | ".join(f"{n}={' '.join(hands[n])}" for n in PLAYERS)
        lines.append(f"# deal: {deal} | board={' '.join(board)}")
        lines += [f"{n}: {t}" for n, t in self.sent]
        return "\n".join(lines) + "\n"

    async def close(self) -> None:
        for c in self.clients:
            await c.close()


def policy_factory() -> Any:
    """bob makes the minimum raise at his first turn, carol folds at her first turn after the
    flop, everyone else calls or checks."""
    seen: dict[str, int] = {}

    def policy(name: str, options: str) -> str:
        seen[name] = seen.get(name, 0) + 1
        if name == "bob" and seen[name] == 1:
            mm = re.search(r"メイク ([\d,]+)", options)
            if mm:
                return f"メイク{mm.group(1).replace(',', '')}"
        if name == "carol" and "チェック" in options and seen[name] >= 2:
            return "フォールド"
        return "チェック" if "チェック" in options else "コール"

    return policy


def check_cards_and_stacks(table: Table, db: Path, tmp: Path) -> dict[str, int]:
    inputs, events = _stored(db)
    deal = next(i["deal"] for i in inputs if i.get("deal"))
    # each player got exactly their own four cards, once, by private message -- nobody else's
    for n in PLAYERS:
        assert table.cards_received(n) == [deal["hands"][n]], n
        others = {c for o in PLAYERS if o != n for c in deal["hands"][o]}
        for m in table.players[n].messages:
            if _from_bot(m) and m.private:
                shown = {card_str(c) for c in parse_cards(m.text.split("手札:", 1)[1])} \
                    if "手札:" in m.text else set()
                assert not (shown & others)
    ends = [e for e in events if e["event"] == "hand_end"]
    assert len(ends) == 1
    live = ends[0]["stacks"]
    replayed_all = replay(table.transcript(deal["board"], deal["hands"]), tmp)
    replayed = [e for e in replayed_all if e["event"] == "hand_end"]
    assert len(replayed) == 1
    assert replayed[0]["stacks"] == live
    # every action the players sent was applied once: the same actions in the same order as
    # the replay of what they sent (a lost action would stall the hand, a repeated one would
    # show here or be refused)
    live_actions = [(e["player"], e["action"], e.get("amount")) for e in events
                    if e["event"] == "action"]
    replay_actions = [(e["player"], e["action"], e.get("amount")) for e in replayed_all
                      if e["event"] == "action"]
    assert live_actions == replay_actions
    assert not [e for e in events if e["event"] == "rejected"]
    return {"actions": len(live_actions), **live}


def test_full_omaha_hand_over_irc(ngircd: Ngircd, tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    bot = BotProcess(ngircd.port, db, ["#omaha"], ["dealer"])
    table = Table(ngircd, "#omaha")
    took = asyncio.run(_full_hand(table))
    rc = bot.stop()
    assert rc == 0, bot.output()[-3000:]
    # the private answer after the nick change is the one extra card message carol got
    got = table.cards_received("carol")
    assert len(got) == 2 and got[0] == got[1]
    table.players["carol"].messages = [m for m in table.players["carol"].messages
                                       if not (m.private and m.target == "carol_")]
    result = check_cards_and_stacks(table, db, tmp_path)
    print(f"\nfull hand over IRC in {took:.1f}s; {len(table.sent)} actions; final {result}")
    check_and_verify(db)


async def _full_hand(table: Table) -> float:
    try:
        t0 = time.monotonic()
        await table.connect()
        await table.setup()
        # carol changes nick mid-hand: she is still carol at the table
        carol = table.players["carol"]
        policy = policy_factory()
        pos = await table.play(policy, until=lambda n: n >= 2)
        carol.raw("NICK carol_")
        await carol.wait_line(lambda ln: ln.startswith(":carol!") and " NICK " in ln)
        start = len(carol.messages)
        carol.say(BOT, "手札")  # a private question from the new nick, answered to it
        got = await carol.wait_msg(lambda m: _from_bot(m) and m.private, 15, start)
        assert got.target == "carol_" and "あなたの手札" in got.text
        await table.play(policy, start=pos)
        return time.monotonic() - t0
    finally:
        await table.close()


def test_server_restart_mid_hand(ngircd: Ngircd, tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    bot = BotProcess(ngircd.port, db, ["#restart"], ["dealer"])
    table = Table(ngircd, "#restart")
    took, down = asyncio.run(_restart_hand(table, ngircd))
    rc = bot.stop()
    log = bot.output()
    assert rc == 0, log[-3000:]
    assert "disconnected from" in log and log.count("connected to 127.0.0.1") >= 2, log[-3000:]
    result = check_cards_and_stacks(table, db, tmp_path)
    print(f"\nhand with an IRC server restart in {took:.1f}s (bot back in {down:.1f}s);"
          f" {len(table.sent)} actions; final {result}")


async def _restart_hand(table: Table, ngircd: Ngircd) -> tuple[float, float]:
    try:
        t0 = time.monotonic()
        await table.connect()
        await table.setup()
        policy = policy_factory()
        pos = await table.play(policy, until=lambda n: n >= 4)  # bob raised, flop or later
        # the last action was applied: the bot has asked the next player
        nxt = await table.room(lambda t: bool(_PROMPT.match(t) or _SHOWDOWN.match(t)), pos)
        before = len(table.dealer.messages)
        t1 = time.monotonic()
        ngircd.restart()
        await asyncio.gather(*(c.reconnect() for c in table.clients))
        await bot_in_channel(table.dealer, table.channel, 30)
        await table.room(lambda t: "再接続しました" in t, before, 20)
        await table.prove_all()  # new connections: each proves itself again
        down = time.monotonic() - t1
        # nothing the bot said before the restart is said again after it
        again = [m.text for m in table.dealer.messages[before:]
                 if _from_bot(m) and m.text == nxt.text]
        assert again == []
        await table.play(policy, start=pos)
        return time.monotonic() - t0, down
    finally:
        await table.close()
