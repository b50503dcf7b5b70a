"""What players hold at the tables, from the event log: the records' bank views (``referee
records bank``, the console's bank page) show it beside the bank balance, since a seated
player's points are chips at a table until they leave.

Read from typed events only: ``seated`` (the buy-in's chips), every ``hand_end``'s stacks, and
``leave`` / ``eliminated`` / ``table_close`` / ``table_open`` (the chips left the table).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

KINDS = frozenset({"seated", "hand_end", "leave", "eliminated", "table_open", "table_close"})


class AtTable:
    """Chips per room and player, as the events so far leave them."""

    def __init__(self) -> None:
        self.rooms: dict[str, dict[str, int]] = {}

    def feed(self, room: str, events: Iterable[dict[str, Any]]) -> None:
        for d in events:
            kind = d.get("event")
            if kind not in KINDS:
                continue
            held = self.rooms.setdefault(room, {})
            if kind == "seated":
                held[str(d["player"])] = int(d["chips"])
            elif kind == "hand_end":
                for player, chips in dict(d.get("stacks") or {}).items():
                    if player in held:
                        held[player] = int(chips)
            elif kind in ("leave", "eliminated"):
                held.pop(str(d.get("player", "")), None)
            else:  # a table opened or closed: nobody sits at the room's table any more
                held.clear()

    def chips(self, player: str) -> int:
        """The chips ``player`` holds at every table together."""
        return sum(held.get(player, 0) for held in self.rooms.values())

    def players(self) -> set[str]:
        return {p for held in self.rooms.values() for p in held}
