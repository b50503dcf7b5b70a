"""The transcript expectation checker (tests/transcript_expect.py) cannot pass vacuously: a
changed amount, a missing or misplaced event, an ``## absent`` that occurs, an event that an
``## exactly`` line covers and no ``## expect`` line matched, a wrong final stack or bank credit
all fail it, in the house forms and in the generic form; and every expectation line of every
transcript is load-bearing (changed, it fails against the real replay; an ``## exactly`` line
fails it when any one of the expect lines it covers is left out)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from transcript_expect import (
    ExpectationError,
    _pairs,
    check,
    format_event,
    format_value,
    parse,
    replay,
)

from referee.rules.registry import event_types

EVENTS: list[dict[str, Any]] = [
    {"event": "action", "player": "alice", "action": "ante", "amount": 100, "ante": 100,
     "aa": 0, "allin": False},
    {"event": "say", "to": "room", "text": "aliceさんがアンティ 100"},
    {"event": "rejected", "player": "bob", "text": "レイズ", "reason": "いまはレイズできません",
     "code": "omaha.no_raise"},
    {"event": "settle", "player": "alice", "result": "win", "payout": 300, "bets": {"ante": 100}},
    {"event": "joker", "player": "alice", "payout": 50},
    {"event": "compensation", "player": "bob", "payout": 20},
    {"event": "house", "result": -230, "staked": 140, "paid": 370},
    {"event": "pot", "index": 0, "amount": 200, "shares": {"alice": 200}},
    {"event": "hand_end", "hand": 1, "stacks": {"alice": 1300, "bob": 900}},
    {"event": "leave", "player": "bob", "chips": 900, "bank": 900},
]

HOUSE = """\
## expect action alice ante 100
## expect say アンティ
## expect rejected bob omaha.no_raise
## expect settle alice win 300 bets.ante=100
## expect joker alice 50
## expect compensation bob 20
## expect house -230
## expect stacks alice=1300 bob=900
## expect leave bob 900
"""

GENERIC = """\
## expect action player=alice action=ante amount=100 allin=false aa=0
## expect say to=room text="aliceさんがアンティ 100"
## expect rejected player=bob code=omaha.no_raise
## expect settle player=alice payout=300 bets={"ante":100} bets.ante=100
## expect pot index=0 amount=200 shares={"alice":200}
## expect hand_end stacks={"alice":1300,"bob":900}
## expect leave
## absent penalty
## absent say text=アンティ
## absent action player=bob
## final alice=1300 bob=900
## bank bob=900
"""


def mutate(line: str) -> str:
    """The line with its last number changed beyond any plausible value (or, with no number,
    its last word or quoted string lengthened by a character no event holds)."""
    head, sep, tail = line.partition(" ")  # keep "##"
    digits = list(re.finditer(r"[0-9]+", tail))
    if digits:
        d = digits[-1]
        return head + sep + tail[:d.start()] + str(int(d.group()) + 7_919_000) + tail[d.end():]
    if line.endswith(('"', '"]', '"}')):
        cut = line.rindex('"')
        return line[:cut] + "☃" + line[cut:]
    return line + "☃"


def fails(events: list[dict[str, Any]], text: str) -> bool:
    try:
        check(events, parse(text))
    except AssertionError:
        return True
    return False


@pytest.mark.parametrize("text", [HOUSE, GENERIC], ids=["house", "generic"])
def test_the_right_expectations_pass(text: str) -> None:
    assert check(EVENTS, parse(text)) == len(text.splitlines())


@pytest.mark.parametrize(("text", "line"), [
    *((HOUSE, x) for x in HOUSE.splitlines()),
    *((GENERIC, x) for x in GENERIC.splitlines() if "## absent" not in x),
])
def test_a_changed_value_fails(text: str, line: str) -> None:
    assert not fails(EVENTS, text)
    changed = text.replace(line + "\n", mutate(line) + "\n", 1)
    assert changed != text and fails(EVENTS, changed), mutate(line)


@pytest.mark.parametrize("extra", [
    "## expect penalty",  # no such event
    "## expect say 存在しないメッセージ",
    "## expect say text=アンティ",  # generic say is the exact text, not a part of it
    "## expect action alice raise",
    "## expect rejected bob omaha.no_check",  # a code is the code, not a part of the reason
    "## expect rejected alice omaha.no_raise",
    "## expect settle alice win 300 bets.ante=200",
    "## expect pot index=0 amount=200 shares={\"bob\":200}",
    "## expect hand_end stacks={\"alice\":1300}",  # a partial dict is not the stacks
    "## expect stacks alice=1300",
    "## expect leave player=alice",
])
def test_a_missing_event_fails(extra: str) -> None:
    for text in (HOUSE, GENERIC):
        assert fails(EVENTS, text + extra + "\n"), extra


def test_the_order_counts() -> None:
    for first, second in [
        ("## expect stacks alice=1300 bob=900", "## expect settle alice win 300"),
        ("## expect leave player=bob", "## expect pot index=0"),
    ]:
        assert not fails(EVENTS, f"{second}\n{first}\n")
        assert fails(EVENTS, f"{first}\n{second}\n")
    # the same event cannot be matched twice
    assert fails(EVENTS, "## expect pot index=0\n## expect pot index=0\n")


@pytest.mark.parametrize("absent", [
    "## absent pot",
    "## absent pot index=0",
    "## absent say to=room text=\"aliceさんがアンティ 100\"",
    "## absent settle alice win 300",  # a house form reads as well
    "## absent hand_end stacks={\"alice\":1300,\"bob\":900}",
])
def test_an_absent_that_occurs_fails(absent: str) -> None:
    assert fails(EVENTS, GENERIC + absent + "\n")


def test_exactly() -> None:
    settles = "## expect settle alice win 300\n"
    assert check(EVENTS, parse(settles + "## exactly settle\n")) == 2
    assert check(EVENTS, parse(settles + "## exactly settle player=alice\n")) == 2
    assert check(EVENTS, parse("## exactly penalty\n")) == 1  # none: like ## absent
    more = [*EVENTS, EVENTS[3] | {"payout": 0}]  # a second settle
    assert not fails(more, settles)
    assert fails(more, settles + "## exactly settle\n")
    assert fails(more, "## exactly settle player=alice\n" + settles)  # wherever the line is
    assert not fails(more, settles + "## exactly settle payout=300\n")
    assert not fails(more, settles + "## expect settle player=alice payout=0\n## exactly settle\n")
    # an expect line of another kind does not cover it
    assert fails(EVENTS, "## expect say\n## exactly settle\n")
    with pytest.raises(ExpectationError, match="line 1"):
        parse("## exactly\n")


@pytest.mark.parametrize("final", [
    "## final alice=1300 bob=901",
    "## final alice=1300",  # exactly the stacks: every player
    "## final alice=1300 bob=900 carol=0",
    "## bank bob=901",
    "## bank alice=0",  # alice never left
])
def test_a_wrong_final_or_bank_fails(final: str) -> None:
    assert fails(EVENTS, HOUSE + final + "\n")


def test_a_final_without_a_hand_end_fails() -> None:
    assert fails([e for e in EVENTS if e["event"] != "hand_end"], "## final alice=1300 bob=900\n")


def test_no_expectation_fails() -> None:
    for text in ("", "## expectations (worked out in the comments above)\n## bob wins\n"):
        assert parse(text) == []
        assert fails(EVENTS, text)


@pytest.mark.parametrize("bad", [
    "## expect",
    "## expect settle alice win",
    "## expect stacks alice",
    "## expect house lots",
    "## expect teleport alice 100",  # no such house form, and not key=value
    "## expect pot shares={\"a\":",
    "## expect say to=",
    "## expect say to=room to=room",
    "## expect say event=say",
    "## expect pot amount=1 index",
    "## absent",
    "## final alice",
    "## final alice=1300 alice=1",
    "## bank bob=x",
])
def test_a_malformed_line_is_an_error_naming_it(bad: str) -> None:
    with pytest.raises(ExpectationError, match="line 2"):
        parse("## a comment\n" + bad + "\n")


def test_values() -> None:
    assert _pairs('a=1 b=true c=null d="1" e=x f=[1,"2"] g={"k": "v w"} h=-5 i="" j=false') == {
        "a": 1, "b": True, "c": None, "d": "1", "e": "x", "f": [1, "2"], "g": {"k": "v w"},
        "h": -5, "i": "", "j": False,
    }
    for value in ["100", "true", "null", 'a "b"', "x y", "", "{x", "[", "-3", "room", "Q♥",
                  7, -7, True, None, {"bob": 200}, ["Ah", "Kd"], "1.5"]:
        assert _pairs(f"k={format_value(value)}") == {"k": value}, value
    want = {"event": "say", "to": "room", "text": "a b"}
    assert format_event(want) == 'say to=room text="a b"'
    (x,) = parse(f"## expect {format_event(want)}")
    assert x.want == want and x.matches(want | {"extra": 1})
    assert not x.matches(want | {"text": "a b c"})


# --- every transcript with expectations ------------------------------------------------------

ROOT = Path(__file__).resolve().parent / "transcripts"
WITH = sorted(p for p in ROOT.rglob("*.txt") if parse(p.read_text(encoding="utf-8")))


def test_the_transcripts_with_expectations() -> None:
    games = {p.parent.name for p in WITH}
    assert {"omaha", "holdem_aa", "seven", "deuces", "language"} <= games
    assert all(parse(p.read_text(encoding="utf-8"))
               for g in ("omaha", "holdem_aa", "seven", "deuces", "language")
               for p in (ROOT / g).glob("*.txt"))
    assert any(x.directive == "exactly" for p in WITH for x in parse(p.read_text(encoding="utf-8")))


@pytest.mark.parametrize("path", WITH, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_expectation_line_is_load_bearing(path: Path) -> None:
    """Each expect/final/bank line of the transcript, changed, makes its check fail against the
    real replay; every absent and exactly line names a real event kind and its fields (a typo
    would make it true of every transcript), and each exactly line covers expect lines, every one
    of which, left out, makes the check fail (the list is exact)."""
    text = path.read_text(encoding="utf-8")
    events = replay(path)
    lines = text.splitlines()
    kinds = event_types()
    xs = parse(text)
    check(events, xs, path.name)
    for x in xs:
        if x.want is not None:
            assert x.event in kinds, x.line
            fields = set(kinds[x.event].model_fields)
            assert {k.split(".")[0] for k in x.want} <= fields, (x.line, fields)
        if x.directive == "absent":
            continue
        if x.directive == "exactly":
            covered = [y for y in xs if y.directive == "expect"
                       and any(y.matches(e) and x.matches(e) for e in events)]
            assert covered, f"{x.line}: covers no expect line (write ## absent)"
            for y in covered:
                with pytest.raises(AssertionError):
                    check(events, [z for z in xs if z is not y], path.name)
            continue
        changed = [*lines[:x.lineno - 1], mutate(x.line), *lines[x.lineno:]]
        with pytest.raises(AssertionError):
            check(events, parse("\n".join(changed)), path.name)


def test_a_refusal_is_read_by_its_code_or_by_a_word_of_its_reason() -> None:
    """``rejected NAME WORD``: a catalogue code (``omaha.no_raise``) is compared with the
    event's code; any other word is looked for in the reason (the voice tests' form)."""
    assert not fails(EVENTS, "## expect rejected bob omaha.no_raise\n")
    assert not fails(EVENTS, "## expect rejected bob レイズ\n")
    assert fails(EVENTS, "## expect rejected bob no_raise\n")  # no dot: a word of the reason
    assert fails(EVENTS, "## expect rejected bob omaha.no\n")
