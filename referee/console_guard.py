"""The console's login under attack: a limit on wrong passwords (HTTP basic authentication),
and a limit on heavy queries.

datasette-auth-passwords checks a password as often as it is asked. :class:`Guard` wraps the
console's ASGI app (a Datasette ``asgi_wrapper`` plugin, :mod:`referee.console`) and counts the
answers 401 to requests that carried credentials.

* **Devices that proved themselves.** The right password earns the browser a device cookie
  (random, HttpOnly, 30 days; kept in memory). A request carrying one is judged on that
  device's own count only -- ``FREE`` wrong in a row, then a wait that doubles -- so nobody
  else's wrong tries, from the same address or from everywhere, ever keep a moderator out who
  has logged in from that browser before. Behind a reverse proxy every client has the proxy's
  address; this is what keeps a stranger there from locking out everyone behind it.
* **Everyone else** is counted per client address (``FREE`` wrong in a row cost nothing, then
  every attempt from that address is answered 429 for a wait that doubles, ``BASE`` s up to
  ``CAP``), and over all addresses ``GLOBAL`` wrong in ``WINDOW`` seconds close the login to
  clients without a device cookie for the rest of that window. A right password resets its
  address. Requests without credentials are not guesses and pass as before.
* **Heavy queries.** A request with its own SQL (``?sql=``) waits here, not on one of
  Datasette's SQL threads, while ``HEAVY`` others run: the pages keep threads of their own.

The client address is the connection's (``scope["client"]``): the console is served without
uvicorn's proxy headers, so an ``X-Forwarded-For`` never chooses whose count a guess lands on.
The clock is injected (tests drive it); the counts live in memory: a restart of the console
starts them afresh (device cookies too: the moderator logs in once more).
"""

from __future__ import annotations

import asyncio
import secrets
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


DEVICE_COOKIE = "referee_device"
DEVICE_DAYS = 30


@dataclass
class _Source:
    fails: int = 0
    until: float = 0.0


class Guard:
    FREE = 5
    BASE, CAP = 2.0, 300.0
    GLOBAL, WINDOW = 30, 60.0
    DEVICES = 10000  # device cookies remembered (the oldest forgotten first)
    HEAVY = 1  # requests with their own SQL running at once

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.sources: dict[str, _Source] = {}
        self.devices: dict[str, _Source] = {}  # device cookie -> its own count
        self.recent: deque[float] = deque()  # times of wrong passwords, clients without a device
        self._heavy: asyncio.Semaphore | None = None

    def wait(self, addr: str, now: float, device: str | None = None) -> float:
        """Seconds before ``addr`` (or the proven ``device``) may try a password again."""
        if device is not None and device in self.devices:
            return max(0.0, self.devices[device].until - now)
        while self.recent and now - self.recent[0] >= self.WINDOW:
            self.recent.popleft()
        closed = (self.recent[0] + self.WINDOW - now) if len(self.recent) >= self.GLOBAL else 0
        src = self.sources.get(addr)
        return max(0.0, closed, (src.until - now) if src is not None else 0.0)

    def _count(self, src: _Source, now: float) -> None:
        src.fails += 1
        if src.fails >= self.FREE:
            src.until = now + min(self.CAP, self.BASE * 2 ** (src.fails - self.FREE))

    def wrong(self, addr: str, now: float, device: str | None = None) -> None:
        if device is not None and device in self.devices:
            self._count(self.devices[device], now)
            return
        self._count(self.sources.setdefault(addr, _Source()), now)
        self.recent.append(now)

    def right(self, addr: str, device: str | None = None) -> str | None:
        """A right password: the device's count starts afresh, or a client without one gets
        a new device cookie (returned) and its address starts afresh."""
        if device is not None and device in self.devices:
            self.devices[device] = _Source()
            return None
        self.sources.pop(addr, None)
        token = secrets.token_urlsafe(24)
        self.devices[token] = _Source()
        while len(self.devices) > self.DEVICES:
            del self.devices[next(iter(self.devices))]
        return token

    def wrap(self, app: App) -> App:
        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            if scope.get("type") != "http":
                await app(scope, receive, send)
                return
            if _own_sql(scope):
                await self._heavy_turn(app, scope, receive, send)
                return
            await self._login(app, scope, receive, send)

        return guarded

    async def _heavy_turn(self, app: App, scope: Scope, receive: Receive, send: Send) -> None:
        if self._heavy is None:
            self._heavy = asyncio.Semaphore(self.HEAVY)
        async with self._heavy:
            await self._login(app, scope, receive, send)

    async def _login(self, app: App, scope: Scope, receive: Receive, send: Send) -> None:
        headers = scope.get("headers", ())
        if not any(k.lower() == b"authorization" for k, _ in headers):
            await app(scope, receive, send)
            return
        addr = str((scope.get("client") or ("?",))[0])
        device = _cookie(headers, DEVICE_COOKIE)
        if device is not None and device not in self.devices:
            device = None  # forgotten (a restart) or never ours: counted by address
        now = self.clock()
        wait = self.wait(addr, now, device)
        if wait > 0:
            body = text("console_too_many", seconds=str(int(wait) + 1)).encode("utf-8")
            await send({"type": "http.response.start", "status": 429, "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"retry-after", str(int(wait) + 1).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        async def watched(message: MutableMapping[str, Any]) -> None:
            if message.get("type") == "http.response.start":
                code = int(message.get("status", 0))
                if code == 401:
                    self.wrong(addr, now, device)
                elif code < 400:
                    token = self.right(addr, device)
                    if token is not None:
                        message = {**message, "headers": [*message.get("headers", ()),
                                                          (b"set-cookie", _device_cookie(token))]}
            await send(message)

        await app(scope, receive, watched)


def _own_sql(scope: Scope) -> bool:
    """Whether the request runs SQL of its own (``?sql=``), however heavy."""
    from urllib.parse import parse_qs

    query = scope.get("query_string", b"")
    return bool(query) and "sql" in parse_qs(query.decode("latin-1"))


def _cookie(headers: Any, name: str) -> str | None:
    from http.cookies import SimpleCookie

    for k, v in headers:
        if k.lower() == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(v.decode("latin-1"))
            except Exception:  # a malformed cookie header is no device
                return None
            if name in jar:
                return jar[name].value
    return None


def _device_cookie(token: str) -> bytes:
    return (f"{DEVICE_COOKIE}={token}; Path=/; Max-Age={DEVICE_DAYS * 86400}; HttpOnly; "
            "SameSite=Strict").encode()
