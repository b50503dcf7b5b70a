"""What the console benches ask of a server they start: a free port, and the CPU seconds the
child has used (user + system, every thread), read from /proc where wall time on a shared
machine would mislead."""

from __future__ import annotations

import os
import socket


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """The CPU seconds (user + system, every thread) process ``pid`` has used so far."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def catching_up(url: str) -> bool:
    """Whether the console at ``url`` still reads the rows its log gained behind the served
    database (its front page's notice, ``data-catch-up="reading"``)."""
    import urllib.request

    with urllib.request.urlopen(url + "/", timeout=120) as r:
        return 'data-catch-up="reading"' in r.read().decode("utf-8")
