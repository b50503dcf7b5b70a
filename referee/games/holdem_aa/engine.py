"""``holdem_aa``: Casino Hold'em against the dealer, with the AA side bet (docs/rules.md).

Flow of one hand (a pure state machine; the service or a transcript drives it):

1. ``start_hand(Deal)``: every seated player needs 2 cards in ``Deal.hands``, the dealer 2 in
   ``Deal.dealer`` and the board 5 (flop, turn, river). Nothing is dealt yet: each seated player
   posts a stake by message -- ``ante`` with ``amount`` (and optionally ``aa``) or ``allin``.
2. When every seated player has posted, the cards are dealt: each player gets their two cards by
   a private ``say``, the flop is shown to the room.
3. Each player calls (another ante) or folds, in any order (the decisions are independent: nobody
   sees anyone else's cards, so there is no turn order to keep).
4. When all have decided: the callers' hands are opened and the AA bets settled on hole + flop
   (a pair of aces or better pays by the AA table, anything else loses; a folded player's AA is
   lost even if it qualified); the dealer's hand is opened, turn and river dealt; the dealer
   qualifies with a pair of ``dealer_qualify_pair`` (4) or better; every bet is settled.

Settlement (multipliers include the stake, ``payout_rounding`` rounds them): call bet by the
``call_table`` (win 2x, lose 0, push 1x, dealer fold 1x); the ante, on a win or a dealer fold, by
the ``ante_table`` row of the player's hand (``other`` for a hand without a row), on a push by
``push``, on a loss by ``lose``. One ``settle`` event per player carries the total paid back
(``payout``) and the breakdown (``ante``/``call``/``aa`` payouts, ``hand`` class).

Rulings (docs/rules.md plus gaps decided here):

* Stakes: an ante is a positive multiple of the table's ante unit (``ante_multiple``; otherwise
  any amount of at least one unit) and must leave chips for the call: ``2 x ante + AA <= chips``.
  AA is optional, at most ``aa_max_ratio`` x the ante (rounded down). ALL-IN (the seed's rule):
  the AA is placed first, then half of the remaining chips (rounded down) is the ante; the AA must
  still not exceed that ante. The all-in player can always cover the call.
* An ante message repeated, or sent outside the stake phase, is refused; so is a decision by a
  player who already decided ("すでにフォールドしています" after a fold).
* A player who leaves before posting is simply out of the hand; one who leaves after posting
  stays in it (their bets play as they stand; an undecided player is folded only by a moderator
  via ``force_fold``) and stands up when the hand ends. ``remove`` folds and stands up at once.
* Removal (``remove``, a penalty; the lead's ruling, the same in all house games): a player
  removed from the table forfeits to the house everything they staked this hand (ante, AA, call)
  and gets no dealing-mistake guarantee, even if they had called (the hand is folded: dead) or
  were force-folded first. Their stake stays in the house's books, so ``sum(stack changes,
  chips taken away by leave) + result == 0`` holds.
* Bankruptcy: after each hand, a player with fewer than ``bankrupt_below`` (20) chips is stood up.
* The bank converts 1:1 (``buy_in_chips`` is the identity; ``leave`` credits the chips).
* Dealing mistake (``dealing_mistake`` any kind, i.e. ``!nogame``/``!misdeal``/``!exposed``: the bot
  deals, so a mistake the moderator reports is one that burns a card): the game stops and every
  player who posted receives the guarantee -- ante 2x, AA 8x, call 2x (``mistake_payout``),
  folded players included ("配当0倍が確定して回収されていたとしても保障"). "More if already
  certain": the AA result is fixed once the flop is out, so a player who has not folded gets
  ``max(guarantee, AA table)`` on the AA; the ante and call results are never certain before the
  engine settles (it settles everything in one step when the last decision arrives).
* The action clock (``clock``, restarted whenever anyone acts): a reminder after
  ``remind_after`` seconds; after ``act_after`` a player who has not posted sits the hand out and
  an undecided player folds.
* Shown cards (``shown``, used by the leak check): none while the hand runs (the hole cards are
  private until the showdown); the callers' hands once opened at the showdown. The showdown
  settles and ends the hand in the same step, so they stay "shown" past ``hand_end`` until the
  next hand starts (the service's leak check does not run between hands; anyone reading the
  hand just ended sees them as public, as they are).
* There is no button; ``hand_start`` reports ``button`` 0. NPC seats are refused (the NPC rule is
  ``seven``'s).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from referee.actions import Parsed
from referee.cards import Card, cards_str, is_joker
from referee.definitions import GameDefinition
from referee.events import (
    ActionEvent,
    BoardDealt,
    Event,
    HandStart,
    Phrase,
    Say,
    Settle,
    Shown,
    line,
)
from referee.games.holdem_aa import voice
from referee.games.holdem_aa.rules import HoldemAARules
from referee.games.holdem_aa.voice import AAResult
from referee.hands import class_of, evaluate, pair_floor
from referee.rules.base import Deal, DealPlan, Decision, IllegalAction, Offer, OptionError
from referee.rules.house import (
    HandBook,
    HouseEngine,
    allin_ante,
    allin_flag,
    check_ante,
    names,
    pay,
    settlement_line,
    show,
)
from referee.rules.voice import action_line

GAME = "holdem_aa"

ACE = 12


Result = Literal["win", "lose", "push", "dealer_fold"]


# --- settlement, as pure functions (the engine and ``referee.analysis`` both use these) --------


def aa_row(key: int, rules: HoldemAARules) -> str | None:
    """The AA table row that pays a hole + flop hand of standard ``key``, None when it loses."""
    klass = class_of("holdem_aa", key)
    row: str | None = klass
    if klass == "one_pair":
        row = "pair_of_aces" if key >= pair_floor("holdem_aa", ACE) else None
    return row if row is not None and row in rules.aa_table else None


def aa_settle(stake: int, key: int, rules: HoldemAARules) -> tuple[int, str | None]:
    """The AA bet's payout for ``stake`` on a hole + flop hand of ``key``, and the row paid."""
    row = aa_row(key, rules)
    if row is None:
        return 0, None
    return pay(stake, rules.aa_table[row], rules.payout_rounding), row


