"""The service's memory horizon (referee/discipline.py, docs/contracts.md "Memory horizon"):
only the newest flags and penalties stay in memory, and the charged keys of hands that can no
longer be charged are forgotten; a chat command about something older is answered with a code
that says where the record is (the console), never a traceback or a silently wrong answer,
and what is still dismissable gives back exactly the points it took."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from event_helpers import told
from flags_transcript import flags_transcript

from referee import discipline
from referee.adapters.transcript import read
from referee.events import Penalty, PenaltyReversed
from referee.inputs import Message
from referee.outcome import Outcome
from referee.service import Referee

ROOM = "transcript"


def _played(ref: Referee, hands: int, seed: int = 3) -> Iterator[tuple[str, Outcome]]:
    for line in read(flags_transcript(hands, seed=seed), room=ROOM):
        out = ref.process(line.given)
        assert out is not None
        yield getattr(line.given, "text", ""), out


def _ask(ref: Referee, text: str, n: list[int] = [0]) -> list[str]:  # noqa: B006
    n[0] += 1
    out = ref.process(Message(f"ask:{n[0]}", ROOM, "dealer", text, None))
    assert out is not None
    return told(out.events)


def test_old_flags_and_penalties_are_forgotten_and_commands_say_where_they_are(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discipline, "FLAGS_KEPT", 5)
    monkeypatch.setattr(discipline, "PENALTIES_KEPT", 4)
    ref = Referee()
    refusals: list[tuple[int, int, str]] = []
    for text, out in _played(ref, 60):
        if text.startswith(("!confirm", "!dismiss")):
            fid = int(text.split()[1])
            refusals.append((fid, ref.discipline.next_id, told(out.events)[0]))
    book = ref.discipline
    assert len(book.flags) == 5 and list(book.flags) == list(range(book.next_id - 5,
                                                                     book.next_id))
    assert len(ref.penalties) == 4 and book.penalties_dropped > 0
    # every command about a flag older than the newest five was refused as forgotten
    old = [code for fid, nxt, code in refusals if fid < nxt - 5]
    assert old and set(old) == {"flag_forgotten"}
    assert "flag_forgotten" not in {code for fid, nxt, code in refusals if fid >= nxt - 5}
    assert _ask(ref, "!dismiss 1") == ["flag_forgotten"]
    assert _ask(ref, "!confirm 1") == ["flag_forgotten"]
    assert _ask(ref, f"!dismiss {book.next_id}") == ["flag_unknown"]  # never raised
    assert sum(book.open_forgotten.values()) > 0
    assert _ask(ref, "!flags")[0] == "flags_forgotten"
    assert _ask(ref, "!penalties @eve") in (["penalties_forgotten"],
                                            ["penalties_forgotten_only"])
    # the charged keys: only hands a penalty can still charge
    pending = [f for f in book.flags.values() if f.status == "open"]
    assert len(book.charged) <= 2 * len(pending) + 16


def test_dismissed_points_and_reversal_marks_follow_their_penalty(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every flag remembered, only the two newest penalties: the points a dismissal gives back
    and the bank are exactly those of the run that forgets nothing, and a remembered penalty
    is marked reversed exactly when its own flag was dismissed."""
    def run(penalties_kept: int) -> tuple[Referee, list[Outcome], int]:
        monkeypatch.setattr(discipline, "FLAGS_KEPT", 10_000)
        monkeypatch.setattr(discipline, "PENALTIES_KEPT", penalties_kept)
        ref, outs, number = Referee(), [], {}
        seen = marked = 0
        undone: set[int] = set()  # the penalties (numbered from 0) whose flag was dismissed
        for text, out in _played(ref, 50, seed=5):
            outs.append(out)
            for ev in out.events:
                if isinstance(ev, Penalty):
                    if text.startswith("!confirm"):
                        number[int(text.split()[1])] = seen
                    seen += 1
                elif isinstance(ev, PenaltyReversed):
                    undone.add(number[ev.flag])
            # at every moment: a remembered record is marked reversed exactly when its own
            # flag was dismissed
            dropped = ref.discipline.penalties_dropped
            kept: list[dict[str, Any]] = ref.penalties
            assert [bool(p.get("reversed")) for p in kept] == [
                dropped + i in undone for i in range(len(kept))]
            marked += sum(1 for p in kept if p.get("reversed"))
        return ref, outs, marked

    bounded, outs, marked = run(2)
    whole, outs_whole, _ = run(10_000)
    assert marked > 0  # reversals seen within the window
    assert bounded.discipline.penalties_dropped > 0 and len(bounded.penalties) == 2
    assert bounded.bank.balances() == whole.bank.balances()
    reversals = [ev for o in outs for ev in o.events if isinstance(ev, PenaltyReversed)]
    assert reversals and reversals == [ev for o in outs_whole for ev in o.events
                                       if isinstance(ev, PenaltyReversed)]
    assert bounded.penalties == whole.penalties[-2:]


def test_with_a_store_the_ledger_is_the_stores_and_memory_keeps_none() -> None:
    """Buy-ins, cash-outs and penalties for a year: the store keeps every ledger row, the
    service only the balances."""
    from referee.store import Store

    with Store(":memory:") as store:
        ref = Referee(persistence=store)
        for _ in _played(ref, 20):
            assert ref.bank.ledger == []
        rows = store.ledger()
        assert rows and ref.state()["ledger"] == [
            (r["player"], r["delta"], r["reason"]) for r in rows]
        sums: dict[str, int] = {}
        for r in rows:
            sums[r["player"]] = sums.get(r["player"], 0) + r["delta"]
        assert ref.bank.balances() == sums
