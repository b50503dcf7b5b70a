"""The end of an omaha hand: the rake, an uncontested pot (and the winner's OPEN / CLOSE), the
showdown (who opens first, OPEN or MUCK, the hand bonus), the pots with their odd chips, and the
chips going back to the seats. One part because every path out of a hand ends here
(:meth:`Showdown.finish`), whatever the betting did; it keeps the table's count of the rake
taken and of what the house paid."""

from __future__ import annotations

from decimal import Decimal

from referee.actions import Parsed
from referee.cards import Card, card_str, parse_card
from referee.events import (
    BoardDealt,
    Event,
    HandBonus,
    HandEnd,
    HouseTopup,
    Mucked,
    Pot,
    Rake,
    line,
)
from referee.games.omaha import voice
from referee.games.omaha.state import (
    ActionClock,
    AfterFoldPlan,
    Hand,
    HandPlayer,
    ShowdownPlan,
    action_event,
    say,
    shown,
)
from referee.games.omaha.table import Seating, Settings
from referee.games.omaha.tourney import TournamentClock
from referee.hands import class_of, omaha_key
from referee.rules.base import IllegalAction
from referee.rules.voice import rake_line

_STREETS = {1: "flop", 2: "turn", 3: "river"}  # omaha's street numbers, as board events say


def cards_shown(p: HandPlayer, action: Parsed) -> tuple[Card, ...]:
    """The cards ``action`` shows, checked against ``p``'s hand (reads only). A refusal
    never names the cards: they are the player's hidden hand."""
    if not action.cards:
        return ()
    cards: list[Card] = []
    for c in action.cards:
        try:
            cards.append(parse_card(c))
        except ValueError:
            raise IllegalAction("omaha.show_unreadable", card=c) from None
    hole = list(p.hole)
    for card in cards:
        if card not in hole:
            raise IllegalAction("omaha.show_not_held")
        hole.remove(card)
    return tuple(cards)


