"""The point bank: balances that are nothing but the sum of a ledger.

Every change is a :class:`~referee.outcome.LedgerEntry`; the balance is never stored on its own,
so a rebuild that replays the inputs (and therefore the entries) cannot drift from the log.
"""

from __future__ import annotations

from collections.abc import Iterable

from referee.outcome import LedgerEntry


class Bank:
    def __init__(self) -> None:
        # the entries applied; a service with a store keeps them there instead and clears
        # this after each save (referee.service.Referee._save): only the balances stay
        self.ledger: list[LedgerEntry] = []
        self._balances: dict[str, int] = {}

    def apply(self, entry: LedgerEntry) -> None:
        if not isinstance(entry.delta, int):
            raise TypeError("bank deltas are integer points")
        self.ledger.append(entry)
        self._balances[entry.player] = self._balances.get(entry.player, 0) + entry.delta

    def extend(self, entries: Iterable[LedgerEntry]) -> None:
        for e in entries:
            self.apply(e)

    def restore(self, balances: dict[str, int]) -> None:
        """Start from these balances (a snapshot): the ledger that led to them is the store's."""
        self._balances = {p: int(b) for p, b in balances.items()}

    def balance(self, player: str) -> int:
        return self._balances.get(player, 0)

    def balances(self) -> dict[str, int]:
        return dict(self._balances)

    def knows(self, player: str) -> bool:
        return player in self._balances
