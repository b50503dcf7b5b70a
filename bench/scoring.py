"""What the corpus scorers share: reading a labelled JSON Lines corpus with one clear error per
bad line, the action value fields a reading is compared on, and the command-line shell that
ends quietly when the reader of the output goes away (``| head``).

Used by ``bench/reading.py`` (actions, hand_info, advice on blind rounds),
``bench/judgement.py`` (hand talk and interference) and ``tests/test_clauses.py``."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

VALUE_FIELDS = ("amount", "to", "pot", "aa", "cards", "hand", "keep", "discard")
CARD_FIELDS = frozenset({"cards", "keep", "discard"})


def values(d: dict[str, Any]) -> dict[str, Any]:
    """The value fields of a reading (CONTRACTS §2), card lists as sorted sets, ``pot`` only
    when true: two readings of one action agree exactly when these are equal."""
    out: dict[str, Any] = {}
    for k in VALUE_FIELDS:
        v = d.get(k)
        if v is None or (k == "pot" and v is False):
            continue
        out[k] = sorted(str(c).upper() for c in v) if k in CARD_FIELDS else v
    return out


def exact(got: dict[str, Any], want: dict[str, Any]) -> bool:
    """``got`` is the labelled action ``want`` with exactly its values."""
    return got.get("kind") == "action" and got.get("action") == want.get("action") and (
        values(got) == values(want))


def load(path: Path, check: Callable[[dict[str, Any]], str | None]) -> list[dict[str, Any]]:
    """The rows of a JSON Lines corpus; ``check`` names what a row lacks (or None). A file that
    cannot be read or a bad line ends the run with one line naming the file and the line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise SystemExit(f"{path}: {getattr(e, 'strerror', None) or e}") from None
    rows: list[dict[str, Any]] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise SystemExit(f"{path}:{n}: not JSON: {e.msg}") from None
        problem = "not an object" if not isinstance(row, dict) else check(row)
        if problem:
            raise SystemExit(f"{path}:{n}: {problem}")
        rows.append(row)
    return rows


class PR:
    """Precision and recall of one flag: counts of true and false positives and of misses."""

    def __init__(self) -> None:
        self.tp = self.fp = self.fn = 0

    def add(self, got: bool, want: bool) -> str | None:
        """Count one line; "false" or "missed" when it is wrong, else None."""
        if got and want:
            self.tp += 1
        elif got:
            self.fp += 1
            return "false"
        elif want:
            self.fn += 1
            return "missed"
        return None

    def summary(self) -> dict[str, Any]:
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0
        return {"precision": round(p, 4), "recall": round(r, 4),
                "tp": self.tp, "fp": self.fp, "fn": self.fn}


def pct(a: int, b: int) -> str:
    return f"{a / b:.1%}" if b else "-"


def run(main: Callable[[], None]) -> None:
    """Run a scorer's ``main``; a broken pipe is the reader stopping, not an error of ours."""
    try:
        main()
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")  # Python flushes stdout at exit
        sys.exit(0)