class Showdown:
    """How a hand ends: its pots, to whom, minus the rake (``total_rake``); ``house_paid``:
    what the house added (top-ups, compensations), for the conservation checks."""

    def __init__(self, hand: Hand, settings: Settings, seating: Seating,
                 tournament: TournamentClock | None, clock: ActionClock) -> None:
        self.hand = hand
        self.settings = settings
        self.seating = seating
        self.tournament = tournament
        self.clock = clock
        self.total_rake = 0
        self.house_paid = 0  # LOJ top-ups and compensations, for the conservation checks

    def house_pays(self, chips: int) -> None:
        """Chips the house put into the hand (a NO GAME's compensations)."""
        self.house_paid += chips

    # --- the rake --------------------------------------------------------------------------
    def rake_for(self, total: int) -> int:
        if self.tournament is not None:
            return 0  # tournaments: no rake
        if self.settings.world and not self.hand.flop_seen:
            return 0
        if total < self.settings.rules.rake_min_pot:
            return 0
        r = int(Decimal(total) * self.settings.rules.rake_percent // 100)
        return min(r, self.settings.rules.rake_cap)

    def _take_rake(self, amounts: list[int]) -> tuple[list[int], int]:
        rake = self.rake_for(sum(amounts))
        left = rake
        out = list(amounts)
        for k in range(len(out)):  # main pot first
            take = min(left, out[k])
            out[k] -= take
            left -= take
        self.total_rake += rake
        return out, rake

    def _rake_events(self, rake: int, total: int) -> list[Event]:
        ev = Rake(amount=rake, pot=total, percent=str(self.settings.rules.rake_percent))
        return [ev, rake_line(ev)]

    # --- everyone else folded --------------------------------------------------------------
    def award_uncontested(self) -> list[Event]:
        b = self.hand.b()
        winner = next(p for p in self.hand.players if not b.seats[p.idx].folded)
        total = sum(ps.amount for ps in b.pots())
        (amount,), rake = self._take_rake([total])
        events: list[Event] = []
        if rake:  # announced like a contested pot's
            events.extend(self._rake_events(rake, total))
        b.seats[winner.idx].stack += amount
        pot = Pot(index=0, amount=amount, shares={winner.name: amount}, uncontested=True)
        events += [pot, voice.pot_line(pot)]
        self.hand.winner_after_fold = winner.name
        return events + self.finish()

    def check_after_fold(self, p: HandPlayer | None, action: Parsed,
                         now: float | None) -> AfterFoldPlan:
        if p is None:
            raise IllegalAction("omaha.not_in_hand")
        if action.action == "close":
            return AfterFoldPlan(p, True, (), now)
        cards = cards_shown(p, action) if action.cards else tuple(p.hole)
        return AfterFoldPlan(p, False, cards, now)

    def apply_after_fold(self, plan: AfterFoldPlan) -> list[Event]:
        p = plan.player
        self.hand.winner_after_fold = None
        if plan.close:
            return [say("room", line("omaha.closed", player=p.name))]
        p.shown = list(plan.show)
        return voice.said(shown(p.name, p.shown, "open"))

    # --- the showdown ----------------------------------------------------------------------
    def _sd_order(self) -> list[int]:
        b = self.hand.b()
        n = len(self.hand.players)
        start = 0
        if self.settings.world and self.hand.aggressor is not None:
            start = self.hand.aggressor
        rot = [(start + k) % n for k in range(n)]
        seq: list[int] = []
        pots = b.pots()
        if self.settings.rules.side_pot_open_order == "last_first":
            pots = pots[::-1]
        for ps in pots:
            for i in rot:
                if i in ps.eligible and i not in seq:
                    seq.append(i)
        return seq

    def street_lines(self) -> list[Event]:
        """The street just dealt: its ``board`` event, then the room's line."""
        board = self.hand.board[: self.hand.shown_board]
        new = board[{1: 0, 2: 3, 3: 4}[self.hand.street]:]
        return voice.said(BoardDealt(street=_STREETS[self.hand.street],
                                     cards=[card_str(c) for c in new],
                                     board=[card_str(c) for c in board]))

    def start_showdown(self) -> list[Event]:
        b = self.hand.b()
        events: list[Event] = []
        while self.hand.shown_board < 5:  # all-in: run the board out
            self.hand.shown_board = 3 if self.hand.shown_board == 0 else self.hand.shown_board + 1
            self.hand.street = {3: 1, 4: 2, 5: 3}[self.hand.shown_board]
            self.hand.aggressor = None
            if self.hand.shown_board >= 3:
                self.hand.flop_seen = True
            events.extend(self.street_lines())
        self.hand.phase = "showdown"
        self.hand.street = 4
        self.hand.sd_queue = self._sd_order()
        first = True
        while self.hand.sd_queue:
            i = self.hand.sd_queue[0]
            p = self.hand.players[i]
            if first or b.seats[i].stack == 0:
                events.extend(self._open(p))
                self.hand.sd_queue.pop(0)
                first = False
                continue
            break
        if not self.hand.sd_queue:
            return events + self.settle()
        events.append(self._sd_prompt())
        self.clock.restart()
        return events

    def _sd_prompt(self) -> Event:
        name = self.hand.players[self.hand.sd_queue[0]].name
        return say("room", line("omaha.showdown_prompt", player=name))

    def _hand_value(self, p: HandPlayer) -> int:
        key = self.hand.keys.get(p.idx)
        if key is None:
            key = omaha_key(p.hole, self.hand.board[:5])
            self.hand.keys[p.idx] = key
        return key

    def _open(self, p: HandPlayer) -> list[Event]:
        p.opened = True
        p.shown = list(p.hole)
        klass = class_of("omaha", self._hand_value(p))
        bonus = self.settings.rules.hand_bonus.get(klass, 0)
        events = voice.said(shown(p.name, p.shown, "showdown", klass))
        if bonus:
            sitter = self.seating.sitters.get(p.seat)
            if sitter is not None and sitter.name == p.name:
                sitter.bonus += bonus
                events += voice.said(HandBonus(player=p.name, hand=klass, bank=bonus))
        return events

    def check(self, p: HandPlayer, action: Parsed, now: float | None) -> ShowdownPlan:
        b = self.hand.b()
        if not self.hand.sd_queue or self.hand.sd_queue[0] != p.idx:
            if p.opened and action.action == "open":
                raise IllegalAction("already_opened")
            raise IllegalAction("not_your_turn")
        name = action.action
        if name == "open":
            return ShowdownPlan(p, True, (), now)
        if name in ("muck", "fold"):
            if b.live_count() <= 1:
                raise IllegalAction("omaha.must_open")
            return ShowdownPlan(p, False, cards_shown(p, action), now)
        raise IllegalAction("omaha.open_or_muck")

    def apply(self, plan: ShowdownPlan) -> list[Event]:
        b = self.hand.b()
        p = plan.player
        events: list[Event]
        if plan.open:
            # the player's decision is an action like a muck (docs/contracts.md §2/§3); the openings
            # the rules force (the first opener, all-in players) are not decisions and emit none
            events = [action_event(p.name, "open"), *self._open(p)]
        else:
            p.mucked = True
            b.seats[p.idx].folded = True
            b.touch()
            p.shown = list(plan.show)
            events = [action_event(p.name, "muck")]
            if p.shown:  # the line is the show's
                events += [Mucked(player=p.name), *voice.said(shown(p.name, p.shown, "muck"))]
            else:
                events += voice.said(Mucked(player=p.name))
        self.hand.sd_queue.pop(0)
        while self.hand.sd_queue and b.seats[self.hand.sd_queue[0]].stack == 0:
            events.extend(self._open(self.hand.players[self.hand.sd_queue.pop(0)]))
        if self.hand.sd_queue:
            events.append(self._sd_prompt())
            self.clock.restart()
            return events
        return events + self.settle()

    # --- the pots --------------------------------------------------------------------------
    def settle(self) -> list[Event]:
        b = self.hand.b()
        pots = b.pots()
        total = sum(ps.amount for ps in pots)
        amounts, rake = self._take_rake([ps.amount for ps in pots])
        events: list[Event] = []
        if rake:
            events.extend(self._rake_events(rake, total))
        for p in self.hand.players:  # safety: a live hand nobody asked about (force folds): open
            if not p.opened and not b.seats[p.idx].folded:
                events.extend(self._open(p))
        values = {p.idx: self._hand_value(p) for p in self.hand.players if p.opened}
        last_first = self.settings.rules.side_pot_open_order == "last_first"
        order = range(len(pots) - 1, -1, -1) if last_first else range(len(pots))
        for k in order:
            amount = amounts[k]
            contenders = [i for i in pots[k].eligible if i in values]
            best = max(values[i] for i in contenders)
            winners = sorted(i for i in contenders if values[i] == best)
            share, odd = divmod(amount, len(winners))
            shares: dict[str, int] = {}
            # every chip is announced: the house's top-up, or who got the odd chips
            topup: HouseTopup | None = None
            if odd and not self.settings.world and self.tournament is None:
                share += 1  # LOJ: the house tops every winner up to the rounded-up share
                topup = HouseTopup(index=k, amount=share * len(winners) - amount)
                self.house_paid += topup.amount
                events.append(topup)
                odd = 0
            for i in winners:
                shares[self.hand.players[i].name] = share
            first = None
            if odd:  # World: the odd chips go to the winner first clockwise from the button
                first = self.hand.players[winners[0]].name
                shares[first] += odd
            for i in winners:
                b.seats[i].stack += shares[self.hand.players[i].name]
            pot = Pot(index=k, amount=amount, shares=shares, odd=odd or None, odd_to=first)
            events += [pot, voice.pot_line(pot, topup)]
        return events + self.finish()

    def finish(self) -> list[Event]:
        """Chips back to the seats, hand_end, then leavers and the bankrupt stand up."""
        b = self.hand.b()
        b.touch()
        for p in self.hand.players:
            if p.removed:
                continue
            sitter = self.seating.sitters.get(p.seat)
            if sitter is None or sitter.name != p.name:
                continue
            sitter.chips = b.seats[p.idx].stack + p.credit
            if p.credit:
                self.house_paid += p.credit
        self.hand.phase = "over"
        stacks = {s.name: s.chips for s in self.seating.order()}
        events: list[Event] = [HandEnd(hand=self.hand.number, stacks=stacks)]
        if self.tournament is not None:
            return events + self.tournament.end_of_hand()
        for p in self.hand.players:
            sitter = self.seating.sitters.get(p.seat)
            if sitter is None or sitter.name != p.name:
                continue
            if sitter.chips == 0:
                events.append(say("room", line("omaha.bankrupt", player=p.name)))
                events.extend(self.seating.leave_event(sitter, 0))
            elif sitter.leaving:
                events.extend(self.seating.leave_event(sitter, sitter.chips))
        return events
