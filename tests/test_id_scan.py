"""The acceptance scan of issue 41: no internal id reaches a person (a catalogue test: wording
is what it checks).

Every transcript of the four games (tests/transcripts, the package's examples) is replayed;
then everything a person reads of it is scanned -- every ``say`` (the room's and the private
ones), ``!hand`` of every finished hand, the moderators' and players' look-up commands, and,
over a database of all the replays, ``referee records`` (every kind), ``referee history``,
``check`` and ``verify`` -- for any id of ``referee/events.py`` (event kinds, field names,
literal values), of the games' definitions (hand class ids such as ``seven_flush``, pay-table
and action ids, every key and word of ``definition.toml`` and ``hands.toml``), of the ledger
(reasons: ``penalty:…``, ``grant``, ``buy_in`` …), the penalty kinds and the catalogue's own
message keys. What is typed back (「!open omaha」, a player's name) is no finding: an id counts
only standing alone, not inside a word, a command or ``key=value``."""

from __future__ import annotations

import contextlib
import io
import re
import tomllib
import typing
from collections.abc import Iterator
from pathlib import Path

from event_helpers import handle

import referee.events as ev
from referee.adapters.transcript import ROOM, check_file, run, stream_file
from referee.cli import main
from referee.discipline import PENALTY_KINDS
from referee.games import BUILTIN
from referee.history import hand_command
from referee.inputs import Message
from referee.lang.catalog import messages, text
from referee.resources import EXAMPLES
from referee.service import Referee

TESTS = Path(__file__).parent
GAMES = Path(__file__).parents[1] / "referee" / "games"
LEDGER_REASONS = {"buy_in", "entry", "prize", "leave", "grant", "transcript", "opening_balance",
                  "penalty", "penalty_reversed"}
MODERATOR = "scanmod"
# what a moderator and a player look up after a transcript (the console has its own tests)
LOOK_UPS = ("!penalties", "!flags", "!bank", "!status", "!rules", "!help", "!hand")


def _words(data: object) -> Iterator[str]:
    if isinstance(data, dict):
        for k, v in data.items():
            yield str(k)
            yield from _words(v)
    elif isinstance(data, list):
        for v in data:
            yield from _words(v)
    elif isinstance(data, str):
        yield data


def forbidden_ids() -> set[str]:
    out = set(LEDGER_REASONS) | set(PENALTY_KINDS) | set(BUILTIN)
    for cls in vars(ev).values():
        if isinstance(cls, type) and issubclass(cls, ev.Event):
            for name, info in cls.model_fields.items():
                out.add(name)
                for a in (info.annotation, *typing.get_args(info.annotation)):
                    if typing.get_origin(a) is typing.Literal:
                        out.update(str(x) for x in typing.get_args(a))
    for game in BUILTIN:
        for name in ("definition.toml", "hands.toml"):
            path = GAMES / game / name
            if path.exists():
                out.update(w for w in _words(tomllib.loads(path.read_text(encoding="utf-8")))
                           if re.fullmatch(r"[a-z][a-z0-9_]*", w))
    out.update(k for k in messages() if "_" in k or "." in k)
    return {i for i in out if len(i) > 1}


