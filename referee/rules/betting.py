"""Betting rounds and pots for blind-structured poker games (game-independent, pure arithmetic).

One :class:`Betting` object holds the money side of one hand: every player's stack, their bet in
the current round, their total contribution, who is still live, and whose turn it is. It knows
nothing about cards, names or messages -- the game engines resolve player intent into calls of
:meth:`Betting.fold` / :meth:`Betting.check_call` / :meth:`Betting.raise_to` after asking
:meth:`Betting.options`, which validates everything first (so a refused action changes nothing).

The round logic follows standard TDA practice, the same one pokerkit implements (the lock-step
test holds us to it): a raise must add at least the last full increment (the big blind counting as
the first one preflop); an all-in for less than a full raise does not reopen the betting to players
who already acted, unless several such all-ins add up to a full raise; a player whose chips do not
cover the call, or who faces only all-in opponents, cannot raise.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Literal

Limit = Literal["pot", "no", "fixed"]


@dataclass(slots=True)
class Seat:
    """The money of one player in one hand (index = position clockwise from the button's left)."""

    stack: int
    bet: int = 0  # chips in front of the player this round
    committed: int = 0  # everything put in this hand (antes, blinds, bets), for side pots
    folded: bool = False

    @property
    def all_in(self) -> bool:
        return self.stack == 0 and not self.folded

    @property
    def live(self) -> bool:
        return not self.folded


@dataclass(frozen=True, slots=True)
class Options:
    """What one player may do now. ``min_to``/``max_to`` are *makes* (total bet after raising)."""

    call: int  # chips a call puts in (0 = a check is possible)
    can_raise: bool
    min_to: int = 0
    max_to: int = 0
    # why no raise is possible (for messages): "", "short", "capped", "covered", "no_opponent"
    no_raise_reason: str = ""


@dataclass(frozen=True, slots=True)
class PotShare:
    """One pot: its chips and the live players who can win it (indices into ``Betting.seats``)."""

    amount: int
    eligible: tuple[int, ...]


@dataclass
class Betting:
    """The betting state of one hand. ``seats`` are in clockwise order from the button's left."""

    seats: list[Seat]
    big_blind: int
    limit: Limit = "pot"
    collected: int = 0  # chips in the middle from finished rounds (bets only; see ``dead``)
    dead: int = 0  # dead money (penalties, antes of the main pot) -- always in the main pot
    street: int = 0
    max_bet: int = 0
    increment: int = 0  # the last full raise increment this round (pokerkit's completion amount)
    raise_count: int = 0
    actors: deque[int] = field(default_factory=deque)
    acted: set[int] = field(default_factory=set)
    short_allins: list[int] = field(default_factory=list)
    fixed_cap: int = 4  # fixed limit: bets + raises per round (the BB is the bet preflop)
    capped: bool = False  # fixed limit: the cap was reached with three or more players live
    _cache: dict[int, Options] = field(default_factory=dict, repr=False, compare=False)

    def touch(self) -> None:
        """Forget cached options: call after changing seats or the middle from outside."""
        self._cache.clear()

    def __getstate__(self) -> dict[str, object]:
        """The state without the options cache (derived, rebuilt on demand): a snapshot, and
        the test that a refusal leaves no trace, see only what the table is."""
        state = dict(vars(self))
        state["_cache"] = {}
        return state

    # --- setup ---------------------------------------------------------------------------
    def post(self, i: int, amount: int, *, live: bool = True) -> int:
        """Post a forced bet (blind: ``live``; ante: dead but attributed). Returns chips posted."""
        self._cache.clear()
        s = self.seats[i]
        paid = min(amount, s.stack)
        s.stack -= paid
        s.committed += paid
        if live:
            s.bet += paid
            if s.bet > self.max_bet:
                self.max_bet = s.bet
        else:
            self.collected += paid
        return paid

    def start_round(self, first: int, street: int, *, facing: int | None = None) -> None:
        """Begin a betting round with ``first`` to act; ``facing`` sets the bet to call preflop
        (the big blind even when the big blind's poster was short)."""
        self._cache.clear()
        self.street = street
        if facing is not None and facing > self.max_bet:
            self.max_bet = facing
        self.increment = 0
        # preflop the big blind is the round's bet (docs/rules.md, fixed limit)
        self.raise_count = 1 if street == 0 and self.max_bet > 0 else 0
        self.capped = False
        self.acted.clear()
        self.short_allins.clear()
        n = len(self.seats)
        order = [(first + k) % n for k in range(n)]
        # pokerkit: players with nothing left to win (effective stack 0) do not act.
        totals = sorted([s.bet + s.stack for s in self.seats if not s.folded], reverse=True)
        second = totals[1] if len(totals) > 1 else 0
        self.actors = deque(
            i for i in order
            if not self.seats[i].folded and self.seats[i].stack > 0
            and min(self.seats[i].stack, max(0, second - self.seats[i].bet)) > 0
        )
        if len(self.actors) == 1 and self.seats[self.actors[0]].bet >= self.max_bet:
            self.actors.clear()
        if self.live_count() <= 1:
            self.actors.clear()

    # --- queries ---------------------------------------------------------------------------
    def live_count(self) -> int:
        return len([1 for s in self.seats if not s.folded])

    def to_act(self) -> int | None:
        return self.actors[0] if self.actors else None

    def pot_total(self) -> int:
        """Everything in the middle, current bets included."""
        return self.collected + self.dead + sum([s.bet for s in self.seats])

    def fixed_size(self) -> int:
        return self.big_blind if self.street < 2 else 2 * self.big_blind

    def _at_cap(self) -> bool:
        """Fixed limit: the round holds its four bets and the cap applies -- not heads-up,
        unless the cap was reached before the round became heads-up (docs/rules.md)."""
        if self.raise_count < self.fixed_cap:
            return False
        return self.capped or self.live_count() > 2

    def options(self, i: int) -> Options:
        """The legal range for player ``i`` as if it were their turn now (also used to judge
        flying actions, which are declared before the turn)."""
        cached = self._cache.get(i)
        if cached is not None:
            return cached
        out = self._options(i)
        self._cache[i] = out
        return out

    def _options(self, i: int) -> Options:
        seats = self.seats
        s = seats[i]
        max_bet = self.max_bet
        stack = s.stack
        owed = max_bet - s.bet
        call = stack if stack < owed else owed
        increment = self.increment
        reason = ""
        if call < increment:
            reason = "short"
        elif self.limit == "fixed" and self._at_cap():
            reason = "capped"
        elif self.short_allins and sum(self.short_allins) < increment and i in self.acted:
            reason = "short"
        elif stack <= owed:
            reason = "covered"
        else:
            for j, o in enumerate(seats):
                if j != i and not o.folded and o.stack + o.bet > max_bet:
                    break
            else:
                reason = "no_opponent"
        if reason:
            return Options(call, False, no_raise_reason=reason)
        allin_to = stack + s.bet
        if self.limit == "fixed":
            step = self.fixed_size()
        else:
            step = increment if increment > self.big_blind else self.big_blind
        min_to = min(allin_to, max_bet + step)
        if self.limit == "no":
            max_to = allin_to
        elif self.limit == "fixed":
            max_to = min_to
        else:
            pot_to = 2 * max_bet - s.bet + self.pot_total()
            max_to = min(allin_to, max(min_to, pot_to))
        return Options(call, True, min_to, max_to)

    # --- actions (the caller has checked ``to_act`` and ``options``) -------------------------
    def _pop(self, i: int) -> None:
        if self.actors and self.actors[0] == i:
            self.actors.popleft()
        elif i in self.actors:
            self.actors.remove(i)
        self.acted.add(i)

    def fold(self, i: int) -> None:
        self._cache.clear()
        self._pop(i)
        self.seats[i].folded = True
        if self.live_count() <= 1:
            self.actors.clear()

    def check_call(self, i: int) -> int:
        """Check or call (all-in for less when short); returns chips put in."""
        self._cache.clear()
        s = self.seats[i]
        amount = min(s.stack, self.max_bet - s.bet)
        self._pop(i)
        s.stack -= amount
        s.bet += amount
        s.committed += amount
        return amount

    def raise_to(self, i: int, to: int) -> int:
        """Bet or raise to a total of ``to`` (validated by the caller); returns chips put in."""
        self._cache.clear()
        s = self.seats[i]
        self._pop(i)
        completion = to - self.max_bet
        delta = to - s.bet
        s.stack -= delta
        s.bet = to
        s.committed += delta
        self.max_bet = to
        n = len(self.seats)
        self.actors = deque(
            j for j in ((i + k) % n for k in range(1, n))
            if not self.seats[j].folded and self.seats[j].stack > 0
        )
        if completion >= self.increment:
            self.acted.clear()
            self.acted.add(i)
        self.increment = max(self.increment, completion)
        self.raise_count += 1
        if self.raise_count >= self.fixed_cap and self.live_count() > 2:
            self.capped = True
        if s.stack:
            self.short_allins.clear()
        else:
            self.short_allins.append(completion)
        if sum(self.short_allins) >= self.increment:
            self.short_allins.clear()
        return delta

    def fold_out_of_turn(self, i: int) -> None:
        """A fold declared before the player's turn (penalties, all-in flying actions)."""
        self._cache.clear()
        if i in self.actors:
            self.actors.remove(i)
        self.seats[i].folded = True
        if self.live_count() <= 1:
            self.actors.clear()

    # --- end of a round / the hand ---------------------------------------------------------
    def end_round(self) -> tuple[int, int] | None:
        """Return the uncalled part of the largest bet and gather the bets into the middle.

        Returns ``(index, chips returned)`` when something went back."""
        self._cache.clear()
        returned: tuple[int, int] | None = None
        live_bets = sorted(
            ((s.bet, j) for j, s in enumerate(self.seats) if s.bet > 0), reverse=True
        )
        if live_bets:
            top, j = live_bets[0]
            second = live_bets[1][0] if len(live_bets) > 1 else 0
            if top > second and not self.seats[j].folded:
                back = top - second
                s = self.seats[j]
                s.bet -= back
                s.stack += back
                s.committed -= back
                returned = (j, back)
        for s in self.seats:
            self.collected += s.bet
            s.bet = 0
        self.max_bet = 0
        self.actors.clear()
        return returned

    def betting_possible(self) -> bool:
        """More than one live player still has chips behind (otherwise the board runs out)."""
        return len([1 for s in self.seats if not s.folded and s.stack > 0]) > 1

    def pots(self) -> list[PotShare]:
        """Main pot first, then side pots, from everyone's contributions (bets must be gathered).

        Dead money (``dead``) goes to the main pot. Levels are the contributions of live all-in
        players; a folded player's chips count up to each level like anyone else's."""
        live = [(j, s.committed) for j, s in enumerate(self.seats) if not s.folded]
        levels = sorted({c for j, c in live if self.seats[j].stack == 0})
        top = max((c for _, c in live), default=0)
        if not levels or levels[-1] < top:
            levels.append(top)
        out: list[PotShare] = []
        prev = 0
        for lv in levels:
            amount = sum(min(s.committed, lv) - min(s.committed, prev) for s in self.seats)
            eligible = tuple(j for j, c in live if c >= lv)
            if amount or not out:
                out.append(PotShare(amount, eligible))
            prev = lv
        # chips above the top live level (a folded player's, cannot happen after end_round) go
        # to the last pot so nothing is lost
        rest = sum(max(0, s.committed - prev) for s in self.seats)
        if rest:
            last = out[-1]
            out[-1] = PotShare(last.amount + rest, last.eligible)
        main = out[0]
        out[0] = PotShare(main.amount + self.dead, main.eligible)
        return out


def split(amount: int, n: int) -> tuple[int, int]:
    """Equal shares of a split pot: (share, odd chips)."""
    return divmod(amount, n)
