"""The action clock as the service drives it: reminders and default actions from input times,
and the moderators' ``!clock off|on`` (paused: nothing happens; the paused time does not count;
saved like any input, so a rebuild pauses alike). Also the live adapters' tick scheduling."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from event_helpers import handle, tick
from event_helpers import says as room_says

from referee.adapters.clock import due_ticks
from referee.adapters.transcript import Line, decode, read, run
from referee.events import Event
from referee.inputs import Message
from referee.lang.catalog import messages
from referee.lang.catalog import text as msg
from referee.service import Referee
from referee.store import Store

pytest.importorskip("referee.parse")

ROOT = Path(__file__).resolve().parent.parent
DIR = ROOT / "tests" / "transcripts"


def per_line(path: Path | str, ref: Referee | None = None,
             text: str | None = None) -> list[tuple[Line, list[Event]]]:
    body = text if text is not None else decode((DIR / path).read_bytes())
    return list(run(read(body), ref if ref is not None else Referee()))


def at(lines: list[tuple[Line, list[Event]]], stamp: str) -> list[list[Event]]:
    """The events of the message lines whose time stamp is ``stamp`` (seconds after 21:00)."""
    h, m, s = (int(x) for x in stamp.split(":"))
    t = h * 3600 + m * 60 + s
    return [evs for line, evs in lines if line.input.get("time") == t]


def _template(key: str) -> re.Pattern[str]:
    """A catalogue message as a pattern over its renderings (any parameter values)."""
    return re.compile(".+?".join(re.escape(p) for p in re.split(r"\{\w+\}", messages()[key])))


#: What the action clock says: each game's reminder and its time-out (the catalogue's keys).
REMINDERS = [_template(k) for k in ("omaha.remind", "house.remind", "deuces.remind")]
TIMEOUTS = [_template(k) for k in ("omaha.timeout", "house.timed_out", "deuces.timeout_ante",
                                   "deuces.timeout_check", "deuces.timeout_decide")]


def _said(evs: list[Event], patterns: list[re.Pattern[str]]) -> list[str]:
    return [t for t in room_says(evs) if any(p.fullmatch(t) for p in patterns)]


def clock_events(evs: list[Event]) -> list[str]:
    return _said(evs, REMINDERS + TIMEOUTS)


def test_without_pause_reminder_then_default_fold_on_time() -> None:
    lines = per_line("service/clock_run.txt")
    assert [clock_events(e) for e in at(lines, "21:00:59")] == [[]]
    assert at(lines, "21:01:00") and clock_events(at(lines, "21:01:00")[0]) == [
        msg("omaha.remind", player="alice")]
    assert clock_events(at(lines, "21:01:59")[0]) == []
    late = at(lines, "21:02:00")[0]
    assert clock_events(late) == [msg("omaha.timeout", player="alice")]
    assert [(e.event, getattr(e, "player", None), getattr(e, "action", None))
            for e in late if e.event == "action"] == [("action", "alice", "fold")]


def test_paused_clock_does_nothing_and_the_pause_does_not_count() -> None:
    ref = Referee()
    lines = per_line("service/clock_pause.txt", ref)
    says = {line.input["text"] + "@" + str(int(line.input["time"])): room_says(evs)
            for line, evs in lines if line.input.get("kind") == "message"}
    t0 = 21 * 3600
    # bob is no moderator: refused, nothing changes (the clock still ran at 21:00:31)
    assert says[f"!clock off@{t0 + 30}"] == [
        msg("command_moderator_only", sender="bob", word="clock")]
    assert says[f"!clock off@{t0 + 31}"] == [msg("clock_off")]
    assert msg("clock_already_off") in says[f"!時計停止@{t0 + 32}"][0]
    # an hour and more paused: no reminder, no fold
    assert says[f"ok@{t0 + 1800}"] == []
    assert says[f"!時計再開@{t0 + 3600}"] == [
        msg("command_moderator_only", sender="bob", word="時計再開")]
    assert says[f"!clock on@{t0 + 7200}"] == [msg("clock_on")]
    # 31 s counted before the pause: reminder at 60 s of clock time, fold at 120 s
    assert clock_events_of(lines, t0 + 7200 + 28) == []
    assert clock_events_of(lines, t0 + 7200 + 29) == [msg("omaha.remind", player="alice")]
    assert clock_events_of(lines, t0 + 7200 + 88) == []
    assert clock_events_of(lines, t0 + 7200 + 89) == [msg("omaha.timeout", player="alice")]
    assert ref.tables["transcript"].engine.stacks() == {"alice": 9990, "bob": 10010}


def clock_events_of(lines: list[tuple[Line, list[Event]]], t: int) -> list[str]:
    (evs,) = [evs for line, evs in lines if line.input.get("time") == t]
    return clock_events(evs)


def later(ref: Referee, who: str, text: str, t: float) -> list[Event]:
    """A message after a transcript (same room, time in seconds after its first midnight)."""
    return handle(ref, Message(id=f"later{t}{who}{text}", room="transcript", sender=who,
                               text=text, time=t))


def test_deuces_clock_paused_from_the_start_never_times_out() -> None:
    text = decode((DIR / "deuces" / "clock.txt").read_bytes())
    plain = per_line("", text=text)
    assert any(clock_events(evs) for _, evs in plain)  # the game's own transcript times out
    head, _, rest = text.partition("[21:00:01]")
    paused = (head.replace("# table: deuces ante=100", "# table: deuces ante=100\n"
                           "# moderator: dealer")
              + "[21:00:00] dealer: !clock off\n[21:00:01]" + rest)
    ref = Referee()
    lines = per_line("", ref, text=paused)
    assert not any(clock_events(evs) for _, evs in lines)
    # resumed an hour later: the reminder comes 60 s of running clock after the phase began
    t = 22 * 3600.0
    assert room_says(later(ref, "dealer", "!clock on", t)) == [msg("clock_on")]
    assert clock_events(later(ref, "alice", "ok", t + 59)) == []
    assert _said(later(ref, "alice", "ok", t + 60), REMINDERS) == [
        msg("deuces.remind", who="bobさん", what=msg("deuces.remind_ante"))]
    assert clock_events(later(ref, "alice", "ok", t + 119)) == []
    assert clock_events(later(ref, "alice", "ok", t + 120)) != []


def test_holdem_aa_paused_clock_never_times_out_then_resumes() -> None:
    text = ("# table: holdem_aa\n# moderator: dealer\n# seat 1: alice 10000\n"
            "# seat 2: bob 10000\n[21:00:00] dealer: !deal\n")
    ref = Referee()
    per_line("", ref, text=text)
    eng = ref.tables["transcript"].engine
    assert eng.in_hand
    clock = eng.definition.clock
    t = 21 * 3600.0
    later(ref, "dealer", "!clock off", t + 1)
    assert clock_events(later(ref, "dealer", "ok", t + 10 * clock.act_after)) == []
    later(ref, "dealer", "!clock on", t + 20 * clock.act_after)
    # the clock's first reading came with the pause: the whole wait counts from the resume
    r = t + 20 * clock.act_after
    assert not _said(later(ref, "dealer", "ok", r + clock.act_after - 1), TIMEOUTS)
    due = later(ref, "dealer", "ok", r + clock.act_after)
    assert _said(due, TIMEOUTS)


def test_clock_pause_survives_a_rebuild_and_ticks_skip_it() -> None:
    store = Store(":memory:")
    live = Referee(moderators=["dealer"], persistence=store)

    def say(who: str, text: str, t: float) -> list[Event]:
        return handle(live, Message(id=f"m{t}{who}", room="!r", sender=who, text=text, time=t))

    for i, (who, text) in enumerate([("dealer", "!grant @alice 2000"),
                                      ("dealer", "!grant @bob 1500"), ("dealer", "!open omaha"),
                                      ("alice", "!sit"), ("bob", "!sit"), ("dealer", "!deal")]):
        say(who, text, 1000.0 + i / 10)
    first = live.tables["!r"].engine.to_act()
    clock = live.tables["!r"].engine.definition.clock
    assert live.wants_tick("!r")
    assert tick(live, "k0", "!r", 1001.0) == []
    say("dealer", "!時計停止", 1010.0)
    assert not live.wants_tick("!r") and live.tables["!r"].paused
    assert tick(live, "k1", "!r", 1010.0 + 10 * clock.act_after) == []
    rebuilt = Referee(moderators=["dealer"])
    rebuilt.rebuild(store.inputs())
    assert rebuilt.state() == live.state() and rebuilt.tables["!r"].paused
    say("dealer", "!clock on", 5000.0)
    # 9 s ran before the pause: the default comes act_after - 9 s after the resume
    early = tick(live, "k2", "!r", 5000.0 + clock.act_after - 10)
    assert not any(e.event == "action" for e in early)
    timed = tick(live, "k3", "!r", 5000.0 + clock.act_after - 9)
    assert any(e.event == "action" and getattr(e, "player", "") == first for e in timed)
    rebuilt = Referee(moderators=["dealer"])
    rebuilt.rebuild(store.inputs())
    assert rebuilt.state() == live.state()


def test_due_ticks_only_for_waiting_unpaused_tables_and_at_most_every_n_seconds() -> None:
    ref = Referee(moderators=["dealer"])
    t = 1000.0

    def say(room: str, who: str, text: str) -> None:
        handle(ref, Message(id=f"{room}{who}{text}", room=room, sender=who, text=text, time=t))

    for room in ("!a", "!b", "!c"):
        for who, text in [("dealer", f"!grant @alice{room} 2000"),
                          ("dealer", f"!grant @bob{room} 2000"), ("dealer", "!open omaha")]:
            say(room, who, text)
    for room in ("!a", "!b"):
        say(room, f"alice{room}", "!sit")
        say(room, f"bob{room}", "!sit")
        say(room, "dealer", "!deal")
    say("!b", "dealer", "!clock off")
    last: dict[str, float] = {}
    # !a is in a hand; !b is paused; !c has no hand
    assert due_ticks(ref, t, last, every=5.0) == ["!a"]
    last["!a"] = t
    assert due_ticks(ref, t + 4.9, last, every=5.0) == []
    assert due_ticks(ref, t + 5.0, last, every=5.0) == ["!a"]
    say("!b", "dealer", "!clock on")
    assert due_ticks(ref, t + 5.0, last, every=5.0) == ["!a", "!b"]
    assert due_ticks(ref, t + 5.0, {}, every=5.0, rooms={"!b"}) == ["!b"]
