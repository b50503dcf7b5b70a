"""Adapters: the outside worlds the referee talks to (transcripts, a terminal, Matrix, IRC).

Each one only turns its input into service inputs (:mod:`referee.service`) and its events back
into output; the refereeing itself is the same pipeline everywhere.
"""

from __future__ import annotations

from typing import Any

from referee.service import Referee


def resume(referee: Referee, store: Any) -> list[str]:
    """Rebuild ``referee`` from every input saved in ``store`` (persistence off), then attach the
    store. Returns warnings: bank balances that the re-run does not reproduce (the code or a game
    definition changed since those inputs were processed) -- the saved ledger is history, the
    re-run is what the tables will now play with, and an operator should know they differ."""
    referee.rebuild(store.inputs())
    referee.persistence = store
    warnings: list[str] = []
    balances = getattr(store, "balances", None)
    if callable(balances):
        saved: dict[str, int] = {p: b for p, b in balances().items() if b}
        now = {p: b for p, b in referee.bank.balances().items() if b}
        for p in sorted(set(saved) | set(now)):
            if saved.get(p, 0) != now.get(p, 0):
                warnings.append(
                    f"bank of {p}: {saved.get(p, 0)} in the database, {now.get(p, 0)} after the "
                    "rebuild"
                )
    return warnings
