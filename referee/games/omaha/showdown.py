"""The end of an omaha hand: the rake, an uncontested pot (and the winner's OPEN / CLOSE), the
showdown (who opens first, OPEN or MUCK, the hand bonus), the pots with their odd chips, and the
chips going back to the seats. One module because every path out of a hand ends here
(:meth:`OmahaShowdown._finish`), whatever the betting did."""

from __future__ import annotations

from decimal import Decimal

from referee.actions import Parsed
from referee.cards import Card, card_str, parse_card
from referee.events import BoardDealt, Event, HandBonus, HandEnd, HouseTopup, Mucked, Pot, Rake
from referee.games.omaha import voice
from referee.games.omaha.state import (
    AfterFoldPlan,
    HandPlayer,
    ShowdownPlan,
    action_event,
    say,
    shown,
)
from referee.games.omaha.tourney import OmahaTournament
from referee.hands import class_of, omaha_key
from referee.lang.catalog import text as msg
from referee.rules.base import IllegalAction
from referee.rules.voice import rake_line

_STREETS = {1: "flop", 2: "turn", 3: "river"}  # omaha's street numbers, as board events say


class OmahaShowdown(OmahaTournament):
    # --- cards a player shows (a fold, a muck, an open after everyone folded) ---------------
    @staticmethod
    def _cards_shown(p: HandPlayer, action: Parsed) -> tuple[Card, ...]:
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

    # --- the rake --------------------------------------------------------------------------
    def _rake_for(self, total: int) -> int:
        if self.tourney is not None:
            return 0  # tournaments: no rake
        if self.world and not self.flop_seen:
            return 0
        if total < self.rules.rake_min_pot:
            return 0
        r = int(Decimal(total) * self.rules.rake_percent // 100)
        return min(r, self.rules.rake_cap)

    def _take_rake(self, amounts: list[int]) -> tuple[list[int], int]:
        rake = self._rake_for(sum(amounts))
        left = rake
        out = list(amounts)
        for k in range(len(out)):  # main pot first
            take = min(left, out[k])
            out[k] -= take
            left -= take
        self.total_rake += rake
        return out, rake

    def _rake_events(self, rake: int, total: int) -> list[Event]:
        ev = Rake(amount=rake, pot=total, percent=str(self.rules.rake_percent))
        return [ev, rake_line(ev)]

    # --- everyone else folded --------------------------------------------------------------
    def _award_uncontested(self) -> list[Event]:
        b = self._b()
        winner = next(p for p in self.players if not b.seats[p.idx].folded)
        total = sum(ps.amount for ps in b.pots())
        (amount,), rake = self._take_rake([total])
        events: list[Event] = []
        if rake:  # announced like a contested pot's
            events.extend(self._rake_events(rake, total))
        b.seats[winner.idx].stack += amount
        pot = Pot(index=0, amount=amount, shares={winner.name: amount}, uncontested=True)
        events += [pot, voice.pot_line(pot)]
        self.winner_after_fold = winner.name
        return events + self._finish()

    def _check_after_fold(self, p: HandPlayer | None, action: Parsed,
                          now: float | None) -> AfterFoldPlan:
        if p is None:
            raise IllegalAction("omaha.not_in_hand")
        if action.action == "close":
            return AfterFoldPlan(p, True, (), now)
        cards = self._cards_shown(p, action) if action.cards else tuple(p.hole)
        return AfterFoldPlan(p, False, cards, now)

    def _apply_after_fold(self, plan: AfterFoldPlan) -> list[Event]:
        p = plan.player
        self.winner_after_fold = None
        if plan.close:
            return [say("room", msg("omaha.closed", player=p.name))]
        p.shown = list(plan.show)
        return voice.said(shown(p.name, p.shown, "open"))

    # --- the showdown ----------------------------------------------------------------------
    def _sd_order(self) -> list[int]:
        b = self._b()
        n = len(self.players)
        start = 0
        if self.world and self.aggressor is not None:
            start = self.aggressor
        rot = [(start + k) % n for k in range(n)]
        seq: list[int] = []
        pots = b.pots()
        if self.rules.side_pot_open_order == "last_first":
            pots = pots[::-1]
        for ps in pots:
            for i in rot:
                if i in ps.eligible and i not in seq:
                    seq.append(i)
        return seq

    def _street_lines(self) -> list[Event]:
        """The street just dealt: its ``board`` event, then the room's line."""
        board = self.board[: self.shown_board]
        new = board[{1: 0, 2: 3, 3: 4}[self.street]:]
        return voice.said(BoardDealt(street=_STREETS[self.street],
                                     cards=[card_str(c) for c in new],
                                     board=[card_str(c) for c in board]))

    def _start_showdown(self) -> list[Event]:
        b = self._b()
        events: list[Event] = []
        while self.shown_board < 5:  # all-in: run the board out
            self.shown_board = 3 if self.shown_board == 0 else self.shown_board + 1
            self.street = {3: 1, 4: 2, 5: 3}[self.shown_board]
            self.aggressor = None
            if self.shown_board >= 3:
                self.flop_seen = True
            events.extend(self._street_lines())
        self.phase = "showdown"
        self.street = 4
        self.sd_queue = self._sd_order()
        first = True
        while self.sd_queue:
            i = self.sd_queue[0]
            p = self.players[i]
            if first or b.seats[i].stack == 0:
                events.extend(self._open(p))
                self.sd_queue.pop(0)
                first = False
                continue
            break
        if not self.sd_queue:
            return events + self._settle()
        events.append(self._sd_prompt())
        self._restart_clock()
        return events

    def _sd_prompt(self) -> Event:
        name = self.players[self.sd_queue[0]].name
        return say("room", msg("omaha.showdown_prompt", player=name))

    def _hand_value(self, p: HandPlayer) -> int:
        key = self._keys.get(p.idx)
        if key is None:
            key = omaha_key(p.hole, self.board[:5])
            self._keys[p.idx] = key
        return key

    def _open(self, p: HandPlayer) -> list[Event]:
        p.opened = True
        p.shown = list(p.hole)
        klass = class_of("omaha", self._hand_value(p))
        bonus = self.rules.hand_bonus.get(klass, 0)
        events = voice.said(shown(p.name, p.shown, "showdown", klass))
        if bonus:
            sitter = self.sitters.get(p.seat)
            if sitter is not None and sitter.name == p.name:
                sitter.bonus += bonus
                events += voice.said(HandBonus(player=p.name, hand=klass, bank=bonus))
        return events

    def _check_showdown(self, p: HandPlayer, action: Parsed, now: float | None) -> ShowdownPlan:
        b = self._b()
        if not self.sd_queue or self.sd_queue[0] != p.idx:
            if p.opened and action.action == "open":
                raise IllegalAction("already_opened")
            raise IllegalAction("not_your_turn")
        name = action.action
        if name == "open":
            return ShowdownPlan(p, True, (), now)
        if name in ("muck", "fold"):
            if b.live_count() <= 1:
                raise IllegalAction("omaha.must_open")
            return ShowdownPlan(p, False, self._cards_shown(p, action), now)
        raise IllegalAction("omaha.open_or_muck")

    def _apply_showdown(self, plan: ShowdownPlan) -> list[Event]:
        b = self._b()
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
        self.sd_queue.pop(0)
        while self.sd_queue and b.seats[self.sd_queue[0]].stack == 0:
            events.extend(self._open(self.players[self.sd_queue.pop(0)]))
        if self.sd_queue:
            events.append(self._sd_prompt())
            self._restart_clock()
            return events
        return events + self._settle()

    # --- the pots --------------------------------------------------------------------------
    def _settle(self) -> list[Event]:
        b = self._b()
        pots = b.pots()
        total = sum(ps.amount for ps in pots)
        amounts, rake = self._take_rake([ps.amount for ps in pots])
        events: list[Event] = []
        if rake:
            events.extend(self._rake_events(rake, total))
        for p in self.players:  # safety: a live hand nobody asked about (force folds) is opened
            if not p.opened and not b.seats[p.idx].folded:
                events.extend(self._open(p))
        values = {p.idx: self._hand_value(p) for p in self.players if p.opened}
        order = range(len(pots) - 1, -1, -1) if self.rules.side_pot_open_order == "last_first" \
            else range(len(pots))
        for k in order:
            amount = amounts[k]
            contenders = [i for i in pots[k].eligible if i in values]
            best = max(values[i] for i in contenders)
            winners = sorted(i for i in contenders if values[i] == best)
            share, odd = divmod(amount, len(winners))
            shares: dict[str, int] = {}
            # every chip is announced: the house's top-up, or who got the odd chips
            topup: HouseTopup | None = None
            if odd and not self.world and self.tourney is None:
                share += 1  # LOJ: the house tops every winner up to the rounded-up share
                topup = HouseTopup(index=k, amount=share * len(winners) - amount)
                self.house_paid += topup.amount
                events.append(topup)
                odd = 0
            for i in winners:
                shares[self.players[i].name] = share
            first = None
            if odd:  # World: the odd chips go to the winner first clockwise from the button
                first = self.players[winners[0]].name
                shares[first] += odd
            for i in winners:
                b.seats[i].stack += shares[self.players[i].name]
            pot = Pot(index=k, amount=amount, shares=shares, odd=odd or None, odd_to=first)
            events += [pot, voice.pot_line(pot, topup)]
        return events + self._finish()

    def _finish(self) -> list[Event]:
        """Chips back to the seats, hand_end, then leavers and the bankrupt stand up."""
        b = self._b()
        b.touch()
        for p in self.players:
            if p.removed:
                continue
            sitter = self.sitters.get(p.seat)
            if sitter is None or sitter.name != p.name:
                continue
            sitter.chips = b.seats[p.idx].stack + p.credit
            if p.credit:
                self.house_paid += p.credit
        self.phase = "over"
        events: list[Event] = [HandEnd(hand=self.hand_no, stacks=self.stacks())]
        if self.tourney is not None:
            return events + self._tournament_end_of_hand(self.tourney)
        for p in self.players:
            sitter = self.sitters.get(p.seat)
            if sitter is None or sitter.name != p.name:
                continue
            if sitter.chips == 0:
                events.append(say("room", msg("omaha.bankrupt", player=p.name)))
                events.extend(self._leave_event(sitter, 0))
            elif sitter.leaving:
                events.extend(self._leave_event(sitter, sitter.chips))
        return events
