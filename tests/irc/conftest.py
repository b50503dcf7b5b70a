"""The IRC tests' servers: each test its own ngIRCd (and InspIRCd + Atheme) on free 127.0.0.1
ports (helpers in ircnet.py). A server starts in a fraction of a second; one shared by a worker's
tests let a test's leftovers (a client still holding ``alice``, a bot that failed to stop holding
``referee``) fail the next test on another file. Every bot a test started is stopped after it,
whether the test passed or not."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ircnet import BotProcess, Net, Ngircd, Services

NETS = ("ngircd", "services", "services_whois")


@pytest.fixture(autouse=True)
def _bots_stopped() -> Iterator[None]:
    """A bot left running by a failed test would keep its nick and channels on the network."""
    yield
    while BotProcess.started:
        BotProcess.started.pop().stop()


@pytest.fixture
def ngircd() -> Iterator[Ngircd]:
    server = Ngircd()
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture
def services() -> Iterator[Services]:
    """InspIRCd + Atheme (a network with accounts)."""
    net = Services()
    try:
        net.start()
        yield net
    finally:
        net.close()


@pytest.fixture
def services_whois() -> Iterator[Services]:
    """The same network without IRCv3 account tags: accounts are known only by WHOIS."""
    net = Services(account_tag=False)
    try:
        net.start()
        yield net
    finally:
        net.close()


def _own_net(kind: str, penalties: bool = True) -> Iterator[Net]:
    server: Ngircd | Services
    if kind == "ngircd":
        server = Ngircd(penalties=penalties)
    else:
        server = Services(account_tag=kind == "services")
    try:
        server.start()
        yield Net(server.port, kind != "ngircd", kind)
    finally:
        server.close()


@pytest.fixture(params=NETS)
def own_net(request: pytest.FixtureRequest) -> Iterator[Net]:
    """A network of the test's own, once each: ngIRCd (``!pass`` secrets), InspIRCd + Atheme
    with account tags (and MONITOR) and without them (WHOIS, ISON)."""
    yield from _own_net(request.param)


@pytest.fixture(params=NETS)
def flood_net(request: pytest.FixtureRequest) -> Iterator[Net]:
    """``own_net`` for the flood tests: ngIRCd without its per-client penalty
    (``MaxPenaltyTime = 0``), so a client's 30 lines a second reach the bot as sent; InspIRCd
    here never throttles a client (``commandrate``, ``fakelag="off"`` in ircnet.INSPIRCD_CONF)."""
    yield from _own_net(request.param, penalties=False)
