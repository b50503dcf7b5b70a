"""Transcripts (docs/contracts.md §3): read the file, run every line through the same pipeline as
the live bot, print JSON Lines events.

The whole file is read and checked before anything runs, so a malformed transcript fails with
one line naming the line number and prints nothing. Rule violations are events, not failures.
``referee replay`` reads the file twice, line by line, and never holds it: once to check it and
hash it, once to referee it (memory stays flat however long the transcript).

Input ids: ``transcript:<sha256 of the whole file>:<line number>``, independent of the path. A
run killed at any point and started again against the same database skips exactly the lines
already processed (each line's outcome is saved in one transaction, the referee is first rebuilt
from every saved input), so it ends exactly as an uninterrupted run. The whole file, not only
the lines before, names the line: two transcripts that merely share their first lines (a common
``# table:`` header) are different transcripts, and each of their lines runs.
"""

from __future__ import annotations

import codecs
import gc
import hashlib
import re
import sys
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO, cast

from referee.cards import Card, CardError, card_str, parse_cards
from referee.definitions import DefinitionError, game_names, game_of, load
from referee.directives import DirectiveError
from referee.events import Event, event_json
from referee.inputs import Directive, Input, Message, record
from referee.lang.catalog import text as msg
from referee.service import Referee

if TYPE_CHECKING:
    from referee.store import Store

ROOM = "transcript"
# The kinds the store keeps as facts (events.fact_json) and the replay prints rendered.
_RENDERED = frozenset({"say", "rejected"})
DEAL_KEYS = ("board", "dealer", "shoe", "dice")


