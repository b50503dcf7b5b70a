"""A secret typed where the referee reads it (any adapter: the terminal, a Matrix room, a
transcript) is stored redacted: the one command reader knows ``!pass`` in any width, with
invisible characters slipped in, and the inputs, the events and the database file never hold
the secret. Real SQLite files, the real CLI."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from referee.lang.reader import read_command, redacted
from referee.store.log import register

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("typed", ["!pass hunter-22", "！ｐａｓｓ hunter-22",
                                   "!\u200bpass hunter-22", "\u2060！パス hunter-22",
                                   "!PASS @bob hunter-22 hunter-23"])
def test_the_reader_knows_every_form(typed: str) -> None:
    cmd = read_command(typed)
    assert cmd is not None and cmd.secret
    assert "hunter" not in redacted(typed)
    assert ("@bob" in redacted(typed)) == ("@bob" in typed)


def test_not_a_secret() -> None:
    for text in ("!passport x", "パス", "!sit", "手札"):
        assert redacted(text) == text
    cmd = read_command("！ｓｉｔ")
    assert cmd is not None and cmd.name == "sit" and not cmd.secret


def test_a_secret_at_the_terminal_is_never_stored(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    lines = "".join(f"alice: {t}\n" for t in (
        "!pass hunter-22", "！ｐａｓｓ ｈｕｎｔｅｒ－２２ hunter-23", "!\u200bpass hunter-24"))
    r = subprocess.run([sys.executable, "-m", "referee.cli", "play", "--db", str(db)],
                       input=lines, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    conn = sqlite3.connect(str(db))
    register(conn)
    try:
        rows = conn.execute("SELECT input, events FROM log").fetchall()
    finally:
        conn.close()
    texts = [json.loads(i).get("text") for i, _ in rows]
    assert texts.count("!pass ***") == 2 and "!pass *** ***" in texts, texts
    blob = db.read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("t.db*"))
    for secret in ("hunter-22", "hunter-23", "hunter-24", "ｈｕｎｔｅｒ"):
        assert secret.encode() not in blob
        assert secret not in r.stdout + r.stderr


def test_every_character_that_reads_as_a_mark_is_known() -> None:
    import sys
    import unicodedata

    from referee.lang.reader import _marks_before_nfkc
    from referee.lang.vocab import marks

    starts = marks("command_starts")
    astral = [c for c in range(0x10000, sys.maxunicode + 1)
              if unicodedata.normalize("NFKC", chr(c))[:1] in starts]
    assert astral == [] and {"!", "！", "﹗", "‼"} <= _marks_before_nfkc()
