"""Pot-limit Omaha ring game (docs/rules.md `omaha`, seeds/omaha-ring.txt): a pure state machine.

Money is handled by :mod:`referee.rules.betting` (rounds, legal ranges, side pots); this module
adds seating, the button and blinds, cards, flying actions, showdown order, rake, odd chips, the
hand bonus and the dealing-mistake procedures. Every public method validates before it mutates.

Rulings made here (docs/rules.md is silent or leaves them to the moderator):
- A flying action (FA) is judged as if it were the player's turn at the moment it is declared: a
  raise FA must name a make that would be legal then, and reserves its chips; a call FA reserves
  the call; a fold FA folds at once. A second FA while one is pending is counted (towards the third
  FA) but the first declaration stands. A "call" with nothing to call means check.
- An all-in FA folds the player at once; half their stack goes into the main pot as dead money and
  half returns (the returned half rounded up, ``allin_fa_return``).
- The check-FA penalty (one BB, or what the player has left) is dead money in the main pot.
- Reserved FA chips of a player folded by a penalty or the third FA stay in the pot (dead money).
- World rules, newcomers: a player seated after the table's first hand posts a live BB on their
  first hand (in the SB seat, the BB replaces the SB).
- NO GAME: every active player receives the pots they are eligible for; every folded player dealt in
  receives 20% of the whole pot, at most 300 *points* worth of chips (300 × chip multiplier), paid
  by the house. No rake.
- Exposed hand (``!exposed @p``): the house pays that player half the pot (floor) at the end of the
  hand; their cards stay face up. Exposed board card (``!exposed``): the next board card is shown
  and burned, replaced by the next card of the deal's shoe.
- After everyone else folds the pot is awarded at once; the winner may still OPEN (all or some
  cards) or CLOSE until the next hand starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from referee.actions import Parsed
from referee.cards import Card, card_str, cards_str, parse_card, pretty
from referee.definitions import GameDefinition, OmahaRules
from referee.events import (
    ActionEvent,
    Eliminated,
    Event,
    FlyingAction,
    HandEnd,
    HandStart,
    Leave,
    LevelUp,
    Penalty,
    Pot,
    Rake,
    Say,
    TournamentEnd,
)
from referee.hands import NAMES, class_of, omaha_key
from referee.lang.catalog import text as msg
from referee.rules.base import (
    BuyIn,
    Deal,
    DealPlan,
    Decision,
    Engine,
    IllegalAction,
    OptionError,
    SeatState,
)
from referee.rules.betting import Betting, Limit, Options, Seat
from referee.rules.tournament import Tournament, TournamentOptions, parse_payouts

STREET_NAMES = ("プリフロップ", "フロップ", "ターン", "リバー")
CLASS_JA = NAMES["omaha"]  # the seed's names, as `referee hand` prints them

BOARD_WORDS = ("board", "ボード", "card", "カード")


_PRETTY = tuple(pretty(Card(c)) for c in range(53))  # every card's display, computed once


def _cards(cs: list[Card]) -> str:
    return " ".join([_PRETTY[c] for c in cs])


class OmahaEvent(Event):
    """Engine-specific events (tests ignore kinds they do not know)."""


_set = object.__setattr__


def _fast_say(to: str, text: str) -> Say:
    """``_say(to=to, text=text)`` built without pydantic's validator (the engine passes plain
    str): the same object for a third of the cost -- tens are built per hand."""
    ev = Say.__new__(Say)
    _set(ev, "__dict__", {"event": "say", "to": to, "text": text})
    _set(ev, "__pydantic_fields_set__", {"to", "text"})
    _set(ev, "__pydantic_extra__", {})
    _set(ev, "__pydantic_private__", None)
    return ev


def _slow_say(to: str, text: str) -> Say:
    return Say(to=to, text=text)


def _fast_action(player: str, action: str, paid: int | None = None, to: int = 0) -> ActionEvent:
    """``ActionEvent(player=, action=)``, or with ``amount=paid, to=to`` when ``paid`` is
    given, built like :func:`_fast_say` (one per action)."""
    ev = ActionEvent.__new__(ActionEvent)
    if paid is None:
        _set(ev, "__dict__", {"event": "action", "player": player, "action": action,
                              "amount": 0, "to": None})
        _set(ev, "__pydantic_fields_set__", {"player", "action"})
    else:
        _set(ev, "__dict__", {"event": "action", "player": player, "action": action,
                              "amount": paid, "to": to})
        _set(ev, "__pydantic_fields_set__", {"player", "action", "amount", "to"})
    _set(ev, "__pydantic_extra__", {})
    _set(ev, "__pydantic_private__", None)
    return ev


def _slow_action(player: str, action: str, paid: int | None = None, to: int = 0) -> ActionEvent:
    if paid is None:
        return ActionEvent(player=player, action=action)
    return ActionEvent(player=player, action=action, amount=paid, to=to)


def _same(a: Event, b: Event) -> bool:
    return (a == b and a.__dict__ == b.__dict__ and a.__pydantic_extra__ == b.__pydantic_extra__
            and a.__pydantic_fields_set__ == b.__pydantic_fields_set__
            and a.__pydantic_private__ == b.__pydantic_private__)


# Should pydantic's internals ever change, the validated constructors are used instead.
_FAST = (_same(_fast_say("room", "x"), Say(to="room", text="x"))
         and _same(_fast_action("a", "fold"), ActionEvent(player="a", action="fold"))
         and _same(_fast_action("a", "call", 5, 9),
                   ActionEvent(player="a", action="call", amount=5, to=9)))
_say = _fast_say if _FAST else _slow_say
_action = _fast_action if _FAST else _slow_action


@dataclass(slots=True)
class _Sitter:
    seat: int
    name: str
    chips: int
    fa_count: int = 0
    bonus: int = 0  # hand bonus points earned this seating, credited on leaving
    newcomer: bool = False
    leaving: bool = False


@dataclass(slots=True)
class _FA:
    kind: str  # "check" | "call" | "raise"
    to: int  # raise: the make; call: the bet it called
    chips: int  # reserved (not yet in the betting stack accounting)


@dataclass(slots=True)
class _Player:
    name: str
    seat: int
    idx: int  # index in Betting.seats (clockwise from the button's left)
    hole: list[Card]
    fa: _FA | None = None
    reserved: int = 0  # chips a voided (β) FA left in: they count towards the next action
    restrict: str | None = None  # "call_or_fold" | "raise_or_fold" after a β flying action
    shown: list[Card] = field(default_factory=list)
    opened: bool = False
    mucked: bool = False
    removed: bool = False
    credit: int = 0  # house payments due at the end of the hand (exposed hand)
    dead: int = 0  # penalty chips this player put into the dead money this hand (misdeal rewind)


def _parse_options(rules: OmahaRules, options: dict[str, str]) -> dict[str, Any]:
    t = rules.tournament
    out: dict[str, Any] = {
        "rules": rules.rules, "level": rules.level, "limit": rules.limit,
        "ante": rules.ante, "equal": rules.equal, "maxbuyin": rules.max_buyin,
        "tournament": False, "stack": t.stack, "entry": t.entry,
        "level_hands": t.level_hands, "level_minutes": t.level_minutes,
        "payouts": tuple(t.payouts),
    }
    onoff = {"on": True, "off": False, "true": True, "false": False, "1": True, "0": False}
    counts = {"maxbuyin": 0, "stack": 1, "entry": 0, "level_hands": 0, "level_minutes": 0}
    given = set(options)
    for key, raw in options.items():
        val = str(raw).strip().lower()
        if key in counts:
            if not val.isdigit() or int(val) < counts[key]:
                raise OptionError(f"{key} は {counts[key]} 以上の整数です（指定: {raw}）")
            out[key] = int(val)
            if key == "level_hands":
                out["level_minutes"] = 0 if "level_minutes" not in given else out["level_minutes"]
            elif key == "level_minutes":
                out["level_hands"] = 0 if "level_hands" not in given else out["level_hands"]
        elif key == "payouts":
            out["payouts"] = parse_payouts(str(raw))
        elif key == "tournament":
            if val not in onoff:
                raise OptionError(f"tournament は on か off です（指定: {raw}）")
            out["tournament"] = onoff[val]
        elif key == "rules":
            if val not in ("loj", "world"):
                raise OptionError(f"rules は loj か world です（指定: {raw}）")
            out["rules"] = val
        elif key == "level":
            if not val.isdigit() or not 1 <= int(val) <= len(rules.levels):
                raise OptionError(f"level は 1〜{len(rules.levels)} です（指定: {raw}）")
            out["level"] = int(val)
        elif key == "limit":
            if val not in ("pot", "no", "fixed"):
                raise OptionError(f"limit は pot / no / fixed です（指定: {raw}）")
            out["limit"] = val
        elif key in ("ante", "equal"):
            if val not in onoff:
                raise OptionError(f"{key} は on か off です（指定: {raw}）")
            out[key] = onoff[val]
        else:
            raise OptionError(f"omaha のテーブルに {key} という設定はありません")
    tour_only = given & {"stack", "entry", "level_hands", "level_minutes", "payouts"}
    if not out["tournament"] and tour_only:
        raise OptionError(f"{sorted(tour_only)[0]} はトーナメント（tournament=on）の設定です")
    if out["tournament"] and "maxbuyin" in given:
        raise OptionError("トーナメントに maxbuyin は指定できません")
    if out["tournament"] and out["level_hands"] and out["level_minutes"]:
        raise OptionError("level_hands と level_minutes はどちらか一方を指定してください")
    return out


class OmahaEngine(Engine):

    deal_plan = DealPlan(4, board=5)
    game = "omaha"

    def __init__(self, definition: GameDefinition, options: dict[str, str]) -> None:
        super().__init__(definition, options)
        if definition.omaha is None:
            raise OptionError("omaha の定義がありません")
        self.rules: OmahaRules = definition.omaha
        opts = _parse_options(self.rules, self.options)
        self.world: bool = opts["rules"] == "world"
        self.limit: Limit = opts["limit"]
        self.ante_on: bool = opts["ante"]
        self.equal: bool = opts["equal"]
        lv = self.rules.levels[opts["level"] - 1]
        self.sb, self.bb = lv.sb, lv.bb
        self.ante = lv.ante if self.ante_on else 0
        self.max_seats = definition.seats.max
        self.fa_limit = definition.penalties.flying_action_limit
        self.mult = 1 if self.equal else self.rules.chip_multiplier
        self.max_buyin: int = 0 if opts["tournament"] else opts["maxbuyin"]
        self.tourney: Tournament | None = None
        if opts["tournament"]:
            self.tourney = Tournament(
                TournamentOptions(opts["stack"], opts["entry"], opts["level_hands"] or None,
                                  opts["level_minutes"] or None, opts["payouts"]),
                levels=list(self.rules.levels), start_level=opts["level"],
            )
        self._start_stacks: dict[str, int] = {}
        self.sitters: dict[int, _Sitter] = {}
        self._order: list[_Sitter] | None = None
        self.by_name: dict[str, _Sitter] = {}
        self.button: int | None = None
        self._button_set = False
        self.total_rake = 0
        self.house_paid = 0  # LOJ top-ups and compensations, for the conservation checks
        self._clear_hand()
        self._now: float | None = None
        self._turn_since: float | None = None
        self._reminded = False

    # --- helpers -------------------------------------------------------------------------
    def _clear_hand(self) -> None:
        self.phase = "idle"  # idle | betting | showdown | over
        self.players: list[_Player] = []
        self.pmap: dict[str, _Player] = {}
        self.bet: Betting | None = None
        self.board: list[Card] = []
        self.spare: list[Card] = []
        self.shown_board = 0
        self.street = 0
        self.aggressor: int | None = None
        self.flop_seen = False
        self.sd_queue: list[int] = []
        self.winner_after_fold: str | None = None
        self._snapshot: list[tuple[int, int, int, bool]] = []
        self._snap_money: tuple[int, int, int] = (0, 0, 0)
        self._first_idx = 0
        self._keys: dict[int, int] = {}

    def _b(self) -> Betting:
        assert self.bet is not None
        return self.bet

    def _seat_of(self, name: str) -> _Sitter:
        s = self.by_name.get(name)
        if s is None:
            raise IllegalAction(f"{name} さんは着席していません")
        return s

    def to_points(self, chips: int) -> int:
        """Play chips back to bank points (÷10 rounded up, or as-is at an equal-value table)."""
        if self.mult == 1:
            return chips
        if self.rules.leave_rounding == "up":
            return -(-chips // self.mult)
        return chips // self.mult

    def buy_in_chips(self, bank_points: int) -> int:
        if bank_points < 0:
            raise IllegalAction("ポイントが足りません")
        return bank_points * self.mult

    def buy_in(self, bank_points: int) -> BuyIn:
        """Ring: every point, or at most the max buy-in (the rest stays in the bank), ×10.
        Tournament: the entry fee into the prize pool, for the starting stack."""
        t = self.tourney
        if t is not None:
            if t.started:
                raise IllegalAction("トーナメントはすでに始まっています（途中参加はできません）")
            if bank_points < t.options.entry:
                raise IllegalAction(
                    f"エントリー費 {t.options.entry:,}P に足りません（バンク {bank_points:,}P）"
                )
            return BuyIn(t.options.entry, t.options.stack, "entry")
        points = min(bank_points, self.max_buyin) if self.max_buyin else bank_points
        return BuyIn(points, self.buy_in_chips(points))

    # --- seating ---------------------------------------------------------------------------
    def sit(self, seat: int, name: str, chips: int, npc: bool = False) -> list[Event]:
        if npc:
            raise IllegalAction("オマハにNPCはいません")
        if not 1 <= seat <= self.max_seats:
            raise IllegalAction(f"席は 1〜{self.max_seats} 番です")
        if seat in self.sitters:
            raise IllegalAction(f"{seat}番席は埋まっています")
        if name in self.by_name:
            raise IllegalAction(f"{name} さんはすでに着席しています")
        if chips <= 0:
            raise IllegalAction("チップがありません（破産しています）")
        t = self.tourney
        if t is not None and t.started:
            raise IllegalAction("トーナメントはすでに始まっています（途中参加はできません）")
        s = _Sitter(seat, name, chips, newcomer=self.world and self.hand_no > 0 and t is None)
        if t is not None:
            t.entrants.append(name)
        self.sitters[seat] = s
        self.by_name[name] = s
        self._order = None
        return [_say(to="room", text=f"{name} さんが {seat}番席に着席しました（{chips}）")]

    def _leave_event(self, s: _Sitter, chips: int) -> list[Event]:
        del self.sitters[s.seat]
        del self.by_name[s.name]
        self._order = None
        t = self.tourney
        if t is None:
            bank = self.to_points(chips) + s.bonus
        elif not t.started:  # an entrant who leaves before the first hand: the entry back
            t.entrants.remove(s.name)
            bank = t.options.entry + s.bonus
        else:  # tournament chips are worth nothing in the bank
            bank = s.bonus
        return [
            Leave(player=s.name, chips=chips, bank=bank),
            _say(to="room", text=f"{s.name} さんが退席しました（{chips} → バンク {bank}）"),
        ]

    def leave(self, name: str) -> list[Event]:
        s = self._seat_of(name)
        t = self.tourney
        if t is not None and t.started and not t.finished:
            raise IllegalAction("トーナメント中は退席できません（チップがなくなると敗退です）")
        if self.phase in ("betting", "showdown") and name in self.pmap and not self.pmap[
            name
        ].removed:
            s.leaving = True
            return [_say(to="room", text=f"{name} さんはこのハンドの後に退席します")]
        return self._leave_event(s, s.chips)

    def set_button(self, seat: int) -> None:
        if not 1 <= seat <= self.max_seats:
            raise IllegalAction(f"席は 1〜{self.max_seats} 番です")
        if self.in_hand:
            raise IllegalAction("ハンド中はボタンを動かせません")
        self.button = seat
        self._button_set = True

    # --- queries -------------------------------------------------------------------------------
    @property
    def in_hand(self) -> bool:
        return self.phase in ("betting", "showdown")

    def at_showdown(self) -> bool:
        return self.phase == "showdown"

    def stakes(self) -> dict[str, int]:
        return {"sb": self.sb, "bb": self.bb, "ante": self.ante}

    def history_seats(self) -> list[SeatState]:
        return [s for s in self.seated() if self.in_this_hand(s.name)]

    def stacks(self) -> dict[str, int]:
        order = self._seat_order()
        bet = self.bet
        if bet is None or self.phase not in ("betting", "showdown"):
            return {s.name: s.chips for s in order}
        out: dict[str, int] = {}
        pmap = self.pmap
        for s in order:
            p = pmap.get(s.name)
            out[s.name] = s.chips if p is None else bet.seats[p.idx].stack - p.reserved
        return out

    def is_seated(self, name: str) -> bool:
        return name in self.by_name

    def _seat_order(self) -> list[_Sitter]:
        """Seated players in seat order (cached: the service asks on every message)."""
        if self._order is None:
            self._order = [self.sitters[k] for k in sorted(self.sitters)]
        return self._order

    def seated(self) -> list[SeatState]:
        st = self.stacks()
        return [SeatState(s.seat, s.name, st[s.name]) for s in self._seat_order()]

    def to_act(self) -> str | None:
        if self.phase == "betting":
            b = self.bet
            assert b is not None
            return self.players[b.actors[0]].name if b.actors else None
        if self.phase == "showdown" and self.sd_queue:
            return self.players[self.sd_queue[0]].name
        return None

    def decision(self, player: str) -> Decision | None:
        if self.phase == "over":
            return "after_fold" if player == self.winner_after_fold else None
        if self.to_act() != player:
            return None
        return "bet" if self.phase == "betting" else "showdown"

    def holdings(self, player: str) -> list[Card]:
        p = self.pmap.get(player)
        return list(p.hole) if p else []

    def shown(self, player: str) -> list[Card]:
        p = self.pmap.get(player)
        return list(p.shown) if p else []

    def board_cards(self) -> list[Card]:
        return self.board[: self.shown_board]

    def options_for(self, player: str) -> Options:
        """The legal range of ``player`` now (tests, the lock-step check, help messages)."""
        p = self.pmap[player]
        return self._b().options(p.idx)

    # --- the hand ---------------------------------------------------------------------------
    def _next_seat(self, seat: int, eligible: list[int]) -> int:
        for k in range(1, self.max_seats + 1):
            cand = (seat - 1 + k) % self.max_seats + 1
            if cand in eligible:
                return cand
        raise AssertionError("no eligible seat")

    def start_hand(self, deal: Deal) -> list[Event]:
        if self.in_hand:
            raise IllegalAction("ハンドが進行中です")
        ready = sorted(seat for seat, s in self.sitters.items() if s.chips > 0)
        if len(ready) < 2:
            raise IllegalAction("プレイヤーが2人以上必要です")
        if self._button_set and self.button is not None:
            button = self.button if self.button in ready else self._next_seat(self.button, ready)
        elif self.button is None:
            start = 1 if self.rules.button_start == "seat1" else ready[0]
            button = start if start in ready else self._next_seat(start, ready)
        else:
            button = self._next_seat(self.button, ready)
        # clockwise from the button's left (``ready`` is sorted; the button, if ready, is last)
        order = [s for s in ready if s > button] + [s for s in ready if s <= button]
        names = [self.sitters[s].name for s in order]
        # validate the deal before touching anything
        for nm in deal.hands:
            if nm not in self.by_name:
                raise IllegalAction(f"配札に着席していない {nm} さんがいます")
        for nm in names:
            if len(deal.hands.get(nm, [])) != 4:
                raise IllegalAction(f"{nm} さんの手札は4枚必要です")
        if len(deal.board) + len(deal.shoe) < 5:
            raise IllegalAction("ボードのカードが足りません（5枚必要です）")
        used = [c for nm in names for c in deal.hands[nm]] + list(deal.board) + list(deal.shoe)
        if len(set(used)) != len(used) or min(used) < 0 or max(used) > 51:
            raise IllegalAction("配札に重複または不正なカードがあります")

        self._clear_hand()
        events: list[Event] = []
        t = self.tourney
        if t is not None:
            events.extend(self._tournament_hand(t))
        self._start_stacks = {self.sitters[s].name: self.sitters[s].chips for s in order}
        self.hand_no += 1
        self.button = button
        self._button_set = False
        self.board = list(deal.board)
        self.spare = list(deal.shoe)
        while len(self.board) < 5:
            self.board.append(self.spare.pop(0))
        self.players = [
            _Player(nm, order[i], i, list(deal.hands[nm])) for i, nm in enumerate(names)
        ]
        self.pmap = {p.name: p for p in self.players}
        n = len(self.players)
        seats = [Seat(self.sitters[s].chips) for s in order]
        bet = Betting(seats, self.bb, self.limit)
        self.bet = bet
        events.insert(0, HandStart(hand=self.hand_no, button=button))
        posts: list[str] = []
        if self.ante:
            for i in range(n):
                bet.post(i, self.ante, live=False)
            posts.append(f"アンティ {self.ante}")
        if n == 2:
            sb_i, bb_i = 1, 0  # heads-up: the button posts the SB and acts first preflop
        else:
            sb_i, bb_i = 0, 1
        blinds: list[tuple[int, str]] = []  # announced SB first, then BB (heads-up too)
        for i, p in enumerate(self.players):
            sitter = self.sitters[p.seat]
            if i == bb_i:
                paid = bet.post(i, self.bb)
                blinds.append((1, f"BB {p.name} {paid}"))
            elif sitter.newcomer:
                paid = bet.post(i, self.bb)
                blinds.append((2, f"BB（途中参加） {p.name} {paid}"))
            elif i == sb_i:
                paid = bet.post(i, self.sb)
                blinds.append((0, f"SB {p.name} {paid}"))
            sitter.newcomer = False
        posts += [t for _, t in sorted(blinds, key=lambda b: b[0])]
        self.phase = "betting"
        self.street = 0
        self._first_idx = (bb_i + 1) % n
        bet.start_round(self._first_idx, 0, facing=self.bb)
        self._snapshot = [(s.stack, s.bet, s.committed, s.folded) for s in bet.seats]
        self._snap_money = (bet.collected, bet.dead, bet.max_bet)
        btn_name = self.sitters[button].name
        events.append(_say(
            to="room",
            text=f"ハンド#{self.hand_no} 開始 ボタン: {button}番 {btn_name} / " + " / ".join(posts),
        ))
        for p in self.players:
            text = f"ハンド#{self.hand_no} あなたの手札: {_cards(p.hole)}"
            events.append(_say(to=p.name, text=text))
        # the first clock reading after the deal starts the turn (a deal carries no time, and
        # the previous message's time could be long ago)
        self._turn_since = None
        self._reminded = False
        events.extend(self._advance())
        return events

    # --- resolving the player's intent ----------------------------------------------------------
    def _resolve(self, p: _Player, a: Parsed) -> tuple[str, int]:
        """Turn a parsed betting action into ("fold"|"check"|"call"|"raise", make) or refuse."""
        b = self.bet
        assert b is not None
        s = b.seats[p.idx]
        o = b.options(p.idx)
        name = a.action
        if name == "fold":
            return "fold", 0
        if name == "check":
            if o.call > 0:
                raise IllegalAction(
                    f"ベットがあるのでチェックできません（コール {o.call} かフォールド）"
                )
            return "check", 0
        if name == "call":
            return ("call", 0) if o.call > 0 else ("check", 0)
        allin_to = s.stack + s.bet
        word = "メイク" if b.max_bet > 0 else "ベット"
        if name == "allin":
            if s.stack <= o.call:
                return "call", 0
            if o.can_raise:
                if allin_to > o.max_to:
                    if self.rules.oversize_allin == "max_raise":
                        return "raise", o.max_to
                    raise IllegalAction(
                        f"オールイン（{allin_to}）は上限を超えています。"
                        f"{word}は最大 {o.max_to} です"
                    )
                return "raise", allin_to
            if o.no_raise_reason in ("covered", "no_opponent") and o.call > 0:
                return "call", 0
            if o.call == 0:
                raise IllegalAction("ここではオールインできません（チェックかフォールド）")
            raise IllegalAction(f"ここではレイズできません（コール {o.call} かフォールド）")
        if name in ("bet", "raise"):
            if a.pot:
                if not o.can_raise:
                    raise IllegalAction(self._no_raise_text(o))
                return "raise", o.max_to
            to = a.to if a.to is not None else a.amount
            if to is None:
                example = f"{word}{max(o.min_to, self.bb)}"
                raise IllegalAction(f"{word}額を指定してください（例: {example}）")
            if not o.can_raise:
                raise IllegalAction(self._no_raise_text(o))
            if to == allin_to and o.min_to <= to <= o.max_to:
                return "raise", to
            if not o.min_to <= to <= o.max_to:
                if o.min_to == o.max_to:
                    raise IllegalAction(f"{word}は {o.min_to} で宣言してください")
                raise IllegalAction(f"{word}は {o.min_to}〜{o.max_to} の範囲で宣言してください")
            return "raise", to
        raise IllegalAction("今はそのアクションはできません")

    @staticmethod
    def _no_raise_text(o: Options) -> str:
        if o.call == 0:
            return "ここではベットできません（チェックかフォールド）"
        return f"ここではレイズできません（コール {o.call} かフォールド）"

    def _apply(self, p: _Player, kind: str, to: int) -> list[Event]:
        b = self.bet
        assert b is not None
        if kind == "fold":
            self._commit_reserve(p)
            b.fold(p.idx)
            return [_action(p.name, "fold")]
        p.reserved = 0  # a call or a raise puts in at least the reserved chips
        if kind == "check":
            b.check_call(p.idx)
            return [_action(p.name, "check")]
        if kind == "call":
            paid = b.check_call(p.idx)
            act = "allin" if b.seats[p.idx].stack == 0 else "call"
            return [_action(p.name, act, paid, b.seats[p.idx].bet)]
        before = b.max_bet
        paid = b.raise_to(p.idx, to)
        self.aggressor = p.idx
        if b.seats[p.idx].stack == 0:
            act = "allin"
        else:
            act = "raise" if before > 0 else "bet"
        return [_action(p.name, act, paid, to)]

    # --- act ------------------------------------------------------------------------------------
    def act(self, player: str, action: Parsed, now: float | None = None) -> list[Event]:
        if now is not None:
            self._now = now
        if action.kind != "action" or action.action is None:
            raise IllegalAction("アクションではありません")
        name = action.action
        sitter = self._seat_of(player)
        p = self.pmap.get(player)
        if self.phase == "over" and name in ("open", "close") and player == self.winner_after_fold:
            return self._post_hand_show(sitter, p, action)
        if not self.in_hand:
            raise IllegalAction("ハンド中ではありません")
        if p is None or p.removed:
            raise IllegalAction("このハンドに参加していません")
        b = self.bet
        assert b is not None
        seat = b.seats[p.idx]
        if seat.folded:
            raise IllegalAction("すでにフォールドしています")
        if self.phase == "showdown":
            return self._showdown_act(p, action)
        if name in ("open", "muck", "close"):
            raise IllegalAction("ショーダウンではありません")
        if name not in ("fold", "check", "call", "bet", "raise", "allin"):
            raise IllegalAction("オマハにはないアクションです")
        if seat.stack == 0:
            raise IllegalAction("オールイン済みです")
        if b.to_act() != p.idx:
            return self._flying(p, action)
        show = self._fold_cards(p, action) if name == "fold" else []
        kind, to = self._resolve(p, action)
        if p.restrict == "call_or_fold" and kind not in ("fold", "call"):
            raise IllegalAction(f"コール {b.options(p.idx).call} かフォールドしてください")
        if p.restrict == "raise_or_fold" and kind not in ("fold", "raise"):
            o = b.options(p.idx)
            raise IllegalAction(
                f"メイク {o.min_to}〜{o.max_to} でレイズするかフォールドしてください"
            )
        p.restrict = None
        events = self._apply(p, kind, to)
        if show:
            p.shown = show
            events.append(_say("room", f"{p.name} さんがフォールドして公開: {_cards(show)}"))
        self._turn_since = self._now
        self._reminded = False
        events.extend(self._advance())
        return events

    def _fold_cards(self, p: _Player, action: Parsed) -> list[Card]:
        if not action.cards:
            return []
        try:
            cards = [parse_card(c) for c in action.cards]
        except ValueError as e:
            raise IllegalAction(str(e)) from None
        hole = list(p.hole)
        for c in cards:
            if c not in hole:
                raise IllegalAction("公開するカードが手札と一致しません")  # names no card
            hole.remove(c)
        return cards

    # --- flying actions ----------------------------------------------------------------------
    def _flying(self, p: _Player, action: Parsed) -> list[Event]:
        b = self.bet
        assert b is not None
        sitter = self.sitters[p.seat]
        name = action.action
        pending = p.fa is not None
        resolved: tuple[str, int] | None = None
        if not pending and name == "check":
            resolved = ("check", 0)  # accepted even facing a bet: β3 judges it at the turn
        elif not pending and name == "call":
            resolved = ("call", 0) if b.options(p.idx).call > 0 else ("check", 0)
        elif not pending and name not in ("allin", "fold"):
            resolved = self._resolve(p, action)  # refuses malformed/out-of-range declarations
        sitter.fa_count += 1
        events: list[Event] = [FlyingAction(player=p.name, action=name, count=sitter.fa_count)]
        if sitter.fa_count >= self.fa_limit:
            events.append(Penalty(player=p.name, kind="flying_action_limit"))
            events.append(_say(
                to="room",
                text=f"{p.name} さんはフライングアクション{sitter.fa_count}回目のため、"
                "フォールド扱いで強制退席です",
            ))
            events.extend(self._fold_now(p))
            events.extend(self._remove_now(p))
            events.extend(self._advance())
            return events
        if pending:
            text = f"{p.name} さんのフライングアクションは最初の宣言が有効です"
            events.append(_say(to="room", text=text))
            return events
        if name == "allin":
            s = b.seats[p.idx]
            half = s.stack // 2 if self.rules.allin_fa_return == "up" else -(-s.stack // 2)
            self._pay_dead(p, half)
            events.append(Penalty(player=p.name, kind="allin_fa", chips=half))
            events.append(_say(
                to="room",
                text=f"{p.name} さんのオールインのフライングアクションは無効です。"
                f"フォールド扱いとなり、{half} がポットに入ります",
            ))
            events.extend(self._fold_now(p))
            events.extend(self._advance())
            return events
        if name == "fold":
            show = self._fold_cards(p, action)
            events.extend(self._fold_now(p))
            if show:
                p.shown = show
                text = f"{p.name} さんがフォールドして公開: {_cards(show)}"
                events.append(_say(to="room", text=text))
            events.extend(self._advance())
            return events
        assert resolved is not None
        kind, to = resolved
        s = b.seats[p.idx]
        if kind == "check":
            p.fa = _FA("check", b.max_bet, 0)
        elif kind == "call":
            p.fa = _FA("call", b.max_bet, min(s.stack, b.max_bet - s.bet))
        else:
            p.fa = _FA("raise", to, to - s.bet)
        p.reserved = p.fa.chips
        events.append(_say(
            to="room",
            text=f"{p.name} さんのフライングアクション（{sitter.fa_count}回目）を記録しました。"
            "順番が来たときに適用します",
        ))
        return events

    def _resolve_fa(self, p: _Player) -> list[Event]:
        """The player with a pending FA is now to act: apply it (α) or restrict them (β)."""
        b = self.bet
        assert b is not None
        fa = p.fa
        assert fa is not None
        p.fa = None
        o = b.options(p.idx)
        s = b.seats[p.idx]
        events: list[Event] = []
        if fa.kind == "check":
            if o.call == 0:
                events.append(OmahaEvent(event="fa_applied", player=p.name, action="check"))
                events.append(_say("room", msg("fa_applied", player=p.name,
                                                 action=msg("fa_word_check"))))
                return events + self._apply(p, "check", 0)
            pen = min(self.bb, s.stack)
            self._pay_dead(p, pen)
            p.restrict = "call_or_fold"
            events.append(Penalty(player=p.name, kind="check_fa", chips=pen))
            events.append(_say(
                to="room",
                text=f"{p.name} さんのチェック（フライング）は無効です。"
                f"ペナルティ {pen} をポットに入れ、"
                f"コール {b.options(p.idx).call} かフォールドしてください",
            ))
            if s.stack == 0:  # the penalty took everything: nothing left to decide
                p.restrict = None
                events.extend(self._apply(p, "call", 0))
            return events
        if fa.kind == "call":
            if b.max_bet == fa.to:
                events.append(OmahaEvent(event="fa_applied", player=p.name, action="call"))
                events.append(_say("room", msg("fa_applied", player=p.name,
                                                 action=msg("fa_word_call"))))
                return events + self._apply(p, "call", 0)
            p.restrict = "call_or_fold"
            events.append(OmahaEvent(event="fa_void", player=p.name, action="call", chips=fa.chips))
            events.append(_say(
                to="room",
                text=f"{p.name} さんのコール（フライング）は状況が変わりました。"
                f"出したチップ {fa.chips} は戻りません。"
                f"コール {b.options(p.idx).call} かフォールドしてください",
            ))
            return events
        # raise
        if o.can_raise and o.min_to <= fa.to <= o.max_to:
            events.append(OmahaEvent(event="fa_applied", player=p.name, action="raise"))
            events.append(_say("room", msg("fa_applied", player=p.name,
                                             action=msg("fa_word_raise"))))
            return events + self._apply(p, "raise", fa.to)
        events.append(OmahaEvent(event="fa_void", player=p.name, action="raise", chips=fa.chips))
        if o.can_raise:
            p.restrict = "raise_or_fold"
            text = f"メイク {o.min_to}〜{o.max_to} でレイズするかフォールドしてください"
        else:
            p.restrict = "call_or_fold"
            text = f"レイズできないため、コール {o.call} かフォールドしてください"
        events.append(_say(
            to="room",
            text=f"{p.name} さんのレイズ（フライング）は無効になりました。"
            f"出したチップ {fa.chips} は戻りません。" + text,
        ))
        return events

    def _pay_dead(self, p: _Player, chips: int) -> None:
        """A penalty from ``p``'s stack into the main pot as dead money, remembered per player:
        a misdeal rewind refunds it to a player still in the hand but must keep a removed
        player's (their seat is not rewound, so the chips would otherwise vanish)."""
        b = self.bet
        assert b is not None
        b.seats[p.idx].stack -= chips
        b.dead += chips
        p.dead += chips
        b.touch()

    def _commit_reserve(self, p: _Player) -> None:
        """A player folding with FA chips reserved: those chips stay in the pot."""
        if p.reserved:
            s = self._b().seats[p.idx]
            s.stack -= p.reserved
            s.bet += p.reserved
            s.committed += p.reserved
            p.reserved = 0
            self._b().touch()

    def _fold_now(self, p: _Player) -> list[Event]:
        """Fold out of turn (FA fold, penalties): reserved FA chips stay in the pot."""
        b = self.bet
        assert b is not None
        self._commit_reserve(p)
        p.fa = None
        p.restrict = None
        if b.to_act() == p.idx:
            b.fold(p.idx)
        else:
            b.fold_out_of_turn(p.idx)
        return [ActionEvent(player=p.name, action="fold")]

    def _remove_now(self, p: _Player) -> list[Event]:
        b = self.bet
        assert b is not None
        s = b.seats[p.idx]
        chips = s.stack
        s.stack = 0
        b.touch()
        p.removed = True
        sitter = self.sitters[p.seat]
        return self._leave_event(sitter, chips)

    # --- moving the hand along -------------------------------------------------------------------
    def _advance(self) -> list[Event]:
        """After any change: resolve pending FAs, end rounds, deal streets, reach the showdown."""
        events: list[Event] = []
        b = self.bet
        assert b is not None
        while self.phase == "betting":
            if b.live_count() <= 1:
                events.extend(self._end_round())
                events.extend(self._award_uncontested())
                return events
            if b.actors:
                p = self.players[b.actors[0]]
                if p.fa is not None:
                    events.extend(self._resolve_fa(p))
                    continue
                events.append(self._prompt(p))
                return events
            events.extend(self._end_round())
            if self.street == 3:
                events.extend(self._start_showdown())
                return events
            self.street += 1
            self.aggressor = None
            self.shown_board = 3 if self.street == 1 else self.shown_board + 1
            if self.street == 1:
                self.flop_seen = True
            events.append(_say(
                to="room",
                text=f"{STREET_NAMES[self.street]}: {_cards(self.board[: self.shown_board])}",
            ))
            if b.betting_possible():
                b.start_round(0, self.street)
            self._turn_since = self._now
            self._reminded = False
        return events

    def _end_round(self) -> list[Event]:
        b = self.bet
        assert b is not None
        for p in self.players:
            p.fa = None
            p.restrict = None
            p.reserved = 0
        ret = b.end_round()
        if ret is None:
            return []
        j, back = ret
        return [OmahaEvent(event="returned", player=self.players[j].name, amount=back)]

    def _prompt(self, p: _Player) -> Event:
        b = self.bet
        assert b is not None
        o = b.options(p.idx)
        first = "チェック" if o.call == 0 else f"コール {o.call}"
        if o.can_raise and p.restrict != "call_or_fold":
            word = "メイク" if b.max_bet > 0 else "ベット"
            if o.min_to < o.max_to:
                text = (f"{p.name} さんの番です（{first} / {word} {o.min_to}〜{o.max_to}"
                        " / フォールド）")
            else:
                text = f"{p.name} さんの番です（{first} / {word} {o.min_to} / フォールド）"
        else:
            text = f"{p.name} さんの番です（{first} / フォールド）"
        return _say("room", text)

    # --- settlement ------------------------------------------------------------------------------
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

    def _award_uncontested(self) -> list[Event]:
        b = self.bet
        assert b is not None
        winner = next(p for p in self.players if not b.seats[p.idx].folded)
        total = sum(ps.amount for ps in b.pots())
        (amount,), rake = self._take_rake([total])
        events: list[Event] = []
        if rake:
            events.append(Rake(amount=rake))
        b.seats[winner.idx].stack += amount
        events.append(Pot(index=0, amount=amount, shares={winner.name: amount}))
        events.append(_say(
            to="room",
            text=f"{winner.name} さんがポット {amount} を獲得しました"
            "（オープンかクローズを宣言できます）",
        ))
        self.winner_after_fold = winner.name
        return events + self._finish()

    def _post_hand_show(self, s: _Sitter, p: _Player | None, action: Parsed) -> list[Event]:
        if p is None:
            raise IllegalAction("このハンドに参加していません")
        self.winner_after_fold = None
        if action.action == "close":
            return [_say(to="room", text=f"{p.name} さんはクローズしました")]
        cards = self._fold_cards(p, action) if action.cards else list(p.hole)
        p.shown = cards
        return [_say(to="room", text=f"{p.name} さんがオープン: {_cards(cards)}")]

    def _sd_order(self) -> list[int]:
        b = self.bet
        assert b is not None
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

    def _start_showdown(self) -> list[Event]:
        b = self.bet
        assert b is not None
        events: list[Event] = []
        while self.shown_board < 5:  # all-in: run the board out
            self.shown_board = 3 if self.shown_board == 0 else self.shown_board + 1
            self.street = {3: 1, 4: 2, 5: 3}[self.shown_board]
            self.aggressor = None
            if self.shown_board >= 3:
                self.flop_seen = True
            events.append(_say(
                to="room",
                text=f"{STREET_NAMES[self.street]}: {_cards(self.board[: self.shown_board])}",
            ))
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
        self._turn_since = self._now
        self._reminded = False
        return events

    def _sd_prompt(self) -> Event:
        name = self.players[self.sd_queue[0]].name
        return _say(to="room", text=f"{name} さん、オープンかマックを宣言してください")

    def _hand_value(self, p: _Player) -> int:
        key = self._keys.get(p.idx)
        if key is None:
            key = omaha_key(p.hole, self.board[:5])
            self._keys[p.idx] = key
        return key

    def _open(self, p: _Player) -> list[Event]:
        p.opened = True
        p.shown = list(p.hole)
        klass = class_of("omaha", self._hand_value(p))
        bonus = self.rules.hand_bonus.get(klass, 0)
        events: list[Event] = [_say(
            to="room",
            text=f"{p.name} さんがオープン: {_cards(p.hole)}（{CLASS_JA.get(klass, klass)}）",
        )]
        if bonus:
            sitter = self.sitters.get(p.seat)
            if sitter is not None and sitter.name == p.name:
                sitter.bonus += bonus
                events.append(OmahaEvent(event="hand_bonus", player=p.name, hand=klass, bank=bonus))
                text = f"{p.name} さんにハンドボーナス {bonus} ポイント（退席時に加算）"
                events.append(_say(to="room", text=text))
        return events

    def _showdown_act(self, p: _Player, action: Parsed) -> list[Event]:
        b = self.bet
        assert b is not None
        if not self.sd_queue or self.sd_queue[0] != p.idx:
            if p.opened and action.action == "open":
                raise IllegalAction(msg("already_opened"))
            raise IllegalAction(msg("not_your_turn"))
        name = action.action
        events: list[Event]
        if name == "open":
            # the player's decision is an action like a muck (CONTRACTS §2/§3); the openings the
            # rules force (the first opener, all-in players) are not decisions and emit none
            events = [ActionEvent(player=p.name, action="open"), *self._open(p)]
        elif name in ("muck", "fold"):
            if b.live_count() <= 1:
                raise IllegalAction("ほかに勝負する人がいないため、オープンしてください")
            show = self._fold_cards(p, action)
            p.mucked = True
            b.seats[p.idx].folded = True
            b.touch()
            p.shown = show
            text = f"{p.name} さんはマックしました" + (f"（公開: {_cards(show)}）" if show else "")
            events = [ActionEvent(player=p.name, action="muck"), _say(to="room", text=text)]
        else:
            raise IllegalAction("オープンかマックを宣言してください")
        self.sd_queue.pop(0)
        while self.sd_queue and b.seats[self.sd_queue[0]].stack == 0:
            events.extend(self._open(self.players[self.sd_queue.pop(0)]))
        if self.sd_queue:
            events.append(self._sd_prompt())
            self._turn_since = self._now
            self._reminded = False
            return events
        return events + self._settle()

    def _settle(self) -> list[Event]:
        b = self.bet
        assert b is not None
        pots = b.pots()
        total = sum(ps.amount for ps in pots)
        amounts, rake = self._take_rake([ps.amount for ps in pots])
        events: list[Event] = []
        if rake:
            events.append(Rake(amount=rake))
            events.append(_say("room", msg("rake", amount=rake, pot=total,
                                            percent=self.rules.rake_percent)))
        for p in self.players:  # safety: a live hand nobody asked about (force folds) is opened
            if not p.opened and not b.seats[p.idx].folded:
                events.extend(self._open(p))
        values = {p.idx: self._hand_value(p) for p in self.players if p.opened}
        order = range(len(pots) - 1, -1, -1) if self.rules.side_pot_open_order == "last_first" \
            else range(len(pots))
        labels = ["メインポット"] + [f"サイドポット{k}" for k in range(1, len(pots))]
        for k in order:
            amount = amounts[k]
            contenders = [i for i in pots[k].eligible if i in values]
            best = max(values[i] for i in contenders)
            winners = sorted(i for i in contenders if values[i] == best)
            share, odd = divmod(amount, len(winners))
            shares: dict[str, int] = {}
            if odd and not self.world and self.tourney is None:
                share += 1  # LOJ: the house tops every winner up to the rounded-up share
                top = share * len(winners) - amount
                self.house_paid += top
                events.append(OmahaEvent(event="house_topup", index=k, amount=top))
                odd = 0
            for i in winners:
                shares[self.players[i].name] = share
            if odd:  # World: the odd chips go to the winner first clockwise from the button
                shares[self.players[winners[0]].name] += odd
            for i in winners:
                b.seats[i].stack += shares[self.players[i].name]
            events.append(Pot(index=k, amount=amount, shares=shares))
            events.append(_say(
                to="room",
                text=f"{labels[k]} {amount} → " + "、".join(f"{n} {c}" for n, c in shares.items()),
            ))
        return events + self._finish()

    def _finish(self) -> list[Event]:
        """Chips back to the seats, hand_end, then leavers and the bankrupt stand up."""
        b = self.bet
        assert b is not None
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
                events.append(_say(to="room", text=f"{p.name} さんは破産しました"))
                events.extend(self._leave_event(sitter, 0))
            elif sitter.leaving:
                events.extend(self._leave_event(sitter, sitter.chips))
        return events

    # --- tournaments (referee/rules/tournament.py has the rulings) ----------------------------
    def _tournament_hand(self, t: Tournament) -> list[Event]:
        """At a hand's start: the tournament begins with its first hand; the blinds follow the
        schedule."""
        if t.finished:
            raise IllegalAction("トーナメントは終了しました")
        if not t.started:
            t.started, t.started_at = True, self._now
        level = t.level_at(t.hands, self._now)
        t.hands += 1
        if level == t.level:
            return []
        first = t.level == 0
        t.level = level
        lv = self.rules.levels[level - 1]
        self.sb, self.bb = lv.sb, lv.bb
        self.ante = lv.ante if self.ante_on else 0
        if first:
            return []
        return [
            LevelUp(level=level, sb=lv.sb, bb=lv.bb, ante=self.ante),
            _say(to="room", text=msg("tournament_level_up", level=level, sb=lv.sb, bb=lv.bb)
                 + (msg("tournament_ante", ante=self.ante) if self.ante else "")),
        ]

    def _tournament_end_of_hand(self, t: Tournament) -> list[Event]:
        """Eliminations (placed by the stacks they started the hand with), then the end."""
        events: list[Event] = []
        busted = [(s.name, self._start_stacks.get(s.name, 0)) for s in self._seat_order()
                  if s.chips == 0]
        places = t.place(busted) if busted else {}
        for name, place in sorted(places.items(), key=lambda kv: (-kv[1], kv[0])):
            events.append(Eliminated(player=name, place=place))
            events.append(_say(to="room", text=msg("tournament_eliminated", player=name,
                                                    place=place)))
            events.extend(self._leave_event(self.by_name[name], 0))
        if t.left == 1 and t.entrants:
            winner = next(s for s in self._seat_order())
            t.places[winner.name] = 1
            prizes = t.pay()
            ranking = sorted(t.places.items(), key=lambda kv: (kv[1], t.entrants.index(kv[0])))
            events.append(TournamentEnd(places=dict(ranking), prizes=prizes))
            events.append(_say(to="room", text=msg(
                "tournament_end", winner=winner.name,
                prizes=" / ".join(msg("tournament_prize", place=t.places[n], player=n, points=p)
                                  for n, p in sorted(prizes.items(),
                                                     key=lambda kv: t.places[kv[0]])) or "なし",
            )))
            events.extend(self._leave_event(winner, winner.chips))
        return events

    def status(self, now: float | None = None) -> list[str]:
        t = self.tourney
        if t is None:
            return [msg("ring_maxbuyin", points=self.max_buyin)] if self.max_buyin else []
        if t.finished:
            return [msg("tournament_over")]
        chips = [s.chips for s in self._seat_order()]
        lv = self.rules.levels[max(t.level, t.start_level) - 1]
        return [msg(
            "tournament_status", level=max(t.level, t.start_level), sb=lv.sb, bb=lv.bb,
            next=t.next_level_in(now if now is not None else self._now) if t.started
            else "開始前", left=t.left, entrants=len(t.entrants),
            average=sum(chips) // len(chips) if chips else 0, pool=t.pool,
        )]

    # --- operations ------------------------------------------------------------------------------
    def force_fold(self, player: str) -> list[Event]:
        self._seat_of(player)
        if not self.in_hand:
            return []
        p = self.pmap.get(player)
        if p is None or p.removed or self._b().seats[p.idx].folded:
            return []
        if self.phase == "showdown":
            b = self.bet
            assert b is not None
            if b.live_count() <= 1:
                return []  # the last hand standing: the pot is theirs, penalties follow the hand
            p.mucked = True
            b.seats[p.idx].folded = True
            b.touch()
            events: list[Event] = [ActionEvent(player=p.name, action="fold")]
            if p.idx in self.sd_queue:
                self.sd_queue.remove(p.idx)
            if p.opened:
                p.opened = False
            if not self.sd_queue:
                return events + self._settle()
            return events
        events = self._fold_now(p)
        events.extend(self._advance())
        return events

    def remove(self, player: str) -> list[Event]:
        s = self._seat_of(player)
        p = self.pmap.get(player) if self.in_hand else None
        if p is None or p.removed:
            return self._leave_event(s, s.chips)
        events = self.force_fold(player)
        if self.in_hand:
            if not self._b().seats[p.idx].folded:  # last hand standing at the showdown
                s.leaving = True
                return [*events, _say(to="room", text=f"{player} さんはこのハンドの後に退席します")]
            events.extend(self._remove_now(p))
            return events
        # the fold ended the hand; the player is still seated with their final chips
        if player in self.by_name:
            s.leaving = False
            events.extend(self._leave_event(s, s.chips))
        return events

    def penalize(self, player: str, kind: str, points: int) -> list[Event]:
        """A penalty decided elsewhere (leak / interference): forced fold, removal, and the bank
        points to take, reported in the ``penalty`` event (the bank is the service's)."""
        if kind not in ("information_leak", "interference"):
            raise IllegalAction(f"未知のペナルティです: {kind}")
        self._seat_of(player)
        events: list[Event] = [Penalty(player=player, kind=kind, points=points)]
        return events + self.remove(player)

    def dealing_mistake(self, kind: str, player: str | None = None) -> list[Event]:
        """``misdeal`` (wrong hand sent preflop: rewind, burn, redeal that player), ``nogame``
        (NO GAME payments), ``exposed`` (a player's hand seen: half the pot to them, cards stay up;
        without a player -- or with ``board`` / ``ボード``, as in ``!exposed board`` -- the next
        board card is shown and burned)."""
        if not self.in_hand:
            raise IllegalAction("ハンド中ではありません")
        if kind == "misdeal":
            return self._misdeal(player)
        if kind == "nogame":
            return self._nogame()
        if kind == "exposed":
            return self._exposed(player)
        raise IllegalAction(f"未知の手続きです: {kind}（misdeal / nogame / exposed）")

    def _misdeal(self, player: str | None) -> list[Event]:
        if player is None or player not in self.pmap or self.pmap[player].removed:
            raise IllegalAction("誤配の対象プレイヤーを指定してください")
        if self.phase != "betting" or self.street != 0:
            raise IllegalAction("プリフロップ以外の誤配は NO GAME です（!nogame）")
        if len(self.spare) < 4:
            raise IllegalAction("替えのカードがありません")
        p = self.pmap[player]
        b = self.bet
        assert b is not None
        burned = p.hole
        p.hole = self.spare[:4]
        self.spare = self.spare[4:]
        kept_dead = 0
        for q, (stack, bet, committed, folded) in zip(self.players, self._snapshot, strict=True):
            s = b.seats[q.idx]
            q.fa = None
            q.restrict = None
            q.reserved = 0
            q.shown = []
            if q.removed:
                kept_dead += q.dead
                continue
            q.dead = 0  # their penalties are undone with their stack
            s.stack, s.bet, s.committed, s.folded = stack, bet, committed, folded
        # a player removed meanwhile keeps their chips in the middle: their bets (as a folded
        # player's) and the penalties they paid into the dead money
        b.collected, dead, b.max_bet = self._snap_money
        b.dead = dead + kept_dead
        b.touch()
        self.aggressor = None
        b.start_round(self._first_idx, 0, facing=self.bb)
        events: list[Event] = [
            OmahaEvent(event="misdeal", player=player, burned=cards_str(burned)),
            _say(to="room", text=f"誤配: {player} さんの手札 {_cards(burned)} を公開して"
                "バーンします。アクションを最初からやり直します"),
            _say(to=player, text=f"ハンド#{self.hand_no} 新しい手札: {_cards(p.hole)}"),
        ]
        self._turn_since = self._now
        events.extend(self._advance())
        return events

    def _nogame(self) -> list[Event]:
        b = self.bet
        assert b is not None
        events = self._end_round() if self.phase == "betting" else []
        pots = b.pots()
        total = sum(ps.amount for ps in pots)
        pct = self.rules.nogame_inactive_percent
        cap = self.rules.nogame_inactive_cap * self.mult
        inactive = min(total * pct // 100, cap)
        payments: dict[str, int] = {}
        paid = 0
        for p in self.players:
            if p.removed:
                continue
            if b.seats[p.idx].folded:
                amt = inactive
            else:
                amt = sum(ps.amount for ps in pots if p.idx in ps.eligible)
            b.seats[p.idx].stack += amt
            payments[p.name] = amt
            paid += amt
        self.house_paid += paid - total
        events.append(OmahaEvent(event="nogame", pot=total, payments=payments))
        events.append(_say(
            to="room",
            text="NO GAME: " + "、".join(f"{n} {c}" for n, c in payments.items()),
        ))
        return events + self._finish()

    def _exposed(self, player: str | None) -> list[Event]:
        if player in BOARD_WORDS and player not in self.pmap:
            player = None  # `!exposed board`: a board card was seen
        if player is not None:
            p = self.pmap.get(player)
            if p is None or p.removed:
                raise IllegalAction(f"{player} さんはこのハンドに参加していません")
            half = self._b().pot_total() // 2
            p.credit += half
            p.shown = list(p.hole)
            return [
                OmahaEvent(event="exposed", player=player, cards=cards_str(p.hole), chips=half),
                _say(to="room", text=f"{player} さんの手札が見えました: {_cards(p.hole)}。"
                    f"ポットの半額 {half} をお支払いします（ハンド終了時）。"
                    "手札は公開のまま続行します"),
            ]
        if self.shown_board >= 5 or self.phase != "betting":
            raise IllegalAction("バーンするボードのカードがありません")
        if not self.spare:
            raise IllegalAction("替えのカードがありません")
        burned = self.board.pop(self.shown_board)
        self.board.append(self.spare.pop(0))
        return [
            OmahaEvent(event="burned", card=card_str(burned)),
            _say(to="room", text=f"見えてしまったカード {pretty(burned)} を公開してバーンします"),
        ]

    # --- the clock -------------------------------------------------------------------------------
    def tick(self, now: float) -> list[Event]:
        clock = self.definition.clock
        self._now = now if self._now is None else max(self._now, now)
        if self._turn_since is None:
            self._turn_since = now
            return []
        who = self.to_act()
        if who is None:
            return []
        waited = now - self._turn_since
        if clock.act_after and waited >= clock.act_after:
            p = self.pmap[who]
            if self.phase == "showdown":
                last = self._b().live_count() <= 1
                word = "open" if clock.showdown_default == "open" or last else "muck"
                return self.act(who, Parsed(kind="action", action=word), now)
            o = self._b().options(p.idx)
            word = "check" if o.call == 0 and p.restrict is None else "fold"
            return [
                _say(to="room", text=f"{who} さんは時間切れです"),
                *self.act(who, Parsed(kind="action", action=word), now),
            ]
        if clock.remind_after and waited >= clock.remind_after and not self._reminded:
            self._reminded = True
            return [_say(to="room", text=f"{who} さん、アクションをお願いします")]
        return []
