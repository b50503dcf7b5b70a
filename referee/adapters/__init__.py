"""Adapters: the outside worlds the referee talks to (transcripts, a terminal, Matrix, IRC).

Each one only turns its input into service inputs (:mod:`referee.service`) and its events back
into output; the refereeing itself is the same pipeline everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from referee.outcome import Persistence
from referee.service import Referee, SnapshotError

# A full re-run of more inputs than this at start-up is followed by a fresh snapshot, so the
# next start does not repeat it.
RESNAPSHOT_AFTER = 1000


class ResumableStore(Persistence, Protocol):
    """What a restart reads of the store (implemented by :class:`referee.store.Store`)."""

    def latest_snapshot(self) -> tuple[int, str, bytes] | None:
        """(seq, version, state) of the newest snapshot, None when there is none."""

    def put_snapshot(self, version: str, state: bytes) -> int:
        """Save a snapshot after the last input saved; its seq."""

    def stream_inputs(self, after: int = 0) -> Iterable[dict[str, Any]]:
        """The inputs saved after seq ``after``, in order, read as they are consumed."""

    def balances(self) -> dict[str, int]:
        """Every player's saved bank balance."""

    def ledger(self, player: str | None = None) -> list[dict[str, Any]]:
        """The saved ledger rows, oldest first (``player``, ``delta``, ``reason``, ...)."""


def resume(referee: Referee, store: ResumableStore) -> list[str]:
    """Bring ``referee`` to where ``store``'s inputs left it, then attach the store.

    From the newest snapshot when there is a usable one (taken by this very version of the code
    and game definitions): only the inputs after it are re-run, streamed from the database, so
    start-up time and memory do not grow with the history. Otherwise (none yet, another version,
    unreadable) every input is re-run -- with a warning -- and a snapshot is saved at once.

    Returns warnings: the snapshot fallback, and bank balances that the re-run does not
    reproduce (the code or a game definition changed since those inputs were processed) -- the
    saved ledger is history, the re-run is what the tables will now play with, and an operator
    should know they differ."""
    after, why_not = referee.restore_latest(store)
    warnings: list[str] = [why_not] if why_not else []
    referee.persistence = store  # before the re-run: the store knows the processed ids
    counted = _Counted(store.stream_inputs(after))
    referee.rebuild(counted)
    referee.record_configuration()  # the moderators it runs with: an input of their own
    fresh = after == 0 or counted.n > RESNAPSHOT_AFTER
    if counted.n and fresh:
        store.put_snapshot(*referee.snapshot())
    saved = {p: b for p, b in store.balances().items() if b}
    now = {p: b for p, b in referee.balances().items() if b}
    for p in sorted(set(saved) | set(now)):
        if saved.get(p, 0) != now.get(p, 0):
            warnings.append(
                f"bank of {p}: {saved.get(p, 0)} in the database, {now.get(p, 0)} after the "
                "rebuild"
            )
    return warnings


class _Counted:
    """An iterable of inputs that counts what went through it."""

    def __init__(self, inputs: Iterable[dict[str, Any]]) -> None:
        self.inputs = inputs
        self.n = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for inp in self.inputs:
            self.n += 1
            yield inp


def snapshot_differences(store: ResumableStore) -> list[str]:
    """``referee check``'s slow test: the newest snapshot plus the inputs after it
    against a full re-run of every input. [] when they agree (or there is no snapshot); else one
    line per part of the state that differs."""
    snap = store.latest_snapshot()
    if snap is None:
        return []
    seq, version, state = snap
    resumed = Referee()
    try:
        resumed.restore(version, state)
    except SnapshotError as e:
        return [f"the snapshot after input {seq} cannot be used: {e}"]
    resumed.rebuild(store.stream_inputs(seq))
    full = Referee()
    full.rebuild(store.stream_inputs(0))
    a, b = resumed.state(), full.state()
    # the bank's ledger and the processed ids are the store's, not the snapshot's
    skip = {"ledger", "processed"}
    return [f"{key}: the snapshot gives {a.get(key)!r}, a full re-run {b.get(key)!r}"[:300]
            for key in sorted(set(a) | set(b)) if key not in skip and a.get(key) != b.get(key)]


def ledger_differences(store: ResumableStore) -> list[str]:
    """``referee check --snapshots``' other slow test: a full re-run of every saved input (each
    table under the definition recorded when it opened) against the saved ledger and bank. The
    inputs are hash-chained, the ledger and the bank are not: a ledger row changed with its bank
    row, or a bank edited alone, is found here. [] when they agree; else one line naming the
    first difference."""
    full = Referee()
    full.rebuild(store.stream_inputs(0))
    rebuilt = [(e.player, e.delta, e.reason) for e in full.bank.ledger]
    saved = [(str(r["player"]), int(r["delta"]), str(r["reason"])) for r in store.ledger()]
    for i, (a, b) in enumerate(zip(rebuilt, saved, strict=False)):
        if a != b:
            return [f"ledger entry {i + 1}: the inputs give {a!r}, the database holds {b!r}"]
    if len(rebuilt) != len(saved):
        return [f"the inputs give {len(rebuilt)} ledger entries, the database holds "
                f"{len(saved)}"]
    balances = {p: b for p, b in full.bank.balances().items() if b}
    stored = {p: b for p, b in store.balances().items() if b}
    for p in sorted(set(balances) | set(stored)):
        if balances.get(p, 0) != stored.get(p, 0):
            return [f"bank of {p}: the inputs give {balances.get(p, 0)}, the database holds "
                    f"{stored.get(p, 0)}"]
    return []
