"""The Matrix bot's log, kept readable: a line repeated word for word is written once per
window, and its next appearance after the window says how many were left out.

nio logs a warning for every failed decryption, and the bot retries held messages every
second, so one stuck key used to write the same line for up to an hour. The filter is generic
(any logger, any level): what differs -- another event, another session -- is logged as usual.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

_log = logging.getLogger("referee.matrix")
QUIET_WINDOW = 300.0  # seconds an identical line stays quiet after it was written


class QuietRepeats(logging.Filter):
    """Drops a record identical (logger, level, message) to one let through less than
    ``window`` seconds ago; the next one let through carries the count of those dropped."""

    def __init__(self, window: float = QUIET_WINDOW,
                 clock: Callable[[], float] = time.monotonic, limit: int = 4096) -> None:
        super().__init__()
        self.window, self.clock, self.limit = window, clock, limit
        self._last: dict[tuple[str, int, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:  # a broken record is the handler's business, not ours
            return True
        key = (record.name, record.levelno, text)
        now = self.clock()
        seen = self._last.get(key)
        if seen is not None and now - seen[0] < self.window:
            self._last[key] = (seen[0], seen[1] + 1)
            return False
        if seen is not None and seen[1]:
            record.msg, record.args = f"{text} (repeated {seen[1]} more times in "\
                f"{self.window:.0f}s, not logged)", None
        if len(self._last) >= self.limit:  # many distinct lines: forget the stale ones
            self._last = {k: v for k, v in self._last.items() if now - v[0] < self.window}
        self._last[key] = (now, 0)
        return True


def quiet_repeats(window: float = QUIET_WINDOW) -> QuietRepeats:
    """Install the filter on every handler of the root logger (where the bot's lines and
    nio's end up); returns it."""
    quiet = QuietRepeats(window)
    for handler in logging.getLogger().handlers:
        handler.addFilter(quiet)
    return quiet


class RateLimitCounter(logging.Handler):
    """Counts nio's 429 retries (it logs each one) so tests and operators can see them."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "429" in record.getMessage():
            self.count += 1
            _log.info("rate limited by the homeserver (%d so far); retrying", self.count)
