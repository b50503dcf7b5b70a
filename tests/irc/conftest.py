"""The IRC tests' session server: one ngIRCd on a free 127.0.0.1 port (helpers in ircnet.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ircnet import Ngircd


@pytest.fixture(scope="session")
def ngircd() -> Iterator[Ngircd]:
    server = Ngircd()
    try:
        took = server.start()
        print(f"\nngircd up in {took:.2f}s on 127.0.0.1:{server.port}")
        yield server
    finally:
        server.close()
