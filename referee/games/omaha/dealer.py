"""The dealer of an omaha table: the deal (the button, antes and blinds, the cards) and moving the
hand along after every change -- a pending flying action resolved when its player's turn comes,
a round's end, the next street, the showdown, or the pot awarded when everyone else folded.

The one part that calls the others in turn; none of them calls it (the engine asks it to move
the hand on after whatever changed the hand).
"""

from __future__ import annotations

from referee.events import Event, HandStart, Phrase, Posted, joined, line
from referee.games.omaha.flying import FlyingBook
from referee.games.omaha.rounds import Rounds
from referee.games.omaha.showdown import Showdown
from referee.games.omaha.state import ActionClock, Hand, HandPlayer, say, show
from referee.games.omaha.table import Seating, Settings
from referee.games.omaha.tourney import TournamentClock
from referee.rules.base import Deal, IllegalAction
from referee.rules.betting import Betting, Seat


class Dealer:
    """Deals the table's hand and moves it from round to round up to its end."""

    def __init__(self, hand: Hand, settings: Settings, seating: Seating,
                 tournament: TournamentClock | None, clock: ActionClock, rounds: Rounds,
                 flying: FlyingBook, showdown: Showdown) -> None:
        self.hand = hand
        self.settings = settings
        self.seating = seating
        self.tournament = tournament
        self.clock = clock
        self.rounds = rounds
        self.flying = flying
        self.showdown = showdown

    def start_hand(self, deal: Deal) -> list[Event]:
        """Deal the next hand (everything checked before anything changes), then move it on
        to its first decision."""
        hand, settings, seating = self.hand, self.settings, self.seating
        if hand.live:
            raise IllegalAction("omaha.hand_running")
        ready = sorted(seat for seat, s in seating.sitters.items() if s.chips > 0)
        if len(ready) < 2:
            raise IllegalAction("omaha.need_two")
        named = seating.button
        if seating.button_set and named is not None:
            button = named if named in ready else seating.next_seat(named, ready)
        elif named is None:
            start = 1 if settings.rules.button_start == "seat1" else ready[0]
            button = start if start in ready else seating.next_seat(start, ready)
        else:
            button = seating.next_seat(named, ready)
        # clockwise from the button's left (``ready`` is sorted; the button, if ready, is last)
        order = [s for s in ready if s > button] + [s for s in ready if s <= button]
        names = [seating.sitters[s].name for s in order]
        # validate the deal before touching anything
        for nm in deal.hands:
            if nm not in seating.by_name:
                raise IllegalAction("omaha.deal_stranger", player=nm)
        for nm in names:
            if len(deal.hands.get(nm, [])) != 4:
                raise IllegalAction("omaha.deal_count", player=nm)
        if len(deal.board) + len(deal.shoe) < 5:
            raise IllegalAction("omaha.deal_board")
        used = [c for nm in names for c in deal.hands[nm]] + list(deal.board) + list(deal.shoe)
        if len(set(used)) != len(used) or min(used) < 0 or max(used) > 51:
            raise IllegalAction("omaha.deal_duplicate")
        if self.tournament is not None:
            self.tournament.check_hand()

        hand.reset()
        events: list[Event] = []
        if self.tournament is not None:
            events.extend(self.tournament.hand_starts(
                {seating.sitters[s].name: seating.sitters[s].chips for s in order}))
        hand.number += 1
        seating.button = button
        seating.button_set = False
        hand.board = list(deal.board)
        hand.spare = list(deal.shoe)
        while len(hand.board) < 5:
            hand.board.append(hand.spare.pop(0))
        hand.players = [
            HandPlayer(nm, order[i], i, list(deal.hands[nm])) for i, nm in enumerate(names)
        ]
        hand.pmap = {p.name: p for p in hand.players}
        n = len(hand.players)
        bet = Betting([Seat(seating.sitters[s].chips) for s in order], settings.bb, settings.limit)
        hand.bet = bet
        events.insert(0, HandStart(hand=hand.number, button=button))
        posts: list[Phrase] = []
        if settings.ante:
            for i, p in enumerate(hand.players):
                events.append(Posted(player=p.name, kind="ante",
                                     amount=bet.post(i, settings.ante, live=False)))
            posts.append(line("omaha.post_ante", ante=settings.ante))
        if n == 2:
            sb_i, bb_i = 1, 0  # heads-up: the button posts the SB and acts first preflop
        else:
            sb_i, bb_i = 0, 1
        blinds: list[tuple[int, Phrase]] = []  # announced SB first, then BB (heads-up too)
        for i, p in enumerate(hand.players):
            sitter = seating.sitters[p.seat]
            if i == bb_i:
                paid = bet.post(i, settings.bb)
                blinds.append((1, line("omaha.post_bb", player=p.name, chips=paid)))
                events.append(Posted(player=p.name, kind="bb", amount=paid))
            elif sitter.newcomer:
                paid = bet.post(i, settings.bb)
                blinds.append((2, line("omaha.post_bb_newcomer", player=p.name, chips=paid)))
                events.append(Posted(player=p.name, kind="newcomer_bb", amount=paid))
            elif i == sb_i:
                paid = bet.post(i, settings.sb)
                blinds.append((0, line("omaha.post_sb", player=p.name, chips=paid)))
                events.append(Posted(player=p.name, kind="sb", amount=paid))
            sitter.newcomer = False
        posts += [t for _, t in sorted(blinds, key=lambda b: b[0])]
        hand.phase = "betting"
        hand.street = 0
        hand.first_idx = (bb_i + 1) % n
        bet.start_round(hand.first_idx, 0, facing=settings.bb)
        hand.snapshot = [(s.stack, s.bet, s.committed, s.folded) for s in bet.seats]
        hand.snap_money = (bet.collected, bet.dead, bet.max_bet)
        events.append(say("room", line(
            "omaha.hand_start", hand=str(hand.number), button=button,
            player=seating.sitters[button].name, posts=joined(" / ", posts),
        )))
        for p in hand.players:
            events.append(say(p.name, line("omaha.your_cards", hand=str(hand.number),
                                          cards=show(p.hole)), p.hole))
        # the first clock reading after the deal starts the turn (a deal carries no time, and
        # the previous message's time could be long ago)
        self.clock.wait.restart(None)
        events.extend(self.advance())
        return events

    # --- moving the hand along -------------------------------------------------------------------
    def advance(self) -> list[Event]:
        """After any change: resolve pending FAs, end rounds, deal streets, reach the showdown."""
        hand = self.hand
        events: list[Event] = []
        b = hand.b()
        while hand.phase == "betting":
            if b.live_count() <= 1:
                events.extend(self.rounds.end_round())
                events.extend(self.showdown.award_uncontested())
                return events
            if b.actors:
                p = hand.players[b.actors[0]]
                if p.fa is not None:
                    events.extend(self.flying.resolve(p))
                    continue
                events.append(self.rounds.prompt(p))
                return events
            events.extend(self.rounds.end_round())
            if hand.street == 3:
                events.extend(self.showdown.start_showdown())
                return events
            hand.street += 1
            hand.aggressor = None
            hand.shown_board = 3 if hand.street == 1 else hand.shown_board + 1
            if hand.street == 1:
                hand.flop_seen = True
            events.extend(self.showdown.street_lines())
            if b.betting_possible():
                b.start_round(0, hand.street)
            self.clock.restart()
        return events
