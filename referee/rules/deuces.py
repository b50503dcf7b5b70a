"""``deuces``: deuces-wild five-card draw against the dealer, with the bonus area.

Seed: ``seeds/deuces-bonus.txt``; digest and rulings: docs/rules.md ``deuces``. A pure state
machine: the cards come in a :class:`~referee.rules.base.Deal`, time comes in as an argument,
nothing is random here. Every public method works on a copy of the table and only commits it
when nothing raised, so a rejected action leaves no trace.

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
  (``# bonus:`` in transcripts). When the area is empty at ``start_hand`` and the deal has a
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

import copy
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from referee.actions import Parsed
from referee.cards import (
    JOKER,
    Card,
    CardError,
    Shoe,
    card_str,
    cards_str,
    parse_card,
    parse_cards,
    pretty,
)
from referee.definitions import DEUCES_CLASSES, DeucesRules, GameDefinition
from referee.events import ActionEvent, BonusArea, Event, HandStart, Say, Settle
from referee.rules.base import Deal, Decision, Engine, IllegalAction, SeatState
from referee.rules.deuces_dealer import strategy
from referee.rules.house import (
    Compensation,
    HandBook,
    HouseTable,
    allin_ante,
    check_ante,
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

DEALER = "dealer"
_RESULT_JA = {
    "win": "勝ち", "lose": "負け", "push": "引き分け", "dealer_fold": "ディーラーフォールド",
}
_DEUCE = 0


# --- events of this game --------------------------------------------------------------------


class Duplicate(Event):
    """An identical card removed from ``player``'s hand (``dealer`` for the house) and replaced."""

    event: Literal["duplicate"] = "duplicate"
    player: str
    card: str
    replacement: str
    check: int  # 1 = before the decisions, 2 = after the refill


class BonusPayout(Event):
    """The bonus area made ``klass`` after ``card`` went in: ``amount`` paid to ``player``."""

    event: Literal["bonus_payout"] = "bonus_payout"
    player: str
    card: str
    cards: list[str]
    klass: str
    multiplier: str
    markers: int
    amount: int


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


# --- pure helpers ---------------------------------------------------------------------------


def is_wild(card: Card) -> bool:
    return card == JOKER or card >> 2 == _DEUCE


def area_class(cards: list[Card]) -> str | None:
    """The bonus area's class if it is three of a kind or better, else None.

    Five cards go to the deuces evaluator; fewer (an area that has not filled up, or four cards
    after a marker) are counted: four 2s are four deuces, else wilds + the most common natural
    rank make four or three of a kind.
    """
    if len(cards) >= 5:
        klass = _evaluate(cards[-5:])[0]
        return klass if _order(klass) <= _order("three_of_a_kind") else None
    wilds = sum(1 for c in cards if is_wild(c))
    counts = Counter(c >> 2 for c in cards if not is_wild(c))
    top = max(counts.values(), default=0) + wilds
    if wilds >= 4:
        return "four_deuces"
    if top >= 4:
        return "four_of_a_kind"
    if top >= 3:
        return "three_of_a_kind"
    return None


def refill_order(counts: list[tuple[str, int]], size: int = 5) -> list[str]:
    """Who receives each refill card: ``counts`` in seat order with the dealer last.

    Repeatedly, every hand holding the fewest cards gets one, in that order, until all hold
    ``size`` (seed example: seat 1 holds 4, seat 3 holds 2, dealer 3 → 3, 3, dealer, 1, 3, dealer).
    """
    held = dict(counts)
    out: list[str] = []
    while any(n < size for n in held.values()):
        low = min(held.values())
        for who, _ in counts:
            if held[who] == low:
                held[who] += 1
                out.append(who)
    return out


def draw_bonus_area(rng: random.Random | None = None, size: int = 4) -> list[Card]:
    """The very first bonus area: ``size`` cards from a fresh one-deck shoe (the service's job)."""
    return Shoe(decks=1, jokers=0, rng=rng).draw(size)


def _order(klass: str) -> int:
    return DEUCES_CLASSES.index(klass)


def _evaluate(cards: list[Card]) -> tuple[str, object]:
    """(class id, comparable strength) of a five-card deuces hand."""
    from referee.hands import evaluate

    value = evaluate("deuces", list(cards))
    return str(value.klass), value


def _ja(klass: str) -> str:
    from referee.hands import NAMES

    return NAMES["deuces"][klass]


def _dup_kinds(cards: list[Card]) -> list[Card]:
    """Cards held more than once (jokers never count), in the order their copies appear."""
    out: list[Card] = []
    for i, c in enumerate(cards):
        if c != JOKER and c in cards[:i] and c not in out:
            out.append(c)
    return out


