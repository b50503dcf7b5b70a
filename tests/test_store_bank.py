"""Bank invariants, as properties over random sequences of saves (hypothesis).

- every balance equals the sum of that player's ledger entries, and there is no balance without
  ledger rows;
- a save moves each balance by exactly the sum of its own ledger entries; a rejected save
  (duplicate input, invalid entry) and any direct write to ``bank`` move nothing.
"""

from __future__ import annotations

import sqlite3
from collections import Counter

from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.events import Penalty, Say
from referee.outcome import LedgerEntry, Outcome
from referee.store import AlreadyProcessed, Store, StoreError

PLAYERS = ["alice", "bob", "キャロル", "dave"]

entry = st.tuples(
    st.sampled_from(PLAYERS),
    st.integers(min_value=-(10**9), max_value=10**9),
    st.booleans(),  # linked to the outcome's penalty event
)
save_op = st.tuples(
    st.just("save"),
    st.integers(min_value=0, max_value=25),  # small id pool: duplicates happen
    st.lists(entry, max_size=5),
    st.booleans(),  # include an invalid entry (points at no event)
)
tamper_op = st.tuples(
    st.just("tamper"),
    st.sampled_from([
        "UPDATE bank SET balance = balance + 1",
        "UPDATE bank SET balance = 0",
        "INSERT INTO bank(player, balance, last_ledger_id) VALUES ('mallory', 1, 1)",
        "DELETE FROM bank",
        "UPDATE ledger SET delta = delta + 1",
        "DELETE FROM ledger",
        "INSERT INTO ledger(player, delta, reason, input_seq) VALUES ('mallory', 1, 'x', 999999)",
    ]),
)


def balances(s: Store) -> dict[str, int]:
    return dict(s.conn.execute("SELECT player, balance FROM bank").fetchall())


def ledger_sums(s: Store) -> dict[str, int]:
    return dict(s.conn.execute("SELECT player, sum(delta) FROM ledger GROUP BY player").fetchall())


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(save_op, tamper_op), min_size=1, max_size=30))
def test_bank_invariants(ops: list[tuple]) -> None:  # type: ignore[type-arg]
    model: Counter[str] = Counter()
    seen: set[str] = set()
    with Store(":memory:") as s:
        for op in ops:
            before = balances(s)
            if op[0] == "save":
                _, n, entries, invalid = op
                input_id = f"m{n}"
                events = [Say(to="room", text="ペナルティ"),
                          Penalty(player="alice", kind="interference", points=5000)]
                ledger = [LedgerEntry(p, d, "test", 1 if linked else None)
                          for p, d, linked in entries]
                if invalid:
                    ledger.append(LedgerEntry("bob", 1, "bad", event_index=2))
                o = Outcome(input_id, "room", {"id": input_id}, events, ledger)
                try:
                    s.save(o)
                    accepted = True
                except AlreadyProcessed:
                    assert input_id in seen
                    accepted = False
                except StoreError:
                    assert invalid
                    accepted = False
                assert accepted == (input_id not in seen and not invalid)
                expected_move: Counter[str] = Counter()
                if accepted:
                    seen.add(input_id)
                    for e in ledger:
                        expected_move[e.player] += e.delta
                    model.update(expected_move)
                after = balances(s)
                for p in set(before) | set(after):
                    assert after.get(p, 0) - before.get(p, 0) == expected_move.get(p, 0)
            else:
                try:
                    cur = s.conn.execute(op[1])
                    # only acceptable when there was nothing to touch (an empty table)
                    assert cur.rowcount == 0, f"direct write allowed: {op[1]}"
                except sqlite3.IntegrityError:
                    pass
                assert balances(s) == before
            # the invariants, after every step
            now = balances(s)
            assert now == ledger_sums(s)
            assert now == {p: v for p, v in model.items() if p in now}
            assert set(now) == {p for p, _, _ in _all_entries(s)}
            assert s.balances() == now


def _all_entries(s: Store) -> list[tuple[str, int, str]]:
    return s.conn.execute("SELECT player, delta, reason FROM ledger").fetchall()
