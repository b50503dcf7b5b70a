"""``deuces``: deuces-wild five-card draw against the dealer, with the bonus area.

Seed: ``seeds/deuces-bonus.txt``; digest and rulings: docs/rules.md ``deuces``. A pure state
machine: the cards come in a :class:`~referee.rules.base.Deal`, time comes in as an argument,
nothing is random here. Every public method validates, then applies (the base class's
transaction for actions: :meth:`_check_act` reads, :meth:`_apply_act` mutates), so a rejected
action or operation leaves no trace. The one refusal that depends on what an action sets off
-- a transcript's ``shoe`` too short for the deal, the duplicate checks or the refill -- is
found by a dry run of the card flow (:class:`~referee.rules.deuces_cards.DryRun`) before
anything moves.

The code is in three modules: this one (the hand and the table), :mod:`referee.rules.deuces_bonus`
(the bonus area, which outlives hands and tables) and :mod:`referee.rules.deuces_cards` (the
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
   the house way (:mod:`referee.rules.deuces_dealer`, *config* ``dealer_strategy``; the discards
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
* **Clock** (``[clock]``, shared by all games): the first time seen in a phase starts it;
  after ``remind_after`` seconds the awaited players are reminded once, after ``act_after`` a
  player who has not anted sits the hand out and one who has not decided folds.
* Leaving: between hands at once; during a hand after it (an ante not yet posted: at once).
  Chips go to the bank 1:1. Bankrupt below ``bankrupt_below`` (20) after any hand.

Events beyond CONTRACTS.md §3 (``hand_start``, ``action``, ``settle``, ``bonus_area``, ``say``,
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
from referee.cards import JOKER, Card, CardError, Shoe, card_str, cards_str, parse_card, pretty
from referee.definitions import DeucesRules, GameDefinition
from referee.events import ActionEvent, Event, HandStart, Say, Settle
from referee.lang.catalog import text
from referee.rules.base import Deal, Decision, Engine, IllegalAction, SeatState
from referee.rules.clock import WaitClock
from referee.rules.deuces_bonus import (
    BonusArea,
    BonusPayout,
    area_class,
    class_name,
    draw_bonus_area,
    evaluate,
    order,
)
from referee.rules.deuces_cards import (
    DEALER,
    DryRun,
    HandPhase,
    Status,
    dup_kinds,
    later_copy,
    refill_order,
    take,
)
from referee.rules.deuces_dealer import strategy
from referee.rules.house import (
    Compensation,
    HandBook,
    HouseTable,
    acknowledge,
    allin_ante,
    announce_compensation,
    check_ante,
    joker_say,
    names,
    pay,
    show,
    table_options,
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


# --- events of this game --------------------------------------------------------------------


class Duplicate(Event):
    """An identical card removed from ``player``'s hand (``dealer`` for the house) and replaced."""

    event: Literal["duplicate"] = "duplicate"
    player: str
    card: str
    replacement: str
    check: int  # 1 = before the decisions, 2 = after the refill


class Showdown(Event):
    """A final hand at settlement: ``player`` (``dealer`` for the house), its cards and class."""

    event: Literal["showdown"] = "showdown"
    player: str
    cards: list[str]
    klass: str


class DealerDiscard(Event):
    """How many cards the dealer threw (which ones stays hidden until the dealer's hand opens)."""

    event: Literal["dealer_discard"] = "dealer_discard"
    count: int


# --- state ----------------------------------------------------------------------------------


@dataclass
class _Player:
    name: str
    seat: int
    dealt: list[Card]
    status: Status = "ante"
    ante: int = 0
    bet: int = 0
    allin: bool = False
    cards: list[Card] = field(default_factory=list)
    held: list[Card] = field(default_factory=list)  # every card held this hand (leak checks)
    shown: list[Card] = field(default_factory=list)
    removed: bool = False  # stood up by ``remove`` (a penalty): stake forfeit, no guarantee


