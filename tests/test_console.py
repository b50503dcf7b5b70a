"""``referee console``: the real console on a random local port, over a database filled
by replaying transcripts, driven in headless Chromium (Debian's, through Debian's chromedriver;
``scripts/chromium.sh``), plus the HTTP API and the exports.

One console server and one browser for the whole module (each starts in about a second).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import log_rows
import pytest
from browser_helpers import chromium

from referee.adapters.transcript import replay
from referee.resources import EXAMPLES
from referee.rules.voice import rendered_record
from referee.store.log import register

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPTS = [
    EXAMPLES / "leak-example.txt",  # first: its !dismiss names the flags it raises
    *sorted((ROOT / "tests" / "transcripts" / "service").glob("*.txt")),
    *(ROOT / "tests" / "transcripts" / "omaha" / f"{name}.txt" for name in (
        "showdown_side_pots", "showdown_world", "misdeal", "exposed_card", "exposed_hand",
        "fa_allin", "rake_cap", "heads_up")),
    ROOT / "tests" / "transcripts" / "seven" / "results.txt",
    ROOT / "tests" / "transcripts" / "holdem_aa" / "table.txt",
    ROOT / "tests" / "transcripts" / "deuces" / "results.txt",
]
# A player who tells the bot their cards in a private message: never public.
DM_TRANSCRIPT = """\
# table: omaha level=3
# moderator: dealer
# seat 1: dmalice 20000
# seat 2: dmbob 20000
# deal: dmalice=Ah Kh Qd Jd | dmbob=2c 3c 4d 5d | board=Ts 9s 8c 2h 3h
[21:00:01] dmalice: こ
[21:00:02] dmbob (dm): 手札は 2♣ 3♣ 4♦ 5♦ です
[21:00:03] dmbob: F
"""
SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def referee(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *argv], capture_output=True,
                          text=True, timeout=60, env=env)


@dataclass
class Secrets:
    """What was dealt and never shown in full in the room, in every spelling the log has."""

    texts: set[str]

    def found_in(self, page: str) -> list[str]:
        return sorted(s for s in self.texts if s in page)


def _secrets(db: Path) -> Secrets:
    conn = sqlite3.connect(db)
    register(conn)
    public: list[str] = []
    private: list[str] = []
    dealt: list[list[str]] = []
    for raw_input, raw_events in conn.execute("SELECT input, events FROM log"):
        inp = json.loads(raw_input)
        if inp.get("kind") == "directive" and inp.get("name") == "deal":
            dealt.extend(inp["args"]["hands"].values())
        if inp.get("dm"):
            private.append(inp["text"])
        for e in json.loads(raw_events):
            if e.get("event") == "say":  # the log keeps its key: the text as it was said
                said = rendered_record(e)["text"]
                (public if e["to"] == "room" else private).append(said)
    conn.close()
    room = "\n".join(public)
    texts: set[str] = set()
    for said in private:
        if said not in room:
            texts.add(said)
        # the cards a private message names, as a sequence ("A♥ K♥ Q♦ J♦")
        for seq in re.findall(r"(?:(?:10|[2-9JQKA])[♠♥♦♣](?: |$)){2,}", said):
            if seq.strip() not in room:
                texts.add(seq.strip())
    for hand in dealt:
        ascii_seq = " ".join(hand)
        pretty = " ".join(c[:-1].replace("T", "10") + SUITS.get(c[-1], c[-1]) for c in hand)
        if len(hand) >= 2 and pretty not in room:
            texts.add(ascii_seq)
            texts.add(pretty)
            texts.add(json.dumps(hand))
    assert len(texts) > 20, "the transcripts should deal many hands that are never shown"
    return Secrets(texts)


@dataclass
class Console:
    url: str
    db: Path
    console_db: Path
    checksum: str
    console_checksum: str
    secrets: Secrets
    proc: subprocess.Popen[str]


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    tmp = tmp_path_factory.mktemp("console")
    db = tmp / "referee.db"
    sink = open(os.devnull, "w")
    with contextlib.closing(sink):
        for path in TRANSCRIPTS:
            replay(path, db=db, out=sink)
        dm = tmp / "dm.txt"
        dm.write_text(DM_TRANSCRIPT, encoding="utf-8")
        replay(dm, db=db, out=sink)
    secrets = _secrets(db)
    checksum = sha256(db)
    keep = tmp / "console.db"
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "console", "--db", str(db), "--port", str(port),
         "--keep", str(keep)],
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
                out, err = proc.communicate()
                pytest.fail(f"the console did not start: {out} {err}")
            time.sleep(0.1)
    try:
        yield Console(url, db, keep, checksum, sha256(keep), secrets, proc)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        # SIGTERM: a graceful stop (exit 0), which also removes the temporary directory
        assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
        proc.stdout.close() if proc.stdout else None
        proc.stderr.close() if proc.stderr else None


def get(c: Console, path: str, data: bytes | None = None,
        headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    req = urllib.request.Request(c.url + path, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def q(s: str) -> str:
    return urllib.parse.quote(s)


def decoded(body: bytes) -> str:
    """A page as text; a JSON export decoded, since Datasette escapes non-ASCII (\\u2660)."""
    textual = body.decode("utf-8", "replace")
    with contextlib.suppress(ValueError):
        return json.dumps(json.loads(textual), ensure_ascii=False)
    return textual


# --- the browser -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser(console: Console) -> Iterator[Any]:
    with chromium("--lang=ja") as drv:
        yield drv


def page(drv: Any, c: Console, path: str, timeout: float = 30) -> str:
    """The text of the page at ``path`` once its document has a body: under load the browser
    may still hold no document right after ``get`` returns, so the body is waited for (and
    the page asked for again if it never came)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    for _ in range(2):
        drv.get(c.url + path)
        try:
            WebDriverWait(drv, timeout / 2).until(lambda d: d.execute_script(
                "return document.readyState === 'complete' && !!document.body"))
            return str(drv.find_element(By.TAG_NAME, "body").text)
        except WebDriverException:
            continue
    return str(drv.find_element(By.TAG_NAME, "body").text)


