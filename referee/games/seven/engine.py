"""``seven``: the 7-card game from a 6-deck shoe with the dice-picked dealer hand
(docs/rules.md ``seven``).

Flow of one hand (a pure state machine; the service or a transcript drives it):

1. ``start_hand(Deal)``: every seated player needs 7 cards in ``Deal.hands`` (in the order they
   are dealt to them); the dealer seat (``dealer_seat``, 6), when no player sits there, needs 7 in
   ``Deal.dealer``. ``Deal.dice`` are used in this order: **if the table has no button yet** (first
   hand, no ``# button:`` / :meth:`set_button`) the first die places the button (its face is the
   seat, empty or not); every following die is a roll for the **dealer hand**, a roll naming a
   seat without a hand is rolled again (the next die). The dice are checked at the start, so a
   hand never stops for lack of dice; should the only seat hit be vacated during the antes (a
   player leaving or timing out before posting) and no die be left, the dealer seat's hand (or,
   with a player there, the first hand from the button's left) is the dealer hand.
2. Every seated player posts an ante (``ante`` with ``amount``, or ``allin``); NPC seats post
   ``npc_ante_units`` units at once (all-in when they cannot cover three antes).
3. One card at a time from the button's left (the dealer seat included) until everyone has 3, all
   face up. First action in turn from the button's left: call (1x ante), raise (2x), hyper raise
   (the ante is doubled and both rounds are committed at 2x each: 6x in play), fold.
4. Two more cards each (face up). Second action: call, raise, extra raise (2.5x), fold; hyper
   raisers are skipped (already committed).
5. Two more cards each (face up, ruling). Every remaining player declares the 2 discards or names
   a 7-card hand; NPCs and the dealer seat declare the best hand automatically.
6. The die picks the dealer hand; settlement (below); the button moves one seat clockwise (to the
   next seat holding a player or the dealer seat).

Settlement (multipliers include the stake; ``payout_rounding`` rounds each bet's payout):

* If the dealer hand's seat folded, no win count, no owner payout, and every other remaining
  player wins ("無条件でＷＩＮ"; with ``dq_when_dealer_folds`` a DQ hand still gets the DQ result).
* Otherwise the dealer hand's wins are counted: every other *remaining* hand it beats (kickers
  count, DQ hands count; folded players have no hand and do not count; the dealer seat's own hand
  counts when ``win_count_dealer_seat``, which is what makes "5 WIN" reachable with five players).
  The owner (a player whose hand was picked) is paid on every bet by ``win_count_table``, except
  that when their hand has a row in ``owner_short_table`` (and ``owner_short_table_applies``) their
  **ante** is paid by that row instead. Their ``settle`` result is ``win`` / ``push`` / ``lose`` by
  whether the payout is above / equal to / below what they bet, with ``wins`` and
  ``dealer_hand: true``.
* Every other remaining player: DQ (a pair of ``dq_max_pair`` (3s) or worse, and, with
  ``dq_needs_ace_or_king``, no A and no K among the 7 cards; a joker always makes a better pair, so
  a joker hand is never DQ) -> ``dq``: every bet back (1x); else against the dealer hand:
  ``win``: the ante by ``hand_table`` (``other`` for a hand without a row), the action bets by
  ``result_table.win``; ``push`` 1x; ``lose`` 0. A dealer-fold win is ``win`` with
  ``dealer_fold: true``. Folded players settle ``fold`` with 0.

Other rulings (gaps decided here):

* Stakes: an ante is a positive multiple of the table's ante unit (``ante_multiple``) and the
  chips must cover 3 antes (ante + two calls:
  「アンティベットに対して最低３倍のチップを必要とする」).
  ALL-IN: ``1/allin_divisor`` (⅓) of the chips, rounded down, is the ante; the remainder is not
  bet; afterwards only call and fold are allowed.
* A raise (or hyper / extra raise) is allowed only when the chips left afterwards still cover the
  calls still to come (a round-one raise must leave one ante for the second round), so nobody is
  ever stuck unable to call. Bets quoted in antes (extra raise 2.5x) are rounded down.
* Acting out of turn is refused (all cards are face up, so order matters); acting after folding,
  a hyper raise in round two, an extra raise in round one, a second declaration, a discard that
  weakens the hand (including discarding from a 7-card class) and naming a class other than the
  hand's own are refused with a Japanese reason and change nothing.
* Jokers: when a player is *dealt* a joker (cards 1-3 after the antes, 4-5 after the first action,
  6-7 after the second) they are paid at once ``joker.ante`` x their current ante and
  ``joker.bets`` x their action bets so far; in the last slot first the restore / extra effect of
  :mod:`referee.rules.house`. The dealer seat's joker pays nobody. Folded players are not dealt.
* NPC seats: at the first action an NPC folds unless it holds a card of rank
  ``npc_first_min_rank`` (7) or higher (a joker counts); at the second unless its five cards are
  ace-high or better (any pair, straight or flush, or an A, or a joker); otherwise it calls.
  An NPC never raises, antes ``npc_ante_units`` units and declares its best hand; messages sent
  under an NPC seat's name are refused.
* The action clock (``clock``): a reminder after ``remind_after`` seconds, and after
  ``act_after`` a player who has not posted sits the hand out, the player to act folds, and
  undeclared hands are declared at their best.
* Bankruptcy: after each hand a player with fewer than ``bankrupt_below`` (30) chips is stood up.
* Dealing mistake (``dealing_mistake`` any kind): the game stops; every player who posted gets
  the guarantee, ante 2x and action bets 2x (``mistake_payout``), folded players included. No
  higher payout is ever "already certain": the result depends on the die, rolled last.
* Removal (``remove``, a penalty; the lead's ruling, the same in all house games): a player
  removed from the table is folded and forfeits to the house everything they staked this hand
  (ante and action bets) and gets no dealing-mistake guarantee, even if force-folded first.
  Their stake stays in the house's books, so ``sum(stack changes, chips taken away by leave)
  + result == 0`` holds.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from referee.actions import Parsed
from referee.cards import (
    JOKER,
    Card,
    CardError,
    Shoe,
    card_str,
    cards_str,
    is_joker,
    parse_card,
    pretty,
    rank_of,
)
from referee.definitions import GameDefinition
from referee.events import (
    ActionEvent,
    Event,
    HandStart,
    Phrase,
    Say,
    Shown,
    hand_name,
    joined,
    line,
)
from referee.games.seven import voice
from referee.games.seven.hands import SEVEN as SEVEN_CLASSES
from referee.games.seven.hands import SEVEN_CARD_CLASSES, seven_key
from referee.games.seven.rules import SevenRules
from referee.games.seven.settle import (  # noqa: F401 (ace_high_or_better: tests)
    ACE,
    KING,
    SeatHand,
    ace_high_or_better,
    is_dq,
    settle,
)
from referee.hands import class_floor, class_of
from referee.rules.base import Deal, DealPlan, Decision, IllegalAction, Offer, OptionError
from referee.rules.house import (
    HandBook,
    HouseEngine,
    allin_ante,
    allin_flag,
    bet_size,
    check_ante,
    joker_line,
    names,
    pay,
)

ROUNDS = {"round1": 1, "round2": 2}


@dataclass
class _Plan:
    """An action :meth:`SevenEngine._check_act` accepted: ``stake`` (``cost`` = the ante,
    ``allin``), ``fold`` or ``bet`` (``name`` in round ``rnd`` putting in ``cost``), or
    ``declare`` (``declared``: the class declared, ``discards``: the two cards, when named);
    ``now`` restarts the clock."""

    hand: SeatHand
    kind: Literal["stake", "fold", "bet", "declare"]
    now: float | None
    name: str = ""
    rnd: int = 0
    cost: int = 0
    allin: bool = False
    declared: str | None = None
    discards: list[str] | None = None


class SevenEngine(HouseEngine):
    """One ``seven`` table; its phases are ``idle``, ``stakes``, ``round1``, ``round2`` and
    ``declare``."""

    deal_plan = DealPlan(7, dealer=7, spare=20, dice=1)
    game = "seven"

    def __init__(self, definition: GameDefinition, options: dict[str, str]) -> None:
        if not isinstance(definition.rules, SevenRules):
            raise OptionError("seven.no_definition")
        rules: SevenRules = definition.section(SevenRules)
        super().__init__(definition, options, ante_unit=rules.ante_unit,
                         bankrupt_below=rules.bankrupt_below, npc_allowed=True)
        self.rules = rules
        self.max_seats = definition.seats.max
        self.button: int | None = None
        self.hands: dict[int, SeatHand] = {}  # by seat, in deal order (the button's left first)
        self.dice: list[int] = []  # the dealer-hand rolls of this hand
        self._prompted: tuple[int, int, int] | None = None  # (hand, round, seat) last prompted

    # --- HouseEngine hooks -----------------------------------------------------------------
    def _part(self, name: str) -> SeatHand | None:
        return self._hand_of(name)

    def _drop(self, name: str) -> None:
        seat = next(s for s, h in self.hands.items() if h.name == name)
        del self.hands[seat]

    def _awaited(self) -> Phrase:
        return line("seven.awaited_declare" if self.phase == "declare" else "seven.awaited_action")

    def _time_out(self, waiting: list[str]) -> list[Event]:
        """The player to act folds; undeclared hands are declared at their best."""
        if self.phase in ROUNDS:
            actor = self._actor()
            assert actor is not None
            return self._fold(actor, ROUNDS[self.phase])
        out: list[Event] = []
        for h in self._players():
            if not h.folded and not h.declared:
                h.declared = True
                klass = class_of("seven", seven_key(h.cards))
                out.append(Say.of("room", line("seven.auto_declared", who=h.label,
                                                    hand=hand_name("seven", klass))))
        return out + self._advance()

    def _guarantees(self) -> list[tuple[str, dict[str, int]]]:
        """Every posted player's guarantee (module doc)."""
        m = self.rules.mistake_payout
        rnd = self.rules.payout_rounding
        out: list[tuple[str, dict[str, int]]] = []
        for h in self._players():
            if not h.posted or not h.ante or h.removed:
                continue
            bets = {"ante": pay(h.ante, m["ante"], rnd)}
            if h.bets:
                bets["call"] = pay(h.bets, m["call"], rnd)
            out.append((h.name or "", bets))
        return out

    def _clear_hand(self) -> None:
        self.hands = {}

    # --- seating ---------------------------------------------------------------------------
    def set_button(self, seat: int) -> None:
        if not 1 <= seat <= self.max_seats:
            raise IllegalAction("seven.button_range", seats=self.max_seats)
        if self.phase != "idle":
            raise IllegalAction("house.hand_running")
        self.button = seat

    # --- the hand --------------------------------------------------------------------------
    def _dealer_seat_free(self) -> bool:
        return self.rules.dealer_seat not in self.table.players

    def start_hand(self, deal: Deal) -> list[Event]:
        if self.phase != "idle":
            raise IllegalAction("house.hand_running")
        players = self.table.dealt_players(deal.hands, 7)
        dealt = [p.name for p in players]
        dealer_hand = self._dealer_seat_free()
        if dealer_hand and len(deal.dealer) != 7:
            raise IllegalAction("seven.dealer_cards")
        if not dealer_hand and deal.dealer:
            raise IllegalAction("seven.dealer_seat_taken")
        every = [c for n in dealt for c in deal.hands[n]] + list(deal.dealer)
        counts = Counter(every)
        if counts[JOKER] > self.definition.jokers:
            raise IllegalAction("seven.jokers_max", jokers=self.definition.jokers)
        over = [c for c, k in counts.items() if c != JOKER and k > self.definition.decks]
        if over:
            raise IllegalAction("seven.copies_max", decks=self.definition.decks,
                                card=pretty(over[0]))
        dice = list(deal.dice)
        if any(not 1 <= d <= 6 for d in dice):
            raise IllegalAction("seven.dice_range")
        button = self.button
        if button is None:
            if not dice:
                raise IllegalAction("seven.no_button_die")
            button = dice.pop(0)
        seats_with_hand = {p.seat for p in players} | (
            {self.rules.dealer_seat} if dealer_hand else set()
        )
        if not any(d in seats_with_hand for d in dice):
            raise IllegalAction("seven.no_dealer_die")

        # validated: mutate
        self.hand_no += 1
        self.button = button
        self.dice = dice
        self.book = HandBook()
        order = sorted(seats_with_hand, key=lambda s: (s - button - 1) % self.max_seats)
        self.hands = {}
        for seat in order:
            p = self.table.players.get(seat)
            if p is None:
                self.hands[seat] = SeatHand(seat, None, list(deal.dealer), posted=True)
            else:
                self.hands[seat] = SeatHand(seat, p.name, list(deal.hands[p.name]), npc=p.npc)
        self.phase = "stakes"
        self.clock.restart()
        humans = [h.name for h in self._players() if h.name is not None and not h.npc]
        start = (line("seven.start", hand=self.hand_no, button=button, who=names(humans),
                      unit=self.ante_unit) if humans
                 else line("seven.start_npc", hand=self.hand_no, button=button,
                           unit=self.ante_unit))
        out: list[Event] = [HandStart(hand=self.hand_no, button=button),
                            Say.of("room", start)]
        for h in self._players():
            if h.npc:
                out += self._npc_stake(h)
        return out + self._advance()

    def _players(self) -> list[SeatHand]:
        return [h for h in self.hands.values() if h.name is not None]

    def _chips(self, h: SeatHand) -> int:
        p = self.table.by_name(h.name or "")
        return p.chips if p is not None else 0

    def _take(self, h: SeatHand, chips: int) -> None:
        p = self.table.by_name(h.name or "")
        assert p is not None
        p.chips -= chips
        self.book.stake(p.name, chips)

    # stakes
    def _npc_stake(self, h: SeatHand) -> list[Event]:
        chips = self._chips(h)
        ante = self.ante_unit * self.rules.npc_ante_units
        allin = ante * self.rules.allin_divisor > chips
        if allin:
            ante = chips // self.rules.allin_divisor
        if ante <= 0:  # cannot happen above the bankruptcy line; sit the hand out as a fold
            h.posted = h.folded = True
            return [ActionEvent(player=h.name or "", action="fold", amount=0)]
        return self._post(h, ante, allin)

    def _post(self, h: SeatHand, ante: int, allin: bool) -> list[Event]:
        self._take(h, ante)
        h.base = h.ante = ante
        h.posted, h.allin = True, allin
        return voice.said(ActionEvent(player=h.name or "", action="ante", amount=ante,
                                    **allin_flag(allin)))

    # --- the state machine ----------------------------------------------------------------
    def _advance(self) -> list[Event]:
        """Move on as far as nobody needs to be asked: deal, NPC actions, settlement."""
        out: list[Event] = []
        while True:
            if self.phase == "stakes":
                if not self._players():
                    return out + self._finish([])
                if not all(h.posted for h in self._players()):
                    return out
                self.phase = "round1"
                out += self._deal_cards(3)
            elif self.phase in ROUNDS:
                rnd = ROUNDS[self.phase]
                actor = self._actor()
                if actor is None:
                    if not any(not h.folded for h in self._players()):
                        return out + self._settle()
                    if rnd == 1:
                        self.phase = "round2"
                    else:
                        self.phase = "declare"
                    out += self._deal_cards(2)
                    continue
                if not actor.npc:
                    return out + self._prompt(actor, rnd)
                out += self._npc_act(actor, rnd)
            elif self.phase == "declare":
                for h in self.hands.values():
                    if not h.folded and not h.declared and (h.npc or h.name is None):
                        h.declared = True
                if all(h.declared or h.folded for h in self.hands.values()):
                    return out + self._settle()
                return out
            else:
                return out

    def _prompt(self, h: SeatHand, rnd: int) -> list[Event]:
        """Whose turn it is, with the choices and their cost (once per turn)."""
        key = (self.hand_no, rnd, h.seat)
        if self._prompted == key:
            return []
        self._prompted = key
        choices = joined(" / ", [line(f"seven.choice_{o.action}", chips=o.chips)
                                 for o in self._offers(h, rnd)])
        return [Say.of("room", line("seven.turn", who=h.label, rnd=rnd, choices=choices))]

    def _offers(self, h: SeatHand, rnd: int) -> tuple[Offer, ...]:
        """What ``h``'s turn in round ``rnd`` accepts, priced by :meth:`_priced` (the check's
        own rule): the prompt lists exactly these (an all-in player is offered no raise)."""
        out: list[Offer] = []
        for name in ("call", "raise", "hyper_raise" if rnd == 1 else "extra_raise"):
            try:
                out.append(self._priced(h, name, rnd))
            except IllegalAction:
                continue
        out.append(Offer("fold"))
        return tuple(out)

    def offers(self, player: str) -> tuple[Offer, ...]:
        rnd = ROUNDS.get(self.phase)
        h = self._actor()
        if rnd is None or h is None or h.name != player or h.npc:
            return ()
        return self._offers(h, rnd)

    def _actor(self) -> SeatHand | None:
        """Whose turn it is in the current action round (deal order, the button's left first)."""
        rnd = ROUNDS.get(self.phase)
        if rnd is None:
            return None
        for h in self._players():
            if h.folded or rnd in h.acted or (rnd == 2 and h.hyper):
                continue
            return h
        return None

    def _deal_cards(self, n: int) -> list[Event]:
        """Deal ``n`` more cards to every seat still in, one at a time from the button's left;
        the deal is shown to the room and jokers paid."""
        out: list[Event] = []
        live = [h for h in self.hands.values() if not h.folded]
        for h in live:
            h.dealt += n
        shown = [Shown(player=h.name if h.name is not None else "dealer", seat=h.seat,
                       cards=[card_str(c) for c in h.cards[: h.dealt]], why="deal")
                 for h in live]
        out += [*shown, voice.deal_line(shown)]
        for h in live:
            if h.name is not None and JOKER in h.cards[h.dealt - n : h.dealt]:
                for _ in range(h.cards[h.dealt - n : h.dealt].count(JOKER)):
                    out += self._joker(h)
        declaring = [h.name for h in live if h.name is not None and not h.npc]
        if self.phase == "declare" and declaring:
            out.append(Say.of("room", line("seven.declare_prompt", who=names(declaring))))
        return out

    def _joker(self, h: SeatHand) -> list[Event]:
        name = h.name or ""
        _, event = self.table.joker(
            name, self.book, ante=h.ante, bets=h.bets, last_slot=self.last_slot,
            multipliers=self.rules.joker, rounding=self.rules.payout_rounding,
        )
        return [event, joker_line(event)]

    # --- actions: checked (read only), then applied (Engine.act) ----------------------------
    def _check_act(self, player: str, action: Parsed, now: float | None) -> _Plan:
        p = self.table.by_name(player)
        h = self.hands.get(p.seat) if p is not None else None
        if self.phase == "idle":
            raise IllegalAction("house.no_hand")
        if h is None or h.name != player:
            raise IllegalAction("house.not_in_hand")
        if h.npc:
            raise IllegalAction("seven.npc_acts")
        name = action.action
        if name in ("ante", "allin") and self.phase == "stakes":
            return self._check_stake(h, action, now)
        if h.folded:
            raise IllegalAction("house.already_folded")
        if name in ("ante", "allin"):
            if name == "allin" and self.phase in ROUNDS:
                raise IllegalAction("seven.allin_at_ante")
            raise IllegalAction("seven.stakes_closed")
        if name in ("call", "raise", "hyper_raise", "extra_raise", "fold"):
            return self._check_action(h, name, now)
        if name == "discard":
            return self._check_declare(h, action, now)
        raise IllegalAction("seven.wrong_action")

    def _apply_act(self, plan: _Plan) -> list[Event]:
        h = plan.hand
        if plan.kind == "stake":
            out = self._post(h, plan.cost, plan.allin) + self._advance()
        elif plan.kind == "fold":
            out = self._fold(h, plan.rnd)
        elif plan.kind == "bet":
            out = self._apply(h, plan.name, plan.rnd, plan.cost) + self._advance()
        else:
            h.declared = True
            out = [*voice.said(ActionEvent(player=h.name or "", action="discard", amount=0,
                                           hand=plan.declared, cards=plan.discards)),
                   *self._advance()]
        self.clock.restart(plan.now)
        return out

    def _check_stake(self, h: SeatHand, action: Parsed, now: float | None) -> _Plan:
        if self.phase != "stakes":
            raise IllegalAction("seven.stakes_closed")
        if h.posted:
            raise IllegalAction("seven.already_posted")
        chips = self._chips(h)
        if action.action == "allin":
            ante = allin_ante(chips, self.rules.allin_divisor)
            return _Plan(h, "stake", now, cost=ante, allin=True)
        ante = check_ante(action.amount, chips, self.ante_unit, cover=self.rules.allin_divisor,
                          multiple=self.rules.ante_multiple)
        return _Plan(h, "stake", now, cost=ante)

    def _cost(self, h: SeatHand, name: str, rnd: int) -> tuple[int, int]:
        """(chips this action puts in, chips that must remain for later calls); validates."""
        b = self.rules.bets
        if name == "call":
            return bet_size(h.base, b["call"]), 0
        if h.allin:
            raise IllegalAction("seven.no_raise_after_allin")
        later = bet_size(h.base, b["call"]) if rnd == 1 else 0
        if name == "raise":
            return bet_size(h.base, b["raise"]), later
        if name == "hyper_raise":
            if rnd != 1:
                raise IllegalAction("seven.hyper_round1_only")
            ante = bet_size(h.base, b["hyper_raise_ante"])
            return ante + 2 * bet_size(h.base, b["hyper_raise_round"]), 0
        # extra_raise
        if rnd != 2:
            raise IllegalAction("seven.extra_round2_only")
        return bet_size(h.base, b["extra_raise"]), 0

    def _check_action(self, h: SeatHand, name: str, now: float | None) -> _Plan:
        if self.phase not in ROUNDS:
            if self.phase == "stakes":
                raise IllegalAction("seven.not_all_posted")
            raise IllegalAction("seven.actions_over")
        rnd = ROUNDS[self.phase]
        actor = self._actor()
        if actor is not h:
            if rnd == 2 and h.hyper:
                raise IllegalAction("seven.hyper_no_round2")
            if actor is not None and actor.name:
                raise IllegalAction("seven.not_your_turn_whose", player=actor.name)
            raise IllegalAction("seven.not_your_turn")
        if name == "fold":
            return _Plan(h, "fold", now, rnd=rnd)
        return _Plan(h, "bet", now, name=name, rnd=rnd, cost=self._priced(h, name, rnd).chips)

    def _priced(self, h: SeatHand, name: str, rnd: int) -> Offer:
        """``name`` as ``h``'s turn in round ``rnd`` would take it, with its cost; refused when
        not allowed or not affordable (the chips for round two's call stay behind)."""
        cost, reserve = self._cost(h, name, rnd)
        chips = self._chips(h)
        if cost + reserve > chips:
            raise IllegalAction("seven.chips_short", need=cost + reserve, chips=chips)
        return Offer(name, chips=cost)

    def _fold(self, h: SeatHand, rnd: int) -> list[Event]:
        """The player to act folds (by message or on the clock)."""
        h.folded = True
        h.acted.add(rnd)
        return [*voice.said(ActionEvent(player=h.name or "", action="fold", amount=0)),
                *self._advance()]

    def _apply(self, h: SeatHand, name: str, rnd: int, cost: int) -> list[Event]:
        self._take(h, cost)
        if name == "hyper_raise":
            extra_ante = bet_size(h.base, self.rules.bets["hyper_raise_ante"])
            h.ante += extra_ante
            h.bets += cost - extra_ante
            h.hyper = True
        else:
            h.bets += cost
        h.acted.add(rnd)
        return voice.said(ActionEvent(player=h.name or "", action=name, amount=cost))

    def _npc_act(self, h: SeatHand, rnd: int) -> list[Event]:
        seen = h.cards[: h.dealt]
        if rnd == 1:
            keep = any(
                is_joker(c) or rank_of(c) + 2 >= self.rules.npc_first_min_rank for c in seen
            )
        else:
            keep = ace_high_or_better(seen)
        cost = bet_size(h.base, self.rules.bets["call"])
        if keep and cost <= self._chips(h):
            return self._apply(h, "call", rnd, cost)
        h.folded = True
        h.acted.add(rnd)
        return voice.said(ActionEvent(player=h.name or "", action="fold", amount=0))

    # --- declarations ------------------------------------------------------------------------
    def _check_declare(self, h: SeatHand, action: Parsed, now: float | None) -> _Plan:
        """A declaration (2 discards, or a 7-card hand named): validated, with its room line."""
        if self.phase != "declare":
            raise IllegalAction("seven.not_declare_time")
        if h.declared:
            raise IllegalAction("seven.already_declared")
        best = seven_key(h.cards)
        klass = class_of("seven", best)
        hand = hand_name("seven", klass)
        if action.hand is not None:
            if action.hand not in SEVEN_CLASSES:
                raise IllegalAction("seven.unknown_hand")
            named = class_floor("seven", action.hand)
            if named > best:
                raise IllegalAction("seven.hand_not_made", hand=hand)
            if action.hand != klass:
                raise IllegalAction("seven.no_lowering", hand=hand)
            discards_named = None
        else:
            cards = action.cards or []
            if len(cards) != 2:
                raise IllegalAction("seven.two_discards")
            try:
                discards = [parse_card(c) for c in cards]
            except CardError as e:
                raise IllegalAction("house.card_error", error=line(e.code, **e.params)) from None
            keep = list(h.cards)
            for c in discards:
                if c not in keep:
                    raise IllegalAction("seven.not_in_hand_card", card=pretty(c))
                keep.remove(c)
            if klass in SEVEN_CARD_CLASSES:
                raise IllegalAction("seven.name_seven_card_hand", hand=hand)
            kept = seven_key(keep)
            if kept != best and class_of("seven", kept) == klass:
                raise IllegalAction("seven.weakens_kicker", hand=hand)  # the class stays
            if kept != best:
                raise IllegalAction("seven.weakens", hand=hand)
            discards_named = cards_str(discards)
        return _Plan(h, "declare", now, declared=klass, discards=discards_named)

    # --- settlement (referee/games/seven/settle.py) -------------------------------------------
    def _dq(self, h: SeatHand, key: int) -> bool:
        return is_dq(self.rules, h, key)

    def _settle(self) -> list[Event]:
        out = settle(self.rules, self.hands, self._players(), self.dice)
        return out + self._finish(out)

    def _finish(self, so_far: list[Event]) -> list[Event]:
        """The house games' end of a hand, then the button moves."""
        out = super()._finish(so_far)
        self._move_button()  # after the bankruptcies and leaves: only taken seats get it
        return out

    def _move_button(self) -> None:
        if self.button is None:
            return
        taken = set(self.table.players)
        if self._dealer_seat_free():
            taken.add(self.rules.dealer_seat)
        for step in range(1, self.max_seats + 1):
            seat = (self.button - 1 + step) % self.max_seats + 1
            if seat in taken:
                self.button = seat
                return

    # --- operations ----------------------------------------------------------------------
    def force_fold(self, player: str) -> list[Event]:
        p = self.table.by_name(player)
        h = self.hands.get(p.seat) if p is not None else None
        if self.phase == "idle" or h is None or h.name != player:
            raise IllegalAction("house.player_not_in_hand", player=player)
        if h.folded:
            raise IllegalAction("house.player_already_folded", player=player)
        if self.phase == "stakes" and not h.posted:
            del self.hands[h.seat]
            out: list[Event] = [Say.of("room", line("house.dropped", player=player))]
            return out + self._advance()
        h.folded = True
        if self.phase in ROUNDS:
            h.acted.add(ROUNDS[self.phase])
        return [ActionEvent(player=player, action="fold", amount=0), *self._advance()]

    def remove(self, player: str) -> list[Event]:
        p = self.table.by_name(player)
        if p is None:
            raise IllegalAction("house.not_seated", player=player)
        out: list[Event] = []
        h = self._hand_of(player) if self.phase != "idle" else None
        if h is not None and not h.folded:
            out += self.force_fold(player)
        if h is not None and self.phase != "idle" and self.hands.get(h.seat) is h:
            h.removed = True  # the stake stays the house's (module doc)
        if self.table.by_name(player) is not None:
            out += self.table.stand(player)
        return out

    def draw_deal(self, shoe: Shoe, rng: random.Random) -> Deal:
        """A live deal (the service calls this): 7 cards per seated player, 7 for the dealer seat
        when no player sits there, a button die if the table has no button yet, then dealer-hand
        rolls up to the first that names a seat with a hand (the same rule ``start_hand`` uses)."""
        deal = Deal()
        for p in self.table.ordered():
            deal.hands[p.name] = shoe.draw(7)
        with_hand = set(self.table.players)
        if self._dealer_seat_free():
            deal.dealer = shoe.draw(7)
            with_hand.add(self.rules.dealer_seat)
        if self.button is None:
            deal.dice.append(rng.randint(1, 6))
        while with_hand:
            d = rng.randint(1, 6)
            deal.dice.append(d)
            if d in with_hand:
                break
        # spare rolls, in case the seat hit is vacated before the cards are dealt
        deal.dice += [rng.randint(1, 6) for _ in range(12)]
        return deal

    # --- queries ---------------------------------------------------------------------------
    def to_act(self) -> str | None:
        actor = self._actor()
        return actor.name if actor is not None else None

    def _hand_of(self, player: str) -> SeatHand | None:
        p = self.table.by_name(player)
        h = self.hands.get(p.seat) if p is not None else None
        return h if h is not None and h.name == player else None

    def holdings(self, player: str) -> list[Card]:
        h = self._hand_of(player)
        return list(h.cards[: h.dealt]) if h is not None else []

    def shown(self, player: str) -> list[Card]:
        # every card of this game is dealt face up
        return self.holdings(player)

    def decision(self, player: str) -> Decision | None:
        if player not in self.pending():
            return None
        if self.phase == "stakes":
            return "stake"
        return "declare" if self.phase == "declare" else "round2" if self.phase == "round2" \
            else "round1"

    def pending(self) -> list[str]:
        """Players the table is waiting for, in turn order."""
        if self.phase == "stakes":
            return [h.name or "" for h in self._players() if not h.posted]
        if self.phase in ROUNDS:
            actor = self._actor()
            return [actor.name or ""] if actor is not None else []
        if self.phase == "declare":
            return [h.name or "" for h in self._players() if not h.folded and not h.declared]
        return []
