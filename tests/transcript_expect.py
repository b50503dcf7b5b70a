"""The one expectation format of the transcript tests: ``##`` comment lines inside
the transcript itself, read by :func:`parse` and checked against the replayed events (CONTRACTS
§3 dicts, ``ev.to_json()``) by :func:`check`. A plain module (``from transcript_expect import
…``), not a conftest: tests/irc and tests/matrix have their own conftests.

Five directives, anywhere in the transcript (by convention at the end, after a line
``## expectations (worked out in the comments above)``)::

    ## expect KIND …        an event that must appear; every ``## expect`` line is matched in
                            the order of the file, as an ordered subsequence of the events
    ## absent KIND …        no event at all may match (read like ``## expect``)
    ## exactly KIND …       every event that matches (read like ``## absent``) is one that an
                            ``## expect`` line matched: with those lines, the exact list of
                            such events (``## exactly settle``: no settle but the expected ones)
    ## final NAME=CHIPS …   the stacks of the last hand_end, exactly (every player, no other)
    ## bank NAME=POINTS …   what each player's last leave event credits to the bank

``KIND …`` is either the generic partial event or one of the house forms.

Generic: ``KIND key=value …`` -- an event whose ``event`` is KIND and whose keys hold exactly
these values (keys not given are not compared; ``bets.ante=200`` reads a nested key; no key at
all: any event of KIND). A value is an int (``80``), ``true``/``false``/``null``, JSON when it
starts with ``{``, ``[`` or ``"`` (``shares={"bob":200}``, ``cards=["Ah","Kd"]``,
``text="aliceさんがオープン: …"`` -- quote a string with spaces, or one that would read as a
number or ``true``/``false``/``null``), and otherwise the word itself as a string (``to=room``).
Example: ``## expect action player=alice action=allin amount=80 to=100``. A ``say`` is matched
by what it says -- its catalogue ``key`` and ``params`` (``## expect say to=room key=seat.sat
params.player=alice params.seat=1``; a nested phrase as JSON) -- rather than by its wording,
which is the voice tests' to pin.

House forms (positional words, split on whitespace), used when the first word after KIND is not
an ASCII ``key=`` (``stacks`` is always the house form; a ``say`` TEXT that starts with one is
read as the generic form)::

    ## expect settle NAME RESULT PAYOUT [key=value …]   a settle event (extra keys compared too;
                                                       ``bets.ante=200`` reads a nested key)
    ## expect stacks NAME=CHIPS …                      a hand_end with exactly these stacks
    ## expect rejected NAME CODE                       a rejected event of that catalogue code
                                                       (``omaha.no_check``: what a test asserts)
    ## expect rejected NAME TEXT                       ... or, a word that is no code, one whose
                                                       reason contains TEXT (the voice tests'
                                                       form: wording is theirs to pin)
    ## expect action NAME ACTION [AMOUNT [key=value …]]
                                                       an action event (extra keys compared too)
    ## expect joker NAME PAYOUT [key=value …]          a joker bonus
    ## expect compensation NAME PAYOUT [key=value …]   a dealing-mistake guarantee
    ## expect leave NAME CHIPS                         a leave event (bank = chips, 1:1)
    ## expect say TEXT                                 a message containing TEXT (the generic
                                                       ``say text="…"`` is the exact text)
    ## expect house RESULT                             the house's result of a hand

A malformed directive line is an error naming its line (never silently skipped), and a
transcript test with no expectation at all fails.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from referee.adapters.transcript import replay_events

Event = dict[str, Any]
Predicate = Callable[[Event], bool]

DIRECTIVES = ("expect", "absent", "exactly", "final", "bank")
EVENT_OF = {"stacks": "hand_end"}  # house kind -> the event it reads, where they differ
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*=")
_INT = re.compile(r"-?[0-9]+")
_CODE = re.compile(r"[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+")  # a message catalogue code
_BARE = {"true": True, "false": False, "null": None}


class ExpectationError(ValueError):
    """A directive line that cannot be read."""


@dataclass(frozen=True)
class Expectation:
    """One directive line: ``directive`` is expect/absent/exactly/final/bank; ``event`` the event
    name it reads (for messages); ``test`` the predicate (expect/absent/exactly) on one event;
    ``values`` the stacks (final) or the bank credits (bank)."""

    lineno: int
    line: str
    directive: str
    event: str
    test: Predicate | None = None
    values: dict[str, int] = field(default_factory=dict)
    want: dict[str, Any] | None = None  # the generic form's partial event (None: a house form)

    def matches(self, ev: Event) -> bool:
        assert self.test is not None, self.line
        return self.test(ev)


# --- values -----------------------------------------------------------------------------------


def _get(ev: Any, key: str) -> Any:
    """``bets.ante`` reads a nested key."""
    for part in key.split("."):
        ev = ev.get(part) if isinstance(ev, dict) else None
    return ev


def _value(text: str) -> Any:
    """A bare word of the house forms' ``key=value``: an int, true/false, else the string."""
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        return text


