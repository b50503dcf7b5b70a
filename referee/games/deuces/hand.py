"""The ``deuces`` hand once it runs by itself, and the operations decided outside it.

:class:`HandFlow` is the part of :class:`~referee.games.deuces.engine.DeucesEngine` that nobody is
asked about: the deal after the last ante, the duplicate checks (and the bonus area they feed),
the refill, the settlement and the end of the hand; and the operations the service applies
from outside -- dealing mistakes (:meth:`HandFlow.dealing_mistake`), forced folds and
removals. The engine owns one and keeps the table, the actions and the clock (docs/rules.md
``deuces``; the rulings are in the engine's module doc). Each operation checks
first -- the dry run of :mod:`referee.games.deuces.cards` included -- then applies.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from referee.cards import JOKER, Card, card_str, cards_str, pretty
from referee.events import ActionEvent, Event, Say, Settle, Shown, line
from referee.games.deuces import voice
from referee.games.deuces.bonus import BonusArea, evaluate, order
from referee.games.deuces.cards import (
    DEALER,
    DryRun,
    HandPhase,
    Status,
    dup_kinds,
    later_copy,
    refill_order,
    take,
)
from referee.games.deuces.dealer import Strategy
from referee.games.deuces.events import DealerDiscard, Duplicate, Showdown
from referee.games.deuces.rules import DeucesRules
from referee.rules.base import IllegalAction
from referee.rules.house import (
    Compensation,
    HandBook,
    HouseTable,
    WaitClock,
    announce_compensation,
    joker_line,
    names,
    pay,
    show,
)

__all__ = ["DealerDiscard", "Duplicate", "HandFlow", "Showdown"]

# --- state ----------------------------------------------------------------------------------


@dataclass
class Player:
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
class Hand:
    number: int
    players: list[Player]  # in check order: from the button, seat order
    dealer: list[Card]
    shoe: list[Card]
    phase: HandPhase = "ante"
    check: int = 0  # the duplicate check running: 1 before the decisions, 2 after the refill
    dealer_opened: bool = False
    queue: list[str] = field(default_factory=list)  # hands still to check (``dealer`` last)
    book: HandBook = field(default_factory=HandBook)

    def get(self, name: str) -> Player | None:
        return next((p for p in self.players if p.name == name), None)


# --- the hand's automatic steps and the operations -----------------------------------------


class HandFlow:
    """What a deuces table does without asking anyone (module doc), on the parts the engine
    shares with it: the rules, the seats' :class:`~referee.rules.house.HouseTable`, the bonus
    area, the action clock and the dealer's way. It owns the running :class:`Hand` (None
    between hands); the engine starts one and asks the players."""

    def __init__(self, rules: DeucesRules, table: HouseTable, area: BonusArea,
                 clock: WaitClock, dealer_way: Strategy, last_slot: bool) -> None:
        self.rules = rules
        self.table = table
        self.area = area
        self.clock = clock
        self._dealer_way = dealer_way
        self.last_slot = last_slot  # the table's option, kept in step by the engine
        self.hand: Hand | None = None

    def player(self, name: str) -> Player | None:
        return self.hand.get(name) if self.hand is not None else None


    def dry(self) -> DryRun:
        """The card flow from the current state, on copies (:mod:`referee.games.deuces.cards`)."""
        h = self.hand
        assert h is not None
        return DryRun(
            [(p.name, p.seat, p.status, p.cards, p.dealt) for p in h.players], h.dealer, h.shoe,
            phase=h.phase, check=h.check, queue=h.queue, choice=self.rules.duplicate_choice,
            dealer_way=self._dealer_way,
        )

    # --- automatic steps --------------------------------------------------------------------

    def _draw(self, h: Hand) -> Card:
        # every caller's check ran the same flow dry (DryRun) and refused a shoe too short
        assert h.shoe, "the dry run let through a step the shoe cannot cover"
        return h.shoe.pop(0)

    def maybe_deal(self) -> list[Event]:
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
            out.append(Say.of(p.name, line("deuces.your_cards", cards=show(p.cards)),
                           cards=cards_str(p.cards)))
        kept = self._dealer_way(list(h.dealer))
        if take(h.dealer, kept) is None:  # pragma: no cover - a strategy bug, not a table state
            raise ValueError(f"dealer strategy kept cards it does not hold: {cards_str(kept)}")
        h.dealer = list(kept)
        out += voice.said(DealerDiscard(count=5 - len(kept)))
        for p in active:
            # the hands are opened in the room (seed ④), so a dealt joker is announced only now
            p.shown = list(p.cards)
            out += voice.said(Shown(player=p.name, seat=p.seat, cards=cards_str(p.cards),
                                    why="showdown"))
            for c in p.cards:
                if c == JOKER:
                    out += self._joker(p)
        h.check = 1
        h.queue = [p.name for p in active]
        return out + self.run_checks()

    def _new_phase(self, h: Hand, phase: Literal["check", "decide"]) -> None:
        h.phase = phase
        self.clock.restart()  # the clock of the new phase starts at the next time seen

    def run_checks(self, first: Card | None = None, default: bool = False) -> list[Event]:
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
                out += voice.said(Shown(player=DEALER, cards=cards_str(h.dealer), why="showdown"))
            events, waiting = self._dedupe(p, h.check, first=first, default=default)
            out += events
            first, default = None, False
            if waiting:
                assert p is not None
                kinds = dup_kinds(p.cards)
                if h.phase != "check":
                    self._new_phase(h, "check")
                out.append(Say.of("room", line(
                    "deuces.choose_duplicate", player=p.name,
                    kinds=" ".join(pretty(c) for c in kinds), card=card_str(kinds[0]))))
                return out
            h.queue.pop(0)
        if h.check == 1:
            self._new_phase(h, "decide")
            deciding = [p.name for p in h.players if p.status == "deciding"]
            if deciding:
                out.append(Say.of("room", line("deuces.play_prompt", who=names(deciding))))
            # players forced to fold during the check leave nobody to wait for
            return out + self.maybe_resolve()
        return out + self._settle()

    def _dedupe(
        self, p: Player | None, check: int, first: Card | None = None, default: bool = False,
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
            dup = Duplicate(player=who, card=card_str(card), replacement=card_str(new), check=check)
            shown = Shown(player=who, cards=cards_str(cards), why="showdown")
            out += [dup, shown, voice.duplicate_line(dup)]
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

    def _joker(self, p: Player) -> list[Event]:
        assert self.hand is not None
        _, event = self.table.joker(
            p.name, self.hand.book, ante=p.ante, bets=p.bet, last_slot=self.last_slot,
            multipliers=self.rules.joker, rounding=self.rules.payout_rounding,
        )
        return [event, joker_line(event)]

    def maybe_resolve(self) -> list[Event]:
        h = self.hand
        assert h is not None
        if any(p.status == "deciding" for p in h.players):
            return []
        out: list[Event] = []
        playing = sorted((p for p in h.players if p.status == "played"), key=lambda p: p.seat)
        if not playing:  # everyone folded: the dealer is not refilled (said, then settled)
            return [Say.of("room", line("deuces.all_folded")), *self._settle()]
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
            out.append(Say.of(q.name, line("deuces.refill", card=pretty(c)),
                           cards=[card_str(c)]))
            if c == JOKER:
                jokers[who] = jokers.get(who, 0) + 1
        checked = [p for p in h.players if p.status == "played"]  # from the button
        for p in checked:
            p.shown = list(p.cards)
            out += voice.said(Shown(player=p.name, seat=p.seat, cards=cards_str(p.cards),
                                    why="result"))
            for _ in range(jokers.get(p.name, 0)):
                out += self._joker(p)
        h.check = 2
        h.queue = [p.name for p in checked] + [DEALER]
        return out + self.run_checks()

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
            out += voice.said(Showdown(player=DEALER, cards=cards_str(h.dealer), klass=dclass,
                                       qualified=qualified))
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
            results += voice.said(Settle(player=p.name, result=result, payout=payout,
                                         hand=pclass))
        return out + self._finish(results)

    def _finish(self, results: list[Event]) -> list[Event]:
        h = self.hand
        assert h is not None
        self.hand = None
        return [*results, *self.table.close_hand(h.number, h.book)]

    # --- operations ---------------------------------------------------------------------------

    def dealing_mistake(self, kind: str, player: str | None = None) -> list[Event]:
        if kind not in ("nogame", "misdeal", "exposed"):
            raise IllegalAction("deuces.unknown_procedure", kind=kind)
        h = self.hand
        if h is None:
            raise IllegalAction("deuces.no_hand")
        if player is not None and h.get(player) is None:
            raise IllegalAction("deuces.player_not_in_hand", player=player)
        out: list[Event] = []
        m = self.rules.mistake_payout
        rnd = self.rules.payout_rounding
        if h.phase == "ante":
            out.append(Say.of("room", line("deuces.cancelled")))
        else:
            out.append(Say.of("room", line("deuces.mistake", ante=str(m["ante"]),
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
        p = self.player(player)
        if self.hand is None or p is None or p.status in ("out", "folded"):
            raise IllegalAction("deuces.cannot_fold", player=player)
        if p.status == "played":
            raise IllegalAction("deuces.player_already_played", player=player)
        dry = self.dry()
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
        p = self.player(player)
        assert h is not None and p is not None
        out: list[Event] = []
        if h.phase == "check" and h.queue and h.queue[0] == player:
            # they were choosing the order of their duplicates: the default order, then the fold
            out += self.run_checks(default=True)
            if self.hand is None:  # pragma: no cover - check 1 never ends the hand by itself
                return out
        elif h.phase == "check" and player in h.queue:
            h.queue.remove(player)
        if p.status == "ante":
            p.status = "out"
            out.append(Say.of("room", line("deuces.cant_join", player=player)))
        else:
            p.status = "folded"
            out += [
                ActionEvent(player=player, action="fold"),
                Say.of("room", line("deuces.forced_fold", player=player)),
            ]
        if h.phase == "ante":
            return out + self.maybe_deal()
        if h.phase == "decide":
            return out + self.maybe_resolve()
        return out

    def remove(self, player: str) -> list[Event]:
        """Stand ``player`` up now (a penalty). Whatever they staked this hand is forfeit to the
        house: they are folded (even after playing) and get no dealing-mistake guarantee."""
        if self.table.by_name(player) is None:
            raise IllegalAction("house.not_seated", player=player)
        hp = self.player(player)
        out: list[Event] = []
        if hp is not None and hp.status in ("ante", "anted", "deciding"):
            self._check_force_fold(player)
            out += self._force_fold(player)
        elif hp is not None and hp.status == "played":
            self._check_forfeit(hp)
            out += self._forfeit(hp)
        h = self.hand
        hp = self.player(player)
        if h is not None and hp is not None:
            if hp.status == "out":
                h.players.remove(hp)
            else:
                hp.removed = True
        if self.table.by_name(player) is not None:  # not already stood up by a bankruptcy
            out += self.table.stand(player)
        return out

    def _check_forfeit(self, p: Player) -> None:
        """The dry run of :meth:`_forfeit` (the shoe must cover the check or the refill)."""
        dry = self.dry()
        head = dry.phase == "check" and bool(dry.queue) and dry.queue[0] == p.name
        if p.name in dry.queue:
            dry.queue.remove(p.name)
        dry.status[p.name] = "folded"
        if head:
            dry.run_checks()
        elif dry.phase == "decide":
            dry.maybe_resolve()

    def _forfeit(self, p: Player) -> list[Event]:
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
            Say.of("room", line("deuces.removed_fold", player=p.name)),
        ]
        if head:
            return out + self.run_checks()
        if h.phase == "decide":
            return out + self.maybe_resolve()
        return out
