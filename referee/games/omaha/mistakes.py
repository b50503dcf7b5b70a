"""What is decided outside the betting: a forced fold and a removal (the penalty pipeline of the
service), and the moderator's dealing-mistake procedures (docs/rules.md, "Dealing mistakes"):

- ``misdeal`` -- a wrong hand sent preflop: that hand is shown and burned, every action is
  rewound to the blinds, the player gets new cards from the deal's shoe;
- ``nogame`` -- NO GAME: every active player receives the pots they are eligible for; every
  folded player dealt in receives 20% of the whole pot, at most 300 *points* worth of chips
  (300 × chip multiplier), paid by the house; no rake;
- ``exposed @p`` -- a player's hand was seen: the house pays them half the pot (floor) at the
  end of the hand, their cards stay face up; ``exposed`` alone (or ``board``) -- a board card
  was seen: the next board card is shown and burned, replaced from the deal's shoe.

Each validates everything before it changes anything. The procedures end the hand through the
showdown (:class:`~referee.games.omaha.showdown.Showdown`) or move it on through the dealer.
"""

from __future__ import annotations

import tomllib
from functools import cache

from referee import resources
from referee.cards import card_str, cards_str, pretty
from referee.events import ActionEvent, Burned, Event, Exposed, Misdeal, NoGame, joined, line
from referee.games.omaha.dealer import Dealer
from referee.games.omaha.rounds import Rounds
from referee.games.omaha.showdown import Showdown
from referee.games.omaha.state import ActionClock, Hand, say, show
from referee.games.omaha.table import Seating, Settings
from referee.rules.base import IllegalAction

WORDS = resources.GRAMMAR / "omaha.toml"


@cache
def board_words() -> frozenset[str]:
    """What a moderator may write after ``!exposed`` for a board card (grammar/omaha.toml)."""
    data = tomllib.loads(WORDS.read_text(encoding="utf-8"))
    return frozenset(str(w) for w in data.get("exposed_board", []))


