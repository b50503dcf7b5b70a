"""The room's sentences about what happened are renderings of the typed events.

Every transcript is replayed; each fact event that a renderer knows (an action, the board, cards
shown or mucked, a pot, the rake, a hand bonus, a house game's hands -- :func:`render`, which
asks the game's registered ``voice`` first) must be followed by exactly the line rendered from
it, and a house hand's settlement line must be the one rendered from its ``settle`` events. So
no engine phrases a fact from its own state: the sentence never says more than the record (the
history, the console and ``referee verify`` read the events only).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.adapters.transcript import read, run
from referee.events import ActionEvent, Event, Mucked, Say, Settle, Shown
from referee.rules.voice import render, rendered
from referee.service import Referee

ROOT = Path(__file__).resolve().parent
TRANSCRIPTS = sorted(p for p in (ROOT / "transcripts").rglob("*.txt")
                     if "malformed" not in p.name)
EXAMPLES = sorted((ROOT.parent / "referee" / "examples").glob("*.txt"))


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT.parent))


def _said_by_the_next_fact(ev: Event, nxt: Event | None) -> bool:
    """An action whose line is the next fact's: an OPEN or a fold that shows cards is told by
    the show, a MUCK by the muck (or by its show, when it shows cards)."""
    if isinstance(ev, ActionEvent):
        if ev.action in ("open", "fold") and isinstance(nxt, Shown):
            return nxt.player == ev.player
        if ev.action == "muck" and isinstance(nxt, Mucked):
            return nxt.player == ev.player
    if isinstance(ev, Mucked):
        return isinstance(nxt, Shown) and nxt.why == "muck" and nxt.player == ev.player
    return False


#: events that make the engine fold a player on its own
CAUSES = {"penalty", "leave", "flying_action", "fa_applied", "flag"}


def _run_goes_on(ev: Event, nxt: Event | None) -> bool:
    """``nxt`` continues a run of facts told in one line after the run's last (a round of
    seven's deal, a hand's settles)."""
    return (nxt is not None and nxt.event == ev.event
            and getattr(nxt, "why", None) == getattr(ev, "why", None))


def check_outcome(game: str | None, sender: str | None, events: list[Event]
                  ) -> tuple[str | None, int]:
    """The game the table plays after one input's ``events``, and how many lines were checked;
    AssertionError names the first line that is not its event's rendering. ``sender``: who sent
    the input (None: a directive or the clock)."""
    checked = 0
    for i, ev in enumerate(events):
        if ev.event in ("hand_seats", "table_open"):
            game = getattr(ev, "game", game)
        if game is None:
            continue
        fact = render(game, events[: i + 1])  # the line's key and parameters, then its text
        said = rendered(fact) if fact is not None else None
        nxt = events[i + 1] if i + 1 < len(events) else None
        if said is None or nxt == said or _said_by_the_next_fact(ev, nxt) \
                or _run_goes_on(ev, nxt):
            checked += nxt == said
            continue
        # a fold the engine made itself (the clock, a penalty, a flying action's, a removal):
        # the room was told its cause first, or the cause is an event of the same outcome
        if isinstance(ev, ActionEvent) and ev.action == "fold" and (
                ev.player != sender or CAUSES & {e.event for e in events}
                or any(isinstance(e, Say) and e.to == "room" for e in events[:i])):
            continue
        got = nxt.text if isinstance(nxt, Say) else nxt
        raise AssertionError(f"{ev.event} is said as {got!r}, not as its rendering "
                             f"{said.text!r}")
    return game, checked


def replayed(path: Path) -> list[tuple[int, str | None, list[Event]]]:
    """Each input line of a transcript that the referee processed: its number, its sender (for
    a message) and its events."""
    out = []
    for line, events in run(iter(read(path.read_text(encoding="utf-8"))), Referee()):
        inp = line.input
        out.append((line.lineno, inp.get("sender") if inp.get("kind") == "message" else None,
                    events))
    return out


def check(path: Path) -> int:
    """How many lines of a transcript were checked; AssertionError names the first that is
    not its event's rendering, with the transcript's line."""
    game: str | None = None
    total = 0
    for lineno, sender, events in replayed(path):
        try:
            game, n = check_outcome(game, sender, events)
        except AssertionError as e:
            raise AssertionError(f"{_rel(path)} line {lineno}: {e}") from None
        total += n
    return total


@pytest.mark.parametrize("path", TRANSCRIPTS + EXAMPLES, ids=_rel)
def test_every_fact_line_is_its_events_rendering(path: Path) -> None:
    check(path)


def test_the_check_covers_every_game_and_every_kind_of_fact() -> None:
    """The renderings are checked where they are said: lines of every game and kind."""
    assert sum(check(p) for p in TRANSCRIPTS) > 900


def test_the_check_sees_a_line_that_says_more_than_its_event() -> None:
    """A line phrased from anything but its event (here: a board line whose cards differ from
    the board event's) is caught, and so is a settlement line that is not its settles'."""
    path = next(p for p in TRANSCRIPTS if p.name == "showdown_side_pots.txt")
    outcomes = replayed(path)
    game: str | None = None
    for _, sender, events in outcomes:
        board = next((i for i, ev in enumerate(events) if ev.event == "board"), None)
        if board is not None:
            tampered = list(events)
            said = tampered[board + 1]
            assert isinstance(said, Say)
            tampered[board + 1] = Say(to="room", text=said.text.replace("♣", "♠"))
            with pytest.raises(AssertionError, match="board is said as"):
                check_outcome(game, sender, tampered)
            break
        game, _ = check_outcome(game, sender, events)
    else:
        raise AssertionError("no board event in the transcript")
    settle = Settle(player="alice", result="win", payout=600)
    with pytest.raises(AssertionError, match="settle is said as"):
        check_outcome("seven", None, [settle, Say(to="room", text="aliceさん: 勝ち 700")])