def wait_for(drv: Any, needle: str, timeout: float = 15) -> str:
    """The page's text once it shows ``needle`` (a form's answer page is loading meanwhile:
    the old document may go away under any call, which is then simply made again)."""
    from selenium.common.exceptions import WebDriverException

    deadline = time.monotonic() + timeout
    body = ""
    while time.monotonic() < deadline:
        try:
            body = str(drv.execute_script(
                "return document.body ? document.body.innerText : ''") or "")
        except WebDriverException:
            body = ""
        if needle in body:
            break
        time.sleep(0.05)
    return body


def headers(drv: Any) -> list[str]:
    from selenium.webdriver.common.by import By

    found = drv.find_elements(By.CSS_SELECTOR, "table.rows-and-columns th")
    return [str(th.text).strip() for th in found]


def cells(drv: Any) -> list[list[str]]:
    from selenium.webdriver.common.by import By

    return [[str(td.text).strip() for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in drv.find_elements(By.CSS_SELECTOR, "table.rows-and-columns tbody tr")]


def shot(drv: Any, tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.png"
    drv.save_screenshot(str(path))
    assert path.stat().st_size > 10_000
    return path


def source(c: Console, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(f"file:{c.db}?mode=ro", uri=True)
    register(conn)  # the log and events views decode the compact rows
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


@pytest.mark.browser
def test_bank_ranking_in_browser(console: Console, browser: Any, tmp_path: Path) -> None:
    body = page(browser, console, "/referee/bank_ranking")
    assert "バンク残高ランキング" in body
    assert headers(browser)[:5] == ["順位", "プレイヤー", "残高", "テーブルのチップ", "ランク"]
    expected = source(console, "SELECT player, balance FROM bank ORDER BY balance DESC, player")
    rows = cells(browser)
    known = {name for name, _ in expected}
    # every balance of the bank, in order; players without a bank row (penalised, flagged) at 0
    assert [(r[1], int(r[2])) for r in rows if r[1] in known] == expected
    assert all(int(r[2]) == 0 for r in rows if r[1] not in known)
    balances = [int(r[2]) for r in rows]
    assert balances == sorted(balances, reverse=True)
    assert rows[0][0] == "1" and rows[0][1] == expected[0][0]
    # the transcripts end with players still seated: their chips are shown beside the bank
    assert any(int(r[3]) > 0 for r in rows)
    shot(browser, tmp_path, "bank_ranking")
    # the bank table itself, sorted by balance, titled in Japanese
    body = page(browser, console, "/referee/bank")
    assert "バンク残高" in body and "没収ポイント" in body


@pytest.mark.browser
def test_player_penalties_in_browser(console: Console, browser: Any, tmp_path: Path) -> None:
    expected = source(console, "SELECT kind, points, chips FROM penalties WHERE player = 'alice'"
                      " ORDER BY id DESC")
    assert len(expected) >= 2  # a leak and an all-in FA (only cards named exactly are charged)
    body = page(browser, console, f"/referee/penalties?{q('プレイヤー')}=alice")
    assert "ペナルティ" in body
    hs = headers(browser)
    for label in ("日時", "プレイヤー", "種類", "ポイント", "チップ", "ハンド", "フラグ",
                  "原因の発言"):
        assert label in hs, (label, hs)
    rows = cells(browser)
    kinds = {"information_leak": "ハンド情報の公開", "allin_fa": "オールインのフライングアクション",
             "check_fa": "チェックのフライングアクション",
             "flying_action_limit": "フライングアクション3回", "interference": "干渉行為"}
    col = {h: i for i, h in enumerate(hs)}
    got = [(r[col["種類"]], int(r[col["ポイント"]]), int(r[col["チップ"]])) for r in rows]
    assert got == [(kinds[k], p, ch) for k, p, ch in expected]
    assert all(r[col["プレイヤー"]] == "alice" for r in rows)
    shot(browser, tmp_path, "alice_penalties")
    # a leak penalty carries its flag and the room message that caused it
    leak = [r for r in rows if r[col["フラグ"]]]
    assert leak and all(r[col["原因の発言"]] for r in leak)
    # the player's whole history, one canned query
    body = page(browser, console, "/referee/player_history?player=alice")
    assert "プレイヤー別の履歴" in body and "ペナルティ" in body and "バンク取引" in body


@pytest.mark.browser
def test_hand_page_in_browser(console: Console, browser: Any, tmp_path: Path) -> None:
    conn = sqlite3.connect(console.console_db)
    (hand_id,) = conn.execute(
        "SELECT 番号 FROM hands WHERE 公開された手札 LIKE '%carol Q♥（マック）%'"
        " AND ボード = '2♣ 7♦ 9♥ J♠ 3♠'").fetchone()
    conn.close()
    body = page(browser, console, f"/referee/hands/{hand_id}")
    for label in ("ハンド", "テーブル", "ボード", "公開された手札", "アクション", "ポット",
                  "終了時スタック"):
        assert label in body
    assert "2♣ 7♦ 9♥ J♠ 3♠" in body
    assert "bob K♥ K♦ 8♣ 4♣（ワンペア）" in body
    assert "alice A♥ A♦ K♣ Q♣（ワンペア）" in body
    assert "メインポット 1,466 → alice 1,466" in body
    assert "サイドポット1 200 → bob 200" in body
    assert "alice 1,466, bob 9,600, carol 9,400" in body
    # carol mucked showing one card: her other three were never seen
    assert "Q♥ Q♦ 6♣ 5♣" not in body and "6♣ 5♣" not in body
    shot(browser, tmp_path, "hand")
    # the hand's log, linked from its page: what the room was told, in order
    body = page(browser, console, f"/referee/hand_log?{q('ハンド')}={hand_id}")
    assert "フロップ: 2♣ 7♦ 9♥" in body and "あなたの手札" not in body


@pytest.mark.browser
def test_write_refused_in_browser(console: Console, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    for sql in ("insert into bank values ('mallory', 999999, null, 0, 0, 0, null)",
                "update bank set 残高 = 999999", "drop table penalties"):
        # the SQL editor is behind the records page's one link (「SQL で調べる」)
        browser.get(console.url + "/referee?_sql_editor=1")
        # typed into the SQL editor (CodeMirror over the textarea), then 「実行」
        WebDriverWait(browser, 15).until(lambda d: d.execute_script(
            "const e = document.querySelector('.CodeMirror'); return !!(e && e.CodeMirror)"))
        cm = browser.find_element(By.CSS_SELECTOR, ".CodeMirror")
        (ActionChains(browser).click(cm).key_down(Keys.CONTROL).send_keys("a")
         .key_up(Keys.CONTROL).send_keys(Keys.DELETE).send_keys(sql).perform())
        typed = browser.execute_script(
            "return document.querySelector('.CodeMirror').CodeMirror.getValue()")
        assert typed == sql
        browser.find_element(By.CSS_SELECTOR, "form.sql input[type=submit]").click()
        body = wait_for(browser, "Statement must be a SELECT")
        assert "Statement must be a SELECT" in body, body[:500]
    shot(browser, tmp_path, "write_refused")
    assert sha256(console.db) == console.checksum
    assert sha256(console.console_db) == console.console_checksum


def test_write_refused_over_api(console: Console) -> None:
    for sql in ("insert into bank values ('mallory', 1, null, 0, 0, 0, null)",
                "update bank set 残高 = 999999", "drop table penalties",
                "delete from ledger", "attach database '/tmp/x.db' as x",
                "pragma writable_schema = 1",
                "select 1; drop table bank"):
        status, body = get(console, f"/referee.json?sql={q(sql)}")
        assert status == 400, (sql, status, body[:200])
        assert json.loads(body)["ok"] is False
    # Datasette 0.65 has no write API: POSTs are refused too
    for path in ("/referee/bank/-/insert", "/referee/-/create", "/referee/bank/-/drop",
                 "/referee/bank_ranking", "/referee.json"):
        status, _ = get(console, path, data=json.dumps({"row": {"プレイヤー": "mallory"}}).encode(),
                        headers={"Content-Type": "application/json"})
        assert status >= 400, path
    status, body = get(console, "/referee.json?sql=" + q("select count(*) as n from bank "
                                                          "where プレイヤー = 'mallory'"))
    assert json.loads(body)["rows"] == [[0]]
    assert sha256(console.db) == console.checksum
    assert sha256(console.console_db) == console.console_checksum


def _every_page(c: Console) -> Iterator[tuple[str, bytes]]:
    status, body = get(c, "/referee.json")
    assert status == 200
    listing = json.loads(body)
    tables = [t["name"] for t in listing["tables"]]
    assert set(tables) >= {"bank", "ledger", "penalties", "flags", "hands", "hand_log", "tables",
                           "ranks"}
    for path in ("/", "/referee", "/-/metadata.json", "/-/databases.json", "/referee.db"):
        yield path, get(c, path)[1]
    for t in tables:
        for suffix in ("", ".json?_shape=array&_size=max", ".csv?_size=max&_stream=on"):
            yield f"/referee/{t}{suffix}", get(c, f"/referee/{t}{suffix}")[1]
    (n,) = json.loads(get(c, "/referee.json?sql=" + q("select max(番号) from hands")
                          + "&_shape=arrayfirst")[1])
    for i in range(1, n + 1):
        yield f"/referee/hands/{i}", get(c, f"/referee/hands/{i}")[1]
        yield f"/referee/hands/{i}.json", get(c, f"/referee/hands/{i}.json")[1]
    players = json.loads(get(c, "/referee.json?sql=" + q("select プレイヤー from bank")
                             + "&_shape=arrayfirst")[1])
    for name in ("monthly_penalties", "bank_ranking", "open_flags"):
        for suffix in ("", ".json", ".csv"):
            yield f"/referee/{name}{suffix}", get(c, f"/referee/{name}{suffix}")[1]
    for p in players:
        for suffix in ("", ".csv"):
            path = f"/referee/player_history{suffix}?player={q(p)}"
            yield path, get(c, path)[1]
    # whatever SQL a moderator writes reads this one file: all of it
    status, body = get(c, "/referee.json?sql=" + q("select name from sqlite_master") +
                       "&_shape=arrayfirst")
    assert "inputs" not in json.loads(body) and "events" not in json.loads(body)


def test_no_unshown_hole_card_served(console: Console) -> None:
    pages = 0
    for path, body in _every_page(console):
        pages += 1
        leaked = console.secrets.found_in(decoded(body))
        assert not leaked, (path, leaked[:5])
    (hands,) = source(console, "SELECT count(*) FROM events WHERE kind = 'hand_start'")[0]
    assert hands >= 20 and pages > 2 * hands
    # the console database itself (what any query or the download reads), every value in it
    conn = sqlite3.connect(console.console_db)
    for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
        for row in conn.execute(f'SELECT * FROM "{table}"'):
            leaked = console.secrets.found_in(" | ".join(str(v) for v in row))
            assert not leaked, (table, row, leaked)
    # the private message of the DM transcript is neither a flag nor anywhere
    dm = conn.execute("SELECT count(*) FROM flags WHERE 発言 LIKE '%手札は%'").fetchone()[0]
    assert dm == 0
    conn.close()
    assert "2♣ 3♣ 4♦ 5♦" in console.secrets.texts
    # the scan finds them where they are: in the referee's own log, which is not served (its
    # rows are compressed: read as the log view decodes them; its says are keys: rendered)
    logged = "\n".join(r[0] + json.dumps([rendered_record(e) for e in json.loads(r[1])],
                                          ensure_ascii=False)
                       for r in source(console, "SELECT input, events FROM log"))
    assert len(console.secrets.found_in(logged)) > 20
    assert sha256(console.db) == console.checksum


def test_japanese_metadata_and_exports(console: Console) -> None:
    status, body = get(console, "/referee")
    page_text = body.decode()
    for title in ("バンク残高", "バンク取引履歴", "ペナルティ", "フラグと判断", "ハンド",
                  "ランクの変更", "今月のペナルティ", "バンク残高ランキング", "プレイヤー別の履歴"):
        assert title in page_text, title
    # this month's penalties: the replay just ran, so all of them (in JST)
    status, body = get(console, "/referee/monthly_penalties.json?_shape=array")
    assert status == 200
    assert len(json.loads(body)) == source(console, "SELECT count(*) FROM penalties")[0][0]
    status, body = get(console, "/referee/bank_ranking.csv")
    assert status == 200 and body.decode().splitlines()[0].startswith("順位,プレイヤー,残高")
    # flags with the moderators' decisions
    status, body = get(console, "/referee/flags.json?_shape=array&_size=max")
    flags = json.loads(body)
    assert {f["状態"] for f in flags} == {"未判断", "確定", "却下"}
    decided = [f for f in flags if f["状態"] == "却下"]
    assert decided and all(f["判断者"] == "dealer" for f in decided)


def test_bank_matches_ledger(console: Console) -> None:
    conn = sqlite3.connect(console.console_db)
    bank = dict(conn.execute("SELECT プレイヤー, 残高 FROM bank"))
    last = dict(conn.execute("SELECT プレイヤー, 残高 FROM ledger ORDER BY 番号"))
    conn.close()
    balances = dict(source(console, "SELECT player, balance FROM bank"))
    assert bank == {**dict.fromkeys(bank, 0), **balances}
    for player, balance in last.items():
        assert bank[player] == balance


def test_password_required(console: Console) -> None:
    from referee.console import USER, datasette

    ds = datasette(console.console_db, password="correct horse")

    async def fetch(auth: str | None) -> int:
        hdrs = {} if auth is None else {
            "Authorization": "Basic " + base64.b64encode(auth.encode()).decode()}
        r = await ds.client.get("/referee/bank.json", headers=hdrs)
        return int(r.status_code)

    assert asyncio.run(fetch(None)) == 401
    assert asyncio.run(fetch(f"{USER}:wrong")) == 401
    assert asyncio.run(fetch(f"{USER}:correct horse")) == 200

    async def metadata() -> str:
        auth = "Basic " + base64.b64encode(f"{USER}:correct horse".encode()).decode()
        r = await ds.client.get("/-/metadata.json", headers={"Authorization": auth})
        return str(r.text)

    shown = asyncio.run(metadata())
    assert "pbkdf2" not in shown and "REFEREE_CONSOLE_PASSWORD_HASH" in shown


def test_bad_database_exit_2(tmp_path: Path) -> None:
    missing = referee("console", "--db", str(tmp_path / "nope.db"), "--port", str(free_port()))
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"this is not sqlite" * 100)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t(x)").connection.commit()
    for r in (missing, referee("console", "--db", str(corrupt), "--port", str(free_port())),
              referee("console", "--db", str(other), "--port", str(free_port()))):
        assert r.returncode == 2, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
        assert r.stderr.startswith("referee: ") and JAPANESE.search(r.stderr), r.stderr


def test_exposed_host_needs_password(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "REFEREE_CONSOLE_PASSWORD"}
    r = referee("console", "--db", str(tmp_path / "x.db"), "--host", "0.0.0.0", env=env)
    assert r.returncode == 2 and "REFEREE_CONSOLE_PASSWORD" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_missing_extra_exit_2(tmp_path: Path) -> None:
    fake = tmp_path / "site"
    (fake / "datasette").mkdir(parents=True)
    (fake / "datasette" / "__init__.py").write_text("raise ImportError('no datasette here')\n")
    env = {**os.environ, "PYTHONPATH": str(fake)}
    r = referee("console", "--db", str(tmp_path / "x.db"), env=env)
    assert r.returncode == 2, r.stderr
    assert "console" in r.stderr and "pip install" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_busy_port_exit_2(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = referee("console", "--db", str(tmp_path / "x.db"), "--port", str(port))
    assert r.returncode == 2 and str(port) in r.stderr and JAPANESE.search(r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1


def test_build_beside_a_writer(console: Console, tmp_path: Path) -> None:
    """The bot may be writing: the console reads one committed snapshot and writes nothing."""
    import shutil

    from referee.console import build

    db = tmp_path / "live.db"
    shutil.copy(console.db, db)
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("BEGIN IMMEDIATE")
    log_rows.insert(writer, "uncommitted", "transcript", "{}", json.dumps([
        {"event": "penalty", "player": "zed", "kind": "interference", "points": 5, "chips": 0}]))
    try:
        built = build(db, tmp_path / "console.db")
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    out = sqlite3.connect(tmp_path / "console.db")
    assert out.execute("SELECT count(*) FROM penalties WHERE プレイヤー = 'zed'").fetchone() == (0,)
    assert built.penalties == source(console, "SELECT count(*) FROM penalties")[0][0]
    out.close()
