"""The Matrix bot's log filter (no homeserver): a line repeated word for word is written once
per window, then with the count of those left out; other lines pass untouched."""

from __future__ import annotations

import logging

from referee.adapters.matrix_log import QuietRepeats


def _record(text: str, name: str = "nio.crypto.log", level: int = logging.WARNING,
            *args: object) -> logging.LogRecord:
    return logging.LogRecord(name, level, __file__, 1, text, args or None, None)


def test_a_repeated_warning_is_written_once_per_window() -> None:
    now = [0.0]
    quiet = QuietRepeats(window=300.0, clock=lambda: now[0])
    stuck = "Error decrypting megolm event: unknown message index"
    passed = []
    for second in range(600):  # the held message retried every second for ten minutes
        now[0] = float(second)
        rec = _record(stuck)
        if quiet.filter(rec):
            passed.append(rec.getMessage())
    assert len(passed) == 2
    assert passed[0] == stuck
    assert passed[1].startswith(stuck) and "repeated 299 more times" in passed[1]


def test_different_lines_and_loggers_pass() -> None:
    quiet = QuietRepeats(window=300.0, clock=lambda: 0.0)
    assert quiet.filter(_record("session %s missing", "nio", logging.WARNING, "A"))
    assert quiet.filter(_record("session %s missing", "nio", logging.WARNING, "B"))
    assert quiet.filter(_record("same text", "referee.matrix"))
    assert quiet.filter(_record("same text", "nio"))
    assert quiet.filter(_record("same text", "nio", logging.ERROR))
    assert not quiet.filter(_record("same text", "nio"))