class Mistakes:
    """What the moderators and the penalty pipeline decide about the table's hand."""

    def __init__(self, hand: Hand, settings: Settings, seating: Seating, clock: ActionClock,
                 rounds: Rounds, showdown: Showdown, dealer: Dealer) -> None:
        self.hand = hand
        self.settings = settings
        self.seating = seating
        self.clock = clock
        self.rounds = rounds
        self.showdown = showdown
        self.dealer = dealer

    # --- forced fold and removal --------------------------------------------------------------
    def force_fold(self, player: str) -> list[Event]:
        self.seating.seat_of(player)
        if not self.hand.live:
            return []
        p = self.hand.pmap.get(player)
        if p is None or p.removed or self.hand.b().seats[p.idx].folded:
            return []
        if self.hand.phase == "showdown":
            b = self.hand.b()
            if b.live_count() <= 1:
                return []  # the last hand standing: the pot is theirs, penalties follow the hand
            p.mucked = True
            b.seats[p.idx].folded = True
            b.touch()
            events: list[Event] = [ActionEvent(player=p.name, action="fold")]
            if p.idx in self.hand.sd_queue:
                self.hand.sd_queue.remove(p.idx)
            if p.opened:
                p.opened = False
            if not self.hand.sd_queue:
                return events + self.showdown.settle()
            return events
        events = self.rounds.fold_now(p)
        events.extend(self.dealer.advance())
        return events

    def remove(self, player: str) -> list[Event]:
        s = self.seating.seat_of(player)
        p = self.hand.pmap.get(player) if self.hand.live else None
        if p is None or p.removed:
            return self.seating.leave_event(s, s.chips)
        events = self.force_fold(player)
        if self.hand.live:
            if not self.hand.b().seats[p.idx].folded:  # last hand standing at the showdown
                s.leaving = True
                return [*events, say("room", line("seat.leaving", player=player))]
            events.extend(self.rounds.remove_now(p))
            return events
        # the fold ended the hand; the player is still seated with their final chips
        if player in self.seating.by_name:
            s.leaving = False
            events.extend(self.seating.leave_event(s, s.chips))
        return events

    # --- dealing mistakes ----------------------------------------------------------------------
    def dealing_mistake(self, kind: str, player: str | None = None) -> list[Event]:
        """``misdeal`` / ``nogame`` / ``exposed`` (the module docstring has the procedures)."""
        if not self.hand.live:
            raise IllegalAction("omaha.no_hand")
        if kind == "misdeal":
            return self._misdeal(player)
        if kind == "nogame":
            return self._nogame()
        if kind == "exposed":
            return self._exposed(player)
        raise IllegalAction("omaha.unknown_mistake", kind=kind)

    def _misdeal(self, player: str | None) -> list[Event]:
        if player is None or player not in self.hand.pmap or self.hand.pmap[player].removed:
            raise IllegalAction("omaha.misdeal_who")
        if self.hand.phase != "betting" or self.hand.street != 0:
            raise IllegalAction("omaha.misdeal_late")
        if len(self.hand.spare) < 4:
            raise IllegalAction("omaha.no_spare")
        p = self.hand.pmap[player]
        b = self.hand.b()
        burned = p.hole
        p.hole = self.hand.spare[:4]
        self.hand.spare = self.hand.spare[4:]
        kept_dead = 0
        hand = self.hand
        for q, (stack, bet, committed, folded) in zip(hand.players, hand.snapshot, strict=True):
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
        b.collected, dead, b.max_bet = self.hand.snap_money
        b.dead = dead + kept_dead
        b.touch()
        self.hand.aggressor = None
        b.start_round(self.hand.first_idx, 0, facing=self.settings.bb)
        events: list[Event] = [
            Misdeal(player=player, burned=cards_str(burned)),
            say("room", line("omaha.misdeal", player=player, cards=show(burned))),
            say(player, line("omaha.new_cards", hand=str(self.hand.number), cards=show(p.hole)),
                p.hole),
        ]
        # the wait starts again, as it always has here, without a second reminder
        self.clock.wait.since = self.clock.now
        events.extend(self.dealer.advance())
        return events

    def _nogame(self) -> list[Event]:
        b = self.hand.b()
        events = self.rounds.end_round() if self.hand.phase == "betting" else []
        pots = b.pots()
        total = sum(ps.amount for ps in pots)
        pct = self.settings.rules.nogame_inactive_percent
        cap = self.settings.rules.nogame_inactive_cap * self.settings.mult
        inactive = min(total * pct // 100, cap)
        payments: dict[str, int] = {}
        paid = 0
        for p in self.hand.players:
            if p.removed:
                continue
            if b.seats[p.idx].folded:
                amt = inactive
            else:
                amt = sum(ps.amount for ps in pots if p.idx in ps.eligible)
            b.seats[p.idx].stack += amt
            payments[p.name] = amt
            paid += amt
        self.showdown.house_pays(paid - total)
        events.append(NoGame(pot=total, payments=payments))
        listed = joined(line("omaha.share_sep"),
                        [line("omaha.share", player=n, chips=c) for n, c in payments.items()])
        events.append(say("room", line("omaha.nogame", payments=listed)))
        return events + self.showdown.finish()

    def _exposed(self, player: str | None) -> list[Event]:
        if player in board_words() and player not in self.hand.pmap:
            player = None  # `!exposed board`: a board card was seen
        if player is not None:
            p = self.hand.pmap.get(player)
            if p is None or p.removed:
                raise IllegalAction("omaha.exposed_not_in_hand", player=player)
            half = self.hand.b().pot_total() // 2
            p.credit += half
            p.shown = list(p.hole)
            return [
                Exposed(player=player, cards=cards_str(p.hole), chips=half),
                say("room", line("omaha.exposed_hand", player=player, cards=show(p.hole),
                                chips=half)),
            ]
        if self.hand.shown_board >= 5 or self.hand.phase != "betting":
            raise IllegalAction("omaha.no_board_to_burn")
        if not self.hand.spare:
            raise IllegalAction("omaha.no_spare")
        burned = self.hand.board.pop(self.hand.shown_board)
        self.hand.board.append(self.hand.spare.pop(0))
        return [
            Burned(card=card_str(burned)),
            say("room", line("omaha.burned", card=pretty(burned))),
        ]