def _kv(words: list[str]) -> dict[str, Any]:
    out = {}
    for w in words:
        if "=" not in w:
            raise ExpectationError(f"{w!r} is not key=value")
        k, v = w.split("=", 1)
        out[k] = _value(v)
    return out


def _pairs(rest: str) -> dict[str, Any]:
    """The generic form's ``key=value …`` (values: JSON when quoted or a list/dict, else a bare
    word: int, true/false/null or the string)."""
    out: dict[str, Any] = {}
    decoder = json.JSONDecoder()
    pos = 0
    while True:
        while pos < len(rest) and rest[pos].isspace():
            pos += 1
        if pos == len(rest):
            return out
        m = _KEY.match(rest, pos)
        if not m:
            raise ExpectationError(f"expected key=value at {rest[pos:]!r}")
        key = m.group()[:-1]
        pos = m.end()
        if pos < len(rest) and rest[pos] in "\"{[":
            try:
                value, pos = decoder.raw_decode(rest, pos)
            except json.JSONDecodeError as exc:
                raise ExpectationError(f"{key}=: not JSON ({exc.msg})") from None
            if pos < len(rest) and not rest[pos].isspace():
                raise ExpectationError(f"{key}=: text after the JSON value: {rest[pos:]!r}")
        else:
            end = pos
            while end < len(rest) and not rest[end].isspace():
                end += 1
            word = rest[pos:end]
            if not word:
                raise ExpectationError(f"{key}= has no value (write {key}=\"\" for none)")
            pos = end
            value = _BARE[word] if word in _BARE else int(word) if _INT.fullmatch(word) else word
        if key in out or key == "event":
            raise ExpectationError(f"{key}= given twice (the kind is the event)")
        out[key] = value


def _names(words: list[str], what: str) -> dict[str, int]:
    out = {}
    for w in words:
        name, eq, n = w.partition("=")
        if not (name and eq and _INT.fullmatch(n)) or name in out:
            raise ExpectationError(f"{w!r}: expected NAME={what} (each name once)")
        out[name] = int(n)
    return out


