"""Omaha tournaments (the seed: 「基本リングゲーム（稀にトーナメント形式で行うこともあります）」):
the tournament's own state and arithmetic, apart from the table's, so that a tournament spread over
several tables can later own several tables (design note: nothing here knows about seats).

A table opened with ``tournament=on`` plays tournament chips, not bank chips: each entrant pays
``entry`` bank points into the prize pool when sitting down and receives ``stack`` chips. Blinds
rise through the levels of ``games/omaha/definition.toml`` (LV1 → LV7, then stay) every
``level_hands`` hands or every ``level_minutes`` minutes. There is no rake. A player with no
chips left at the end of a hand is eliminated with their place; the last player standing wins;
the prize pool is paid at once by ``payouts`` (percent of the pool to 1st, 2nd, …).

Rulings made here (the seed is silent; common tournament practice):

- **Places at a double elimination**: players eliminated in the same hand are placed by the
  chips they started that hand with, the larger stack taking the better place. Equal starting
  stacks share the better place, and the prizes of the places they cover are split equally
  between them (whole points; the odd points to those who entered first).
- **Rounding**: each place's prize is floor(pool × percent / 100); the points left over go to the
  best-placed player. Percentages for places no entrant reached are added to 1st place, so the
  pool paid out always equals the entries collected.
- **Blind levels**: judged when a hand starts. ``level_hands=N``: level 1 + (hands started before
  this one) // N above the starting level; ``level_minutes=N``: by the minutes since the first
  hand began, read on the table's clock (the time of the last message before the deal).
- Entrants sit (``!sit``) until the first hand is dealt; late registration and rebuys are not
  offered. Before the first hand an entrant may leave and gets the entry back; afterwards
  ``!leave`` is refused (a player's chips stay in play until they are eliminated).
- Hand bonuses (royal flush …) are earned as at a ring table and credited when the player's
  seat ends (elimination or the end of the tournament). The winner's remaining chips are
  tournament chips and are worth nothing in the bank.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.definitions import Level
from referee.events import Phrase, line
from referee.rules.base import OptionError


@dataclass(frozen=True)
class TournamentOptions:
    stack: int
    entry: int
    level_hands: int | None
    level_minutes: int | None
    payouts: tuple[int, ...]  # percent of the pool to 1st, 2nd, …


def parse_payouts(raw: str) -> tuple[int, ...]:
    """``70,30`` → (70, 30); OptionError unless whole percents that add up to 100."""
    try:
        pcts = tuple(int(x) for x in raw.replace("/", ",").split(",") if x.strip())
    except ValueError:
        raise OptionError("tournament_payouts_unreadable", raw=raw) from None
    if not pcts or any(p <= 0 for p in pcts) or sum(pcts) != 100:
        raise OptionError("tournament_payouts_sum", raw=raw)
    return pcts


@dataclass
class Tournament:
    """One tournament's state: entrants, schedule, places."""

    options: TournamentOptions
    levels: list[Level]
    start_level: int
    entrants: list[str] = field(default_factory=list)  # in the order they entered
    started: bool = False
    finished: bool = False
    hands: int = 0  # hands started
    started_at: float | None = None  # clock time of the first hand
    level: int = 0  # the level in force (0: not started)
    places: dict[str, int] = field(default_factory=dict)
    prizes: dict[str, int] = field(default_factory=dict)

    @property
    def pool(self) -> int:
        return self.options.entry * len(self.entrants)

    @property
    def left(self) -> int:
        """Entrants not eliminated yet."""
        return len(self.entrants) - len(self.places)

    def level_at(self, hands_before: int, now: float | None) -> int:
        """The level for a hand that starts after ``hands_before`` hands, at clock ``now``."""
        o = self.options
        steps = 0
        if o.level_hands:
            steps = hands_before // o.level_hands
        elif o.level_minutes and self.started_at is not None and now is not None:
            steps = int((now - self.started_at) // (o.level_minutes * 60))
        return min(len(self.levels), self.start_level + steps)

    def next_level_in(self, now: float | None) -> Phrase:
        """When the blinds rise next, for !status."""
        o = self.options
        if self.level >= len(self.levels):
            return line("tournament_last_level")
        if o.level_hands:
            left = o.level_hands - self.hands % o.level_hands
            return line("tournament_next_in_hands", hands=left)
        if o.level_minutes and self.started_at is not None and now is not None:
            passed = now - self.started_at
            remaining = o.level_minutes * 60 - passed % (o.level_minutes * 60)
            return line("tournament_next_in_minutes", minutes=int(remaining // 60) + 1)
        return line("tournament_fixed_level")

    def place(self, busted: list[tuple[str, int]]) -> dict[str, int]:
        """Places for the players eliminated in one hand, given as (name, chips they started the
        hand with) in seat order: the worst places still free, the larger stack better."""
        worst = self.left  # the place of the first one out among those still in
        out: dict[str, int] = {}
        order = sorted(range(len(busted)), key=lambda i: (-busted[i][1], i))
        best = worst - len(busted) + 1
        k = 0
        while k < len(order):
            stack = busted[order[k]][1]
            tied = [i for i in order[k:] if busted[i][1] == stack]
            for i in tied:
                out[busted[i][0]] = best + k
            k += len(tied)
        self.places.update(out)
        return out

    def pay(self) -> dict[str, int]:
        """The prizes, once every place is known: {name: points} (only those who win any)."""
        pool = self.pool
        n = len(self.entrants)
        pcts = list(self.options.payouts)
        if len(pcts) > n:  # places nobody reached: their share goes to 1st
            pcts = [pcts[0] + sum(pcts[n:]), *pcts[1:n]]
        by_place = [pool * p // 100 for p in pcts]
        by_place[0] += pool - sum(by_place)
        prizes: dict[str, int] = {}
        for place in sorted(set(self.places.values())):
            names = [e for e in self.entrants if self.places[e] == place]
            span = range(place - 1, place - 1 + len(names))
            total = sum(by_place[i] for i in span if i < len(by_place))
            share, odd = divmod(total, len(names))
            for j, name in enumerate(names):
                amount = share + (1 if j < odd else 0)
                if amount:
                    prizes[name] = amount
        self.prizes = prizes
        self.finished = True
        return prizes
