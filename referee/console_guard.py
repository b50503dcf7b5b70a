"""The console's login under attack: a limit on wrong passwords (HTTP basic authentication).

datasette-auth-passwords checks a password as often as it is asked. :class:`Guard` wraps the
console's ASGI app (a Datasette ``asgi_wrapper`` plugin, :mod:`referee.console`) and counts the
answers 401 to requests that carried credentials: per client address the first ``FREE`` wrong
in a row cost nothing, then every attempt from that address is answered 429 for a wait that
doubles (``BASE`` s, at most ``CAP``); and over all addresses, ``GLOBAL`` wrong in ``WINDOW``
seconds close the login to everyone for the rest of that window. A request with the right
password resets its address. Requests without credentials are not guesses and pass as before.

The clock is injected (tests drive it); the counts live in memory: a restart of the console
starts them afresh, but the wait of the first wrong tries is cheap for the owner and useless
to a guesser at these numbers (a few tries a minute).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from referee.lang.catalog import text

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

MIN_PASSWORD = 12  # characters: the console's password is guessed over the network


@dataclass
class _Source:
    fails: int = 0
    until: float = 0.0


class Guard:
    FREE = 5
    BASE, CAP = 2.0, 300.0
    GLOBAL, WINDOW = 30, 60.0

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.sources: dict[str, _Source] = {}
        self.recent: deque[float] = deque()  # times of wrong passwords, all addresses

    def wait(self, addr: str, now: float) -> float:
        """Seconds before ``addr`` may try a password again (0: now)."""
        while self.recent and now - self.recent[0] >= self.WINDOW:
            self.recent.popleft()
        closed = (self.recent[0] + self.WINDOW - now) if len(self.recent) >= self.GLOBAL else 0
        src = self.sources.get(addr)
        return max(0.0, closed, (src.until - now) if src is not None else 0.0)

    def wrong(self, addr: str, now: float) -> None:
        src = self.sources.setdefault(addr, _Source())
        src.fails += 1
        if src.fails >= self.FREE:
            src.until = now + min(self.CAP, self.BASE * 2 ** (src.fails - self.FREE))
        self.recent.append(now)

    def right(self, addr: str) -> None:
        self.sources.pop(addr, None)

    def wrap(self, app: App) -> App:
        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            if scope.get("type") != "http" or not any(
                    k.lower() == b"authorization" for k, _ in scope.get("headers", ())):
                await app(scope, receive, send)
                return
            addr = str((scope.get("client") or ("?",))[0])
            now = self.clock()
            wait = self.wait(addr, now)
            if wait > 0:
                body = text("console_too_many", seconds=str(int(wait) + 1)).encode("utf-8")
                await send({"type": "http.response.start", "status": 429, "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"retry-after", str(int(wait) + 1).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
            status: list[int] = []

            async def watched(message: MutableMapping[str, Any]) -> None:
                if message.get("type") == "http.response.start":
                    status.append(int(message.get("status", 0)))
                await send(message)

            await app(scope, receive, watched)
            if status and status[0] == 401:
                self.wrong(addr, now)
            elif status and status[0] < 400:
                self.right(addr)

        return guarded
