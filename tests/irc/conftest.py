"""The IRC tests' session server: one ngIRCd on a free 127.0.0.1 port (helpers in ircnet.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ircnet import Net, Ngircd, Services

NETS = ("ngircd", "services", "services_whois")


@pytest.fixture(scope="session")
def ngircd() -> Iterator[Ngircd]:
    server = Ngircd()
    try:
        took = server.start()
        print(f"\nngircd up in {took:.2f}s on 127.0.0.1:{server.port}")
        yield server
    finally:
        server.close()


@pytest.fixture
def own_ngircd() -> Iterator[Ngircd]:
    """A server of the test's own, for tests that flood it, fill a disk under the bot or kill the
    bot mid-hand: the session's server, shared by a worker's other files, never sees them."""
    server = Ngircd()
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def services() -> Iterator[Services]:
    """InspIRCd + Atheme (a network with accounts), once per session."""
    net = Services()
    try:
        took = net.start()
        print(f"\ninspircd+atheme up in {took:.2f}s on 127.0.0.1:{net.port}")
        yield net
    finally:
        net.close()


@pytest.fixture(scope="session")
def services_whois() -> Iterator[Services]:
    """The same network without IRCv3 account tags: accounts are known only by WHOIS."""
    net = Services(account_tag=False)
    try:
        took = net.start()
        print(f"\ninspircd+atheme (no account-tag) up in {took:.2f}s on 127.0.0.1:{net.port}")
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
