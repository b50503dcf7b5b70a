"""highcard: one hand against the dealer, on :class:`~referee.rules.house.HouseEngine`.

1. ``start_hand(Deal)``: every seated player needs 1 card in ``Deal.hands``, the dealer 1 in
   ``Deal.dealer``. Each player posts an ante by message (``ante`` with ``amount``).
2. When every player in the hand has posted, every card is opened and each ante is settled by
   the ``result_table`` (win: higher rank than the dealer's; push: the same rank; lose).

A player who never posts sits the hand out (the house clock's default); a dealing mistake pays
every posted ante back by ``mistake_payout``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from games.highcard.rules import HighcardRules
from referee.actions import Parsed
from referee.cards import Card, card_str, cards_str, is_joker, rank_of
from referee.definitions import GameDefinition
from referee.events import ActionEvent, Event, HandStart, Say, Settle, Shown
from referee.lang.catalog import text
from referee.rules.base import Deal, DealPlan, Decision, IllegalAction
from referee.rules.house import (
    HandBook,
    HouseEngine,
    check_ante,
    names,
    pay,
    settlement_line,
)
from referee.rules.voice import action_line

Result = Literal["win", "lose", "push"]


@dataclass
class _Seat:
    name: str
    card: Card
    ante: int = 0
    posted: bool = False
    folded: bool = False


@dataclass
class _Plan:
    seat: _Seat
    ante: int
    now: float | None


class HighcardEngine(HouseEngine):
    """One highcard table; its phases are ``idle`` and ``stakes``."""

    deal_plan = DealPlan(1, dealer=1)
    game = "highcard"

    def __init__(self, definition: GameDefinition, options: dict[str, str]) -> None:
        rules = definition.section(HighcardRules)
        super().__init__(definition, options, ante_unit=rules.ante_unit,
                         bankrupt_below=rules.bankrupt_below, npc_allowed=False)
        self.rules = rules
        self.seats: dict[str, _Seat] = {}
        self.dealer: Card | None = None

    # --- HouseEngine hooks -----------------------------------------------------------------
    def _part(self, name: str) -> _Seat | None:
        return self.seats.get(name)

    def _drop(self, name: str) -> None:
        del self.seats[name]

    def _awaited(self) -> str:
        return text("highcard.awaited")

    def _time_out(self, waiting: list[str]) -> list[Event]:
        return []  # nothing is awaited after the stakes: the hand settles at once

    def _clear_hand(self) -> None:
        self.seats = {}

    def _guarantees(self) -> list[tuple[str, dict[str, int]]]:
        m, rnd = self.rules.mistake_payout, self.rules.payout_rounding
        return [(s.name, {"ante": pay(s.ante, m["ante"], rnd)})
                for s in self.seats.values() if s.posted]

    def pending(self) -> list[str]:
        return [s.name for s in self.seats.values() if not s.posted] \
            if self.phase == "stakes" else []

    # --- the hand --------------------------------------------------------------------------
    def start_hand(self, deal: Deal) -> list[Event]:
        if self.phase != "idle":
            raise IllegalAction("house.hand_running")
        players = [p.name for p in self.table.dealt_players(deal.hands, 1)]
        if len(deal.dealer) != 1:
            raise IllegalAction("highcard.one_card")
        every = [c for n in players for c in deal.hands[n]] + list(deal.dealer)
        if any(is_joker(c) for c in every) or len(set(every)) != len(every):
            raise IllegalAction("highcard.duplicate_card")
        self.hand_no += 1
        self.phase = "stakes"
        self.seats = {n: _Seat(n, deal.hands[n][0]) for n in players}
        self.dealer = deal.dealer[0]
        self.book = HandBook()
        self.clock.restart()
        return [HandStart(hand=self.hand_no, button=0),
                Say(to="room", text=text("highcard.start", hand=self.hand_no,
                                         who=names(players), unit=self.ante_unit))]

    def _check_act(self, player: str, action: Parsed, now: float | None) -> _Plan:
        if self.phase == "idle":
            raise IllegalAction("house.no_hand")
        s = self.seats.get(player)
        if s is None:
            raise IllegalAction("house.not_in_hand")
        if action.action != "ante":
            raise IllegalAction("highcard.wrong_action")
        if s.posted:
            raise IllegalAction("highcard.already_posted")
        p = self.table.by_name(player)
        assert p is not None
        ante = check_ante(action.amount, p.chips, self.ante_unit, cover=1, side=0,
                          multiple=True)
        return _Plan(s, ante, now)

    def _apply_act(self, plan: _Plan) -> list[Event]:
        s = plan.seat
        p = self.table.by_name(s.name)
        assert p is not None
        p.chips -= plan.ante
        s.ante, s.posted = plan.ante, True
        self.book.stake(s.name, plan.ante)
        self.clock.restart(plan.now)
        ev = ActionEvent(player=s.name, action="ante", amount=plan.ante, ante=plan.ante)
        return [ev, action_line(self.game, ev), *self._advance()]

    def _advance(self) -> list[Event]:
        if self.phase != "stakes" or not all(s.posted for s in self.seats.values()):
            return []
        if not self.seats:
            return self._finish([])
        assert self.dealer is not None
        out: list[Event] = []
        for s in self.seats.values():
            out += [Shown(player=s.name, cards=[card_str(s.card)], why="result",
                          hand_class="high_card"),
                    Say(to="room", text=text("highcard.cards", player=s.name,
                                             card=card_str(s.card)))]
        out += [Shown(player="dealer", cards=cards_str([self.dealer]), why="result",
                      hand_class="high_card"),
                Say(to="room", text=text("highcard.dealer", card=card_str(self.dealer)))]
        for s in self.seats.values():
            mine, theirs = rank_of(s.card), rank_of(self.dealer)
            result: Result = "win" if mine > theirs else "push" if mine == theirs else "lose"
            paid = pay(s.ante, self.rules.result_table[result], self.rules.payout_rounding)
            out.append(Settle(player=s.name, result=result, payout=paid, ante=paid,
                              hand="high_card"))
        out.append(settlement_line(out, "highcard"))
        return out + self._finish(out)

    # --- operations and queries ------------------------------------------------------------
    def force_fold(self, player: str) -> list[Event]:
        s = self.seats.get(player)
        if self.phase == "idle" or s is None or s.posted:
            raise IllegalAction("house.player_not_in_hand", player=player)
        del self.seats[player]
        return [Say(to="room", text=text("house.dropped", player=player)), *self._advance()]

    def remove(self, player: str) -> list[Event]:
        if self.table.by_name(player) is None:
            raise IllegalAction("house.not_seated", player=player)
        self.seats.pop(player, None)  # a posted ante stays the house's (a penalty)
        return self.table.stand(player) + self._advance()

    def holdings(self, player: str) -> list[Card]:
        return []  # nothing is private: every card is opened as the hand settles

    def shown(self, player: str) -> list[Card]:
        return []

    def board_cards(self) -> list[Card]:
        return []

    def decision(self, player: str) -> Decision | None:
        return "stake" if player in self.pending() else None