def format_value(value: Any) -> str:
    """How :func:`_pairs` reads ``value`` back (used to write generic lines)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        plain = (value and not any(c.isspace() for c in value) and value[0] not in "\"{["
                 and value not in _BARE and not _INT.fullmatch(value))
        return value if plain else json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def format_event(want: Event) -> str:
    """A partial event ``{"event": KIND, key: value, …}`` as the generic ``KIND key=value …``."""
    kind = want["event"]
    return " ".join([kind, *(f"{k}={format_value(v)}" for k, v in want.items() if k != "event")])


# --- the forms --------------------------------------------------------------------------------


def _generic(want: dict[str, Any]) -> Predicate:
    return lambda ev: all(_get(ev, k) == v for k, v in want.items())


def _house(kind: str, words: list[str]) -> Predicate:
    """The house forms, exactly as tests/test_house_transcripts.py has always read them."""
    try:
        if kind in ("settle", "joker", "compensation"):
            player = words[0]
            if kind == "settle":
                want = {"result": words[1], "payout": int(words[2])} | _kv(words[3:])
            else:
                want = {"payout": int(words[1])} | _kv(words[2:])
            return lambda ev: (ev["event"] == kind and ev.get("player") == player
                               and all(_get(ev, k) == v for k, v in want.items()))
        if kind == "stacks":
            stacks = _names(words, "CHIPS")
            return lambda ev: ev["event"] == "hand_end" and ev.get("stacks") == stacks
        if kind == "rejected":
            player, text = words[0], words[1]
            if _CODE.fullmatch(text):
                return lambda ev: (ev["event"] == "rejected" and ev.get("player") == player
                                   and ev.get("code") == text)
            return lambda ev: (ev["event"] == "rejected" and ev.get("player") == player
                               and text in ev.get("reason", ""))
        if kind == "action":
            player, action = words[0], words[1]
            amount = int(words[2]) if len(words) >= 3 else None
            extra = _kv(words[3:])
            return lambda ev: (ev["event"] == "action" and ev.get("player") == player
                               and ev.get("action") == action
                               and (amount is None or ev.get("amount") == amount)
                               and all(_get(ev, k) == v for k, v in extra.items()))
        if kind == "leave":
            player, chips = words[0], int(words[1])
            return lambda ev: (ev["event"] == "leave" and ev.get("player") == player
                               and ev.get("chips") == chips == ev.get("bank"))
        if kind == "say":
            if not words:
                raise IndexError
            text = " ".join(words)
            return lambda ev: ev["event"] == "say" and text in ev.get("text", "")
        if kind == "house":
            result = int(words[0])
            return lambda ev: ev["event"] == "house" and ev.get("result") == result
    except (IndexError, ValueError) as exc:
        raise ExpectationError(f"malformed house form {kind!r}: {exc}") from None
    raise ExpectationError(f"unknown house form {kind!r} (generic form: {kind} key=value …)")


def _predicate(rest: str) -> tuple[str, Predicate, dict[str, Any] | None]:
    kind, _, args = rest.strip().partition(" ")
    args = args.strip()
    if not kind:
        raise ExpectationError("no event kind")
    if kind != "stacks" and (not args or _KEY.match(args)):
        want = {"event": kind} | _pairs(args)
        return kind, _generic(want), want
    return EVENT_OF.get(kind, kind), _house(kind, args.split()), None


def parse(text: str) -> list[Expectation]:
    """Every directive line of a transcript, in the order of the file."""
    out = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.startswith("## "):
            continue
        directive, _, rest = line[3:].partition(" ")
        if directive not in DIRECTIVES:
            continue  # "## expectations …" and the like are prose
        try:
            if not rest.strip():
                raise ExpectationError("nothing to expect")
            if directive in ("expect", "absent", "exactly"):
                event, test, want = _predicate(rest)
                out.append(Expectation(lineno, line, directive, event, test=test, want=want))
            else:
                what = "CHIPS" if directive == "final" else "POINTS"
                values = _names(rest.split(), what)
                event = "hand_end" if directive == "final" else "leave"
                out.append(Expectation(lineno, line, directive, event, values=values))
        except ExpectationError as exc:
            raise ExpectationError(f"line {lineno}: {line!r}: {exc}") from None
    return out


# --- checking ---------------------------------------------------------------------------------


def check(events: Sequence[Event], expectations: Iterable[Expectation], where: str = "") -> int:
    """Assert every expectation against the events; returns how many were checked. Fails when
    there is none (a transcript test needs expectations)."""
    want = list(expectations)
    assert want, f"{where}: a transcript test needs expectations"

    def seen(kind: str) -> list[Event]:
        return [e for e in events if e["event"] == kind]

    i = 0
    matched: set[int] = set()  # the events the expect lines matched (for ``## exactly``)
    for x in want:
        at = f"{where}:{x.lineno}: {x.line!r}"
        if x.directive == "expect":
            while i < len(events) and not x.matches(events[i]):
                i += 1
            assert i < len(events), (
                f"{at}: not found in order; events of that kind: {seen(x.event)}"
            )
            matched.add(i)
            i += 1
    for x in want:
        at = f"{where}:{x.lineno}: {x.line!r}"
        if x.directive == "expect":
            continue
        if x.directive == "absent":
            hits = [e for e in events if x.matches(e)]
            assert not hits, f"{at}: unexpected {hits[0]}"
        elif x.directive == "exactly":
            hits = [e for j, e in enumerate(events) if x.matches(e) and j not in matched]
            assert not hits, f"{at}: no ## expect line matched {hits[0]}"
        elif x.directive == "final":
            ends = seen("hand_end")
            assert ends, f"{at}: no hand_end"
            assert ends[-1]["stacks"] == x.values, f"{at}: last stacks {ends[-1]['stacks']}"
        else:
            for player, points in x.values.items():
                leaves = [e for e in seen("leave") if e.get("player") == player]
                assert leaves and leaves[-1].get("bank") == points, f"{at}: {leaves}"
    return len(want)


@cache
def _replayed(path: str, mtime_ns: int) -> tuple[Event, ...]:
    return tuple(_expected(e) for e in replay_events(Path(path)))


def _expected(ev: Any) -> dict[str, Any]:
    """An event as the expectations read it: its JSON, and for a ``say`` the catalogue ``key``
    and ``params`` it was rendered from (``## expect say key=seat.sat params.player=alice``:
    a sentence asserted by what it says, not by its wording)."""
    out: dict[str, Any] = ev.to_json()
    key = getattr(ev, "key", None)
    if ev.event == "say" and key is not None:
        out["key"] = key
        if ev.params:
            out["params"] = ev.params
    return out


def replay(path: Path) -> list[Event]:
    """The events of a transcript file as dicts (replayed once per process; treat as read-only:
    the dicts are shared)."""
    return list(_replayed(str(path), path.stat().st_mtime_ns))


def check_transcript(path: Path) -> int:
    """Replay ``path`` and check its own directive lines; returns how many were checked."""
    return check(replay(path), parse(path.read_text(encoding="utf-8")), where=path.name)
