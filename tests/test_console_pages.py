"""The console as a Japanese moderator meets it (issue 44), in headless Chromium: every page
reachable from the front page -- the menu's pages (bank, the bank over time, a player's balance,
ledger, penalties, flags, hands), their records, a hand of each game replayed step by step --
shows no English word outside players' own names and words, no SQL, no schema, no room id and
no card that was never shown; each page's screenshot is taken and is not blank. The replayer's
pot and stacks on the page after each step are the stored figures (tests/test_replayer.py checks
those against the events), and the bank over time's totals equal the hands' books and each
player's last balance on their chart is their bank balance.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import sqlite3
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import chromium
from test_console import Secrets, _secrets, free_port

from referee.adapters.transcript import replay
from referee.resources import EXAMPLES
from referee.store.log import register

ROOT = Path(__file__).resolve().parent.parent
T = ROOT / "tests" / "transcripts"
TRANSCRIPTS = [
    EXAMPLES / "leak-example.txt",  # flags, penalties and a reversal
    T / "service" / "commands.txt",
    T / "omaha" / "showdown_side_pots.txt",
    T / "omaha" / "fa_allin.txt",
    T / "omaha" / "misdeal.txt",
    T / "seven" / "results.txt",
    T / "holdem_aa" / "table.txt",
    T / "deuces" / "results.txt",
    T / "deuces" / "bonus_table.txt",
]
#: Words that are Japanese moderators' own: file formats, the time zone, the game's own name
#: (PLO), holdem_aa's name, the joker's face, and the room's own poker words as the bot says them
#: (SB, BB, "NO GAME").
ALLOWED = {"JSON", "CSV", "SQL", "JST", "PLO", "AA", "JK", "NO", "GAME", "SB", "BB"}
ROWS_PER_TABLE = 4


@dataclass
class Site:
    url: str
    db: Path
    console_db: Path
    secrets: Secrets
    players: set[str]
    said: list[str]
    rooms: list[str]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp("pages")
    db = tmp / "referee.db"
    with open(os.devnull, "w") as sink:
        for path in TRANSCRIPTS:
            replay(path, db=db, out=sink)
    keep = tmp / "console.db"
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "console", "--db", str(db), "--port", str(port),
         "--keep", str(keep), "--theory-hands", "300"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/-/versions.json", timeout=2):
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"the console did not start: {proc.communicate()}")
            time.sleep(0.1)
    conn = sqlite3.connect(keep)
    players = {r[0] for r in conn.execute("SELECT プレイヤー FROM bank")}
    players |= {p.strip() for (ps,) in conn.execute(
        "SELECT 参加者 FROM hands WHERE 参加者 IS NOT NULL") for p in ps.split(",")}
    players |= {r[0] for r in conn.execute("SELECT 判断者 FROM flags WHERE 判断者 IS NOT NULL")}
    said = [r[0] for r in conn.execute(
        "SELECT 発言 FROM flags WHERE 発言 IS NOT NULL UNION SELECT 原因の発言 FROM penalties"
        " WHERE 原因の発言 IS NOT NULL")]
    conn.close()
    src = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    register(src)
    rooms = [r[0] for r in src.execute("SELECT DISTINCT room FROM log")]
    src.close()
    try:
        yield Site(url, db, keep, _secrets(db), players, said, rooms)
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for f in (proc.stdout, proc.stderr):
            if f is not None:
                f.close()


@pytest.fixture(scope="module")
def browser(site: Site) -> Iterator[Any]:
    with chromium("--lang=ja") as drv:
        yield drv


def _english(text: str, site: Site) -> list[str]:
    """English words of ``text`` that are not a player's name, a player's own words, a command
    the room knows (``!confirm``) or one of :data:`ALLOWED`."""
    for s in sorted(site.said, key=len, reverse=True):
        text = text.replace(s, " ")
    text = re.sub(r"![A-Za-z]+( on| off)?", " ", text)
    words = re.findall(r"[A-Za-z][A-Za-z_]+", text)
    return sorted({w for w in words if w not in ALLOWED and w not in site.players})


def _check(drv: Any, site: Site, path: str, tmp: Path, n: int) -> str:
    body = str(drv.execute_script("return document.body ? document.body.innerText : ''"))
    assert body.strip(), path
    assert not _english(body, site), (path, _english(body, site))
    lowered = body.lower()
    assert "create table" not in lowered and not re.search(r"\bselect\b.+\bfrom\b", lowered), path
    for room in site.rooms:
        assert not re.search(rf"(?<![\w]){re.escape(room)}(?![\w])", body), (path, room)
    leaked = site.secrets.found_in(body)
    assert not leaked, (path, leaked[:3])
    shot = tmp / f"page{n:03d}.png"
    drv.save_screenshot(str(shot))
    assert shot.stat().st_size > 15_000, (path, shot.stat().st_size)  # a blank page is ~5 KB
    return body


def _open(drv: Any, url: str) -> None:
    drv.get(url)
    for _ in range(100):
        if drv.execute_script("return document.readyState === 'complete' && !!document.body"):
            return
        time.sleep(0.05)


def _links(drv: Any, site: Site) -> list[str]:
    hrefs = drv.execute_script(
        "return Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
    out = []
    for h in hrefs:
        if not str(h).startswith(site.url):
            continue
        path = str(h)[len(site.url):].split("#")[0]
        parsed = urllib.parse.urlparse(path)
        if re.search(r"\.(json|csv|db)$", parsed.path) or "_sql_editor" in path:
            continue  # exports and the SQL editor: not pages a moderator reads
        out.append(path)
    return out


def _is_row(path: str) -> bool:
    parts = urllib.parse.urlparse(path).path.strip("/").split("/")
    return len(parts) == 3


@pytest.mark.browser
def test_every_page_from_the_front_page(site: Site, browser: Any, tmp_path: Path) -> None:
    """Breadth first from the front page: the menu's pages and every page they link to, at most
    :data:`ROWS_PER_TABLE` records of each table (a facet or sort link is the same page again)."""
    seen: set[str] = set()
    rows: dict[str, int] = {}
    todo = ["/"]
    n = 0
    while todo:
        path = todo.pop(0)
        key = urllib.parse.urlparse(path).path
        if key in seen:
            continue
        seen.add(key)
        _open(browser, site.url + path)
        _check(browser, site, path, tmp_path, n)
        n += 1
        if path != "/" and not key.startswith("/referee/") and key != "/referee":
            continue
        for link in _links(browser, site):
            if _is_row(link):
                table = link.strip("/").split("/")[1]
                if rows.get(table, 0) >= ROWS_PER_TABLE or urllib.parse.urlparse(
                        link).path in seen:
                    continue
                rows[table] = rows.get(table, 0) + 1
            if urllib.parse.urlparse(link).path not in seen:
                todo.append(link)
    for name in ("bank_ranking", "economy", "player_balance", "bank", "ledger", "penalties",
                 "flags", "hands"):
        assert f"/referee/{name}" in seen, name
    assert rows.get("hands", 0) >= 1 and n > 15
    # a player's balance over time, with its chart
    player = sorted(p for p in site.players if p != "dealer")[0]
    path = f"/referee/player_balance?player={urllib.parse.quote(player)}"
    _open(browser, site.url + path)
    _check(browser, site, path, tmp_path, n)
    assert browser.execute_script("return document.querySelectorAll('svg polyline').length") == 1


def _replays(site: Site) -> dict[str, tuple[int, dict[str, Any]]]:
    """One hand of each game (the one with the most steps): its id and stored replay."""
    conn = sqlite3.connect(site.console_db)
    best: dict[str, tuple[int, dict[str, Any]]] = {}
    for hand, game, raw in conn.execute(
            "SELECT h.番号, h.ゲーム, r.経過 FROM hands h JOIN replays r ON r.ハンド = h.番号"):
        data = json.loads(raw)
        if game not in best or len(data["steps"]) > len(best[game][1]["steps"]):
            best[game] = (hand, data)
    conn.close()
    return best


@pytest.mark.browser
def test_replayer_step_by_step(site: Site, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    hands = _replays(site)
    assert len(hands) == 4  # the four games
    n = 0
    for game, (hand, data) in sorted(hands.items()):
        _open(browser, f"{site.url}/referee/hands/{hand}")
        _check(browser, site, f"hand {hand}", tmp_path, 100 + n)
        nxt = browser.find_element(By.ID, "rp-next")
        for i, step in enumerate(data["steps"]):
            nxt.click()
            pot = browser.find_element(By.ID, "rp-pot").get_attribute("data-pot")
            assert int(pot) == step["pot"], (game, hand, i)
            shown = browser.execute_script(
                "return Array.from(document.querySelectorAll('#rp-seats tr[data-player]'))"
                ".map(tr => [tr.dataset.player, tr.dataset.stack])")
            for player, stack in shown:
                if player in step["stacks"]:
                    assert int(stack) == step["stacks"][player], (game, hand, i, player)
            body = str(browser.execute_script("return document.body.innerText"))
            assert not site.secrets.found_in(body), (game, hand, i)
            assert not _english(body, site), (game, hand, i, _english(body, site))
            n += 1
        shot = tmp_path / f"replay-{hand}.png"
        browser.save_screenshot(str(shot))
        assert shot.stat().st_size > 15_000
        # and back again to the start
        back = browser.find_element(By.ID, "rp-back")
        for _ in data["steps"]:
            back.click()
        assert browser.find_element(By.ID, "rp-pot").get_attribute("data-pot") == "0"
    assert n > 20


def test_bank_over_time_totals(site: Site) -> None:
    """The bank over time's figures: each game's total row is the sum of its hands' books and
    of its months; each player's balance chart ends at their bank balance."""
    def get(path: str) -> Any:
        with urllib.request.urlopen(site.url + path, timeout=30) as r:
            return json.loads(r.read())

    rows = get("/referee/economy.json?_shape=array")
    conn = sqlite3.connect(site.console_db)
    books = {g: (n, s, p, r) for g, n, s, p, r in conn.execute(
        "SELECT ゲーム, count(*), sum(賭け金), sum(支払い), sum(レイク) FROM books"
        " GROUP BY ゲーム")}
    totals = {r["ゲーム"]: r for r in rows if r["月"] == "合計"}
    assert set(totals) == set(books) and len(books) == 4
    for game, (n, staked, paid, rake) in books.items():
        t = totals[game]
        assert (t["ハンド数"], t["賭け金"], t["支払い"], t["レイク"]) == (n, staked, paid, rake)
        assert t["プレイヤーの収支"] == paid - staked
        months = [r for r in rows if r["ゲーム"] == game and r["月"] != "合計"]
        assert sum(r["プレイヤーの収支"] for r in months) == paid - staked
    bank = dict(conn.execute("SELECT プレイヤー, 残高 FROM bank").fetchall())
    conn.close()
    src = sqlite3.connect(f"file:{site.db}?mode=ro", uri=True)
    ledger = dict(src.execute("SELECT player, balance FROM bank").fetchall())
    src.close()
    for player, balance in ledger.items():
        history = get(f"/referee/player_balance.json?_shape=array&player="
                      f"{urllib.parse.quote(player)}")
        assert history and history[-1]["残高"] == balance == bank[player], player
    page = urllib.request.urlopen(site.url + "/referee/economy", timeout=30).read().decode()
    assert page.count("<svg") == 4  # a chart per game
    assert "還元率（理論値）" in html.unescape(page)
