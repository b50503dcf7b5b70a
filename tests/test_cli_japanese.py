"""Every ``referee`` subcommand given bad input (a missing file, a corrupt database, a bad flag,
an unknown game, argparse's own usage errors) answers with one Japanese line on stderr and exit
2: no traceback, no usage block, no English sentence (a catalogue test: wording is what it
checks)."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli

from referee.cli import usage_message

_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
# three English words in a row: a sentence of argparse's, the store's or the OS's
_ENGLISH = re.compile(r"\b[A-Za-z]{2,}(?: [A-Za-z]{2,}){2,}\b")


def _bad_inputs(tmp: Path) -> list[list[str]]:
    corrupt = tmp / "corrupt.db"
    corrupt.write_bytes(b"not sqlite at all, just some bytes" * 40)
    (tmp / "bad.jsonl").write_text("{not json\n", encoding="utf-8")
    (tmp / "bad.txt").write_text("これは行ではない\n", encoding="utf-8")
    (tmp / "adir").mkdir()
    (tmp / "bad.toml").write_text("[irc\n", encoding="utf-8")
    missing, mdb, c, d = (str(tmp / n) for n in ("missing.txt", "missing.db", "corrupt.db",
                                                  "adir"))
    return [
        [], ["bogus"], ["--bogus"],
        ["hand"], ["hand", "--game", "nope", "As Kd Qh Jc"], ["hand", "--game", "omaha", "As"],
        ["hand", "--game", "omaha", "--bogus", "As"], ["hand", "--game", "omaha", "ZZ"],
        ["parse"], ["parse", "--game", "nope", "こ"], ["parse", "--game", "omaha", "--table",
                                                        "x", "こ"],
        ["replay"], ["replay", missing], ["replay", d], ["replay", str(tmp / "bad.txt")],
        ["replay", "--db", c, str(tmp / "bad.txt")],
        ["analyze"], ["analyze", "nope"], ["analyze", "omaha", "--hands", "x"],
        ["analyze", "holdem_aa", "--bet", "nope"], ["analyze", "holdem_aa", "--set", "nope=1"],
        ["analyze", "holdem_aa", "--set", "aa_table.flush=-1"],
        ["analyze", "holdem_aa", "--set", "aa_table.flush=x"],
        ["analyze", "holdem_aa", "--set", "aa_table=3"], ["analyze", "seven", "--hands", "1"],
        ["records"], ["records", "nope", "--db", mdb], ["records", "bank", "--db", mdb],
        ["records", "bank", "--db", c], ["records", "flags", "--db", d],
        ["verify"], ["verify", missing], ["verify", str(tmp / "bad.jsonl")],
        ["verify", "--db", mdb], ["verify", "--db", c],
        ["history", "--db", mdb], ["history", "--db", c], ["history", "--hand", "x"],
        ["history", "--db", c, "--hand", "1", "--player", "a"],
        ["history", "--db", c, "--since", "yesterday"], ["history", "--format", "pdf"],
        ["check", "--db", mdb], ["check", "--db", c], ["backup", "--db", mdb, str(tmp / "b")],
        ["backup", "--db", c, str(tmp / "b.db")], ["backup"],
        ["irc-secret"], ["irc-secret", "--db", mdb, "bob"],
        ["console", "--db", mdb], ["console", "--port", "x"],
        *_bad_consoles(tmp),
        ["matrix", "--config", missing], ["irc", "--config", missing],
        ["irc", "--config", str(tmp / "bad.toml")],
        ["irc", "--server", "h", "--channel", "nochan", "--db", mdb],
        ["play", "--db", c], ["play", "--db", d],
    ]


def _bad_consoles(tmp: Path) -> list[list[str]]:
    """``referee console`` over every kind of database it cannot serve, and with a console
    database it cannot write: each refused before it serves (a port of the system's choosing)."""
    import os
    import sqlite3

    from referee.adapters.transcript import replay
    from referee.resources import EXAMPLES

    good = tmp / "good.db"
    with open(os.devnull, "w") as sink:
        replay(EXAMPLES / "omaha-example.txt", db=good, out=sink)
    (tmp / "empty.db").write_bytes(b"")
    sqlite3.connect(tmp / "other.db").execute("CREATE TABLE t(x)").connection.commit()
    newer = tmp / "newer.db"
    newer.write_bytes(good.read_bytes())
    with sqlite3.connect(newer) as conn:
        conn.execute("INSERT INTO schema_version VALUES (999, 'from the future', 0)")
    damaged = tmp / "damaged.db"
    data = bytearray(good.read_bytes())
    data[4096 * 20:4096 * 21] = b"\xde\xad\xbe\xef" * 1024  # a page of the log, garbage
    damaged.write_bytes(bytes(data))
    truncated = tmp / "truncated.db"
    truncated.write_bytes(good.read_bytes()[:5000])
    port = ["--port", "0", "--theory-hands", "0"]
    return [
        ["console", "--db", str(tmp / n), *port]
        for n in ("corrupt.db", "adir", "empty.db", "other.db", "newer.db", "damaged.db",
                  "truncated.db")
    ] + [
        ["console", "--db", str(good), "--keep", str(tmp / "adir"), *port],
        ["console", "--db", str(good), "--keep", str(tmp / "no" / "such" / "c.db"), *port],
    ]


def test_every_bad_input_is_one_japanese_line(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    monkeypatch.setenv("REFEREE_DB", str(tmp_path / "missing.db"))
    wrong = []
    for argv in _bad_inputs(tmp_path):
        code, _, err = run_cli(argv)
        lines = err.strip().splitlines()
        if (code != 2 or len(lines) != 1 or not _JAPANESE.search(lines[0])
                or _ENGLISH.search(lines[0]) or "Traceback" in err):
            wrong.append((argv, code, err))
    assert not wrong, wrong


def test_every_argparse_message_has_its_japanese_line() -> None:
    """Each usage error argparse can raise (its English formats), as argparse words it."""
    english = [
        "the following arguments are required: --game, cards",
        "one of the arguments --a --b is required",
        "unrecognized arguments: --x y",
        "ambiguous option: --p could match --player, --port",
        "argument kind: invalid choice: 'x' (choose from 'bank', 'flags')",
        "argument --hand: invalid int value: 'x'",
        "argument --wait: invalid float value: 'soon'",
        "argument --db: expected one argument",
        "argument --json: not allowed with argument --format",
        "something argparse may say one day",
    ]
    for message in english:
        line = usage_message("referee records", message)
        assert _JAPANESE.search(line) and not _ENGLISH.search(line), (message, line)
        assert line.startswith("referee records: "), line
