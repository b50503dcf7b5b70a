"""The shortcuts `referee replay` takes for speed give exactly what the general code gives.

- ``event_line`` spells ``say`` and ``action`` lines out by hand: the same text as pydantic's
  serializer for any strings (escapes, control characters, non-BMP) and amounts;
- ``split_message`` reads plain ``NAME: TEXT`` lines without the transcript's message pattern: the
  same sender and text whenever it answers;
- the omaha engine builds its ``say``/``action`` events without pydantic's validator: the same
  objects;
- bench/replay.py runs end to end (its figures are printed, never asserted).
"""

from __future__ import annotations

import importlib.util
import io
from contextlib import redirect_stdout
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.adapters.transcript import _MESSAGE, event_line, split_message
from referee.events import ActionEvent, HandEnd, Say
from referee.rules import omaha

ROOT = Path(__file__).resolve().parent.parent


def _pydantic_line(ev: Say | ActionEvent | HandEnd) -> str:
    return ev.model_dump_json(exclude_none=True) + "\n"


texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=40) | st.sampled_from(
    ['"', "\\", "\n\r\t\b\f", "\x00\x1f\x7f", "\u2028\u2029", "😀", "スペードのA ♠", ""])


@settings(max_examples=300)
@given(texts, texts)
def test_say_lines_are_pydantics(to: str, text: str) -> None:
    ev = Say(to=to, text=text)
    assert event_line(ev) == _pydantic_line(ev)


@settings(max_examples=300)
@given(texts, texts, st.integers(0, 10**12), st.none() | st.integers(0, 10**12), st.booleans())
def test_action_lines_are_pydantics(player: str, act: str, amount: int, to: int | None,
                                    bare: bool) -> None:
    ev = ActionEvent(player=player, action=act) if bare else ActionEvent(
        player=player, action=act, amount=amount, to=to)
    assert event_line(ev) == _pydantic_line(ev)


def test_other_events_and_extras_go_through_pydantic() -> None:
    for ev in (HandEnd(hand=3, stacks={"a": 1, "ü": 2}),
               Say(to="room", text="x", extra_key=1),  # type: ignore[call-arg]
               ActionEvent(player="a", action="fold", note="n")):  # type: ignore[call-arg]
        assert event_line(ev) == _pydantic_line(ev)  # type: ignore[arg-type]


pieces = st.sampled_from([*"ab :：[]()（）#\t\u3000\u2003dmxコール1!", "(dm)", "（dm）", "[12:00]",
                          "[1:02:03] ", " (dm) ", "alice", "メイク300"])


@settings(max_examples=600)
@given(st.lists(pieces, max_size=12).map("".join))
def test_plain_message_split_agrees_with_the_pattern(raw: str) -> None:
    line = raw.strip()
    if not line or line.startswith("#"):
        return
    got = split_message(line)
    if got is None:
        return  # the pattern decides
    m = _MESSAGE.match(line)
    assert m is not None, line
    assert m.group("h") is None and m.group("dm") is None
    assert (m.group("name"), m.group("text")) == got


def test_common_lines_take_the_shortcut() -> None:
    assert split_message("alice: コール") == ("alice", "コール")
    assert split_message("bob :  メイク300") == ("bob", " メイク300")
    assert split_message("[21:00:01] carol: こ") is None
    assert split_message("carol (dm): 今の手札は？") is None


def test_engine_events_are_built_as_pydantic_builds_them() -> None:
    assert omaha._FAST  # the shortcut is on with the installed pydantic
    pairs = [
        (omaha._say("room", "x"), Say(to="room", text="x")),
        (omaha._action("a", "fold"), ActionEvent(player="a", action="fold")),
        (omaha._action("a", "raise", 60, 80),
         ActionEvent(player="a", action="raise", amount=60, to=80)),
    ]
    for fast, slow in pairs:
        assert omaha._same(fast, slow)
        assert fast.to_json() == slow.to_json() and hash(fast) == hash(slow)


def test_bench_replay_runs_and_reports() -> None:
    spec = importlib.util.spec_from_file_location("bench_replay", ROOT / "bench" / "replay.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = io.StringIO()
    with redirect_stdout(out):
        figures = bench.main(["--hands", "40"])
    assert figures["hands"] == 40 and figures["lines"] > 40
    assert figures["replay_hands_per_s"] > 0 and figures["replay_to_engine_cpu"] > 0
    assert "hands/s" in out.getvalue() and "replay / engine alone" in out.getvalue()