def dealer_qualifies(dealer_key: int, rules: HoldemAARules) -> bool:
    """A pair of ``dealer_qualify_pair`` (4s) or better."""
    return dealer_key >= pair_floor("holdem_aa", rules.dealer_qualify_pair - 2)


def showdown_result(player_key: int, dealer_key: int, qualified: bool) -> Result:
    """A caller's result against the dealer (keys of the best 5 of 7)."""
    if not qualified:
        return "dealer_fold"
    if player_key > dealer_key:
        return "win"
    return "push" if player_key == dealer_key else "lose"


def ante_row(klass: str, result: Result, rules: HoldemAARules) -> str:
    """The ante table row a caller is paid by: the hand's row on a win or a dealer fold
    (``other`` for a hand without one), else ``push`` / ``lose``."""
    if result in ("win", "dealer_fold"):
        return klass if klass in rules.ante_table else "other"
    return result


def ante_call_settle(
    ante: int, call: int, result: Result, klass: str, rules: HoldemAARules
) -> tuple[int, int]:
    """``(ante payout, call payout)`` of a caller whose best hand is of class ``klass``."""
    rnd = rules.payout_rounding
    return (pay(ante, rules.ante_table[ante_row(klass, result, rules)], rnd),
            pay(call, rules.call_table[result], rnd))


@dataclass
class _Seat:
    """One player's part in the current hand."""

    name: str
    cards: list[Card]
    ante: int = 0
    aa: int = 0
    call: int = 0
    posted: bool = False
    allin: bool = False
    decided: bool = False
    folded: bool = False
    removed: bool = False  # stood up by ``remove`` (a penalty): stake forfeit, no guarantee


@dataclass
class _Plan:
    """An action :meth:`HoldemAAEngine._check_act` accepted: ``stake`` (``ante``, ``aa``,
    ``allin`` already validated), ``call`` or ``fold``; ``now`` restarts the clock."""

    seat: _Seat
    kind: Literal["stake", "call", "fold"]
    now: float | None
    ante: int = 0
    aa: int = 0
    allin: bool = False


