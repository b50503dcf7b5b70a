"""The shortcuts `referee replay` takes for speed give exactly what the general code gives.

- ``event_line`` spells ``say`` and ``action`` lines out by hand: the same text as pydantic's
  serializer for any strings (escapes, control characters, non-BMP) and amounts;
- ``split_message`` reads plain ``NAME: TEXT`` lines without the transcript's message pattern: the
  same sender and text whenever it answers;
- (the omaha engine builds its events with pydantic's own constructors: no shortcut through
  pydantic's internals, checked on its source);
- bench/replay.py runs end to end (its figures are printed, never asserted).
"""

from __future__ import annotations

import importlib.util
import io
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.adapters.transcript import MESSAGE, event_line, split_message
from referee.events import ActionEvent, HandEnd, Say, line
from referee.games.omaha import state

ROOT = Path(__file__).resolve().parent.parent


def _pydantic_line(ev: Say | ActionEvent | HandEnd) -> str:
    return ev.model_dump_json(exclude_none=True) + "\n"


texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=40) | st.sampled_from(
    ['"', "\\", "\n\r\t\b\f", "\x00\x1f\x7f", "\u2028\u2029", "😀", "スペードのA ♠", ""])


@settings(max_examples=examples(300))
@given(texts, texts)
def test_say_lines_are_pydantics(to: str, text: str) -> None:
    ev = Say(to=to, text=text)
    assert event_line(ev) == _pydantic_line(ev)


@settings(max_examples=examples(300))
@given(texts, texts, st.integers(0, 10**12), st.none() | st.integers(0, 10**12), st.booleans())
def test_action_lines_are_pydantics(player: str, act: str, amount: int, to: int | None,
                                    bare: bool) -> None:
    ev = ActionEvent(player=player, action=act) if bare else ActionEvent(
        player=player, action=act, amount=amount, to=to)
    assert event_line(ev) == _pydantic_line(ev)


def test_other_events_and_extras_go_through_pydantic() -> None:
    for ev in (HandEnd(hand=3, stacks={"a": 1, "ü": 2}),
               ActionEvent(player="a", action="ante", amount=300, ante=100, aa=200)):
        assert event_line(ev) == _pydantic_line(ev)  # type: ignore[arg-type]


def test_an_undeclared_field_is_refused() -> None:
    """Every field of every kind is declared (the event set is closed): an extra is an error."""
    import pydantic

    with pytest.raises(pydantic.ValidationError):
        Say(to="room", text="x", extra_key=1)  # type: ignore[call-arg]


pieces = st.sampled_from([*"ab :：[]()（）#\t\u3000\u2003dmxコール1!", "(dm)", "（dm）", "[12:00]",
                          "[1:02:03] ", " (dm) ", "alice", "メイク300"])


@settings(max_examples=examples(600))
@given(st.lists(pieces, max_size=12).map("".join))
def test_plain_message_split_agrees_with_the_pattern(raw: str) -> None:
    line = raw.strip()
    if not line or line.startswith("#"):
        return
    got = split_message(line)
    if got is None:
        return  # the pattern decides
    m = MESSAGE.match(line)
    assert m is not None, line
    assert m.group("h") is None and m.group("dm") is None
    assert (m.group("name"), m.group("text")) == got


def test_common_lines_take_the_shortcut() -> None:
    assert split_message("alice: コール") == ("alice", "コール")
    assert split_message("bob :  メイク300") == ("bob", " メイク300")
    assert split_message("[21:00:01] carol: こ") is None
    assert split_message("carol (dm): 今の手札は？") is None


def test_engine_events_are_built_through_pydantic() -> None:
    """No write to a model's ``__dict__`` or ``__pydantic_fields_set__`` in the omaha engine."""
    for path in sorted((ROOT / "referee" / "rules" / "omaha").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        for internal in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__",
                         "__pydantic_private__", "object.__setattr__"):
            assert internal not in source, (path.name, internal)
    ev = state.action_event("a", "raise", 60, 80)
    assert ev == ActionEvent(player="a", action="raise", amount=60, to=80)
    said = state.say("room", line("omaha.mucked", player="a"))
    assert said == Say(to="room", key="omaha.mucked", params={"player": "a"})


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
