"""The transcript format of docs/contracts.md §3: what each line becomes, and malformed lines
refused with their line number (before anything runs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.adapters.transcript import TranscriptError, read
from referee.lang.catalog import text
from referee.lang.catalog import text as catalog_text

HEADER = """## a comment
# table: omaha rules=world level=3
# moderator: dealer
# seat 1: alice 20000
# seat 2: bob 20000
# seat 3: carol 20000
# button: 1
# deal: alice=Ah Kh Qd Jd | bob=2c 3c 4d 5d | carol=9h 9d 8s 7s | board=Ts 9s 8c 2h 3h
"""


def test_contract_example_lines() -> None:
    text = HEADER + (
        "[21:00:01] carol: こ\n"
        "\n"
        "[21:00:03] alice: メイク300\n"
        "[21:00:04] carol (dm): 今の手札は？\n"
        "dealer: !nogame\n"
    )
    lines = read(text)
    kinds = [(ln.lineno, ln.input["kind"], ln.input.get("name")) for ln in lines]
    assert kinds[:7] == [
        (2, "directive", "table"), (3, "directive", "moderator"), (4, "directive", "seat"),
        (5, "directive", "seat"), (6, "directive", "seat"), (7, "directive", "button"),
        (8, "directive", "deal"),
    ]
    table = lines[0].input["args"]
    assert table == {"game": "omaha", "options": {"rules": "world", "level": "3"}}
    assert lines[2].input["args"] == {"seat": 1, "name": "alice", "chips": 20000, "npc": False}
    deal = lines[6].input["args"]
    assert deal["hands"] == {
        "alice": ["Ah", "Kh", "Qd", "Jd"], "bob": ["2c", "3c", "4d", "5d"],
        "carol": ["9h", "9d", "8s", "7s"],
    }
    assert deal["board"] == ["Ts", "9s", "8c", "2h", "3h"]
    msgs = [ln.input for ln in lines if ln.input["kind"] == "message"]
    assert [(m["sender"], m["text"], m["dm"], m["time"]) for m in msgs] == [
        ("carol", "こ", False, 21 * 3600 + 1.0),
        ("alice", "メイク300", False, 21 * 3600 + 3.0),
        ("carol", "今の手札は？", True, 21 * 3600 + 4.0),
        ("dealer", "!nogame", False, None),
    ]
    assert [m["line"] for m in msgs] == [9, 11, 12, 13]


def test_deal_keys_joker_dice_shoe_and_npc_seat() -> None:
    text = (
        "# table: seven\n# seat 1: alice 3000\n# seat 6: house 9000 npc\n"
        "# deal: alice=JK 2c 3c 4c 5c 6c 7c | house=As Ks Qs Js Ts 9s 8s | dice=3 | shoe=10h Ad\n"
    )
    lines = read(text)
    assert lines[2].input["args"]["npc"] is True
    deal = lines[3].input["args"]
    assert deal["hands"]["alice"][0] == "JK"
    assert deal["dice"] == [3]
    assert deal["shoe"] == ["Th", "Ad"]


def test_time_passes_midnight() -> None:
    lines = read("# table: omaha\n[23:59:59] a: x\n[00:00:02] a: y\n")
    assert [ln.input["time"] for ln in lines[1:]] == [86399.0, 86402.0]


@pytest.mark.parametrize(
    "bad,lineno,code",
    [
        ("# tabel: omaha", 1, "unknown_directive"),
        ("# table: poker", 1, "unknown_game"),
        ("# table: omaha level", 1, "table_option"),
        ("[21:00:00] alice: こ", 1, "before_table"),
        ("# table: omaha\n# seat 9: alice 100", 2, "seat_range"),
        ("# table: omaha\n# seat 0: alice 100", 2, "seat_range"),
        ("# table: omaha\n# seat 1: alice lots", 2, "not_a_number"),
        ("# table: omaha\n# seat 1: alice 100\n# deal: alice=Ah Kh Qx Jd", 3, "bad_card"),
        ("# table: omaha\n# seat 1: alice 100\n# deal: zed=Ah Kh Qd Jd", 3, "deal_key"),
        ("# table: omaha\n# seat 1: alice 100\n# deal: alice Ah", 3, "deal_part"),
        ("# table: omaha\n## ok\n\nthis is not a line", 4, "unreadable_line"),
        ("# table: omaha\n[25:00:00] alice: hi", 2, "time_stamp"),
        ("# seat 1: alice 100", 1, "before_table"),
        ("# table: seven\n# seat 1: a 1\n# deal: dice=7", 3, "dice"),
    ],
)
def test_malformed_line_names_its_number(bad: str, lineno: int, code: str) -> None:
    with pytest.raises(TranscriptError) as e:
        read(bad + "\n")
    assert (e.value.line, e.value.code) == (lineno, code)
    assert str(e.value).startswith(text("transcript.at_line", line=lineno, error=""))


def test_cli_exit_2_with_one_line_and_no_events(tmp_path: Path) -> None:
    f = tmp_path / "bad.txt"
    f.write_text("# table: omaha\n# seat 1: alice 100\n# moderator: dealer\n# frobnicate: x\n",
                 encoding="utf-8")
    r = subprocess.run(
        [sys.executable, "-m", "referee.cli", "replay", str(f)],
        capture_output=True, text=True, timeout=60,
    )
    assert r.returncode == 2
    assert r.stdout == ""
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and catalog_text("transcript.at_line", line=4, error="") in err[0]


_line = st.sampled_from([
    "[21:00:01] alice: こ", "bob: C", "## note", "", "carol (dm): 手札", "dealer: !help",
    "[21:00:05] bob: メイク300",
])


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(_line, max_size=12), st.lists(_line, min_size=1, max_size=6))
def test_ids_name_the_whole_transcript(head: list[str], tail: list[str]) -> None:
    """The same file gives the same ids (resume works); a file that shares only its first lines
    with another is another transcript (its lines run again); ids are unique in a file."""
    base = "# table: omaha\n# seat 1: alice 100\n"
    short = read(base + "\n".join(head) + "\n")
    again = read(base + "\n".join(head) + "\n")
    assert [ln.id for ln in again] == [ln.id for ln in short]
    longer = read(base + "\n".join(head + tail) + "\nbob: x\n")
    assert not {ln.id for ln in longer} & {ln.id for ln in short}
    assert len({ln.id for ln in longer}) == len(longer)


def test_ids_differ_between_different_transcripts() -> None:
    a = read("# table: omaha\nalice: x\n")
    b = read("# table: holdem_aa\nalice: x\n")
    assert a[1].id != b[1].id


_junk = st.lists(
    st.sampled_from([
        *"#: []()=|abcdeNS0123456789\n\tｘ♠JKdmseatbl",
        "dm", "seat ", "# table: omaha", "# deal: ", "alice", "npc", "# seat 1: bob 5", "\n# ",
        "[21:00:00] ", "As Kd", "board=", "dice=9", "\r\n", "\u2028"]),
    max_size=60,
).map("".join)


@settings(max_examples=examples(300), deadline=None)
@given(_junk)
def test_any_text_is_read_or_refused_with_a_line_number(text: str) -> None:
    try:
        lines = read(text)
    except TranscriptError as e:
        assert e.line is not None and e.code is not None
        assert str(e).startswith(catalog_text("transcript.at_line", line=e.line, error=""))
        assert 1 <= e.line <= max(1, len(text.splitlines()))
    else:
        assert all(ln.input["kind"] in ("message", "directive") for ln in lines)


def test_not_utf8_and_bad_database_exit_2(tmp_path: Path) -> None:
    f = tmp_path / "latin.txt"
    f.write_bytes(b"# table: omaha\n# seat 1: alice 100\n" + b"alice: caf\xe9\n")
    notdb = tmp_path / "dir.db"
    notdb.mkdir()
    good = tmp_path / "good.txt"
    good.write_text("# table: omaha\n", encoding="utf-8")
    for args, words in (([str(f)], text("transcript.at_line", line=3,
                                         error=text("transcript.not_utf8"))),
                        (["--db", str(notdb), str(good)], "--db")):
        r = subprocess.run([sys.executable, "-m", "referee.cli", "replay", *args],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, r.stderr
        (err,) = r.stderr.strip().splitlines()
        assert words in err
