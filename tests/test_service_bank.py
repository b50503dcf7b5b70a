"""The bank: balances are the sum of the ledger, in memory and in the store, whatever happens."""

from __future__ import annotations

from typing import Any

from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.bank import Bank
from referee.outcome import LedgerEntry
from referee.service import Referee
from referee.store import Store

PLAYERS = ["alice", "bob", "carol"]

_op = st.one_of(
    st.tuples(st.just("grant"), st.sampled_from(PLAYERS), st.integers(-10**6, 10**6)),
    st.tuples(st.just("set"), st.sampled_from(PLAYERS), st.integers(-1000, 10**6)),
    st.tuples(st.just("penalty"), st.sampled_from(PLAYERS),
              st.sampled_from(["information_leak", "interference"])),
    st.tuples(st.just("open"), st.just(""), st.just(0)),
    st.tuples(st.just("sit"), st.sampled_from(PLAYERS), st.just(0)),
    st.tuples(st.just("leave"), st.sampled_from(PLAYERS), st.just(0)),
    st.tuples(st.just("close"), st.just(""), st.just(0)),
)


def _run(ops: list[tuple[str, str, Any]], ref: Referee) -> None:
    for i, (op, who, arg) in enumerate(ops):
        base: dict[str, Any] = {"id": f"op{i}", "room": "r"}
        if op == "set":
            ref.process({**base, "kind": "directive", "name": "bank",
                         "args": {"name": who, "points": arg}})
            continue
        text = {
            "grant": f"!grant @{who} {arg}", "penalty": f"!penalty @{who} {arg}",
            "open": "!open omaha", "sit": "!sit", "leave": "!leave", "close": "!close",
        }[op]
        sender = who if op in ("sit", "leave") else "mod"
        ref.process({**base, "kind": "message", "sender": sender, "text": text, "time": None,
                     "dm": False})


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(_op, max_size=25))
def test_balances_are_the_sum_of_the_ledger(ops: list[tuple[str, str, Any]]) -> None:
    store = Store(":memory:")
    ref = Referee(moderators=["mod"], persistence=store)
    _run(ops, ref)
    sums: dict[str, int] = {}
    for r in store.ledger():  # with a store, the ledger is the store's (memory keeps none)
        sums[r["player"]] = sums.get(r["player"], 0) + r["delta"]
    assert ref.bank.balances() == sums
    assert {p: b for p, b in store.balances().items()} == sums
    # chips at the table + bank: a sit moves points out, a leave brings them back (omaha x10, ÷10
    # rounded up, so a sit-leave round trip never loses a point)
    for p in PLAYERS:
        table = ref.tables.get("r")
        at_table = table.engine.stacks().get(p, 0) if table else 0
        assert at_table % 10 == 0
    rebuilt = Referee(moderators=["mod"])
    rebuilt.rebuild(store.inputs())
    assert rebuilt.state() == ref.state()


def test_bank_rejects_non_integer_deltas() -> None:
    b = Bank()
    b.apply(LedgerEntry("a", 5, "x"))
    try:
        b.apply(LedgerEntry("a", 1.5, "x"))  # type: ignore[arg-type]
    except TypeError:
        pass
    else:
        raise AssertionError("a float delta was accepted")
    assert b.balances() == {"a": 5} and len(b.ledger) == 1