def _pattern(ids: set[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_:!/@.#-])({alternatives})(?![A-Za-z0-9_])")


def transcripts() -> list[Path]:
    return [*sorted((TESTS / "transcripts").rglob("*.txt")), *sorted(EXAMPLES.glob("*.txt"))]


def _replayed(path: Path) -> tuple[Referee, list[str]]:
    """The transcript refereed; every text the bot sent (room and private)."""
    ref = Referee(moderators=[MODERATOR])
    prefix, _ = check_file(path)
    said = []
    for _, events in run(stream_file(path, prefix), ref):
        said += [e.text for e in events if isinstance(e, ev.Say)]
    return ref, said


def _looked_up(ref: Referee) -> list[str]:
    """!hand of every finished hand, and the look-up commands, by a moderator and a player."""
    out = []
    for rec in ref.history.hands():
        out += hand_command(ref.history, rec.room, [f"{rec.table}-{rec.hand}"], rec.table)
    player = next(iter(sorted(ref.seated_names(ROOM))), "alice")
    for n, command in enumerate(LOOK_UPS):
        for who in (MODERATOR, player):
            for e in handle(ref, Message(f"scan:{who}:{n}", ROOM, who, command, None)):
                if isinstance(e, ev.Say):
                    out.append(e.text)
    return out


def _cli(argv: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        with contextlib.suppress(SystemExit):
            main(argv)
    return out.getvalue() + err.getvalue()


def _room_named(line: str) -> str:
    """A line without the transcript room's own name (a room, not an id of the kinds
    scanned; in the chat rooms it is the room's address)."""
    cell = text("records_cell", name=text("records_col_room"), value=ROOM)
    return line.replace(cell, "").replace(f"[{ROOM}]", "")


def test_the_scan_sees_ids() -> None:
    """The scan finds what it looks for (it is no scan if it cannot fail)."""
    pattern = _pattern(forbidden_ids())
    for leak in ("2,000P（grant）", "ハンド情報の公開（information_leak）", "kind=check_fa",
                 "reason: penalty:information_leak", "セブンフラッシュ（seven_flush）",
                 "deal_commitment", "理由: penalty_reversed:interference", "hand_start"):
        assert pattern.search(leak), leak
    for fine in ("aliceさん: コール", "@carol", "!penalty @bob", "ハンド#3"):
        assert not pattern.search(fine), fine


def test_no_id_in_what_the_bot_says_of_any_transcript() -> None:
    """Every say of every transcript (room and private), !hand of every finished hand and the
    look-up commands after it."""
    pattern = _pattern(forbidden_ids())
    paths = transcripts()
    assert len(paths) > 70
    found: list[tuple[str, str, str]] = []
    for path in paths:
        ref, said = _replayed(path)
        looked = _looked_up(ref)
        assert said and looked, path
        for line in [*said, *looked]:
            found += [(path.name, m, line[:160]) for m in pattern.findall(line)]
    assert not found, found[:10]


def test_no_id_in_the_records_of_all_transcripts(tmp_path: Path) -> None:
    """``referee records`` (every kind), ``history``, ``check`` and ``verify`` over one
    database holding every transcript's replay."""
    pattern = _pattern(forbidden_ids())
    db = str(tmp_path / "all.db")
    for path in transcripts():
        _cli(["replay", "--db", db, str(path)])
    outputs = {f"records {k}": _cli(["records", "--db", db, k])
               for k in ("bank", "penalties", "flags", "hands", "ledger")}
    outputs |= {"history": _cli(["history", "--db", db]), "check": _cli(["check", "--db", db]),
                "verify": _cli(["verify", "--db", db])}
    found: list[tuple[str, str, str]] = []
    for name, output in outputs.items():
        assert output.strip(), name
        for line in output.splitlines():
            found += [(name, m, line[:160]) for m in pattern.findall(_room_named(line))]
    assert not found, found[:10]


def test_no_id_in_any_cli_error(tmp_path: Path) -> None:
    """Every bad invocation of tests/test_cli_japanese.py: its one line names no id (what the
    user typed is quoted back, and is no finding)."""
    import sys

    from test_cli_japanese import _bad_inputs

    pattern = _pattern(forbidden_ids())
    # a refusal's list of the words a flag or the command takes (argparse's subcommands,
    # --format's text/phh, analyze's --bet) is what is to be typed: no finding either
    lists = []
    for key, field in (("cli.invalid_choice", "{choices}"), ("analyze.no_bet", "{bets}")):
        before, after = messages()[key].split(field)
        lists.append(re.escape(before.split("」")[-1]) + ".*?" + re.escape(after))
    choices = re.compile("|".join(lists))
    found = []
    stdin, sys.stdin = sys.stdin, io.StringIO("")
    try:
        for argv in _bad_inputs(tmp_path):
            line = choices.sub("", _cli(argv).strip())
            typed = {w for a in argv for w in re.split(r"[\s/=.]+", a)}
            found += [(argv, m, line) for m in pattern.findall(line) if m not in typed]
    finally:
        sys.stdin = stdin
    assert not found, found[:10]
