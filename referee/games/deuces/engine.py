"""``deuces``: deuces-wild five-card draw against the dealer, with the bonus area.

Rules and rulings: docs/rules.md ``deuces``. A pure state
machine: the cards come in a :class:`~referee.rules.base.Deal`, time comes in as an argument,
nothing is random here. Every public method validates, then applies (the base class's
transaction for actions: :meth:`_check_act` reads, :meth:`_apply_act` mutates), so a rejected
action or operation leaves no trace. The one refusal that depends on what an action sets off
-- a transcript's ``shoe`` too short for the deal, the duplicate checks or the refill -- is
found by a dry run of the card flow (:class:`~referee.games.deuces.cards.DryRun`) before
anything moves.

The code is in three modules: this one (the hand and the table), :mod:`referee.games.deuces.bonus`
(the bonus area, which outlives hands and tables) and :mod:`referee.games.deuces.cards` (the
cards' path: duplicates, refill, and the dry run).

The hand, as the engine runs it
-------------------------------
1. ``start_hand(deal)``: ``hand_start``, the bonus area as it stands (``bonus_area``) and a call
   for antes. Seated players with cards in the deal take part.
2. Antes, by message (``ante`` with an amount; none means one table unit) or ``allin`` (half the
   chips, rounded down, the rest of the division not bet). A normal ante must be a multiple of
   the table unit (*config* ``ante_multiple``) and leave chips for the play bet (an equal
   amount). ``fold`` before the ante sits the hand out.
3. When everyone has anted: each player's five cards are sent privately, the dealer discards by
   the house way (:mod:`referee.games.deuces.dealer`, *config* ``dealer_strategy``; the discards
   are not refilled yet), the hands are opened in the room (jokers in them pay now), then the
   **duplicate check**: from the button seat in seat order identical cards are removed one at a
   time and replaced from the shoe (``Deal.shoe``, in order).
4. Each player ``play``s (``keep`` or ``discard`` cards; a bare play keeps all five; ``discard``
   with cards is the same) adding a bet equal to the ante, or ``fold``s (the ante is lost).
5. When everyone has decided: the refill (one card at a time, in seat order with the dealer
   last, to every hand holding the fewest cards, until all hold five), the second duplicate
   check (players from the button, then the dealer), dealer qualification, settlement,
   ``house`` (the house's books), ``hand_end``, then bankruptcies and pending leaves.

Rulings made here (docs/rules.md is silent; documented so a community can disagree)
--------------------------------------------------------------------------------
* **Duplicate order**: cards go one at a time; the later copy is removed and its replacement
  takes its place in the hand. When several kinds are duplicated the seed lets the player choose
  which goes first: the check stops (``to_act()`` names the player, the room is told) until they
  name one (``discard`` of that one card, 「Ah を捨てる」); on the clock, or with *config*
  ``duplicate_choice = false``, the default order applies -- the kind whose second copy comes
  first in the hand as held. A triplet loses two cards, one at a time. Jokers are never
  duplicates. The dealer always uses the default order.
* **Bonus area**: the bonus deck is a single deck, so a removed card's twin is either placed in
  the area (newest last) or, when it is already there, gets a marker (never for a 2: nothing
  happens then, and nothing is judged). After each change the area is judged (five cards with the
  deuces evaluator; four or fewer by counting wilds: four 2s = four deuces, otherwise four or
  three of a kind): three of a kind or better pays the player whose card was removed
  ``ante x bonus_table[class] x 2^(markers in the area)`` at once, whatever happens to their
  hand later. Then the oldest cards leave, with their markers, until four remain. Duplicates
  removed from the **dealer's** hand also feed the area; they pay nobody (*config*
  ``dealer_duplicate_bonus = "players"``: every player still in the hand is paid on their ante).
* **Initial bonus area**: the service restores the saved area with :meth:`set_bonus_area`
  (``# bonus:`` in transcripts), and a closing table hands it on to the next deuces table
  (:meth:`carried` / :meth:`carry`). When the area is empty at ``start_hand`` and the deal has a
  ``board`` of four distinct natural cards, those become the area (the service draws them with
  :func:`draw_bonus_area` from a one-deck shoe); otherwise the area starts empty and fills up.
* **Jokers**: a joker pays out when it reaches a player -- dealt, as a duplicate's replacement or
  at the refill (``referee.rules.house.joker_bonus``: 2x ante and 2x the play bet if made; last
  slot first restores a player below their sit-down chips, otherwise 3x more). Wild; the
  evaluator does not let it stand for a card already in the hand.
* **Settlement** (multipliers include the stake): dealer not qualified → ``dealer_fold``: the
  play bet x ``dealer_table.dealer_fold`` (1x), the ante by the player's hand
  (``player_table``, ``other`` = 0). Player beats a qualified dealer → ``win``: the ante by the
  player's hand, the play bet by the dealer's hand. Tie → ``push`` (both bets back). Loss →
  ``lose`` (0). Folded → ``fold`` (0). When every player folded the dealer is not refilled.
* **Dealing mistakes** (``!nogame``, ``!misdeal``, ``!exposed``): the game stops and each player
  is paid the guarantee (``mistake_payout``: 2x ante, 2x the play bet if made), folded players
  too (*config* ``mistake_pays_folded``: the seed guarantees it "even if a 0x result was certain
  and collected"). In this engine the hand resolves the moment the last decision (or duplicate
  choice) comes in, so a mistake can only be reported before the final hands exist: no payout
  above the guarantee can be certain yet. Before the cards are dealt (the ante phase) the hand
  is simply cancelled and the antes go back.
* **Removal** (``remove``, a penalty; the lead's ruling, the same in all house games): a player
  removed from the table forfeits to the house everything they staked this hand (ante and play
  bet, even after playing: the hand is folded, not refilled nor checked) and gets no
  dealing-mistake guarantee, nor the ante back before the deal. Stakes already out stay in the
  house's books, so ``sum(stack changes, chips taken away by leave) + result == 0`` holds.
* **Button**: the duplicate check starts at the button seat; it is seat 1 (the first occupied
  seat from 1) unless ``# button:`` / :meth:`set_button` says otherwise. It does not move.
* **Clock** (``[clock]``, shared by all games; the one :class:`~referee.rules.clock.WaitClock`,
  restarted by each new phase rather than by each action): the first time seen in a phase
  starts it;
  after ``remind_after`` seconds the awaited players are reminded once, after ``act_after`` a
  player who has not anted sits the hand out and one who has not decided folds.
* Leaving: between hands at once; during a hand after it (an ante not yet posted: at once).
  Chips go to the bank 1:1. Bankrupt below ``bankrupt_below`` (20) after any hand.

Events beyond docs/contracts.md §3 (``hand_start``, ``action``, ``settle``, ``bonus_area``, ``say``,
``leave``, ``hand_end``): ``duplicate`` (a card removed and its replacement), ``bonus_payout``,
``dealer_discard`` (how many, not which), ``showdown`` (final hands at settlement) and, from
:mod:`referee.rules.house`, ``joker``, ``compensation`` and ``house`` (the house's books:
``staked - paid`` = the house's result for the hand).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Literal

from referee.actions import Parsed
from referee.cards import JOKER, Card, CardError, Shoe, card_str, cards_str, parse_card
from referee.definitions import GameDefinition
from referee.events import ActionEvent, Event, HandStart, Say, line
from referee.games.deuces import voice
from referee.games.deuces.bonus import BonusArea, BonusPayout, area_class, draw_bonus_area
from referee.games.deuces.cards import dup_kinds, refill_order, take
from referee.games.deuces.dealer import strategy
from referee.games.deuces.hand import (
    DealerDiscard,
    Duplicate,
    Hand,
    HandFlow,
    Player,
    Showdown,
)
from referee.games.deuces.rules import DeucesRules
from referee.rules.base import Deal, Decision, IllegalAction, Offer
from referee.rules.house import (
    HouseSeats,
    allin_ante,
    check_ante,
    names,
)

__all__ = [
    "BonusPayout",
    "DealerDiscard",
    "DeucesEngine",
    "Duplicate",
    "Showdown",
    "area_class",
    "draw_bonus_area",
    "refill_order",
]


PlanKind = Literal["sit_out", "ante", "choose", "fold", "play"]


@dataclass
class _Plan:
    """An action :meth:`DeucesEngine._check_act` accepted (the shoe suffices for all it sets
    off): ``sit_out`` (a fold before the ante), ``ante`` (``ante``, ``allin``), ``choose`` (the
    duplicate ``card`` removed first), ``fold``, ``play`` (``kept``: the cards kept, in the order
    the hand holds them)."""

    player: Player
    kind: PlanKind
    now: float | None = None
    ante: int = 0
    allin: bool = False
    card: Card = JOKER
    kept: list[Card] = field(default_factory=list)


# --- the engine -----------------------------------------------------------------------------


class DeucesEngine(HouseSeats):
    game = "deuces"

    def __init__(self, definition: GameDefinition, options: dict[str, str]) -> None:
        rules = definition.section(DeucesRules)
        super().__init__(definition, options, ante_unit=rules.ante_unit,
                         bankrupt_below=rules.bankrupt_below, npc_allowed=False)
        self.rules: DeucesRules = rules
        self.area = BonusArea(self.rules.bonus_area_size)
        self.flow = HandFlow(rules, self.table, self.area, self.clock,
                             strategy(self.rules.dealer_strategy), self.last_slot)
        self.button = 1
        # self.clock (HouseSeats'): started the first time seen in a phase, restarted by a new
        # phase

    def draw_deal(self, shoe: Shoe, rng: random.Random) -> Deal:
        """A live deal (used by the service): five cards each and the dealer's from the shuffled
        shoe, 120 spare cards for replacements and the refill, and -- only while the bonus area
        is empty, i.e. before the very first game -- four cards from a separate one-deck shoe as
        ``board`` (the initial bonus area)."""
        deal = Deal()
        for p in self.table.ordered():
            deal.hands[p.name] = shoe.draw(5)
        deal.dealer = shoe.draw(5)
        deal.shoe = shoe.draw(min(120, len(shoe)))
        if not self.area.slots:
            deal.board = draw_bonus_area(rng, self.rules.bonus_area_size)
        return deal

    # --- queries ----------------------------------------------------------------------------

    @property
    def in_hand(self) -> bool:
        return self.flow.hand is not None

    def holdings(self, player: str) -> list[Card]:
        """The cards ``player`` holds now (after the duplicate check: what a play keeps from)."""
        p = self.flow.player(player)
        return list(p.cards) if p else []

    def held_this_hand(self, player: str) -> list[Card]:
        p = self.flow.player(player)
        return list(p.held) if p else []

    def shown(self, player: str) -> list[Card]:
        p = self.flow.player(player)
        return list(p.shown) if p else []

    def in_this_hand(self, player: str) -> bool:
        p = self.flow.player(player)
        return p is not None and p.status != "out"

    def decision(self, player: str) -> Decision | None:
        h = self.flow.hand
        p = self.flow.player(player)
        if h is None or p is None:
            return None
        if h.phase == "ante" and p.status == "ante":
            return "stake"
        if h.phase == "check" and h.queue and h.queue[0] == player:
            return "duplicate"
        if h.phase == "decide" and p.status == "deciding":
            return "play"
        return None

    def offers(self, player: str) -> tuple[Offer, ...]:
        """While the players decide: play (the ante again, keeping or throwing cards) or
        fold -- what the decision prompt asks of everyone awaited."""
        p = self.flow.player(player)
        seat = self.table.by_name(player)
        if p is None or seat is None or self.decision(player) != "play":
            return ()
        if p.ante > seat.chips:  # the ante rule keeps the play bet covered
            return (Offer("fold"),)
        return (Offer("play", chips=p.ante), Offer("fold"))

    def to_act(self) -> str | None:
        """The player who must name which duplicate goes first, while the check waits for them."""
        h = self.flow.hand
        return h.queue[0] if h is not None and h.phase == "check" and h.queue else None

    @property
    def bonus_area(self) -> tuple[list[Card], list[int]]:
        """The bonus area (cards oldest first, markers per card), for the store to save."""
        return self.area.cards, self.area.markers

    def carried(self) -> dict[str, Any] | None:
        """The bonus area outlives the table (docs/rules.md): what a closing table hands on to
        the next deuces table, ``{"cards": [card strings, oldest first], "markers": [ints]}``;
        None while the area is empty (the next table then starts one)."""
        return self.area.carried() if self.area.slots else None

    def carry(self, data: dict[str, Any]) -> None:
        """Take over the bonus area a closed deuces table handed on (:meth:`carried`)."""
        if self.flow.hand is not None:
            raise IllegalAction("deuces.area_locked")
        self.area.carry(data)

    # --- the operations decided outside the hand (the hand's flow carries them out) --------

    def dealing_mistake(self, kind: str, player: str | None = None) -> list[Event]:
        return self.flow.dealing_mistake(kind, player)

    def force_fold(self, player: str) -> list[Event]:
        return self.flow.force_fold(player)

    def remove(self, player: str) -> list[Event]:
        return self.flow.remove(player)

    def set_last_slot(self, on: bool) -> list[Event]:
        out = super().set_last_slot(on)
        self.flow.last_slot = self.last_slot
        return out

    # --- seating ----------------------------------------------------------------------------

    def leave(self, name: str) -> list[Event]:
        p = self.table.by_name(name)
        if p is None:
            raise IllegalAction("house.not_seated", player=name)
        h = self.flow.hand
        hp = self.flow.player(name)
        if h is not None and hp is not None and hp.status not in ("ante", "out"):
            if p.leaving:
                raise IllegalAction("deuces.leave_taken")
            p.leaving = True
            return [Say.of("room", line("deuces.leaves_after", player=name))]
        if h is not None and h.phase == "ante":
            dry = self.flow.dry()
            if hp is not None:
                dry.drop(name)
            dry.maybe_deal()
        if h is not None and hp is not None:
            h.players.remove(hp)
        out = self.table.stand(name)
        if h is not None and h.phase == "ante":
            out += self.flow.maybe_deal()
        return out

    def set_button(self, seat: int) -> None:
        if not 1 <= seat <= self.definition.seats.max:
            raise IllegalAction("house.seat_range", seats=self.definition.seats.max)
        self.button = seat

    def set_bonus_area(self, cards: list[Card], markers: list[int] | None = None) -> None:
        if self.flow.hand is not None:
            raise IllegalAction("deuces.area_locked")
        self.area.set(cards, markers)

    # --- the hand ---------------------------------------------------------------------------

    def start_hand(self, deal: Deal) -> list[Event]:
        if self.flow.hand is not None:
            raise IllegalAction("deuces.hand_running")
        seated = self.table.ordered()
        strangers = sorted(set(deal.hands) - {p.name for p in seated})
        if strangers:
            raise IllegalAction("deuces.hand_strangers", players=", ".join(strangers))
        for name, cards in deal.hands.items():
            if len(cards) != 5:
                raise IllegalAction("deuces.hand_count", player=name)
        if len(deal.dealer) != 5:
            raise IllegalAction("deuces.dealer_count")
        playing = [p for p in seated if p.name in deal.hands and not p.leaving]
        if not playing:
            raise IllegalAction("deuces.nobody")
        first = self.area.check_first(list(deal.board)) if not self.area.slots and deal.board \
            else None
        # validated: mutate
        if first is not None:
            self.area.slots = first
        button = self._button_seat([p.seat for p in seated])
        players = sorted(playing, key=lambda p: (p.seat < button, p.seat))
        self.hand_no += 1
        self.flow.hand = Hand(
            number=self.hand_no,
            players=[Player(p.name, p.seat, list(deal.hands[p.name])) for p in players],
            dealer=list(deal.dealer),
            shoe=list(deal.shoe),
        )
        self.clock.restart()
        area = self.area.event()
        return [
            HandStart(hand=self.hand_no, button=button),
            area,
            voice.area_line(area),
            Say.of("room", line("deuces.start", hand=self.hand_no, unit=self.ante_unit,
                                     who=names([p.name for p in playing]))),
        ]

    def _button_seat(self, seats: list[int]) -> int:
        after = [x for x in sorted(seats) if x >= self.button]
        return after[0] if after else min(seats)

    # --- actions: checked (read only), then applied (Engine.act) ----------------------------

    def _check_act(self, player: str, action: Parsed, now: float | None) -> _Plan:
        h = self.flow.hand
        if h is None:
            raise IllegalAction("deuces.no_hand")
        p = h.get(player)
        if p is None or p.status == "out":
            raise IllegalAction("deuces.not_in_hand")
        name = action.action
        if h.phase == "ante":
            plan = self._check_ante(p, action)
        elif h.phase == "check":
            plan = self._check_choose(h, p, action)
        elif p.status == "folded":
            raise IllegalAction("house.already_folded")
        elif p.status == "played":
            raise IllegalAction("deuces.already_played")
        elif name == "fold":
            dry = self.flow.dry()
            dry.status[p.name] = "folded"
            dry.maybe_resolve()
            plan = _Plan(p, "fold")
        elif name in ("play", "discard"):
            plan = self._check_play(p, action)
        elif name in ("ante", "allin"):
            raise IllegalAction("deuces.ante_taken")
        else:
            raise IllegalAction("deuces.play_or_fold")
        plan.now = now
        return plan

    def _apply_act(self, plan: _Plan) -> list[Event]:
        p = plan.player
        out: list[Event]
        if plan.kind == "sit_out":
            p.status = "out"
            out = [Say.of("room", line("deuces.sits_out", player=p.name)),
                   *self.flow.maybe_deal()]
        elif plan.kind == "ante":
            out = self._ante(p, plan.ante, plan.allin)
        elif plan.kind == "choose":
            out = self.flow.run_checks(first=plan.card)
        elif plan.kind == "fold":
            p.status = "folded"
            out = [*voice.said(ActionEvent(player=p.name, action="fold")),
                   *self.flow.maybe_resolve()]
        else:
            out = self._play(p, plan.kept)
        if self.flow.hand is not None and self.clock.since is None and plan.now is not None:
            self.clock.since = plan.now  # the first time seen in this (maybe new) phase
        return out

    def _check_ante(self, p: Player, action: Parsed) -> _Plan:
        if p.status != "ante":
            raise IllegalAction("deuces.ante_taken")
        seat = self.table.by_name(p.name)
        assert seat is not None
        dry = self.flow.dry()
        if action.action == "fold":
            dry.status[p.name] = "out"
            dry.maybe_deal()
            return _Plan(p, "sit_out")
        if action.action == "allin":
            ante, allin = allin_ante(seat.chips, self.rules.allin_divisor), True
        elif action.action == "ante":
            amount = action.amount if action.amount is not None else self.ante_unit
            ante, allin = check_ante(amount, seat.chips, self.ante_unit, cover=2,
                                     multiple=self.rules.ante_multiple), False
        else:
            raise IllegalAction("deuces.ante_first")
        dry.status[p.name] = "anted"
        dry.maybe_deal()
        return _Plan(p, "ante", ante=ante, allin=allin)

    def _ante(self, p: Player, ante: int, allin: bool) -> list[Event]:
        seat = self.table.by_name(p.name)
        assert seat is not None and self.flow.hand is not None
        seat.chips -= ante
        self.flow.hand.book.stake(p.name, ante)
        p.ante, p.allin, p.status = ante, allin, "anted"
        word = "allin" if allin else "ante"
        return [*voice.said(ActionEvent(player=p.name, action=word, amount=ante)),
                *self.flow.maybe_deal()]

    def _check_choose(self, h: Hand, p: Player, action: Parsed) -> _Plan:
        """The player whose hand holds several kinds of duplicates names the one removed first."""
        chooser = h.queue[0]
        if p.name != chooser:
            raise IllegalAction("deuces.wait_for_chooser", player=chooser)
        kinds = dup_kinds(p.cards)
        listed = " ".join(card_str(c) for c in kinds)
        named = action.discard if action.discard else (action.cards or [])
        if action.action not in ("play", "discard") or len(named) != 1:
            raise IllegalAction("deuces.name_one_duplicate", card=card_str(kinds[0]), kinds=listed)
        try:
            card = parse_card(named[0])
        except CardError as e:
            raise IllegalAction("house.card_error", error=line(e.code, **e.params)) from None
        if card not in kinds:
            raise IllegalAction("deuces.not_duplicated", card=card_str(card), kinds=listed)
        self.flow.dry().run_checks(first=card)
        return _Plan(p, "choose", card=card)

    def _check_play(self, p: Player, action: Parsed) -> _Plan:
        try:
            keep = [parse_card(c) for c in action.keep] if action.keep is not None else None
            throw = [parse_card(c) for c in action.discard] if action.discard is not None else None
            if action.action == "discard" and throw is None and action.cards is not None:
                throw = [parse_card(c) for c in action.cards]
        except CardError as e:
            raise IllegalAction("house.card_error", error=line(e.code, **e.params)) from None
        if keep is not None and throw is not None:
            left = take(p.cards, keep)
            if left is None or sorted(left) != sorted(throw):
                raise IllegalAction("deuces.keep_discard_mismatch")
        if keep is not None:
            if take(p.cards, keep) is None:
                missing = sorted({card_str(c) for c in keep if keep.count(c) > p.cards.count(c)})
                raise IllegalAction("deuces.cannot_keep", cards=" ".join(missing))
            kept = keep
        elif throw is not None:
            rest = take(p.cards, throw)
            if rest is None:
                missing = sorted({card_str(c) for c in throw if throw.count(c) > p.cards.count(c)})
                raise IllegalAction("deuces.cannot_discard", cards=" ".join(missing))
            kept = rest
        else:
            kept = list(p.cards)
        if not any(o.action == "play" for o in self.offers(p.name)):  # pragma: no cover
            raise IllegalAction("deuces.play_short")  # (the ante rule keeps the play covered)
        # keep exactly the multiset ``kept``, in the order the hand is held
        remaining = list(kept)
        ordered: list[Card] = []
        for c in p.cards:
            if c in remaining:
                remaining.remove(c)
                ordered.append(c)
        dry = self.flow.dry()
        dry.cards[p.name] = list(ordered)
        dry.status[p.name] = "played"
        dry.maybe_resolve()
        return _Plan(p, "play", kept=ordered)

    def _play(self, p: Player, kept: list[Card]) -> list[Event]:
        seat = self.table.by_name(p.name)
        assert seat is not None and self.flow.hand is not None
        bet = p.ante
        seat.chips -= bet
        self.flow.hand.book.stake(p.name, bet)
        p.bet = bet
        p.cards = list(kept)
        p.status = "played"
        ev = ActionEvent(player=p.name, action="play", amount=bet, cards=cards_str(kept))
        return [*voice.said(ev), *self.flow.maybe_resolve()]

    # --- the clock ----------------------------------------------------------------------------

    def tick(self, now: float) -> list[Event]:
        """The action clock (``[clock]`` of the definition): after ``remind_after`` seconds in a
        phase the players still awaited are reminded once; after ``act_after`` a player who has
        not anted sits the hand out and one who has not decided folds."""
        h = self.flow.hand
        if h is None:
            return []
        limits = self.definition.clock
        if self.clock.since is None:
            self.clock.since = now
            return []
        if h.phase == "check":
            late = [p for p in h.players if p.name == h.queue[0]]
        else:
            status = "ante" if h.phase == "ante" else "deciding"
            late = [p for p in h.players if p.status == status]
        if not late:
            return []
        who = names([p.name for p in late])
        due = self.clock.due(now, limits.remind_after, limits.act_after)
        out: list[Event] = []
        if due == "act":  # (due() changed nothing: a refusal below leaves no trace)
            dry = self.flow.dry()
            if h.phase == "check":
                dry.run_checks(default=True)
                out.append(Say.of("room", line("deuces.timeout_check", who=who)))
                out += self.flow.run_checks(default=True)
            elif h.phase == "ante":
                for p in late:
                    dry.status[p.name] = "out"
                dry.maybe_deal()
                for p in late:
                    p.status = "out"
                out.append(Say.of("room", line("deuces.timeout_ante", who=who)))
                out += self.flow.maybe_deal()
            else:
                for p in late:
                    dry.status[p.name] = "folded"
                dry.maybe_resolve()
                out.append(Say.of("room", line("deuces.timeout_decide", who=who)))
                for p in late:  # the folds the line above announced
                    p.status = "folded"
                    out.append(ActionEvent(player=p.name, action="fold"))
                out += self.flow.maybe_resolve()
            if self.flow.hand is not None and self.clock.since is None:
                self.clock.since = now
        elif due == "remind":
            what = line(f"deuces.remind_{h.phase}")
            out.append(Say.of("room", line("deuces.remind", who=who, what=what)))
        return out
