"""The console's password: a minimum length, and a limit on wrong tries (20 in 4 s were all
answered before) that X-Forwarded-For cannot dodge and a stranger cannot turn against a
moderator's browser; heavy queries never make the pages wait. The real Datasette app over a
real console database (in process, the guard's clock injected), or ``referee console`` served
by uvicorn on a free 127.0.0.1 port."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.adapters.transcript import replay
from referee.resources import EXAMPLES

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("datasette")
pytest.importorskip("datasette_auth_passwords")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def console_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from referee.console import build

    tmp = tmp_path_factory.mktemp("guard")
    db = tmp / "referee.db"
    with open(os.devnull, "w") as sink, contextlib.closing(sink):
        replay(EXAMPLES / "omaha-example.txt", db=db, out=sink)
    build(db, tmp / "console.db")
    return tmp / "console.db"


def test_wrong_passwords_are_limited(console_db: Path) -> None:
    from referee.console import USER, datasette
    from referee.console_guard import Guard

    clock = Clock()
    ds = datasette(console_db, password="correct horse battery", guard=Guard(clock))

    def status(password: str | None) -> int:
        hdrs = {} if password is None else {"Authorization": "Basic " + base64.b64encode(
            f"{USER}:{password}".encode()).decode()}

        async def go() -> int:
            r = await ds.client.get("/referee/bank.json", headers=hdrs)
            return int(r.status_code)

        return asyncio.run(go())

    got = [status(f"guess-{i}") for i in range(8)]
    assert got[:5] == [401] * 5 and set(got[5:]) == {429}, got
    assert status("correct horse battery") == 429  # no answer either way while it waits
    assert status(None) == 401  # no credentials: not a guess, the login page as before
    clock.now += 301
    assert status("correct horse battery") == 200
    assert status("guess-again") == 401  # the right password started the address afresh


def test_many_addresses_close_the_login_for_a_while() -> None:
    from referee.console_guard import Guard

    g = Guard(lambda: 0.0)
    for i in range(Guard.GLOBAL):
        assert g.wait(f"10.0.0.{i}", 0.0) == 0
        g.wrong(f"10.0.0.{i}", float(i) / 10)
    assert g.wait("10.9.9.9", 5.0) > 0  # a fresh address: closed too
    assert g.wait("10.9.9.9", 5.0 + Guard.WINDOW) == 0


def test_a_short_password_is_refused(tmp_path: Path) -> None:
    env = {**os.environ, "REFEREE_CONSOLE_PASSWORD": "short"}
    r = subprocess.run([sys.executable, "-m", "referee.cli", "console", "--db",
                        str(tmp_path / "x.db"), "--port", "0"], capture_output=True, text=True,
                       cwd=ROOT, env=env, timeout=60)
    assert r.returncode == 2 and "12" in r.stderr and "REFEREE_CONSOLE_PASSWORD" in r.stderr, \
        r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert len(r.stderr.strip().splitlines()) == 1


# --- served for real: uvicorn as `referee console` runs it -----------------------------------

PASSWORD = "correct horse battery"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def served(tmp: Path, password: str | None) -> Iterator[str]:
    """``referee console`` over the example hand on a free 127.0.0.1 port; its base URL."""
    import socket
    import time

    db = tmp / "referee.db"
    if not db.exists():
        with open(os.devnull, "w") as sink, contextlib.closing(sink):
            replay(EXAMPLES / "omaha-example.txt", db=db, out=sink)
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "REFEREE_CONSOLE_PASSWORD"}
    if password is not None:
        env["REFEREE_CONSOLE_PASSWORD"] = password
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "console", "--db", str(db),
                             "--port", str(port)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        end = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
                break
            assert time.monotonic() < end, "the console did not start"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def _auth(password: str) -> dict[str, str]:
    from referee.console import USER

    return {"Authorization": "Basic " + base64.b64encode(
        f"{USER}:{password}".encode()).decode()}


def test_x_forwarded_for_never_chooses_whose_count_a_guess_lands_on(tmp_path: Path) -> None:
    """uvicorn believes X-Forwarded-For from 127.0.0.1 unless told not to: each guess could
    then name a fresh address and never be limited."""
    import httpx

    with served(tmp_path, PASSWORD) as url, httpx.Client(base_url=url, timeout=30) as c:
        got = [c.get("/referee/bank.json", headers={
            **_auth(f"guess-{i}"), "X-Forwarded-For": f"203.0.113.{i}"}).status_code
            for i in range(8)]
    # (each address its own count would answer all eight 401; one count makes the address wait
    # after the free five -- a wait that a slow machine may outlast between two requests, so
    # not every later answer need be 429)
    assert got[:5] == [401] * 5 and 429 in got[5:], got


def test_a_stranger_on_the_same_address_never_locks_out_a_moderator(tmp_path: Path) -> None:
    """Behind a reverse proxy everyone has its address. The moderator logged in from this
    browser before (its device cookie): forty wrong tries from the same address leave them
    in at once; a browser that never logged in waits like the stranger."""
    import httpx

    with served(tmp_path, PASSWORD) as url:
        with httpx.Client(base_url=url, timeout=30) as moderator:
            assert moderator.get("/referee/bank.json", headers=_auth(PASSWORD)).status_code == 200
            assert "referee_device" in moderator.cookies
            with httpx.Client(base_url=url, timeout=30) as stranger:
                got = [stranger.get("/referee/bank.json",
                                    headers=_auth(f"guess-{i}")).status_code
                       for i in range(40)]
                # (the waits double from 2 s: a loaded machine may let the first ones pass
                # between two requests, never most of them)
                assert got[:5] == [401] * 5 and got.count(429) >= 25, got
                fresh = httpx.Client(base_url=url, timeout=30)
                with fresh:
                    assert fresh.get("/referee/bank.json",
                                     headers=_auth(PASSWORD)).status_code == 429
            assert moderator.get("/referee/bank.json", headers=_auth(PASSWORD)).status_code == 200


def test_a_device_is_counted_on_its_own_and_gets_in_once_its_wait_passed() -> None:
    from referee.console_guard import Guard

    clock = Clock()
    g = Guard(clock)
    device = g.right("127.0.0.1")
    assert device is not None
    for i in range(Guard.GLOBAL):  # everyone else's wrong tries close the login ...
        g.wrong(f"10.0.0.{i}", clock.now)
    assert g.wait("127.0.0.1", clock.now) > 0
    assert g.wait("127.0.0.1", clock.now, device) == 0  # ... but not for a proven device
    for _ in range(Guard.FREE):  # the device's own typos cost it its own wait
        g.wrong("127.0.0.1", clock.now, device)
    wait = g.wait("127.0.0.1", clock.now, device)
    assert 0 < wait <= Guard.BASE
    clock.now += wait
    assert g.wait("127.0.0.1", clock.now, device) == 0
    assert g.right("127.0.0.1", device) is None  # in; its count starts afresh
    assert g.devices[device].fails == 0


HEAVY_SQL = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
             "SELECT count(*) FROM c")


def test_heavy_queries_never_make_the_pages_wait(tmp_path: Path) -> None:
    """Ten queries that would run for ever (each stopped by the time limit) sent at once; a
    plain page asked meanwhile is answered within 2 s (before: 8.7 s here, 12 s in the issue:
    Datasette's three SQL threads busy for 3 s a query; after: 0.06 s)."""
    import time

    import httpx

    async def go(url: str) -> tuple[float, list[int]]:
        async with httpx.AsyncClient(base_url=url, timeout=120) as c:
            heavy = [asyncio.create_task(c.get("/referee.json", params={"sql": HEAVY_SQL}))
                     for _ in range(10)]
            await asyncio.sleep(0.5)  # they have the SQL threads (before) or wait their turn
            t0 = time.monotonic()
            r = await c.get("/referee/bank.json")
            took = time.monotonic() - t0
            assert r.status_code == 200, r.text[:300]
            done = await asyncio.gather(*heavy)
            return took, [h.status_code for h in done]

    with served(tmp_path, None) as url:
        took, statuses = asyncio.run(go(url))
    print(f"\na plain page in {took:.2f}s while ten heavy queries ran")
    assert took < 2.0, took
    assert set(statuses) <= {200, 400}, statuses  # each stopped by the time limit