def _take(hand: list[Card], cards: list[Card]) -> list[Card] | None:
    """``hand`` minus the multiset ``cards``; None when ``cards`` is not part of the hand."""
    left = list(hand)
    for c in cards:
        if c not in left:
            return None
        left.remove(c)
    return left


# --- state ----------------------------------------------------------------------------------

Status = Literal["ante", "anted", "out", "deciding", "played", "folded"]


@dataclass
class _Slot:
    card: Card
    markers: int = 0


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
    phase: Literal["ante", "check", "decide"] = "ante"
    since: float | None = None  # when the current phase started (the first time seen)
    reminded: bool = False
    check: int = 0  # the duplicate check running: 1 before the decisions, 2 after the refill
    dealer_opened: bool = False
    queue: list[str] = field(default_factory=list)  # hands still to check (``dealer`` last)
    book: HandBook = field(default_factory=HandBook)

    def get(self, name: str) -> _Player | None:
        return next((p for p in self.players if p.name == name), None)


@dataclass
class _State:
    table: HouseTable
    bonus: list[_Slot] = field(default_factory=list)
    hand: _Hand | None = None
    hand_no: int = 0
    button: int = 1


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
        self._s = _State(
            table=HouseTable(definition.seats.max, self.rules.bankrupt_below, npc_allowed=False),
        )

    def draw_deal(self, shoe: Shoe, rng: random.Random) -> Deal:
        """A live deal (used by the service): five cards each and the dealer's from the shuffled
        shoe, 120 spare cards for replacements and the refill, and -- only while the bonus area
        is empty, i.e. before the very first game -- four cards from a separate one-deck shoe as
        ``board`` (the initial bonus area)."""
        deal = Deal()
        for p in self._s.table.ordered():
            deal.hands[p.name] = shoe.draw(5)
        deal.dealer = shoe.draw(5)
        deal.shoe = shoe.draw(min(120, len(shoe)))
        if not self._s.bonus:
            deal.board = draw_bonus_area(rng, self.rules.bonus_area_size)
        return deal

    # --- transactional plumbing -------------------------------------------------------------

    def _copy(self) -> _State:
        return copy.deepcopy(self._s)

    def _commit(self, s: _State) -> None:
        self._s = s
        self.hand_no = s.hand_no

    # --- queries ----------------------------------------------------------------------------

    @property
    def in_hand(self) -> bool:
        return self._s.hand is not None

    def stacks(self) -> dict[str, int]:
        return self._s.table.stacks()

    def seated(self) -> list[SeatState]:
        return self._s.table.states()

    def holdings(self, player: str) -> list[Card]:
        h = self._s.hand
        p = h.get(player) if h else None
        return list(p.held) if p else []

    def current_cards(self, player: str) -> list[Card]:
        """The cards ``player`` holds now (after the duplicate check: what a play keeps from)."""
        h = self._s.hand
        p = h.get(player) if h else None
        return list(p.cards) if p else []

    def shown(self, player: str) -> list[Card]:
        h = self._s.hand
        p = h.get(player) if h else None
        return list(p.shown) if p else []

    def in_this_hand(self, player: str) -> bool:
        h = self._s.hand
        p = h.get(player) if h else None
        return p is not None and p.status != "out"

    def decision(self, player: str) -> Decision | None:
        h = self._s.hand
        p = h.get(player) if h else None
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
        h = self._s.hand
        return h.queue[0] if h is not None and h.phase == "check" and h.queue else None

    @property
    def bonus_area(self) -> tuple[list[Card], list[int]]:
        """The bonus area (cards oldest first, markers per card), for the store to save."""
        return [s.card for s in self._s.bonus], [s.markers for s in self._s.bonus]

    def carried(self) -> dict[str, Any] | None:
        """The bonus area outlives the table (docs/rules.md): the next deuces table starts
        from it."""
        if not self._s.bonus:
            return None
        return {"cards": [card_str(x.card) for x in self._s.bonus],
                "markers": [x.markers for x in self._s.bonus]}

    def carry(self, data: dict[str, Any]) -> None:
        self.set_bonus_area(parse_cards(" ".join(data["cards"])),
                            [int(m) for m in data["markers"]])

    # --- seating ----------------------------------------------------------------------------

    def sit(self, seat: int, name: str, chips: int, npc: bool = False) -> list[Event]:
        s = self._copy()
        out = s.table.sit(seat, name, chips, npc)
        self._commit(s)
        return out

    def leave(self, name: str) -> list[Event]:
        s = self._copy()
        p = s.table.by_name(name)
        if p is None:
            raise IllegalAction(f"{name}さんは着席していません")
        h = s.hand
        hp = h.get(name) if h else None
        if h is not None and hp is not None and hp.status not in ("ante", "out"):
            if p.leaving:
                raise IllegalAction("退席はすでに受け付けています")
            p.leaving = True
            out: list[Event] = [Say(to="room", text=f"{name}さんはこのハンドの終了後に退席します")]
        else:
            if h is not None and hp is not None:
                h.players.remove(hp)
            out = s.table.stand(name)
            if h is not None and h.phase == "ante":
                out += self._maybe_deal(s)
        self._commit(s)
        return out

    def set_button(self, seat: int) -> None:
        if not 1 <= seat <= self.definition.seats.max:
            raise IllegalAction(f"席番号は1〜{self.definition.seats.max}です")
        self._s.button = seat

    def set_bonus_area(self, cards: list[Card], markers: list[int] | None = None) -> None:
        if self._s.hand is not None:
            raise IllegalAction("ハンドの進行中はボーナスエリアを変更できません")
        marks = list(markers) if markers is not None else [0] * len(cards)
        if len(cards) > self.rules.bonus_area_size:
            raise IllegalAction(f"ボーナスエリアは{self.rules.bonus_area_size}枚までです")
        if len(marks) != len(cards) or any(m < 0 for m in marks):
            raise IllegalAction("マーカーの数がカードと合いません")
        if JOKER in cards or len(set(cards)) != len(cards):
            raise IllegalAction("ボーナスエリアは1デックのカードです（重複・ジョーカー不可）")
        if any(m and is_wild(c) for c, m in zip(cards, marks, strict=True)):
            raise IllegalAction("2にはマーカーを置けません")
        self._s.bonus = [_Slot(c, m) for c, m in zip(cards, marks, strict=True)]

    # --- the hand ---------------------------------------------------------------------------

    def start_hand(self, deal: Deal) -> list[Event]:
        s = self._copy()
        if s.hand is not None:
            raise IllegalAction("前のハンドがまだ終わっていません")
        seated = s.table.ordered()
        names = {p.name for p in seated}
        strangers = sorted(set(deal.hands) - names)
        if strangers:
            raise IllegalAction(f"着席していないプレイヤーの手札があります: {', '.join(strangers)}")
        for name, cards in deal.hands.items():
            if len(cards) != 5:
                raise IllegalAction(f"{name}さんの手札が5枚ではありません")
        if len(deal.dealer) != 5:
            raise IllegalAction("ディーラーの手札が5枚ではありません")
        playing = [p for p in seated if p.name in deal.hands and not p.leaving]
        if not playing:
            raise IllegalAction("参加できるプレイヤーがいません")
        out: list[Event] = []
        if not s.bonus and deal.board:
            board = list(deal.board)
            size = self.rules.bonus_area_size
            if len(board) != size or JOKER in board or len(set(board)) != size:
                raise IllegalAction(f"ボーナスエリアの初期カードは異なる{size}枚が必要です")
            s.bonus = [_Slot(c) for c in board]
        button = self._button_seat(s, [p.seat for p in seated])
        order = sorted(playing, key=lambda p: (p.seat < button, p.seat))
        s.hand_no += 1
        s.hand = _Hand(
            number=s.hand_no,
            players=[_Player(p.name, p.seat, list(deal.hands[p.name])) for p in order],
            dealer=list(deal.dealer),
            shoe=list(deal.shoe),
        )
        out += [
            HandStart(hand=s.hand_no, button=button),
            self._area_event(s),
            Say(to="room", text=self._area_text(s)),
            Say(
                to="room",
                text=f"第{s.hand_no}ハンドを始めます。アンティをベットしてください"
                f"（単位{self.ante_unit}、オールインは手持ちの半分）",
            ),
        ]
        self._commit(s)
        return out

    def _button_seat(self, s: _State, seats: list[int]) -> int:
        after = [x for x in sorted(seats) if x >= s.button]
        return after[0] if after else min(seats)

    def act(self, player: str, action: Parsed, now: float | None = None) -> list[Event]:
        s = self._copy()
        h = s.hand
        if h is None:
            raise IllegalAction("ハンドが始まっていません")
        p = h.get(player)
        if p is None or p.status == "out":
            raise IllegalAction("このハンドに参加していません")
        if h.since is None and now is not None:
            h.since = now
        name = action.action
        if h.phase == "ante":
            out = self._act_ante(s, h, p, action)
        elif h.phase == "check":
            out = self._act_choose(s, h, p, action)
        elif p.status == "folded":
            raise IllegalAction("すでにフォールドしています")
        elif p.status == "played":
            raise IllegalAction("すでに勝負を宣言しています（カードの交換は一度だけです）")
        elif name == "fold":
            p.status = "folded"
            out = [
                ActionEvent(player=p.name, action="fold"),
                Say(to="room", text=f"{p.name}さんはフォールドしました（アンティ没収）"),
            ]
            out += self._maybe_resolve(s)
        elif name in ("play", "discard"):
            out = self._act_play(s, h, p, action)
        elif name in ("ante", "allin"):
            raise IllegalAction("アンティはすでに受け付けています")
        else:
            raise IllegalAction(
                "今は「勝負」（残すカードか捨てるカードを指定）か「フォールド」です"
            )
        if s.hand is not None and s.hand.since is None and now is not None:
            s.hand.since = now  # a new phase began with this action
        self._commit(s)
        return out

    def _act_ante(self, s: _State, h: _Hand, p: _Player, action: Parsed) -> list[Event]:
        if p.status != "ante":
            raise IllegalAction("アンティはすでに受け付けています")
        seat = s.table.by_name(p.name)
        assert seat is not None
        if action.action == "fold":
            p.status = "out"
            out: list[Event] = [Say(to="room", text=f"{p.name}さんはこのハンドを見送ります")]
            return out + self._maybe_deal(s)
        if action.action == "allin":
            ante = allin_ante(seat.chips, self.rules.allin_divisor)
            p.allin = True
        elif action.action == "ante":
            amount = action.amount if action.amount is not None else self.ante_unit
            ante = check_ante(
                amount, seat.chips, self.ante_unit, cover=2, multiple=self.rules.ante_multiple
            )
        else:
            raise IllegalAction("まずアンティをベットしてください")
        seat.chips -= ante
        h.book.stake(p.name, ante)
        p.ante = ante
        p.status = "anted"
        label = "オールイン（アンティ）" if p.allin else "アンティ"
        out = [
            ActionEvent(player=p.name, action="allin" if p.allin else "ante", amount=ante),
            Say(to="room", text=f"{p.name}さん {label}{ante}"),
        ]
        return out + self._maybe_deal(s)

    def _act_choose(self, s: _State, h: _Hand, p: _Player, action: Parsed) -> list[Event]:
        """The player whose hand holds several kinds of duplicates names the one removed first."""
        chooser = h.queue[0]
        if p.name != chooser:
            raise IllegalAction(f"重複カードの確認中です。{chooser}さんの指定をお待ちください")
        kinds = _dup_kinds(p.cards)
        listed = " ".join(card_str(c) for c in kinds)
        named = action.discard if action.discard else (action.cards or [])
        if action.action not in ("play", "discard") or len(named) != 1:
            raise IllegalAction(
                f"先に取り除く重複カードを1枚、「{card_str(kinds[0])} を捨てる」のように"
                f"指定してください（重複: {listed}）"
            )
        try:
            card = parse_card(named[0])
        except CardError as e:
            raise IllegalAction(str(e)) from None
        if card not in kinds:
            raise IllegalAction(f"{card_str(card)}は重複していません（重複: {listed}）")
        return self._run_checks(s, first=card)

    def _act_play(self, s: _State, h: _Hand, p: _Player, action: Parsed) -> list[Event]:
        try:
            keep = [parse_card(c) for c in action.keep] if action.keep is not None else None
            throw = [parse_card(c) for c in action.discard] if action.discard is not None else None
            if action.action == "discard" and throw is None and action.cards is not None:
                throw = [parse_card(c) for c in action.cards]
        except CardError as e:
            raise IllegalAction(str(e)) from None
        if keep is not None and throw is not None:
            left = _take(p.cards, keep)
            if left is None or sorted(left) != sorted(throw):
                raise IllegalAction("残すカードと捨てるカードが手札と合いません")
        if keep is not None:
            if _take(p.cards, keep) is None:
                missing = sorted({card_str(c) for c in keep if keep.count(c) > p.cards.count(c)})
                raise IllegalAction(f"持っていないカードは残せません: {' '.join(missing)}")
            kept = keep
        elif throw is not None:
            rest = _take(p.cards, throw)
            if rest is None:
                missing = sorted({card_str(c) for c in throw if throw.count(c) > p.cards.count(c)})
                raise IllegalAction(f"持っていないカードは捨てられません: {' '.join(missing)}")
            kept = rest
        else:
            kept = list(p.cards)
        seat = s.table.by_name(p.name)
        assert seat is not None
        bet = p.ante
        if bet > seat.chips:  # pragma: no cover - the ante rule keeps the play bet covered
            raise IllegalAction("追加ベットのチップが足りません")
        seat.chips -= bet
        h.book.stake(p.name, bet)
        p.bet = bet
        # keep exactly the multiset ``kept``, in the order the hand is held
        remaining = list(kept)
        held = list(p.cards)
        p.cards = []
        for c in held:
            if c in remaining:
                remaining.remove(c)
                p.cards.append(c)
        p.status = "played"
        n = 5 - len(kept)
        out: list[Event] = [
            ActionEvent(player=p.name, action="play", amount=bet),
            Say(
                to="room",
                text=f"{p.name}さん 勝負（追加ベット{bet}）: "
                + (f"{n}枚交換" if n else "交換なし")
                + (f"、残す {show(p.cards)}" if p.cards else ""),
            ),
        ]
        return out + self._maybe_resolve(s)

    # --- automatic steps --------------------------------------------------------------------

    def _draw(self, h: _Hand) -> Card:
        if not h.shoe:
            raise IllegalAction("シューのカードが足りません（配られたカードが不足しています）")
        return h.shoe.pop(0)

    def _maybe_deal(self, s: _State) -> list[Event]:
        h = s.hand
        assert h is not None
        if h.phase != "ante" or any(p.status == "ante" for p in h.players):
            return []
        active = [p for p in h.players if p.status == "anted"]
        if not active:  # everyone sat out or was folded before the deal
            return self._settle(s)
        out: list[Event] = []
        for p in active:
            p.cards = list(p.dealt)
            p.held = list(p.dealt)
            p.status = "deciding"
            out.append(Say(to=p.name, text=f"あなたの手札: {show(p.cards)}"))
        kept = self._dealer_way(list(h.dealer))
        if _take(h.dealer, kept) is None:  # pragma: no cover - a strategy bug, not a table state
            raise ValueError(f"dealer strategy kept cards it does not hold: {cards_str(kept)}")
        h.dealer = list(kept)
        out += [
            DealerDiscard(count=5 - len(kept)),
            Say(to="room", text=f"ディーラーは{5 - len(kept)}枚捨てました"),
        ]
        for p in active:
            # the hands are opened in the room (seed ④), so a dealt joker is announced only now
            p.shown = list(p.cards)
            out.append(Say(to="room", text=f"{p.seat}番席 {p.name}さんの手札: {show(p.cards)}"))
            for c in p.cards:
                if c == JOKER:
                    out += self._joker(s, p)
        h.check = 1
        h.queue = [p.name for p in active]
        return out + self._run_checks(s)

    def _new_phase(self, h: _Hand, phase: Literal["check", "decide"]) -> None:
        h.phase = phase
        h.since = None  # the clock of the new phase starts at the next time seen
        h.reminded = False

    def _run_checks(
        self, s: _State, first: Card | None = None, default: bool = False
    ) -> list[Event]:
        """Work through the duplicate check's queue; stop when a player must choose the order.

        ``first``: the card the player at the head of the queue chose to remove first;
        ``default``: remove theirs in the default order (their clock ran out)."""
        h = s.hand
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
                out.append(Say(to="room", text=f"ディーラーのハンド: {show(h.dealer)}"))
            events, waiting = self._dedupe(s, p, h.check, first=first, default=default)
            out += events
            first, default = None, False
            if waiting:
                assert p is not None
                kinds = " ".join(pretty(c) for c in _dup_kinds(p.cards))
                if h.phase != "check":
                    self._new_phase(h, "check")
                out.append(
                    Say(
                        to="room",
                        text=f"{p.name}さん、重複カードが複数あります（{kinds}）。先に取り除くカードを"
                        f"「{card_str(_dup_kinds(p.cards)[0])} を捨てる」のように指定してください",
                    )
                )
                return out
            h.queue.pop(0)
        if h.check == 1:
            self._new_phase(h, "decide")
            out.append(
                Say(
                    to="room",
                    text="勝負なら残すカードか捨てるカードを指定してください"
                    "（アンティと同額を追加ベット）。降りるなら「フォールド」",
                )
            )
            # players forced to fold during the check leave nobody to wait for
            return out + self._maybe_resolve(s)
        return out + self._settle(s)

    def _dedupe(
        self, s: _State, p: _Player | None, check: int, first: Card | None = None,
        default: bool = False,
    ) -> tuple[list[Event], bool]:
        """Remove identical cards one at a time from ``p``'s hand (None: the dealer's).

        Returns the events and whether it stopped for the player to choose which kind goes
        first (several kinds duplicated, ``duplicate_choice`` on, no ``first`` given)."""
        h = s.hand
        assert h is not None
        out: list[Event] = []
        cards = p.cards if p is not None else h.dealer
        who = p.name if p is not None else DEALER
        while True:
            kinds = _dup_kinds(cards)
            if not kinds:
                return out, False
            if first is not None:
                card, first = first, None
            elif p is not None and len(kinds) > 1 and self.rules.duplicate_choice and not default:
                return out, True
            else:
                card = kinds[0]
            # the later copy goes (the first copy keeps its place in the hand)
            i = next(i for i, c in enumerate(cards) if c == card and c in cards[:i])
            new = self._draw(h)
            cards[i] = new
            if p is not None:
                p.held.append(new)
                p.shown = list(cards)
            label = f"{p.name}さん" if p is not None else "ディーラー"
            out += [
                Duplicate(player=who, card=card_str(card), replacement=card_str(new), check=check),
                Say(
                    to="room",
                    text=f"{label}の{pretty(card)}が重複のため取り除かれ、{pretty(new)}が補充されました",
                ),
            ]
            if p is not None:
                payees = [p]
            elif self.rules.dealer_duplicate_bonus == "players":
                payees = [q for q in h.players if q.status == "played"]
            else:
                payees = []
            out += self._to_bonus(s, card, payees)
            if new == JOKER and p is not None:
                out += self._joker(s, p)

    def _to_bonus(self, s: _State, card: Card, payees: list[_Player]) -> list[Event]:
        area = s.bonus
        slot = next((x for x in area if x.card == card), None)
        out: list[Event] = []
        if slot is not None:
            if is_wild(card):
                text = f"{pretty(card)}はボーナスエリアにあります（2にはマーカーなし）"
                out.append(Say(to="room", text=text))
                return out
            slot.markers += 1
            text = f"ボーナスエリアの{pretty(card)}にマーカーが置かれました"
            out.append(Say(to="room", text=text))
        else:
            area.append(_Slot(card))
            out.append(Say(to="room", text=f"ボーナスエリアに{pretty(card)}が置かれました"))
        cards = [x.card for x in area]
        klass = area_class(cards)
        markers = sum(x.markers for x in area)
        if klass is not None:
            mult = self.rules.bonus_table[klass]
            for q in payees:
                amount = pay(q.ante, mult, self.rules.payout_rounding) * 2**markers
                seat = s.table.by_name(q.name)
                assert seat is not None and s.hand is not None
                seat.chips += amount
                s.hand.book.pay(q.name, amount)
                out += [
                    BonusPayout(
                        player=q.name,
                        card=card_str(card),
                        cards=cards_str(cards),
                        klass=klass,
                        multiplier=str(mult),
                        markers=markers,
                        amount=amount,
                    ),
                    Say(
                        to="room",
                        text=f"ボーナスエリアで{_ja(klass)}！ {q.name}さんに"
                        f"{amount}（アンティ×{mult}"
                        + (f"×2^{markers}" if markers else "")
                        + "）",
                    ),
                ]
        while len(area) > self.rules.bonus_area_size:
            area.pop(0)
        out.append(self._area_event(s))
        return out

    def _area_text(self, s: _State) -> str:
        if not s.bonus:
            return "ボーナスエリア: （空）"
        cards = " ".join(pretty(x.card) for x in s.bonus)
        marks = "、".join(f"{pretty(x.card)}×{x.markers}" for x in s.bonus if x.markers)
        return f"ボーナスエリア: {cards}" + (f"（マーカー: {marks}）" if marks else "")

    def _area_event(self, s: _State) -> BonusArea:
        return BonusArea(
            cards=cards_str(x.card for x in s.bonus), markers=[x.markers for x in s.bonus]
        )

    def _joker(self, s: _State, p: _Player) -> list[Event]:
        assert s.hand is not None
        bonus, event = s.table.joker(
            p.name, s.hand.book, ante=p.ante, bets=p.bet, last_slot=self.last_slot,
            multipliers=self.rules.joker, rounding=self.rules.payout_rounding,
        )
        text = f"{p.name}さんがジョーカーを引きました！ {bonus.payout}を配当"
        if bonus.restore:
            text += f"（ラス枠: 着席時のチップに戻す{bonus.restore}を含む）"
        elif bonus.extra:
            text += "（ラス枠: 計5倍）"
        return [event, Say(to="room", text=text)]

    def _maybe_resolve(self, s: _State) -> list[Event]:
        h = s.hand
        assert h is not None
        if any(p.status == "deciding" for p in h.players):
            return []
        out: list[Event] = []
        playing = sorted((p for p in h.players if p.status == "played"), key=lambda p: p.seat)
        if not playing:  # everyone folded: the dealer is not refilled
            return self._settle(s)
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
            out.append(Say(to=q.name, text=f"補充: {pretty(c)}"))
            if c == JOKER:
                jokers[who] = jokers.get(who, 0) + 1
        checked = [p for p in h.players if p.status == "played"]  # from the button
        for p in checked:
            p.shown = list(p.cards)
            out.append(Say(to="room", text=f"{p.name}さんのハンド: {show(p.cards)}"))
            for _ in range(jokers.get(p.name, 0)):
                out += self._joker(s, p)
        h.check = 2
        h.queue = [p.name for p in checked] + [DEALER]
        return out + self._run_checks(s)

    def _settle(self, s: _State) -> list[Event]:
        h = s.hand
        assert h is not None
        out: list[Event] = []
        playing = [p for p in h.players if p.status == "played"]
        qualified = False
        dclass = ""
        dvalue: object = None
        if playing:
            dclass, dvalue = _evaluate(h.dealer)
            qualified = _order(dclass) <= _order(self.rules.dealer_qualify)
            out.append(Showdown(player=DEALER, cards=cards_str(h.dealer), klass=dclass))
            if qualified:
                out.append(Say(to="room", text=f"ディーラーは{_ja(dclass)}です"))
            else:
                out.append(
                    Say(
                        to="room",
                        text=f"ディーラーはフォールドです（{_ja(dclass)}: "
                        f"{show(h.dealer)}）",
                    )
                )
        results: list[Event] = []
        rnd = self.rules.payout_rounding
        for p in sorted(h.players, key=lambda p: p.seat):
            if p.status == "folded":
                results.append(Settle(player=p.name, result="fold", payout=0))
                continue
            if p.status != "played":
                continue
            pclass, pvalue = _evaluate(p.cards)
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
            seat = s.table.by_name(p.name)
            assert seat is not None
            seat.chips += payout
            h.book.pay(p.name, payout)
            results += [
                Settle(player=p.name, result=result, payout=payout),
                Say(
                    to="room",
                    text=f"{p.name}さん {_ja(pclass)} {_RESULT_JA[result]}: {payout}",
                ),
            ]
        return out + self._finish(s, results)

    def _finish(self, s: _State, results: list[Event]) -> list[Event]:
        h = s.hand
        assert h is not None
        s.hand = None
        return [*results, *s.table.close_hand(h.number, h.book)]

    # --- the clock ----------------------------------------------------------------------------

    def tick(self, now: float) -> list[Event]:
        """The action clock (``[clock]`` of the definition): after ``remind_after`` seconds in a
        phase the players still awaited are reminded once; after ``act_after`` a player who has
        not anted sits the hand out and one who has not decided folds."""
        s = self._copy()
        h = s.hand
        if h is None:
            return []
        clock = self.definition.clock
        if h.since is None:
            h.since = now
            self._commit(s)
            return []
        waited = now - h.since
        if h.phase == "check":
            late = [p for p in h.players if p.name == h.queue[0]]
        else:
            status = "ante" if h.phase == "ante" else "deciding"
            late = [p for p in h.players if p.status == status]
        if not late:
            return []
        names = "、".join(f"{p.name}さん" for p in late)
        out: list[Event] = []
        if clock.act_after and waited >= clock.act_after:
            if h.phase == "check":
                text = f"時間切れのため{names}の重複カードは順に取り除きます"
                out.append(Say(to="room", text=text))
                out += self._run_checks(s, default=True)
            elif h.phase == "ante":
                for p in late:
                    p.status = "out"
                out.append(Say(to="room", text=f"時間切れのため{names}はこのハンドを見送ります"))
                out += self._maybe_deal(s)
            else:
                for p in late:
                    p.status = "folded"
                    out.append(ActionEvent(player=p.name, action="fold"))
                out.append(Say(to="room", text=f"時間切れのため{names}はフォールドです"))
                out += self._maybe_resolve(s)
            if s.hand is not None and s.hand.since is None:
                s.hand.since = now
        elif clock.remind_after and waited >= clock.remind_after and not h.reminded:
            h.reminded = True
            what = {
                "ante": "アンティ", "check": "先に取り除く重複カードの指定",
                "decide": "勝負かフォールドの宣言",
            }[h.phase]
            out.append(Say(to="room", text=f"{names}、{what}をお願いします"))
        self._commit(s)
        return out

    # --- operations ---------------------------------------------------------------------------

    def dealing_mistake(self, kind: str, player: str | None = None) -> list[Event]:
        if kind not in ("nogame", "misdeal", "exposed"):
            raise IllegalAction(f"不明な手続きです: {kind}")
        s = self._copy()
        h = s.hand
        if h is None:
            raise IllegalAction("進行中のハンドがありません")
        if player is not None and h.get(player) is None:
            raise IllegalAction(f"{player}さんはこのハンドに参加していません")
        out: list[Event] = []
        m = self.rules.mistake_payout
        rnd = self.rules.payout_rounding
        if h.phase == "ante":
            text = "配る前のため、このハンドは中止です。アンティを返却します"
            out.append(Say(to="room", text=text))
        else:
            out.append(
                Say(
                    to="room",
                    text="ディーリングミスのためゲームを中断し、保障配当"
                    f"（アンティ×{m['ante']}、追加ベット×{m['play']}）を行います",
                )
            )
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
            seat = s.table.by_name(p.name)
            assert seat is not None
            seat.chips += total
            h.book.pay(p.name, total)
            out.append(Compensation(player=p.name, payout=total, bets=bets))
        out += self._finish(s, [])
        self._commit(s)
        return out

    def force_fold(self, player: str) -> list[Event]:
        s = self._copy()
        out = self._force_fold(s, player)
        self._commit(s)
        return out

    def _force_fold(self, s: _State, player: str) -> list[Event]:
        """Fold ``player`` now (penalties): before the ante they sit the hand out, after it the
        ante is lost; a player who already played keeps their hand (nothing left to fold)."""
        h = s.hand
        p = h.get(player) if h else None
        if h is None or p is None or p.status in ("out", "folded"):
            raise IllegalAction(f"{player}さんはこのハンドでフォールドできる状態にありません")
        if p.status == "played":
            raise IllegalAction(f"{player}さんはすでに勝負を宣言しています")
        out: list[Event] = []
        if h.phase == "check" and h.queue and h.queue[0] == player:
            # they were choosing the order of their duplicates: the default order, then the fold
            out += self._run_checks(s, default=True)
            if s.hand is None:  # pragma: no cover - check 1 never ends the hand by itself
                return out
        elif h.phase == "check" and player in h.queue:
            h.queue.remove(player)
        if p.status == "ante":
            p.status = "out"
            out.append(Say(to="room", text=f"{player}さんはこのハンドに参加できません"))
        else:
            p.status = "folded"
            out += [
                ActionEvent(player=player, action="fold"),
                Say(to="room", text=f"{player}さんは強制フォールドです（アンティ没収）"),
            ]
        if h.phase == "ante":
            return out + self._maybe_deal(s)
        if h.phase == "decide":
            return out + self._maybe_resolve(s)
        return out

    def remove(self, player: str) -> list[Event]:
        """Stand ``player`` up now (a penalty). Whatever they staked this hand is forfeit to the
        house: they are folded (even after playing) and get no dealing-mistake guarantee."""
        s = self._copy()
        if s.table.by_name(player) is None:
            raise IllegalAction(f"{player}さんは着席していません")
        out: list[Event] = []
        h = s.hand
        hp = h.get(player) if h else None
        if hp is not None and hp.status in ("ante", "anted", "deciding"):
            out += self._force_fold(s, player)
        elif hp is not None and hp.status == "played":
            out += self._forfeit(s, hp)
        h = s.hand
        hp = h.get(player) if h else None
        if h is not None and hp is not None:
            if hp.status == "out":
                h.players.remove(hp)
            else:
                hp.removed = True
        if s.table.by_name(player) is not None:  # not already stood up by a bankruptcy
            out += s.table.stand(player)
        self._commit(s)
        return out

    def _forfeit(self, s: _State, p: _Player) -> list[Event]:
        """Fold ``p``, who already played, for ``remove``: the hand is dead, it is neither
        refilled nor checked; the check (or the hand) goes on without it."""
        h = s.hand
        assert h is not None
        head = h.phase == "check" and bool(h.queue) and h.queue[0] == p.name
        if p.name in h.queue:
            h.queue.remove(p.name)
        p.status = "folded"
        out: list[Event] = [
            ActionEvent(player=p.name, action="fold"),
            Say(to="room", text=f"{p.name}さんは退席処分のためフォールドです（ベット没収）"),
        ]
        if head:
            return out + self._run_checks(s)
        if h.phase == "decide":
            return out + self._maybe_resolve(s)
        return out
