"""The console's password: a minimum length, and a limit on wrong tries (20 in 4 s were all
answered before). The real Datasette app over a real console database; the guard's clock is
injected."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import subprocess
import sys
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
    assert r.returncode == 2 and "at least 12" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
