"""One room's table as the service keeps it: its engine and what the service adds around it
(closing, automatic deals, the paused action clock, the commit-reveal state)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.fairness import PendingDeal
from referee.rules import Engine


@dataclass
class Table:
    room: str
    game: str
    options: dict[str, str]
    engine: Engine
    closing: bool = False
    auto: bool = False  # deal the next hand by itself (``!open GAME auto=on``)
    ended_at: float | None = None  # time of the input that ended the last hand
    # The action clock (!clock off|on): the engine sees input time minus the paused time, so a
    # pause neither runs out a turn nor leaves a deadline in the past at resume.
    paused: bool = False
    paused_at: float | None = None  # input time of the !clock off (None: not known yet)
    paused_total: float = 0.0
    last_time: float | None = None  # the latest input time seen at this table
    # Commit–reveal dealing (referee.fairness, docs/fairness.md): ``live`` tables (``!open``)
    # commit to the next hand's seed as soon as a hand can be dealt; ``fair`` is that pending
    # commitment (it collects the room's messages as entropy), ``dealt`` the running hand's.
    live: bool = False
    fair: PendingDeal | None = None
    dealt: PendingDeal | None = None
    id: int = 0  # the table_open event's number (Referee.open_table)
    # The question the table asked the player it waits for (「…はコールですか？」): (player,
    # hand number, the action offered, the input that asked). A short yes from that player
    # applies exactly it.
    question: tuple[str, int, Any, str] | None = None

    def view(self) -> TableView:
        eng = self.engine
        return TableView(room=self.room, game=self.game, name=eng.definition.name,
                         in_hand=eng.in_hand, seats=eng.definition.seats.max,
                         seated=tuple(s.name for s in eng.seated()), hand=eng.hand_no)


@dataclass(frozen=True, slots=True)
class TableView:
    """What an adapter may know of a table (``Referee.table_view``): public, and no engine to
    reach into. ``seated``: the players' names in seat order; ``seats``: the most there are."""

    room: str
    game: str
    name: str  # the game's name as the room sees it
    in_hand: bool
    seats: int
    seated: tuple[str, ...]
    hand: int = 0  # the current (or last) hand's number