@dataclass
class _Hand:
    number: int
    players: list[_Player]  # in check order: from the button, seat order
    dealer: list[Card]
    shoe: list[Card]
    phase: HandPhase = "ante"
    check: int = 0  # the duplicate check running: 1 before the decisions, 2 after the refill
    dealer_opened: bool = False
    queue: list[str] = field(default_factory=list)  # hands still to check (``dealer`` last)
    book: HandBook = field(default_factory=HandBook)

    def get(self, name: str) -> _Player | None:
        return next((p for p in self.players if p.name == name), None)


PlanKind = Literal["sit_out", "ante", "choose", "fold", "play"]


@dataclass
class _Plan:
    """An action :meth:`DeucesEngine._check_act` accepted (the shoe suffices for all it sets
    off): ``sit_out`` (a fold before the ante), ``ante`` (``ante``, ``allin``), ``choose`` (the
    duplicate ``card`` removed first), ``fold``, ``play`` (``kept``: the cards kept, in the order
    the hand holds them)."""

    player: _Player
    kind: PlanKind
    now: float | None = None
    ante: int = 0
    allin: bool = False
    card: Card = JOKER
    kept: list[Card] = field(default_factory=list)


# --- the engine -----------------------------------------------------------------------------


class DeucesEngine(Engine):
    game = "deuces"

    def __init__(self, definition: GameDefinition, options: dict[str, str]) -> None:
        super().__init__(definition, options)
        if definition.deuces is None:  # pragma: no cover - the loader guarantees it
            raise ValueError("not a deuces definition")
        self.rules: DeucesRules = definition.deuces
        self.ante_unit, self.last_slot = table_options(options, self.rules.ante_unit)
        self._dealer_way = strategy(self.rules.dealer_strategy)
        self.table = HouseTable(definition.seats.max, self.rules.bankrupt_below, npc_allowed=False)
        self.area = BonusArea(self.rules.bonus_area_size)
        self.hand: _Hand | None = None
        self.button = 1
        # the phase's clock: started the first time seen in a phase, restarted by a new phase
        self.clock = WaitClock()

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

    def _player(self, name: str) -> _Player | None:
        return self.hand.get(name) if self.hand is not None else None

    @property
    def in_hand(self) -> bool:
        return self.hand is not None

    def stacks(self) -> dict[str, int]:
        return self.table.stacks()

    def seated(self) -> list[SeatState]:
        return self.table.states()

    def holdings(self, player: str) -> list[Card]:
        p = self._player(player)
        return list(p.held) if p else []

    def current_cards(self, player: str) -> list[Card]:
        """The cards ``player`` holds now (after the duplicate check: what a play keeps from)."""
        p = self._player(player)
        return list(p.cards) if p else []

    def shown(self, player: str) -> list[Card]:
        p = self._player(player)
        return list(p.shown) if p else []

    def in_this_hand(self, player: str) -> bool:
        p = self._player(player)
        return p is not None and p.status != "out"

    def decision(self, player: str) -> Decision | None:
        h = self.hand
        p = self._player(player)
        if h is None or p is None:
            return None
        if h.phase == "ante" and p.status == "ante":
            return "stake"
        if h.phase == "check" and h.queue and h.queue[0] == player:
            return "duplicate"
        if h.phase == "decide" and p.status == "deciding":
            return "play"
        return None

    def to_act(self) -> str | None:
        """The player who must name which duplicate goes first, while the check waits for them."""
        h = self.hand
        return h.queue[0] if h is not None and h.phase == "check" and h.queue else None

    @property
    def bonus_area(self) -> tuple[list[Card], list[int]]:
        """The bonus area (cards oldest first, markers per card), for the store to save."""
        return self.area.cards, self.area.markers

    def carried(self) -> dict[str, Any]:
        """The bonus area a closing table hands on to the next deuces table:
        ``{"cards": [card strings, oldest first], "markers": [ints]}``."""
        return self.area.carried()

    def carry(self, data: dict[str, Any]) -> None:
        """Take over the bonus area a closed deuces table handed on (:meth:`carried`)."""
        if self.hand is not None:
            raise IllegalAction("deuces.area_locked")
        self.area.carry(data)

    # --- seating ----------------------------------------------------------------------------

    def sit(self, seat: int, name: str, chips: int, npc: bool = False) -> list[Event]:
        return self.table.sit(seat, name, chips, npc)

    def leave(self, name: str) -> list[Event]:
        p = self.table.by_name(name)
        if p is None:
            raise IllegalAction("house.not_seated", player=name)
        h = self.hand
        hp = self._player(name)
        if h is not None and hp is not None and hp.status not in ("ante", "out"):
            if p.leaving:
                raise IllegalAction("deuces.leave_taken")
            p.leaving = True
            return [Say(to="room", text=text("deuces.leaves_after", player=name))]
        if h is not None and h.phase == "ante":
            dry = self._dry()
            if hp is not None:
                dry.drop(name)
            dry.maybe_deal()
        if h is not None and hp is not None:
            h.players.remove(hp)
        out = self.table.stand(name)
        if h is not None and h.phase == "ante":
            out += self._maybe_deal()
        return out

    def set_button(self, seat: int) -> None:
        if not 1 <= seat <= self.definition.seats.max:
            raise IllegalAction("house.seat_range", seats=self.definition.seats.max)
        self.button = seat

    def set_bonus_area(self, cards: list[Card], markers: list[int] | None = None) -> None:
        if self.hand is not None:
            raise IllegalAction("deuces.area_locked")
        self.area.set(cards, markers)

    # --- the hand ---------------------------------------------------------------------------

    def start_hand(self, deal: Deal) -> list[Event]:
        if self.hand is not None:
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
        self.hand = _Hand(
            number=self.hand_no,
            players=[_Player(p.name, p.seat, list(deal.hands[p.name])) for p in players],
            dealer=list(deal.dealer),
            shoe=list(deal.shoe),
        )
        self.clock.restart()
        return [
            HandStart(hand=self.hand_no, button=button),
            self.area.event(),
            Say(to="room", text=self.area.text()),
            Say(to="room", text=text("deuces.start", hand=self.hand_no, unit=self.ante_unit,
                                     who=names([p.name for p in playing]))),
        ]

    def _button_seat(self, seats: list[int]) -> int:
        after = [x for x in sorted(seats) if x >= self.button]
        return after[0] if after else min(seats)

    def _dry(self) -> DryRun:
        """The card flow from the current state, on copies (:mod:`referee.rules.deuces_cards`)."""
        h = self.hand
        assert h is not None
        return DryRun(
            [(p.name, p.seat, p.status, p.cards, p.dealt) for p in h.players], h.dealer, h.shoe,
            phase=h.phase, check=h.check, queue=h.queue, choice=self.rules.duplicate_choice,
            dealer_way=self._dealer_way,
        )

    # --- actions: checked (read only), then applied (Engine.act) ----------------------------

    def _check_act(self, player: str, action: Parsed, now: float | None) -> _Plan:
        h = self.hand
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
            dry = self._dry()
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
            out = [Say(to="room", text=text("deuces.sits_out", player=p.name)), *self._maybe_deal()]
        elif plan.kind == "ante":
            out = self._ante(p, plan.ante, plan.allin)
        elif plan.kind == "choose":
            out = self._run_checks(first=plan.card)
        elif plan.kind == "fold":
            p.status = "folded"
            out = [ActionEvent(player=p.name, action="fold"), acknowledge(names([p.name]), "fold"),
                   *self._maybe_resolve()]
        else:
            out = self._play(p, plan.kept)
        if self.hand is not None and self.clock.since is None and plan.now is not None:
            self.clock.since = plan.now  # the first time seen in this (maybe new) phase
        return out

    def _check_ante(self, p: _Player, action: Parsed) -> _Plan:
        if p.status != "ante":
            raise IllegalAction("deuces.ante_taken")
        seat = self.table.by_name(p.name)
        assert seat is not None
        dry = self._dry()
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

    def _ante(self, p: _Player, ante: int, allin: bool) -> list[Event]:
        seat = self.table.by_name(p.name)
        assert seat is not None and self.hand is not None
        seat.chips -= ante
        self.hand.book.stake(p.name, ante)
        p.ante, p.allin, p.status = ante, allin, "anted"
        word = "allin" if allin else "ante"
        return [ActionEvent(player=p.name, action=word, amount=ante),
                acknowledge(names([p.name]), word, ante), *self._maybe_deal()]

    def _check_choose(self, h: _Hand, p: _Player, action: Parsed) -> _Plan:
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
            raise IllegalAction("house.card_error", error=str(e)) from None
        if card not in kinds:
            raise IllegalAction("deuces.not_duplicated", card=card_str(card), kinds=listed)
        self._dry().run_checks(first=card)
        return _Plan(p, "choose", card=card)

    def _check_play(self, p: _Player, action: Parsed) -> _Plan:
        try:
            keep = [parse_card(c) for c in action.keep] if action.keep is not None else None
            throw = [parse_card(c) for c in action.discard] if action.discard is not None else None
            if action.action == "discard" and throw is None and action.cards is not None:
                throw = [parse_card(c) for c in action.cards]
        except CardError as e:
            raise IllegalAction("house.card_error", error=str(e)) from None
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
        seat = self.table.by_name(p.name)
        assert seat is not None
        if p.ante > seat.chips:  # pragma: no cover - the ante rule keeps the play bet covered
            raise IllegalAction("deuces.play_short")
        # keep exactly the multiset ``kept``, in the order the hand is held
        remaining = list(kept)
        ordered: list[Card] = []
        for c in p.cards:
            if c in remaining:
                remaining.remove(c)
                ordered.append(c)
        dry = self._dry()
        dry.cards[p.name] = list(ordered)
        dry.status[p.name] = "played"
        dry.maybe_resolve()
        return _Plan(p, "play", kept=ordered)

    def _play(self, p: _Player, kept: list[Card]) -> list[Event]:
        seat = self.table.by_name(p.name)
        assert seat is not None and self.hand is not None
        bet = p.ante
        seat.chips -= bet
        self.hand.book.stake(p.name, bet)
        p.bet = bet
        p.cards = list(kept)
        p.status = "played"
        n = 5 - len(kept)
        exchange = text("deuces.exchange", count=n) if n else text("deuces.no_exchange")
        out: list[Event] = [
            ActionEvent(player=p.name, action="play", amount=bet),
            Say(to="room", text=text(
                "deuces.played", player=p.name, bet=bet, exchange=exchange,
                kept=text("deuces.kept", cards=show(p.cards)) if p.cards else "")),
        ]
        return out + self._maybe_resolve()

    # --- automatic steps --------------------------------------------------------------------

    def _draw(self, h: _Hand) -> Card:
        # every caller's check ran the same flow dry (DryRun) and refused a shoe too short
        assert h.shoe, "the dry run let through a step the shoe cannot cover"
        return h.shoe.pop(0)

    def _maybe_deal(self) -> list[Event]:
        h = self.hand
        assert h is not None
        if h.phase != "ante" or any(p.status == "ante" for p in h.players):
            return []
        active = [p for p in h.players if p.status == "anted"]
        if not active:  # everyone sat out or was folded before the deal
            return self._settle()
        out: list[Event] = []
        for p in active:
            p.cards = list(p.dealt)
            p.held = list(p.dealt)
            p.status = "deciding"
            out.append(Say(to=p.name, text=text("deuces.your_cards", cards=show(p.cards))))
        kept = self._dealer_way(list(h.dealer))
        if take(h.dealer, kept) is None:  # pragma: no cover - a strategy bug, not a table state
            raise ValueError(f"dealer strategy kept cards it does not hold: {cards_str(kept)}")
        h.dealer = list(kept)
        out += [
            DealerDiscard(count=5 - len(kept)),
            Say(to="room", text=text("deuces.dealer_discards", count=5 - len(kept))),
        ]
        for p in active:
            # the hands are opened in the room (seed ④), so a dealt joker is announced only now
            p.shown = list(p.cards)
            out.append(Say(to="room", text=text("deuces.opened", seat=p.seat, player=p.name,
                                                cards=show(p.cards))))
            for c in p.cards:
                if c == JOKER:
                    out += self._joker(p)
        h.check = 1
        h.queue = [p.name for p in active]
        return out + self._run_checks()

    def _new_phase(self, h: _Hand, phase: Literal["check", "decide"]) -> None:
        h.phase = phase
        self.clock.restart()  # the clock of the new phase starts at the next time seen

    def _run_checks(self, first: Card | None = None, default: bool = False) -> list[Event]:
        """Work through the duplicate check's queue; stop when a player must choose the order.

        ``first``: the card the player at the head of the queue chose to remove first;
        ``default``: remove theirs in the default order (their clock ran out)."""
        h = self.hand
        assert h is not None
        out: list[Event] = []
        while h.queue:
            owner = h.queue[0]
            p = h.get(owner) if owner != DEALER else None
            if p is None and owner != DEALER:  # pragma: no cover - players never leave the queue
                h.queue.pop(0)
                continue
            if p is None and not h.dealer_opened:
                h.dealer_opened = True
                out.append(Say(to="room", text=text("deuces.dealer_hand", cards=show(h.dealer))))
            events, waiting = self._dedupe(p, h.check, first=first, default=default)
            out += events
            first, default = None, False
            if waiting:
                assert p is not None
                kinds = dup_kinds(p.cards)
                if h.phase != "check":
                    self._new_phase(h, "check")
                out.append(Say(to="room", text=text(
                    "deuces.choose_duplicate", player=p.name,
                    kinds=" ".join(pretty(c) for c in kinds), card=card_str(kinds[0]))))
                return out
            h.queue.pop(0)
        if h.check == 1:
            self._new_phase(h, "decide")
            deciding = [p.name for p in h.players if p.status == "deciding"]
            if deciding:
                out.append(Say(to="room", text=text("deuces.play_prompt", who=names(deciding))))
            # players forced to fold during the check leave nobody to wait for
            return out + self._maybe_resolve()
        return out + self._settle()

    def _dedupe(
        self, p: _Player | None, check: int, first: Card | None = None, default: bool = False,
    ) -> tuple[list[Event], bool]:
        """Remove identical cards one at a time from ``p``'s hand (None: the dealer's).

        Returns the events and whether it stopped for the player to choose which kind goes
        first (several kinds duplicated, ``duplicate_choice`` on, no ``first`` given)."""
        h = self.hand
        assert h is not None
        out: list[Event] = []
        cards = p.cards if p is not None else h.dealer
        who = p.name if p is not None else DEALER
        while True:
            kinds = dup_kinds(cards)
            if not kinds:
                return out, False
            if first is not None:
                card, first = first, None
            elif p is not None and len(kinds) > 1 and self.rules.duplicate_choice and not default:
                return out, True
            else:
                card = kinds[0]
            new = self._draw(h)
            cards[later_copy(cards, card)] = new
            if p is not None:
                p.held.append(new)
                p.shown = list(cards)
            label = names([p.name]) if p is not None else text("deuces.dealer")
            out += [
                Duplicate(player=who, card=card_str(card), replacement=card_str(new), check=check),
                Say(to="room", text=text("deuces.duplicate", who=label, card=pretty(card),
                                         new=pretty(new))),
            ]
            if p is not None:
                payees = [p]
            elif self.rules.dealer_duplicate_bonus == "players":
                payees = [q for q in h.players if q.status == "played"]
            else:
                payees = []
            events, paid = self.area.feed(card, [(q.name, q.ante) for q in payees],
                                          self.rules.bonus_table, self.rules.payout_rounding)
            for name, amount in paid:
                seat = self.table.by_name(name)
                assert seat is not None
                seat.chips += amount
                h.book.pay(name, amount)
            out += events
            if new == JOKER and p is not None:
                out += self._joker(p)

    def _joker(self, p: _Player) -> list[Event]:
        assert self.hand is not None
        bonus, event = self.table.joker(
            p.name, self.hand.book, ante=p.ante, bets=p.bet, last_slot=self.last_slot,
            multipliers=self.rules.joker, rounding=self.rules.payout_rounding,
        )
        return [event, joker_say(p.name, bonus)]

    def _maybe_resolve(self) -> list[Event]:
        h = self.hand
        assert h is not None
        if any(p.status == "deciding" for p in h.players):
            return []
        out: list[Event] = []
        playing = sorted((p for p in h.players if p.status == "played"), key=lambda p: p.seat)
        if not playing:  # everyone folded: the dealer is not refilled
            return self._settle()
        counts = [(p.name, len(p.cards)) for p in playing] + [(DEALER, len(h.dealer))]
        by_name = {p.name: p for p in playing}
        jokers: dict[str, int] = {}
        for who in refill_order(counts):
            c = self._draw(h)
            if who == DEALER:
                h.dealer.append(c)
                continue
            q = by_name[who]
            q.cards.append(c)
            q.held.append(c)
            out.append(Say(to=q.name, text=text("deuces.refill", card=pretty(c))))
            if c == JOKER:
                jokers[who] = jokers.get(who, 0) + 1
        checked = [p for p in h.players if p.status == "played"]  # from the button
        for p in checked:
            p.shown = list(p.cards)
            out.append(Say(to="room", text=text("deuces.hand", player=p.name,
                                                cards=show(p.cards))))
            for _ in range(jokers.get(p.name, 0)):
                out += self._joker(p)
        h.check = 2
        h.queue = [p.name for p in checked] + [DEALER]
        return out + self._run_checks()

    def _settle(self) -> list[Event]:
        h = self.hand
        assert h is not None
        out: list[Event] = []
        playing = [p for p in h.players if p.status == "played"]
        qualified = False
        dclass = ""
        dvalue: object = None
        if playing:
            dclass, dvalue = evaluate(h.dealer)
            qualified = order(dclass) <= order(self.rules.dealer_qualify)
            out.append(Showdown(player=DEALER, cards=cards_str(h.dealer), klass=dclass))
            if qualified:
                say = text("deuces.dealer_qualifies", hand=class_name(dclass))
            else:
                say = text("deuces.dealer_folds", hand=class_name(dclass), cards=show(h.dealer))
            out.append(Say(to="room", text=say))
        results: list[Event] = []
        rnd = self.rules.payout_rounding
        for p in sorted(h.players, key=lambda p: p.seat):
            if p.status == "folded":
                results.append(Settle(player=p.name, result="fold", payout=0))
                continue
            if p.status != "played":
                continue
            pclass, pvalue = evaluate(p.cards)
            results.append(Showdown(player=p.name, cards=cards_str(p.cards), klass=pclass))
            ante_mult = self.rules.player_table.get(pclass, self.rules.player_table["other"])
            result: Literal["win", "lose", "push", "dealer_fold"]
            if not qualified:
                result = "dealer_fold"
                payout = pay(p.ante, ante_mult, rnd) + pay(
                    p.bet, self.rules.dealer_table["dealer_fold"], rnd
                )
            elif pvalue > dvalue:  # type: ignore[operator]
                result = "win"
                payout = pay(p.ante, ante_mult, rnd) + pay(
                    p.bet, self.rules.dealer_table[dclass], rnd
                )
            elif pvalue == dvalue:
                result = "push"
                payout = p.ante + p.bet
            else:
                result, payout = "lose", 0
            seat = self.table.by_name(p.name)
            assert seat is not None
            seat.chips += payout
            h.book.pay(p.name, payout)
            results += [
                Settle(player=p.name, result=result, payout=payout),
                Say(to="room", text=text("deuces.result", player=p.name, hand=class_name(pclass),
                                         result=text(f"result_{result}"), payout=payout)),
            ]
        return out + self._finish(results)

    def _finish(self, results: list[Event]) -> list[Event]:
        h = self.hand
        assert h is not None
        self.hand = None
        return [*results, *self.table.close_hand(h.number, h.book)]

    # --- the clock ----------------------------------------------------------------------------

    def tick(self, now: float) -> list[Event]:
        """The action clock (``[clock]`` of the definition): after ``remind_after`` seconds in a
        phase the players still awaited are reminded once; after ``act_after`` a player who has
        not anted sits the hand out and one who has not decided folds."""
        h = self.hand
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
        waited = now - self.clock.since
        out: list[Event] = []
        if limits.act_after and waited >= limits.act_after:
            dry = self._dry()
            if h.phase == "check":
                dry.run_checks(default=True)
                out.append(Say(to="room", text=text("deuces.timeout_check", who=who)))
                out += self._run_checks(default=True)
            elif h.phase == "ante":
                for p in late:
                    dry.status[p.name] = "out"
                dry.maybe_deal()
                for p in late:
                    p.status = "out"
                out.append(Say(to="room", text=text("deuces.timeout_ante", who=who)))
                out += self._maybe_deal()
            else:
                for p in late:
                    dry.status[p.name] = "folded"
                dry.maybe_resolve()
                for p in late:
                    p.status = "folded"
                    out.append(ActionEvent(player=p.name, action="fold"))
                out.append(Say(to="room", text=text("deuces.timeout_decide", who=who)))
                out += self._maybe_resolve()
            if self.hand is not None and self.clock.since is None:
                self.clock.since = now
        elif limits.remind_after and waited >= limits.remind_after and not self.clock.reminded:
            self.clock.reminded = True
            what = text(f"deuces.remind_{h.phase}")
            out.append(Say(to="room", text=text("deuces.remind", who=who, what=what)))
        return out

    # --- operations ---------------------------------------------------------------------------

    def dealing_mistake(self, kind: str, player: str | None = None) -> list[Event]:
        if kind not in ("nogame", "misdeal", "exposed"):
            raise IllegalAction("deuces.unknown_procedure", kind=kind)
        h = self.hand
        if h is None:
            raise IllegalAction("deuces.no_running_hand")
        if player is not None and h.get(player) is None:
            raise IllegalAction("deuces.player_not_in_hand", player=player)
        out: list[Event] = []
        m = self.rules.mistake_payout
        rnd = self.rules.payout_rounding
        if h.phase == "ante":
            out.append(Say(to="room", text=text("deuces.cancelled")))
        else:
            out.append(Say(to="room", text=text("deuces.mistake", ante=str(m["ante"]),
                                                play=str(m["play"]))))
        for p in sorted(h.players, key=lambda p: p.seat):
            if p.ante == 0 or p.removed:  # removed: the stake is the house's (module doc)
                continue
            if h.phase == "ante":
                bets = {"ante": p.ante}
            elif p.status == "folded" and not self.rules.mistake_pays_folded:
                continue
            else:
                bets = {"ante": pay(p.ante, m["ante"], rnd)}
                if p.bet:
                    bets["play"] = pay(p.bet, m["play"], rnd)
            total = sum(bets.values())
            seat = self.table.by_name(p.name)
            assert seat is not None
            seat.chips += total
            h.book.pay(p.name, total)
            c = Compensation(player=p.name, payout=total, bets=bets)
            out += [c, announce_compensation(c)]
        return out + self._finish([])

    def force_fold(self, player: str) -> list[Event]:
        self._check_force_fold(player)
        return self._force_fold(player)

    def _check_force_fold(self, player: str) -> None:
        """Refuse a forced fold that cannot be (nothing to fold, or the shoe cannot cover what
        it sets off: the dry run of :meth:`_force_fold`)."""
        p = self._player(player)
        if self.hand is None or p is None or p.status in ("out", "folded"):
            raise IllegalAction("deuces.cannot_fold", player=player)
        if p.status == "played":
            raise IllegalAction("deuces.player_already_played", player=player)
        dry = self._dry()
        if dry.phase == "check" and dry.queue and dry.queue[0] == player:
            dry.run_checks(default=True)
            if dry.phase is None:  # pragma: no cover - check 1 never ends the hand by itself
                return
        elif dry.phase == "check" and player in dry.queue:
            dry.queue.remove(player)
        dry.status[player] = "out" if p.status == "ante" else "folded"
        if dry.phase == "ante":
            dry.maybe_deal()
        elif dry.phase == "decide":
            dry.maybe_resolve()

    def _force_fold(self, player: str) -> list[Event]:
        """Fold ``player`` now (penalties; checked by :meth:`_check_force_fold`): before the
        ante they sit the hand out, after it the ante is lost; a player who already played keeps
        their hand (nothing left to fold)."""
        h = self.hand
        p = self._player(player)
        assert h is not None and p is not None
        out: list[Event] = []
        if h.phase == "check" and h.queue and h.queue[0] == player:
            # they were choosing the order of their duplicates: the default order, then the fold
            out += self._run_checks(default=True)
            if self.hand is None:  # pragma: no cover - check 1 never ends the hand by itself
                return out
        elif h.phase == "check" and player in h.queue:
            h.queue.remove(player)
        if p.status == "ante":
            p.status = "out"
            out.append(Say(to="room", text=text("deuces.cant_join", player=player)))
        else:
            p.status = "folded"
            out += [
                ActionEvent(player=player, action="fold"),
                Say(to="room", text=text("deuces.forced_fold", player=player)),
            ]
        if h.phase == "ante":
            return out + self._maybe_deal()
        if h.phase == "decide":
            return out + self._maybe_resolve()
        return out

    def remove(self, player: str) -> list[Event]:
        """Stand ``player`` up now (a penalty). Whatever they staked this hand is forfeit to the
        house: they are folded (even after playing) and get no dealing-mistake guarantee."""
        if self.table.by_name(player) is None:
            raise IllegalAction("house.not_seated", player=player)
        hp = self._player(player)
        out: list[Event] = []
        if hp is not None and hp.status in ("ante", "anted", "deciding"):
            self._check_force_fold(player)
            out += self._force_fold(player)
        elif hp is not None and hp.status == "played":
            self._check_forfeit(hp)
            out += self._forfeit(hp)
        h = self.hand
        hp = self._player(player)
        if h is not None and hp is not None:
            if hp.status == "out":
                h.players.remove(hp)
            else:
                hp.removed = True
        if self.table.by_name(player) is not None:  # not already stood up by a bankruptcy
            out += self.table.stand(player)
        return out

    def _check_forfeit(self, p: _Player) -> None:
        """The dry run of :meth:`_forfeit` (the shoe must cover the check or the refill)."""
        dry = self._dry()
        head = dry.phase == "check" and bool(dry.queue) and dry.queue[0] == p.name
        if p.name in dry.queue:
            dry.queue.remove(p.name)
        dry.status[p.name] = "folded"
        if head:
            dry.run_checks()
        elif dry.phase == "decide":
            dry.maybe_resolve()

    def _forfeit(self, p: _Player) -> list[Event]:
        """Fold ``p``, who already played, for ``remove``: the hand is dead, it is neither
        refilled nor checked; the check (or the hand) goes on without it."""
        h = self.hand
        assert h is not None
        head = h.phase == "check" and bool(h.queue) and h.queue[0] == p.name
        if p.name in h.queue:
            h.queue.remove(p.name)
        p.status = "folded"
        out: list[Event] = [
            ActionEvent(player=p.name, action="fold"),
            Say(to="room", text=text("deuces.removed_fold", player=p.name)),
        ]
        if head:
            return out + self._run_checks()
        if h.phase == "decide":
            return out + self._maybe_resolve()
        return out