class HoldemAAEngine(HouseEngine):
    """One ``holdem_aa`` table; its phases are ``idle``, ``stakes`` and ``decide``."""

    deal_plan = DealPlan(2, dealer=2, board=5)
    game = "holdem_aa"

    def __init__(self, definition: GameDefinition, options: dict[str, str]) -> None:
        if not isinstance(definition.rules, HoldemAARules):
            raise OptionError("holdem_aa.no_definition")
        rules: HoldemAARules = definition.section(HoldemAARules)
        super().__init__(definition, options, ante_unit=rules.ante_unit,
                         bankrupt_below=rules.bankrupt_below, npc_allowed=False)
        self.rules = rules
        self.seats: dict[str, _Seat] = {}  # in seat order
        self.dealer: list[Card] = []
        self.board: list[Card] = []
        # the callers' hands opened at the showdown (``shown``): kept past ``hand_end`` until
        # the next hand starts, because the showdown and the end of the hand are one step
        self.opened: dict[str, list[Card]] = {}

    # --- HouseEngine hooks -----------------------------------------------------------------
    def _part(self, name: str) -> _Seat | None:
        return self.seats.get(name)

    def _drop(self, name: str) -> None:
        del self.seats[name]

    def _awaited(self) -> Phrase:
        return line("holdem_aa.awaited")

    def _time_out(self, waiting: list[str]) -> list[Event]:
        """An undecided player folds."""
        out: list[Event] = []
        for n in waiting:
            if self.phase == "decide":
                out += self._decide(self.seats[n], call=False)
        return out

    def _clear_hand(self) -> None:
        self.seats = {}

    # --- the hand --------------------------------------------------------------------------
    def start_hand(self, deal: Deal) -> list[Event]:
        if self.phase != "idle":
            raise IllegalAction("house.hand_running")
        players = [p.name for p in self.table.dealt_players(deal.hands, 2)]
        if len(deal.dealer) != 2:
            raise IllegalAction("holdem_aa.dealer_cards")
        if len(deal.board) != 5:
            raise IllegalAction("holdem_aa.board_cards")
        every = [c for n in players for c in deal.hands[n]] + list(deal.dealer) + list(deal.board)
        if any(is_joker(c) for c in every):
            raise IllegalAction("holdem_aa.no_joker")
        if len(set(every)) != len(every):
            raise IllegalAction("holdem_aa.duplicate_card")

        self.hand_no += 1
        self.phase = "stakes"
        self.seats = {n: _Seat(n, list(deal.hands[n])) for n in players}
        self.opened = {}
        self.dealer = list(deal.dealer)
        self.board = list(deal.board)
        self.book = HandBook()
        self.clock.restart()
        return [
            HandStart(hand=self.hand_no, button=0),
            Say.of("room", line("holdem_aa.start", hand=self.hand_no, who=names(players),
                                     unit=self.ante_unit)),
        ]

    # --- actions: checked (read only), then applied (Engine.act) ----------------------------
    def _check_act(self, player: str, action: Parsed, now: float | None) -> _Plan:
        name = action.action
        s = self.seats.get(player)
        if self.phase == "idle":
            raise IllegalAction("house.no_hand")
        if s is None:
            raise IllegalAction("house.not_in_hand")
        if name in ("ante", "allin"):
            return self._check_stake(s, action, now)
        if name in ("call", "fold"):
            if self.phase != "decide":
                raise IllegalAction("holdem_aa.not_all_posted")
            if s.folded:
                raise IllegalAction("house.already_folded")
            if s.decided:
                raise IllegalAction("holdem_aa.already_called")
            if name == "call":
                self._check_call(s)
            return _Plan(s, "call" if name == "call" else "fold", now)
        raise IllegalAction("holdem_aa.wrong_action")

    def _apply_act(self, plan: _Plan) -> list[Event]:
        if plan.kind == "stake":
            out = self._stake(plan)
        else:
            out = self._decide(plan.seat, plan.kind == "call")
        self.clock.restart(plan.now)
        return out

    # stakes
    def _check_stake(self, s: _Seat, action: Parsed, now: float | None) -> _Plan:
        if self.phase != "stakes":
            raise IllegalAction("holdem_aa.stakes_closed")
        if s.posted:
            raise IllegalAction("holdem_aa.already_posted")
        p = self.table.by_name(s.name)
        assert p is not None
        aa = action.aa or 0
        if aa < 0:
            raise IllegalAction("holdem_aa.aa_invalid")
        allin = action.action == "allin"
        if allin:
            ante = allin_ante(p.chips, 2, aa)
        else:
            ante = check_ante(
                action.amount, p.chips, self.ante_unit, cover=2, side=aa,
                multiple=self.rules.ante_multiple,
            )
        aa_max = pay(ante, self.rules.aa_max_ratio, "down")
        if aa > aa_max:
            raise IllegalAction("holdem_aa.aa_max", max=aa_max)
        return _Plan(s, "stake", now, ante=ante, aa=aa, allin=allin)

    def _stake(self, plan: _Plan) -> list[Event]:
        s, ante, aa, allin = plan.seat, plan.ante, plan.aa, plan.allin
        p = self.table.by_name(s.name)
        assert p is not None
        p.chips -= ante + aa
        s.ante, s.aa, s.posted, s.allin = ante, aa, True, allin
        self.book.stake(s.name, ante + aa)
        ev = ActionEvent(player=s.name, action="ante", amount=ante + aa, ante=ante, aa=aa,
                         **allin_flag(allin))
        return [ev, action_line(GAME, ev), *self._advance()]

    def _advance(self) -> list[Event]:
        """Deal once every player in the hand has posted (and settle if nobody is left to
        decide: the hand may have been emptied by leaves and forced folds)."""
        if self.phase != "stakes":
            return []
        if not self.seats:
            return self._finish([])
        if not all(s.posted for s in self.seats.values()):
            return []
        self.phase = "decide"
        out: list[Event] = []
        for s in self.seats.values():
            out.append(Say.of(s.name, line("holdem_aa.your_hand", hand=self.hand_no,
                                                cards=show(s.cards)), cards=cards_str(s.cards)))
        flop = BoardDealt(street="flop", cards=cards_str(self.board[:3]),
                          board=cards_str(self.board[:3]))
        out += [flop, voice.flop_line(flop, self.pending())]
        if all(s.decided for s in self.seats.values()):
            out += self._showdown()
        return out

    # decisions
    def _check_call(self, s: _Seat) -> None:
        p = self.table.by_name(s.name)
        chips = p.chips if p is not None else 0
        if chips < s.ante:  # cannot happen for a seated player: the stake rule reserved it
            raise IllegalAction("holdem_aa.call_short")

    def _decide(self, s: _Seat, call: bool) -> list[Event]:
        """Apply a checked call (:meth:`_check_call`) or a fold."""
        p = self.table.by_name(s.name)
        out: list[Event] = []
        if call:
            assert p is not None
            p.chips -= s.ante
            s.call = s.ante
            self.book.stake(s.name, s.ante)
            ev = ActionEvent(player=s.name, action="call", amount=s.ante)
            out += [ev, action_line(GAME, ev)]
        else:
            s.folded = True
            ev = ActionEvent(player=s.name, action="fold", amount=0)
            out += [ev, action_line(GAME, ev)]
        s.decided = True
        if all(x.decided for x in self.seats.values()):
            out += self._showdown()
        return out

    def _aa_payout(self, s: _Seat) -> tuple[int, str | None]:
        """The AA bet's payout on hole + flop, and the table row that paid (None: lost)."""
        if not s.aa:
            return 0, None
        hv = evaluate("holdem_aa", s.cards, self.board[:3])
        return aa_settle(s.aa, hv.key, self.rules)

    def _showdown(self) -> list[Event]:
        r = self.rules
        out: list[Event] = []
        callers = [s for s in self.seats.values() if not s.folded]
        aa_pay: dict[str, int] = {}
        for s in callers:
            self.opened[s.name] = list(s.cards)
            paid, row = self._aa_payout(s)
            aa_pay[s.name] = paid
            aa = AAResult(player=s.name, row=row, payout=paid) if s.aa else None
            if aa is not None:
                out.append(aa)
            opened = Shown(player=s.name, cards=cards_str(s.cards), why="result",
                           hand_class=evaluate("holdem_aa", s.cards, self.board).klass)
            out += [opened, voice.opened_line(opened, aa)]
        dealer_hv = None
        qualified = False
        if callers:
            dealer_hv = evaluate("holdem_aa", self.dealer, self.board)
            qualified = dealer_qualifies(dealer_hv.key, r)
            turn = BoardDealt(street="turn", cards=cards_str(self.board[3:4]),
                              board=cards_str(self.board[:4]))
            river = BoardDealt(street="river", cards=cards_str(self.board[4:5]),
                               board=cards_str(self.board[:5]))
            dealer = Shown(player="dealer", cards=cards_str(self.dealer), why="result",
                           hand_class=dealer_hv.klass, qualified=qualified)
            out += [turn, river, dealer, voice.dealer_line(dealer, river)]
        for s in self.seats.values():
            if s.folded:
                out.append(Settle(player=s.name, result="fold", payout=0, ante=0, call=0, aa=0))
                continue
            assert dealer_hv is not None
            hv = evaluate("holdem_aa", s.cards, self.board)
            result = showdown_result(hv.key, dealer_hv.key, qualified)
            ante_p, call_p = ante_call_settle(s.ante, s.call, result, hv.klass, r)
            total = ante_p + call_p + aa_pay[s.name]
            out.append(
                Settle(player=s.name, result=result, payout=total, ante=ante_p, call=call_p,
                       aa=aa_pay[s.name], hand=hv.klass, dealer_class=dealer_hv.klass)
            )
        out.append(settlement_line(out, "holdem_aa"))
        return out + self._finish(out)

    # --- operations ----------------------------------------------------------------------
    def force_fold(self, player: str) -> list[Event]:
        # the last player awaited in the stakes may be the one taken out: deal then
        return self._force_fold(player) + self._advance()

    def _force_fold(self, player: str) -> list[Event]:
        s = self.seats.get(player)
        if self.phase == "idle" or s is None:
            raise IllegalAction("house.player_not_in_hand", player=player)
        if s.folded:
            raise IllegalAction("house.player_already_folded", player=player)
        if self.phase == "decide" and s.decided:
            raise IllegalAction("holdem_aa.player_already_called", player=player)
        if self.phase == "stakes":
            if not s.posted:
                del self.seats[player]
                return [Say.of("room", line("house.dropped", player=player))]
            s.folded = s.decided = True
            return [ActionEvent(player=player, action="fold", amount=0)]
        return self._decide(s, call=False)

    def remove(self, player: str) -> list[Event]:
        """Stand ``player`` up now (a penalty): folded first -- a caller too, whose hand is
        dead -- so the whole stake is forfeit, and no guarantee (module doc)."""
        if self.table.by_name(player) is None:
            raise IllegalAction("house.not_seated", player=player)
        out: list[Event] = []
        s = self.seats.get(player)
        if self.phase == "decide" and s is not None and s.decided and not s.folded:
            s.folded = True  # called already: force_fold refuses that, removal does not
            out.append(ActionEvent(player=player, action="fold", amount=0))
        elif self.phase != "idle" and s is not None and not s.folded:
            out += self._force_fold(player)
        if self.phase != "idle" and player in self.seats:
            self.seats[player].removed = True  # the stake stays the house's (module doc)
        if self.table.by_name(player) is not None:  # the fold may have ended the hand
            out += self.table.stand(player)
        out += self._advance()
        return out

    def _guarantees(self) -> list[tuple[str, dict[str, int]]]:
        """Every posted player's guarantee; the AA pays more when already certain (module doc)."""
        m = self.rules.mistake_payout
        rnd = self.rules.payout_rounding
        out: list[tuple[str, dict[str, int]]] = []
        for s in self.seats.values():
            if not s.posted or s.removed:
                continue
            bets = {"ante": pay(s.ante, m["ante"], rnd)}
            if s.aa:
                aa = pay(s.aa, m["aa"], rnd)
                if self.phase == "decide" and not s.folded:
                    aa = max(aa, self._aa_payout(s)[0])
                bets["aa"] = aa
            if s.call:
                bets["call"] = pay(s.call, m["call"], rnd)
            out.append((s.name, bets))
        return out

    # --- queries ---------------------------------------------------------------------------
    def holdings(self, player: str) -> list[Card]:
        s = self.seats.get(player)
        return list(s.cards) if s is not None and self.phase == "decide" else []

    def shown(self, player: str) -> list[Card]:
        """The player's hole cards once opened to the room at the showdown (callers only; a
        folded hand is never opened, a dealing mistake opens nothing), until the next hand."""
        return list(self.opened.get(player, []))

    def board_cards(self) -> list[Card]:
        """The flop once it is out (turn and river are dealt only as the hand settles)."""
        return list(self.board[:3]) if self.phase == "decide" else []

    def decision(self, player: str) -> Decision | None:
        if player not in self.pending():
            return None
        return "stake" if self.phase == "stakes" else "decide"

    def offers(self, player: str) -> tuple[Offer, ...]:
        """After the flop: a call of the ante (while the chips cover it, :meth:`_check_call`)
        or a fold -- what the flop's prompt asks of everyone awaited."""
        s = self.seats.get(player)
        if s is None or self.decision(player) != "decide":
            return ()
        try:
            self._check_call(s)
        except IllegalAction:
            return (Offer("fold"),)
        return (Offer("call", chips=s.ante), Offer("fold"))

    def pending(self) -> list[str]:
        """Players the table is waiting for (stake or decision), in seat order."""
        if self.phase == "stakes":
            return [s.name for s in self.seats.values() if not s.posted]
        if self.phase == "decide":
            return [s.name for s in self.seats.values() if not s.decided]
        return []

