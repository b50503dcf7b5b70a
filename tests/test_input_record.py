"""The input stays as received; what it drew is the outcome's (docs/contracts.md, the input
record): a live !deal's cards and the commitment seeds are in ``Outcome.drawn``, the store keeps
both in one record (``Outcome.record``), and a re-run of that record -- or of an old one
without ``time`` or ``dm`` -- takes the draws instead of drawing again."""

from __future__ import annotations

import random

from referee.inputs import Directive, Message, Tick, from_record, record
from referee.outcome import DRAWN
from referee.service import Referee


def _dealt() -> tuple[Referee, list[dict[str, object]]]:
    ref = Referee(moderators=["dealer"], rng=random.Random(11))
    records = []
    for n, (who, text) in enumerate([("dealer", "!open omaha level=1"),
                                     ("dealer", "!grant @alice 5000"),
                                     ("dealer", "!grant @bob 5000"), ("alice", "!sit"),
                                     ("bob", "!sit"), ("dealer", "!deal")]):
        inp = Message(f"m{n}", "!r", who, text, 100.0 + n)
        out = ref.process(inp)
        assert out is not None
        assert out.input == record(inp)  # as received, whatever it drew
        assert not set(out.input) & set(DRAWN)
        records.append(out.record)
    return ref, records


def test_the_draws_are_the_outcomes_and_a_rerun_takes_them() -> None:
    ref, records = _dealt()
    assert "deal" in records[-1] and any("commits" in r for r in records)
    again = Referee(moderators=["dealer"], rng=random.Random(999))  # another random source
    outs = [again.process(r) for r in records]
    assert outs[-1] is not None and outs[-1].drawn == {"deal": records[-1]["deal"]}
    # the same cards dealt, to the same players: the holdings each engine now has
    held = {p: [str(c) for c in t.engine.holdings(p)] for t in again.tables.values()
            for p in ("alice", "bob")}
    assert held == {p: [str(c) for c in t.engine.holdings(p)] for t in ref.tables.values()
                    for p in ("alice", "bob")}
    assert all(held.values())
    assert again.state()["tables"] == ref.state()["tables"]


def test_old_records_read_as_typed_inputs() -> None:
    assert from_record({"kind": "message", "id": "1", "room": "r", "sender": "a",
                        "text": "x"}) == Message("1", "r", "a", "x", None, False)
    assert from_record({"id": "2", "room": "r", "sender": "a", "text": "x", "time": 5,
                        "deal": {}}) == Message("2", "r", "a", "x", 5.0, False)
    assert from_record({"kind": "tick", "id": "3", "room": "r", "time": 1.5}) == Tick(
        "3", "r", 1.5)
    assert from_record({"kind": "directive", "id": "4", "room": "r", "name": "seat",
                        "args": {"seat": 1}}) == Directive("4", "r", "seat", {"seat": 1})
    for inp in (Message("5", "r", "a", "!sit", 2.0, True), Tick("6", "r", 3.0),
                Directive("7", "r", "bank", {"name": "a", "points": 1})):
        assert from_record(record(inp)) == inp