class TranscriptError(ValueError):
    """A malformed transcript; the message (Japanese) starts with the line's number (「N行目:」)
    and ``code`` names what is wrong (a key of ``referee/lang/messages/transcript.toml``)."""

    def __init__(self, message: str, code: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.line = line


class LineError(ValueError):
    """One line that cannot be read; ``code`` names why (see :class:`TranscriptError`)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(slots=True)
class Line:
    """One input of a transcript: a message or a directive, with its input id. ``given`` is
    the typed input the service runs (handed over as it is: no record to read back)."""

    lineno: int
    id: str
    given: Input

    @property
    def input(self) -> dict[str, Any]:
        """The typed input's record (:func:`referee.inputs.record`) plus the transcript
        ``line`` number: the JSON form, for tools and tests that read a transcript's inputs."""
        inp = record(self.given)
        inp["line"] = self.lineno
        return inp


DIRECTIVE = re.compile(r"^#\s*(?P<name>[A-Za-z_]+)(?:\s+(?P<arg>\S+?))?\s*:\s*(?P<rest>.*?)\s*$")
# DIRECTIVE up to its ``rest``, which is the rest of the line: on a stripped line of one line
# (a transcript's, split by str.splitlines) exactly what DIRECTIVE reads, without the lazy tail
# that tries every position of a long ``# deal:`` line for the end.
_DIRECTIVE_HEAD = re.compile(r"#\s*(?P<name>[A-Za-z_]+)(?:\s+(?P<arg>\S+?))?\s*:\s*")
# A colon and the brackets of a ``(dm)`` mark may be typed full width (a Japanese keyboard):
# named escapes, so the patterns carry no Japanese literal (sentences live in the catalogue).
_COLON = r":\N{FULLWIDTH COLON}"
_OPEN = r"(\N{FULLWIDTH LEFT PARENTHESIS}"
_CLOSE = r")\N{FULLWIDTH RIGHT PARENTHESIS}"
MESSAGE = re.compile(
    r"^(?:\[(?P<h>\d{1,2}):(?P<m>\d{2})(?::(?P<s>\d{2}))?\]\s*)?"
    r"(?P<name>[^\s" + _COLON + r"\[\]#" + _OPEN + _CLOSE + r"][^" + _COLON + r"\[\]]*?)\s*"
    r"(?P<dm>[" + _OPEN + r"]\s*dm\s*[" + _CLOSE + r"])?\s*[" + _COLON + r"]\s?(?P<text>.*)$"
)
# before the colon: a time stamp, a (dm) mark…
_NEEDS_PATTERN = re.compile(r"[\N{FULLWIDTH COLON}\[\]" + _OPEN + _CLOSE + "]")


def split_message(line: str) -> tuple[str, str] | None:
    """(sender, text) of a plain ``NAME: TEXT`` line (stripped, not a directive) exactly as
    :data:`MESSAGE` reads it, without running it; None when the line needs the full pattern
    (a time stamp, ``(dm)``, brackets, a full-width colon before the first ``:``, no ``:``)."""
    i = line.find(":")
    if i <= 0:
        return None
    head = line[:i]
    if _NEEDS_PATTERN.search(head) is not None:
        return None
    text = line[i + 1:]
    if text[:1].isspace():
        text = text[1:]
    return head.rstrip(), text


_OPTION = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S+$")


def _bad(code: str, **params: Any) -> LineError:
    """A malformed line, said in Japanese (``referee/lang/messages/transcript.toml``)."""
    return LineError(code, msg(f"transcript.{code}", **params))


def _int(text: str, what: str) -> int:
    try:
        return int(text.replace(",", ""))
    except ValueError:
        raise _bad("not_a_number", what=msg(f"transcript.what_{what}"), text=text) from None


_CANONICAL = {card_str(Card(i)) for i in range(52)} | {"JK"}


def _cards(text: str) -> list[str]:
    words = text.split()
    if _CANONICAL.issuperset(words):  # the usual notation: no parsing needed
        return words
    try:
        return [card_str(c) for c in parse_cards(text)]
    except CardError as e:
        raise _bad("bad_card", error=str(e)) from None


# How a player leaves a table's room (``# departed: NAME HOW``; the chat adapters see it).
_DEPARTURES = ("leave", "kick", "ban", "part")

class Reader:
    """Turns transcript lines into service inputs, checking them as it goes."""

    def __init__(self, room: str = ROOM) -> None:
        self.room = room
        self.game: str | None = None
        self.max_seat = 0
        self.names: set[str] = set()
        self._day = 0.0
        self._last: float | None = None

    def directive(self, name: str, arg: str | None, rest: str) -> tuple[str, dict[str, Any]]:
        """One ``# name[ arg]: rest`` line → (directive name, args); ValueError if malformed."""
        words = rest.split()
        if name == "table":
            return "table", self._table(arg, words)
        if name == "seat":
            return "seat", self._seat(arg, words)
        if arg is not None:
            raise _bad("unexpected", word=arg, directive=f"# {name}")
        if name == "moderator":
            if len(words) != 1:
                raise _bad("expected", form="# moderator: NAME")
            return "moderator", {"name": words[0]}
        if name == "bank":
            if len(words) != 2:
                raise _bad("expected", form="# bank: NAME POINTS")
            return "bank", {"name": words[0], "points": _int(words[1], "points")}
        if name == "rank":
            if len(words) not in (1, 2):
                raise _bad("expected", form="# rank: NAME [MARK]")
            return "rank", {"name": words[0], "mark": words[1] if len(words) == 2 else ""}
        if name == "departed":
            if len(words) not in (1, 2) or (len(words) == 2 and words[1] not in _DEPARTURES):
                raise _bad("expected", form="# departed: NAME [leave|kick|ban|part]")
            return "departed", {"name": words[0],
                                "how": words[1] if len(words) == 2 else "leave"}
        if name == "button":
            if self.game is None:
                raise _bad("before_table", directive="# button")
            if len(words) != 1:
                raise _bad("expected", form="# button: N")
            seat = _int(words[0], "button")
            if not 1 <= seat <= self.max_seat:
                raise _bad("seat_range", seat=seat, most=self.max_seat, game=self.game)
            return "button", {"seat": seat}
        if name == "bonus":
            if self.game is None:
                raise _bad("before_table", directive="# bonus")
            return "bonus", {"cards": _cards(rest)}
        if name == "deal":
            if self.game is None:
                raise _bad("before_table", directive="# deal")
            return "deal", self._deal(rest)
        raise _bad("unknown_directive", directive=f"# {name}")

    def _table(self, arg: str | None, words: list[str]) -> dict[str, Any]:
        """``# table[ GAME]: [GAME] [key=value ...]``: the game (its id or its Japanese name,
        given as the argument or the first word) and its options. It sets the game, and so
        the highest seat, that every later line is checked against."""
        if arg is not None:
            words = [arg, *words]
        if not words:
            raise _bad("table_needs_game")
        found = game_of(words[0])  # its id or its Japanese name
        if found is None:
            raise _bad("unknown_game", game=words[0], known=game_names())
        game = found
        options: dict[str, str] = {}
        for w in words[1:]:
            if not _OPTION.match(w):
                raise _bad("table_option", option=w)
            k, v = w.split("=", 1)
            options[k] = v
        try:
            self.max_seat = load(game).seats.max
        except DefinitionError as e:
            raise ValueError(str(e)) from None
        self.game = game
        return {"game": game, "options": options}

    def _seat(self, arg: str | None, words: list[str]) -> dict[str, Any]:
        """``# seat N: NAME CHIPS [npc]``: a seat of the table already set (its number within
        the game's seats); the name becomes one a ``# deal:`` may deal to."""
        if self.game is None:
            raise _bad("before_table", directive="# seat")
        if arg is None:
            raise _bad("expected", form="# seat N: NAME CHIPS [npc]")
        seat = _int(arg, "seat")
        if not 1 <= seat <= self.max_seat:
            raise _bad("seat_range", seat=seat, most=self.max_seat, game=self.game)
        if len(words) not in (2, 3) or (len(words) == 3 and words[2].lower() != "npc"):
            raise _bad("expected", form="# seat N: NAME CHIPS [npc]")
        chips = _int(words[1], "chips")
        if chips < 0:
            raise _bad("negative_chips")
        self.names.add(words[0])
        return {"seat": seat, "name": words[0], "chips": chips, "npc": len(words) == 3}

    def _deal(self, rest: str) -> dict[str, Any]:
        out: dict[str, Any] = {"hands": {}, "board": [], "dealer": [], "shoe": [], "dice": []}
        seen: set[str] = set()
        for part in rest.split("|"):
            part = part.strip()
            if not part:
                continue
            key, eq, value = part.partition("=")
            if not eq:
                raise _bad("deal_part", part=part)
            key, value = key.strip(), value.strip()
            if key in seen:
                raise _bad("deal_twice", key=key)
            seen.add(key)
            if key == "dice":
                dice = [_int(d, "die") for d in value.split()]
                if any(not 1 <= d <= 6 for d in dice):
                    raise _bad("dice", value=value)
                out["dice"] = dice
            elif key in DEAL_KEYS:
                out[key] = _cards(value)
            elif key in self.names:
                out["hands"][key] = _cards(value)
            else:
                raise _bad("deal_key", key=key)
        return out

    def time(self, h: str | None, m: str | None, s: str | None) -> float | None:
        """Seconds since the transcript's first midnight; a time earlier than the last one by
        more than 12 hours means the clock passed midnight."""
        if h is None or m is None:
            return None
        hh, mm, ss = int(h), int(m), int(s or 0)
        if hh > 23 or mm > 59 or ss > 59:
            raise _bad("time_stamp", time=f"{h}:{m}:{s or '00'}")
        t = hh * 3600 + mm * 60 + ss + self._day
        if self._last is not None and t < self._last - 12 * 3600:
            self._day += 86400
            t += 86400
        self._last = t
        return float(t)


def read(text: str, room: str = ROOM) -> list[Line]:
    """Every input of a transcript, checked; raises TranscriptError naming the first bad line."""
    return list(_inputs(text.splitlines(), _prefix(hashlib.sha256(text.encode("utf-8"))), room))


def _prefix(digest: Any) -> str:
    """The input ids' common part, from the sha256 of the whole file (without a BOM)."""
    return f"transcript:{digest.hexdigest()[:24]}:"


def _inputs(lines: Iterable[str], prefix: str, room: str = ROOM) -> Iterator[Line]:
    """The inputs of a transcript's lines (numbered from 1) one at a time, each checked as it
    comes; TranscriptError names the first bad line."""
    return cast(Iterator[Line], _read(lines, prefix, room, build=True))


def _read(lines: Iterable[str], prefix: str, room: str, build: bool) -> Iterator[Line | int]:
    """Each input line read and checked, then its :class:`Line` (``build``) or only its number:
    the checking pass needs to know the line is good, not its input."""
    reader = Reader(room)
    match_message = MESSAGE.match
    names = reader.names
    for lineno, raw in enumerate(lines, start=1):
        line = raw.strip().lstrip("\ufeff")
        if not line or line.startswith("##"):
            continue
        try:
            if line[0] == "#":
                d = _DIRECTIVE_HEAD.match(line)
                if d is None:
                    raise _bad("unreadable_directive", line=line[:60])
                name, args = reader.directive(d.group("name"), d.group("arg"), line[d.end():])
                if not build:
                    yield lineno
                    continue
                input_id = prefix + str(lineno)
                yield Line(lineno, input_id, Directive(input_id, room, name, args))
                continue
            plain = split_message(line)
            if plain is not None:
                h = m = sec = dm = None
                sender, body = plain
            else:
                matched = match_message(line)
                if matched is None:
                    raise _bad("unreadable_line", line=line[:60])
                h, m, sec, sender, dm, body = matched.groups()
            if reader.game is None:
                raise _bad("before_table", directive=msg("transcript.a_message"))
            # a sender may sit by command (!sit) and then be dealt in: a deal key
            names.add(sender)
            now = None if h is None else reader.time(h, m, sec)
        except ValueError as e:
            raise TranscriptError(msg("transcript.at_line", line=lineno, error=str(e)),
                                  code=getattr(e, "code", None), line=lineno) from None
        if not build:
            yield lineno
            continue
        input_id = prefix + str(lineno)
        yield Line(lineno, input_id, Message(input_id, room, sender, body, now, dm is not None))


def decode(data: bytes) -> str:
    """A transcript file's text (UTF-8, an optional BOM); TranscriptError names a bad line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        lineno = data[: e.start].count(b"\n") + 1
        raise TranscriptError(msg(
            "transcript.at_line", line=lineno, error=msg("transcript.not_utf8")),
            code="not_utf8", line=lineno) from None


#: Bytes read at a time: the lines of a block are decoded and split together.
_BLOCK = 1 << 16


def _file_lines(f: BinaryIO, digest: Any) -> Iterator[str]:
    """The text lines of an open transcript file, read a block at a time, exactly as
    ``decode(f.read()).splitlines()`` gives them (a leading BOM dropped; every line break
    ``str.splitlines`` knows), feeding the bytes hashed for the input ids into ``digest``.
    A byte sequence that is not UTF-8 raises TranscriptError naming its line as :func:`decode`
    does (counted in newlines), after the lines before it. Blocks end at a newline, so no
    character and no ``\\r\\n`` is ever cut in two; one decode and one split a block, not a
    line, keep the reading cheap."""
    first = True
    newlines = 0  # in the blocks before this one
    rest = bytearray()  # the start of a line the last block cut
    while True:
        data = f.read(_BLOCK)
        if data:
            cut = data.rfind(b"\n") + 1
            if not cut:  # no line ends in it: read on
                rest += data
                continue
            block = bytes(rest) + data[:cut] if rest else data[:cut]
            rest = bytearray(data[cut:])
        elif rest:
            block, rest = bytes(rest), bytearray()
        else:
            return
        if first:
            first = False
            if block.startswith(codecs.BOM_UTF8):
                block = block[len(codecs.BOM_UTF8):]
        digest.update(block)
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError as e:
            good = block.rfind(b"\n", 0, e.start) + 1  # the lines before the bad one stand
            yield from block[:good].decode("utf-8").splitlines()
            number = newlines + block.count(b"\n", 0, good) + 1
            raise TranscriptError(msg(
                "transcript.at_line", line=number, error=msg("transcript.not_utf8")),
                code="not_utf8", line=number) from None
        newlines += block.count(b"\n")
        yield from text.splitlines()


def check_file(path: Path, room: str = ROOM) -> tuple[str, array[int]]:
    """Read a transcript file once, line by line, keeping nothing but what a run needs first:
    its input ids' prefix and the numbers of its input lines. Raises TranscriptError naming
    the first bad line -- a byte that is not UTF-8 anywhere in the file first, as when the whole
    file is decoded before its lines are read."""
    digest = hashlib.sha256()
    numbers = array("l")
    with path.open("rb") as f:
        lines = _file_lines(f, digest)
        try:
            for number in cast(Iterator[int], _read(lines, "", room, build=False)):
                numbers.append(number)
        except TranscriptError:
            for _ in lines:  # a later byte that is not UTF-8 is the error to name
                pass
            raise
    return _prefix(digest), numbers


def stream_file(path: Path, prefix: str, room: str = ROOM) -> Iterator[Line]:
    """The inputs of a transcript file already checked by :func:`check_file` (which gave
    ``prefix``), read again line by line; TranscriptError if the file changed in between."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        yield from _inputs(_file_lines(f, digest), prefix, room)
    if _prefix(digest) != prefix:
        raise TranscriptError(msg("transcript.changed", path=str(path)))


def run(
    lines: Iterable[Line], referee: Referee, skip_processed: bool = True
) -> Iterator[tuple[Line, list[Event]]]:
    """Feed inputs to the referee; yields each newly processed line with its events."""
    for line in lines:
        if skip_processed and referee.is_processed(line.id):
            continue
        try:
            outcome = referee.process(line.given)
        except DirectiveError as e:
            raise TranscriptError(msg(
                "transcript.at_line", line=line.lineno, error=str(e)),
                code=getattr(e, "code", None), line=line.lineno) from None
        if outcome is not None:
            yield line, outcome.events


def replay_events(
    path: Path | str | None = None,
    text: str | None = None,
    referee: Referee | None = None,
) -> list[Event]:
    """The events of a whole transcript (library form of ``referee replay``, for tests)."""
    if text is not None:
        lines: Iterable[Line] = read(text)
    elif path is None:
        raise _bad("nothing")
    else:
        prefix, _ = check_file(Path(path))
        lines = stream_file(Path(path), prefix)
    ref = referee if referee is not None else Referee()
    out: list[Event] = []
    for _, events in run(lines, ref):
        out.extend(events)
    return out


def event_line(ev: Event) -> str:
    """One JSON Lines line of the replay's output (docs/contracts.md §3)."""
    return event_json(ev) + "\n"


REPLAY_GROUP = 64
"""Transcript lines per durable commit in ``referee replay --db`` (group commit)."""


def open_store(db: Path, group: int = REPLAY_GROUP) -> Store:
    """The replay's own database: opened exclusively (no lock or shared memory per commit),
    since a replay owns the file for its run; a bot or query on it waits until the run ends.

    Group commit: ``group`` lines become durable together (a line's row, events and ledger are
    never split between two transactions), and a line's events are printed only once it is
    durable. A killed run loses at most the open group -- never printed, processed again by the
    next run -- so the end result is the same. The live bots commit every message on its own:
    their replies go out right after."""
    from referee.store import Store

    return Store(db, exclusive=True, group=group)


def replay(path: Path, db: Path | None, out: TextIO, group: int = REPLAY_GROUP) -> None:
    """``referee replay [--db PATH] FILE``: print JSON Lines events of the newly processed lines.

    With ``db`` the referee is first rebuilt from every input saved there (persistence off), so
    tables, bank and flags are exactly as the interrupted run left them; lines already processed
    are skipped.
    """
    # Two passes, each line by line, so memory stays flat however long the transcript: the
    # first checks every line (a malformed transcript fails before the database is touched
    # and prints nothing) and hashes the file (the input ids name the whole file); the second
    # reads it again and referees each line as it comes.
    prefix, numbers = check_file(path)
    # Everything loaded so far (modules, definitions, the parser's tables) lives to the end:
    # left out of the cyclic collector's scans during the run.
    gc.freeze()
    try:
        _replay_lines(stream_file(path, prefix), db, out, group,
                      expected=(prefix + str(n) for n in numbers))
    finally:
        gc.unfreeze()


def _replay_lines(lines: Iterable[Line], db: Path | None, out: TextIO, group: int,
                  expected: Iterable[str]) -> None:
    store: Store | None = None
    # Without a database the ids of this run are its file's distinct lines: none to remember.
    referee = Referee(unique_ids=db is None)
    if db is not None:
        from referee.adapters import resume
        from referee.store import StoreError  # the store (sqlite-utils) only with --db

        try:
            store = open_store(db, group)
        except StoreError as e:
            raise TranscriptError(f"--db: {e}") from None
        for warning in resume(referee, store):
            print(f"referee: warning: {warning}", file=sys.stderr)
        store.expect(expected)  # which lines are new, in a few queries
    process, write = referee.process, out.write
    if store is None:
        # Without a database the stream's buffer decides (a flush per line costs a system
        # call per line); everything is out when the run ends.
        try:
            for line in lines:  # run() inlined: process() skips what was processed
                try:
                    outcome = process(line.given)
                except DirectiveError as e:
                    raise TranscriptError(msg(
                        "transcript.at_line", line=line.lineno, error=str(e)),
                        code=getattr(e, "code", None), line=line.lineno) from None
                if outcome is not None:
                    write("".join([event_line(ev) for ev in outcome.events]))
        finally:
            out.flush()
        return
    # With a database a line's events are out as soon as the line is durable, and only then:
    # a killed run has shown exactly what it did. The store has serialised each event it
    # saved (the same text as event_line): print that.
    held: list[str] = []  # the text of lines saved but not durable yet (group commit)
    completed = False
    try:
        for line in lines:
            try:
                outcome = process(line.given)
            except DirectiveError as e:
                raise TranscriptError(msg(
                    "transcript.at_line", line=line.lineno, error=str(e)),
                    code=getattr(e, "code", None), line=line.lineno) from None
            except StoreError as e:
                held.clear()  # the failed group rolled back: its lines are not durable
                raise TranscriptError(msg(
                    "transcript.at_line", line=line.lineno, error=f"--db: {e}")) from None
            if outcome is not None and outcome.events:
                events = outcome.events
                if store.last_events is events:  # a sentence is stored as its key: rendered
                    held.append("".join([event_line(ev) if ev.event in _RENDERED else j + "\n"
                                         for ev, j in zip(events, store.last_json, strict=True)]))
                else:
                    held.append("".join([event_line(ev) for ev in events]))
            if held and not store.pending:
                write("".join(held))
                out.flush()
                held.clear()
        completed = True
    finally:
        # Also after a malformed line: the lines before it stand, as an uninterrupted run of
        # the transcript up to there would have left them.
        try:
            store.close()  # commits the open group
        except StoreError as e:
            held.clear()  # not durable: not shown
            if completed:  # else the error already on its way wins
                raise TranscriptError(f"--db: {e}") from None
        finally:
            if held and not store.pending:
                write("".join(held))
            out.flush()
