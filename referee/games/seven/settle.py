"""``seven``'s seats in a hand and its settlement: who is DQ, the dice that pick the dealer hand,
and what every seat is paid (docs/rules.md, "seven"; the engine, :mod:`referee.games.seven.engine`,
calls :func:`settle` at the hand's end). Apart from the engine so the pay arithmetic reads as
one function of the rules, the seats and the dice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.cards import JOKER, Card, is_joker, rank_of, suit_of
from referee.events import Event, Phrase, Settle
from referee.games.seven import voice
from referee.games.seven.hands import seven_key
from referee.games.seven.rules import SevenRules
from referee.games.seven.voice import DealerHand
from referee.hands import class_floor, class_of, pair_floor
from referee.rules.house import pay, settlement_line

ACE, KING = 12, 11


def ace_high_or_better(cards: list[Card]) -> bool:
    """The NPC's second-action test on its 5 cards: any pair or better, or an ace (a joker is
    either)."""
    if any(is_joker(c) for c in cards):
        return True
    ranks = [rank_of(c) for c in cards]
    if ACE in ranks or len(set(ranks)) < len(ranks):
        return True
    if len({suit_of(c) for c in cards}) == 1:
        return True
    rs = set(ranks)
    return len(rs) == 5 and (max(rs) - min(rs) == 4 or rs == {12, 0, 1, 2, 3})


@dataclass
class SeatHand:
    """One seat's part in the current hand (a player's, or the dealer seat's)."""

    seat: int
    name: str | None  # None: the dealer seat
    cards: list[Card]
    npc: bool = False
    dealt: int = 0
    base: int = 0  # the ante as posted (bets are quoted in it)
    ante: int = 0  # the ante now (doubled by a hyper raise)
    bets: int = 0  # action bets (call / raise / hyper / extra)
    posted: bool = False
    allin: bool = False
    folded: bool = False
    hyper: bool = False
    acted: set[int] = field(default_factory=set)
    declared: bool = False
    removed: bool = False  # stood up by ``remove`` (a penalty): stake forfeit, no guarantee

    @property
    def label(self) -> Phrase:
        return voice.who(self.name or "")




def is_dq(r: SevenRules, h: SeatHand, key: int) -> bool:
    """DQ: a hand below the qualifying pair (and, where the rules say so, without an ace or a
    king; a joker hand never is)."""
    limit = r.dq_max_pair - 2  # rank 0..12 of the worst pair that is still DQ
    weak = key < (
        pair_floor("seven", limit + 1) if limit < ACE else class_floor("seven", "two_pair")
    )
    if not weak:
        return False
    if r.dq_needs_ace_or_king:
        ranks = {rank_of(c) for c in h.cards if not is_joker(c)}
        return ACE not in ranks and KING not in ranks and JOKER not in h.cards
    return True

def settle(r: SevenRules, hands: dict[int, SeatHand], players: list[SeatHand], dice: list[int]
           ) -> list[Event]:
    """Every seat's ``settle`` (and the dice, the dealer-hand owner's win count, the
    settlement line): docs/rules.md "seven", settlement."""
    rnd = r.payout_rounding
    out: list[Event] = []
    keys = {s: seven_key(h.cards) for s, h in hands.items() if not h.folded}
    live_players = [h for h in players if not h.folded]
    if not live_players:
        # everybody folded: nothing to compare, no die
        for h in players:
            out.append(Settle(player=h.name or "", result="fold", payout=0))
        return out
    rolls: list[int] = []
    dealer_seat = 0
    for d in dice:
        rolls.append(d)
        if d in hands:
            dealer_seat = d
            break
    ran_out = not dealer_seat
    if ran_out:  # the hit seat was vacated during the antes and the dice ran out
        dealer_seat = (
            r.dealer_seat if r.dealer_seat in hands
            else next(iter(hands))
        )
    dh = hands[dealer_seat]
    dealer_class = None if dh.folded else class_of("seven", keys[dealer_seat])
    out += voice.said(DealerHand(rolls=rolls, seat=dealer_seat, player=dh.name or "",
                                 hand_class=dealer_class, ran_out=ran_out or None,
                                 folded=dh.folded or None))
    wins = 0
    if not dh.folded:
        dkey = keys[dealer_seat]
        for s, k in keys.items():
            if s == dealer_seat:
                continue
            if hands[s].name is None and not r.win_count_dealer_seat:
                continue
            if dkey > k:
                wins += 1
    top = max(int(k) for k in r.win_count_table)
    for h in players:
        name = h.name or ""
        staked = h.ante + h.bets
        if h.folded:
            out.append(Settle(player=name, result="fold", payout=0))
            continue
        key = keys[h.seat]
        klass = class_of("seven", key)
        if h.seat == dealer_seat:
            mult = r.win_count_table[str(min(wins, top))]
            ante_p = pay(h.ante, mult, rnd)
            if r.owner_short_table_applies and klass in r.owner_short_table:
                ante_p = pay(h.ante, r.owner_short_table[klass], rnd)
            bets_p = pay(h.bets, mult, rnd)
            total = ante_p + bets_p
            result = "win" if total > staked else "push" if total == staked else "lose"
            out += voice.said(Settle(player=name, result=result, payout=total, ante=ante_p,
                                     bets=bets_p, hand=klass, wins=wins, dealer_hand=True,
                                     multiplier=format(mult.normalize(), "f")))
            continue
        dq = is_dq(r, h, key)
        if dh.folded and not (dq and r.dq_when_dealer_folds):
            result = "win"
        elif dq:
            result = "dq"
        elif key > keys[dealer_seat]:
            result = "win"
        elif key == keys[dealer_seat]:
            result = "push"
        else:
            result = "lose"
        if result == "win":
            ante_p = pay(h.ante, r.hand_table.get(klass, r.hand_table["other"]), rnd)
        else:
            ante_p = pay(h.ante, r.result_table[result], rnd)
        bets_p = pay(h.bets, r.result_table[result], rnd)
        flag = {"dealer_fold": True} if dh.folded else {}  # absent, not null: JSON reads back
        out.append(Settle(player=name, result=result, payout=ante_p + bets_p, ante=ante_p,
                          bets=bets_p, hand=klass, dealer_class=dealer_class, **flag))
    out.append(settlement_line(out, "seven"))
    return out
