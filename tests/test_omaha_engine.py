"""The omaha engine driven directly (real engine, real definitions, real evaluator; no mocks).

One test per rule of docs/rules.md `omaha` that the engine decides: pot-limit arithmetic
(the seed's two examples), resolution and refusals, blinds and the button, short all-ins, side
pots, rake, showdown order, odd chips, conversion, hand bonus, bankruptcy, World newcomers, every
flying-action case, the operations and the dealing-mistake procedures; then property tests (chip
conservation, refused actions leave no trace).
"""

from __future__ import annotations

from typing import Any, get_args

import pytest
from event_helpers import refused_with, said, said_keys

from referee.actions import action
from referee.adapters.transcript import replay_events
from referee.cards import Card, parse_cards
from referee.events import Event, Say, line
from referee.games.omaha.engine import OmahaEngine
from referee.games.omaha.state import Phase
from referee.rules import create
from referee.rules.base import Deal, IllegalAction, OptionError
from referee.rules.voice import refusal_text, rendered

NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank"]

# Hands that never tie with each other on the default board (rainbow, unpaired low board).
DEFAULT_BOARD = "2c 7d 9h Js 3s"
FILLER = [
    "Ah Ad Kc Qc", "Kh Kd 8c 4c", "Qh Qd 6c 5c", "Th Td 8d 6d",
    "5h 5d 4h 6h", "8h 8s 4d 6s", "Tc Ts 4s 5s", "Ac Ks Qs Jc",
]


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def table(n: int = 3, chips: int | list[int] = 10000, button: int | None = None,
          **opts: str) -> OmahaEngine:
    """``n`` players alice, bob, … in seats 1..n; the button on seat ``n`` unless given
    (so with three or more players alice posts the SB and bob the BB)."""
    eng = create("omaha", {"level": "1", **opts})
    assert isinstance(eng, OmahaEngine)
    stacks = chips if isinstance(chips, list) else [chips] * n
    for k in range(n):
        eng.sit(k + 1, NAMES[k], stacks[k])
    eng.set_button(button if button is not None else n)
    return eng


def deal(eng: OmahaEngine, hands: dict[str, str] | None = None, board: str = DEFAULT_BOARD,
         shoe: str = "") -> list[Event]:
    hands = dict(hands or {})
    names = [s.name for s in eng.seated() if s.chips > 0]
    fill = iter(h for h in FILLER if h not in hands.values())
    for nm in names:
        if nm not in hands:
            hands[nm] = next(fill)
    return eng.start_hand(Deal(
        hands={k: cards(v) for k, v in hands.items() if k in names},
        board=cards(board), shoe=cards(shoe),
    ))


def act(eng: OmahaEngine, player: str, name: str, **kw: Any) -> list[Event]:
    return eng.act(player, action(name, **kw))  # type: ignore[arg-type]


def kinds(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [rendered(e).to_json() for e in events if e.event == kind]


def says(events: list[Event]) -> list[str]:
    return [rendered(e).to_json()["text"] for e in events if e.event == "say"]


#: A player's cards opened in the room (at the showdown, or shown after everyone folded).
OPENS = {"omaha.opened", "omaha.shown"}


def check_down(eng: OmahaEngine) -> list[Event]:
    """Everyone checks/calls until the showdown decisions, then everyone opens."""
    out: list[Event] = []
    while eng.in_hand:
        who = eng.to_act()
        assert who is not None
        if eng.hand.phase == "showdown":
            out += act(eng, who, "open")
        else:
            o = eng.options_for(who)
            out += act(eng, who, "call" if o.call else "check")
    return out


def fold_around(eng: OmahaEngine) -> list[Event]:
    """Everyone folds to the last player."""
    out: list[Event] = []
    while eng.in_hand and eng.hand.phase == "betting":
        who = eng.to_act()
        assert who is not None
        out += act(eng, who, "fold")
    return out


def fingerprint(eng: OmahaEngine) -> Any:
    b = eng.hand.bet
    money = None
    if b is not None:
        money = (
            [(s.stack, s.bet, s.committed, s.folded) for s in b.seats], b.collected, b.dead,
            b.max_bet, list(b.actors), b.increment, sorted(b.acted), list(b.short_allins),
        )
    h = eng.hand
    players = [(p.name, p.fa, p.restrict, list(p.shown), p.opened, p.mucked) for p in h.players]
    sitters = [(s.seat, s.name, s.chips, s.fa_count, s.bonus) for s in eng.seating.sitters.values()]
    return (money, players, sitters, h.phase, h.street, h.shown_board, list(h.sd_queue),
            eng.to_act(), eng.stacks())


def refusal(eng: OmahaEngine, player: str, name: str, **kw: Any) -> IllegalAction:
    before = fingerprint(eng)
    try:
        act(eng, player, name, **kw)
    except IllegalAction as e:
        assert fingerprint(eng) == before, "a refused action changed the table"
        return e
    raise AssertionError(f"{player} {name} {kw} was accepted")


def refused(eng: OmahaEngine, player: str, name: str, **kw: Any) -> tuple[str, dict[str, Any]]:
    """The refusal's catalogue code and parameters (the wording is the voice tests')."""
    e = refusal(eng, player, name, **kw)
    return e.code, e.params


# --- pot limit: the seed's examples and the resolution of intent --------------------------------

def test_preflop_pot_is_three_and_a_half_big_blinds() -> None:
    for n in (3, 4, 8):
        eng = table(n)
        deal(eng)
        first = eng.to_act()
        assert first is not None
        o = eng.options_for(first)
        assert (o.call, o.min_to, o.max_to) == (20, 40, 70)  # BB 20: 3.5 BB = 70
        ev = act(eng, first, "raise", pot=True)
        assert kinds(ev, "action")[0] == {"event": "action", "player": first, "action": "raise",
                                          "amount": 70, "to": 70}


def test_flop_pot_1000_bet_600_raise_1800_next_makes_7000() -> None:
    eng = table(5, chips=20000, level="3")  # SB 50 / BB 100
    deal(eng)
    act(eng, "carol", "raise", to=200)
    for nm in ("dave", "erin", "alice", "bob"):
        act(eng, nm, "call")
    assert eng.hand.bet is not None and eng.hand.bet.pot_total() == 1000 and eng.hand.street == 1
    act(eng, "alice", "bet", amount=600)
    act(eng, "bob", "raise", to=1800)
    o = eng.options_for("carol")
    assert (o.call, o.min_to, o.max_to) == (1800, 3000, 7000)
    assert refused(eng, "carol", "raise", to=7001) == (
        "omaha.make_range", {"word": {"key": "omaha.word_make"}, "min": 3000, "max": 7000})
    ev = act(eng, "carol", "raise", pot=True)
    assert kinds(ev, "action")[0]["to"] == 7000


def test_resolution_and_refusals_in_japanese() -> None:
    eng = table(3)
    deal(eng)
    assert refused(eng, "carol", "raise", to=30) == (
        "omaha.make_range", {"word": {"key": "omaha.word_make"}, "min": 40, "max": 70})
    assert refused(eng, "carol", "raise", to=71) == (
        "omaha.make_range", {"word": {"key": "omaha.word_make"}, "min": 40, "max": 70})
    assert refused(eng, "carol", "raise") == (
        "omaha.amount_needed", {"word": {"key": "omaha.word_make"}, "amount": "40"})
    assert refused(eng, "carol", "check") == ("omaha.no_check", {"call": 20})
    assert refused(eng, "carol", "hyper_raise") == ("omaha.unknown_action", {})
    assert refused(eng, "carol", "open") == ("omaha.not_showdown", {})
    act(eng, "carol", "call")
    act(eng, "alice", "call")
    act(eng, "bob", "check")  # the BB's option
    assert eng.hand.street == 1
    # a raise with no live bet is a bet: minimum BB, maximum the pot
    assert refused(eng, "alice", "raise", to=10) == (
        "omaha.make_range", {"word": {"key": "omaha.word_bet"}, "min": 20, "max": 60})
    ev = act(eng, "alice", "raise", to=60)
    assert kinds(ev, "action")[0]["action"] == "bet"
    # call with nothing to call is a check
    eng2 = table(3)
    deal(eng2)
    act(eng2, "carol", "call")
    act(eng2, "alice", "call")
    ev = act(eng2, "bob", "call")
    assert kinds(ev, "action")[0]["action"] == "check"


def test_oversize_allin_refused_with_the_maximum() -> None:
    eng = table(3)
    deal(eng)
    assert refused(eng, "carol", "allin") == (
        "omaha.allin_over_max", {"allin": 10000, "word": {"key": "omaha.word_make"}, "max": 70})
    eng2 = table(3, chips=[10000, 10000, 60])
    deal(eng2)
    ev = act(eng2, "carol", "allin")  # 60 is within 40..70 -> a legal all-in raise
    assert kinds(ev, "action")[0] == {"event": "action", "player": "carol", "action": "allin",
                                      "amount": 60, "to": 60}


def test_no_limit_and_fixed_limit_ranges() -> None:
    eng = table(3, limit="no")
    deal(eng)
    o = eng.options_for("carol")
    assert (o.min_to, o.max_to) == (40, 10000)
    eng = table(3, limit="fixed")
    deal(eng)
    o = eng.options_for("carol")
    assert (o.min_to, o.max_to) == (40, 40)
    assert refused(eng, "carol", "raise", to=50) == (
        "omaha.make_exact", {"word": {"key": "omaha.word_make"}, "min": 40})


def test_fixed_limit_counts_the_big_blind_as_the_first_bet_preflop() -> None:
    """docs/rules.md (fixed limit): a bet and three raises a round, the BB counting as the bet
    preflop -- 20-40-60-80 is the cap before the flop as after it; a fifth is refused."""
    eng = table(3, limit="fixed")
    deal(eng)
    act(eng, "carol", "raise", to=40)
    act(eng, "alice", "raise", to=60)
    act(eng, "bob", "raise", to=80)
    o = eng.options_for("carol")
    assert not o.can_raise and o.no_raise_reason == "capped"
    assert refused(eng, "carol", "raise", to=100)[0] == "omaha.no_raise"
    act(eng, "carol", "call")
    act(eng, "alice", "call")
    assert eng.hand.street == 1
    act(eng, "alice", "raise", to=20)  # the flop: a bet and three raises
    act(eng, "bob", "raise", to=40)
    act(eng, "carol", "raise", to=60)
    act(eng, "alice", "raise", to=80)
    assert refused(eng, "bob", "raise", to=100)[0] == "omaha.no_raise"


def test_fixed_limit_has_no_cap_heads_up() -> None:
    eng = table(2, limit="fixed")  # button seat 2 = bob posts the SB and acts first
    deal(eng)
    to = 20
    for k in range(6):
        to += 20
        act(eng, "bob" if k % 2 == 0 else "alice", "raise", to=to)
    assert eng.options_for("bob").can_raise


# --- blinds, button, heads-up -------------------------------------------------------------------

def test_heads_up_button_posts_sb_and_acts_first_preflop_only() -> None:
    eng = table(2)  # button seat 2 = bob
    ev = deal(eng)
    assert kinds(ev, "hand_start")[0]["button"] == 2
    assert eng.stacks() == {"alice": 9980, "bob": 9990}
    assert eng.to_act() == "bob"
    act(eng, "bob", "call")
    assert eng.to_act() == "alice"
    act(eng, "alice", "check")
    assert eng.hand.street == 1 and eng.to_act() == "alice"


def test_button_moves_to_the_next_occupied_seat() -> None:
    eng = create("omaha", {})
    assert isinstance(eng, OmahaEngine)
    for seat, nm in ((2, "alice"), (5, "bob"), (7, "carol")):
        eng.sit(seat, nm, 1000)
    buttons = []
    for _ in range(4):
        ev = deal(eng)
        buttons.append(kinds(ev, "hand_start")[0]["button"])
        fold_around(eng)
    assert buttons == [2, 5, 7, 2]


def test_antes_then_blinds() -> None:
    eng = table(3, ante="on")
    ev = deal(eng)
    assert eng.stacks() == {"alice": 9985, "bob": 9975, "carol": 9995}
    posts = said(ev, "omaha.hand_start")[0]["posts"]["items"]
    assert posts[0] == line("omaha.post_ante", ante=5)
    o = eng.options_for("carol")
    assert (o.call, o.max_to) == (20, 85)  # 20 + (15 antes + 30 blinds + 20 call)


def test_hand_start_sends_each_player_only_their_own_cards() -> None:
    eng = table(3)
    ev = deal(eng, {"alice": "Ah Ad Kc Qc"})
    private = [e for e in kinds(ev, "say") if e["to"] != "room"]
    assert {e["to"] for e in private} == {"alice", "bob", "carol"}
    assert "A♥ A♦ K♣ Q♣" in next(e["text"] for e in private if e["to"] == "alice")
    room = " ".join(e["text"] for e in kinds(ev, "say") if e["to"] == "room")
    assert "A♥" not in room


# --- short all-ins, side pots -----------------------------------------------------------------

def test_short_allin_does_not_reopen_the_betting() -> None:
    eng = table(3, chips=[10000, 130, 10000], limit="no")
    deal(eng)
    act(eng, "carol", "raise", to=100)
    act(eng, "alice", "call")
    ev = act(eng, "bob", "allin")  # 130: a raise of 30, less than the last full raise (80)
    assert kinds(ev, "action")[0]["action"] == "allin"
    o = eng.options_for("carol")
    assert o.call == 30 and not o.can_raise
    assert refused(eng, "carol", "raise", to=400) == ("omaha.no_raise", {"call": 30})
    act(eng, "carol", "call")
    assert not eng.options_for("alice").can_raise


def test_side_pots_and_rake_from_the_main_pot() -> None:
    eng = table(3, chips=[1000, 3000, 10000], limit="no")
    deal(eng, {"alice": "Ah Ad Kc Qc", "bob": "Kh Kd 8c 4c", "carol": "Qh Qd 6c 5c"})
    act(eng, "carol", "allin")
    act(eng, "alice", "allin")
    ev = act(eng, "bob", "allin")
    ev += check_down(eng)
    assert kinds(ev, "returned") == [{"event": "returned", "player": "carol", "amount": 7000}]
    assert kinds(ev, "rake") == [{"event": "rake", "amount": 140, "pot": 7000, "percent": "2"}]
    pots = {p["index"]: p for p in kinds(ev, "pot")}
    assert pots[0]["amount"] == 2860 and pots[0]["shares"] == {"alice": 2860}
    assert pots[1]["amount"] == 4000 and pots[1]["shares"] == {"bob": 4000}
    end = kinds(ev, "hand_end")[0]
    assert end["stacks"] == {"alice": 2860, "bob": 4000, "carol": 7000}


# --- rake ---------------------------------------------------------------

def test_rake_thresholds_and_cap() -> None:
    eng = table(3)
    eng.hand.flop_seen = True
    assert [eng.showdown.rake_for(x) for x in (0, 499, 500, 1000, 24999, 25000, 30000, 10**6)] == [
        0, 0, 10, 20, 499, 500, 500, 500]


def test_rake_under_500_is_zero_over_500_is_two_percent() -> None:
    eng = table(3)
    deal(eng)
    ev = check_down(eng)
    assert kinds(ev, "rake") == [] and sum(p["amount"] for p in kinds(ev, "pot")) == 60
    eng = table(3, level="5")  # 200/400: three calls = 1200
    deal(eng)
    ev = check_down(eng)
    assert kinds(ev, "rake") == [{"event": "rake", "amount": 24, "pot": 1200, "percent": "2"}]
    assert sum(p["amount"] for p in kinds(ev, "pot")) == 1176


def test_rake_cap_500() -> None:
    eng = table(3, level="7", limit="no")
    deal(eng)
    act(eng, "carol", "allin")
    act(eng, "alice", "allin")
    ev = act(eng, "bob", "allin") + check_down(eng)
    assert kinds(ev, "rake") == [  # 2% of 30000 = 600 -> 500
        {"event": "rake", "amount": 500, "pot": 30000, "percent": "2"}]
    assert sum(eng.stacks().values()) == 29500


def _preflop_war(rules: str) -> list[Event]:
    eng = table(3, level="5", rules=rules)
    deal(eng)
    act(eng, "carol", "raise", to=1400)
    act(eng, "alice", "call")
    ev = act(eng, "bob", "raise", to=5600)
    ev += act(eng, "carol", "fold") + act(eng, "alice", "fold")
    return ev


def test_no_flop_no_drop_under_world_rules_only() -> None:
    world = _preflop_war("world")
    assert kinds(world, "rake") == []
    assert kinds(world, "pot")[0]["amount"] == 4200
    loj = _preflop_war("loj")
    assert kinds(loj, "rake") == [{"event": "rake", "amount": 84, "pot": 4200, "percent": "2"}]
    assert kinds(loj, "pot")[0]["amount"] == 4116


# --- showdown order ---------------------------------------------------------------

def _opens(events: list[Event]) -> list[str]:
    return [p["player"] for e in events if isinstance(e, Say) and e.key in OPENS
            for p in [e.params or {}]]


def _to_river(eng: OmahaEngine) -> None:
    while eng.hand.street < 3:
        who = eng.to_act()
        assert who is not None
        o = eng.options_for(who)
        act(eng, who, "call" if o.call else "check")


def test_showdown_loj_opens_from_the_sb_position() -> None:
    eng = table(3)
    deal(eng)
    _to_river(eng)
    ev = act(eng, "alice", "bet", amount=20) + act(eng, "bob", "call") + act(eng, "carol", "call")
    assert _opens(ev) == ["alice"]  # LOJ: SB first, even though alice bet
    # the forced first opening is no decision: no action event for it
    assert [a["action"] for a in kinds(ev, "action")] == ["bet", "call", "call"]
    assert eng.to_act() == "bob"
    ev = act(eng, "bob", "open")
    assert _opens(ev) == ["bob"] and eng.to_act() == "carol"
    assert kinds(ev, "action") == [{"event": "action", "player": "bob", "action": "open",
                                    "amount": 0}]
    assert refused(eng, "carol", "call") == ("omaha.open_or_muck", {})
    ev = act(eng, "carol", "open")
    assert kinds(ev, "pot")[0]["shares"] == {"alice": 120}


def test_showdown_world_last_bettor_opens_first() -> None:
    eng = table(3, rules="world")
    deal(eng)
    _to_river(eng)
    act(eng, "alice", "check")
    ev = act(eng, "bob", "bet", amount=20) + act(eng, "carol", "call") + act(eng, "alice", "call")
    assert _opens(ev) == ["bob"]
    assert eng.to_act() == "carol"
    act(eng, "carol", "open")
    assert eng.to_act() == "alice"


def test_showdown_world_without_a_bet_is_sb_order() -> None:
    eng = table(3, rules="world")
    deal(eng)
    ev = check_down(eng)
    assert _opens(ev) == ["alice", "bob", "carol"]


def test_showdown_side_pot_first_and_allin_players_must_open() -> None:
    eng = table(3, chips=[500, 10000, 10000], limit="no")
    deal(eng, {"alice": "Ah Ad Kc Qc", "bob": "Kh Kd 8c 4c", "carol": "Qh Qd 6c 5c"})
    act(eng, "carol", "call")
    act(eng, "alice", "allin")
    act(eng, "bob", "call")
    act(eng, "carol", "call")
    act(eng, "bob", "bet", amount=100)
    ev = act(eng, "carol", "call")
    while eng.hand.phase == "betting":
        who = eng.to_act()
        assert who is not None
        ev += act(eng, who, "check")
    # the side pot (bob, carol) is opened first, bob from the SB position; alice (all-in, main
    # pot only) opens last, automatically
    assert _opens(ev) == ["bob"] and eng.to_act() == "carol"
    ev = act(eng, "carol", "muck", cards=["Qh"])
    assert eng.shown("carol") == cards("Qh")
    assert _opens(ev) == ["alice"]
    # carol's muck is her action; alice's opening is forced (all-in): no action for it
    assert [(a["player"], a["action"]) for a in kinds(ev, "action")] == [("carol", "muck")]
    assert [(p["index"], p["amount"], p["shares"]) for p in kinds(ev, "pot")] == [
        (1, 200, {"bob": 200}), (0, 1466, {"alice": 1466})]  # rake 34 from the main pot
    assert kinds(ev, "hand_end")[0]["stacks"] == {"alice": 1466, "bob": 9600, "carol": 9400}


def test_muck_concedes_the_pot() -> None:
    eng = table(2)
    deal(eng, {"alice": "Ah Ad Kc Qc", "bob": "Qh Qd 6c 5c"})
    act(eng, "bob", "call")
    act(eng, "alice", "check")
    ev: list[Event] = []
    for _ in range(3):
        ev += act(eng, "alice", "check") + act(eng, "bob", "check")
    # heads-up: alice (left of the button) opens first; bob may muck with the best... he has worse
    assert _opens(ev) == ["alice"] and eng.to_act() == "bob"
    ev = act(eng, "bob", "muck")
    assert kinds(ev, "pot")[0]["shares"] == {"alice": 40}
    assert eng.shown("bob") == []


# --- split pots ---------------------------------------------------------------

def _chop(rules: str) -> list[Event]:
    eng = table(3, ante="on", rules=rules)
    deal(eng, {"alice": "8h 8s 4d 6s", "bob": "Ah Kh 4c 5c", "carol": "Ad Kd 4h 5h"})
    act(eng, "carol", "call")
    act(eng, "alice", "fold")
    return act(eng, "bob", "check") + check_down(eng)


def test_loj_tops_up_the_odd_chip() -> None:
    ev = _chop("loj")
    pot = kinds(ev, "pot")[0]
    assert pot["amount"] == 65 and pot["shares"] == {"bob": 33, "carol": 33}
    assert kinds(ev, "house_topup")[0]["amount"] == 1
    assert kinds(ev, "hand_end")[0]["stacks"] == {"alice": 9985, "bob": 10008, "carol": 10008}


def test_world_odd_chip_to_the_worst_position() -> None:
    ev = _chop("world")
    pot = kinds(ev, "pot")[0]
    # button carol (seat 3): first clockwise from the button among the winners is bob
    assert pot["shares"] == {"bob": 33, "carol": 32}
    assert kinds(ev, "house_topup") == []
    assert kinds(ev, "hand_end")[0]["stacks"] == {"alice": 9985, "bob": 10008, "carol": 10007}


# --- bank conversion, hand bonus, bankruptcy, newcomers -----------------------------------------

def test_conversion_on_sit_and_leave() -> None:
    eng = table(2)
    assert eng.buy_in_chips(123) == 1230
    assert (eng.to_points(12341), eng.to_points(12340), eng.to_points(1)) == (1235, 1234, 1)
    ev = eng.leave("alice")
    assert kinds(ev, "leave") == [{"event": "leave", "player": "alice", "chips": 10000,
                                   "bank": 1000}]
    eq = table(2, equal="on")
    assert eq.buy_in_chips(123) == 123
    eq.seating.sitters[1].chips = 12341
    assert kinds(eq.leave("alice"), "leave")[0]["bank"] == 12341


def test_hand_bonus_credited_on_leaving() -> None:
    eng = table(2, chips=10001)
    deal(eng, {"alice": "9h 9s Ac Qd", "bob": "Kh Kc 2d 3d"}, board="9c 9d 2h 5s Kd")
    ev = check_down(eng)
    assert kinds(ev, "hand_bonus") == [{"event": "hand_bonus", "player": "alice",
                                        "hand": "four_of_a_kind", "bank": 400}]
    assert eng.stacks()["alice"] == 10021
    ev = eng.leave("alice")
    assert kinds(ev, "leave")[0] == {"event": "leave", "player": "alice", "chips": 10021,
                                     "bank": 1003 + 400}


def test_leave_during_a_hand_waits_for_the_end() -> None:
    eng = table(3)
    deal(eng)
    ev = eng.leave("alice")
    assert kinds(ev, "leave") == [] and "alice" in eng.stacks()
    ev = fold_around(eng)
    assert [e["player"] for e in kinds(ev, "leave")] == ["alice"]
    assert "alice" not in eng.stacks()


def test_bankrupt_player_is_out() -> None:
    eng = table(2, chips=[100, 10000], limit="no")
    deal(eng, {"alice": "Qh Qd 6c 5c", "bob": "Ah Ad Kc Qc"})
    act(eng, "bob", "call")
    act(eng, "alice", "allin")
    ev = act(eng, "bob", "call") + check_down(eng)
    assert kinds(ev, "hand_end")[0]["stacks"] == {"alice": 0, "bob": 10100}
    assert kinds(ev, "leave")[0] == {"event": "leave", "player": "alice", "chips": 0, "bank": 0}
    assert said(ev, "omaha.bankrupt") == [{"player": "alice"}]
    assert list(eng.stacks()) == ["bob"]


def test_world_newcomer_posts_a_big_blind() -> None:
    for rules, expect_post in (("world", True), ("loj", False)):
        eng = table(3, rules=rules)
        deal(eng)
        fold_around(eng)
        eng.sit(4, "dave", 10000)
        ev = deal(eng)  # button moves to seat 4 (dave): SB alice, BB bob, carol first
        assert kinds(ev, "hand_start")[0]["button"] == 4
        posts = said(ev, "omaha.hand_start")[0]["posts"]["items"]
        posted = any(p["key"] == "omaha.post_bb_newcomer" for p in posts)
        assert posted is expect_post
        if expect_post:
            assert eng.options_for("carol").call == 20
            act(eng, "carol", "call")
            assert eng.to_act() == "dave" and eng.options_for("dave").call == 0
        eng2_stacks = eng.stacks()
        assert eng2_stacks["dave"] == (9980 if expect_post else 10000)


# --- flying actions ---------------------------------------------------------------

def test_fa_call_still_valid_is_applied() -> None:
    eng = table(3)
    deal(eng)
    ev = act(eng, "alice", "call")  # carol is to act
    assert kinds(ev, "flying_action") == [{"event": "flying_action", "player": "alice",
                                          "action": "call", "count": 1}]
    assert eng.stacks()["alice"] == 9980  # 10 reserved
    ev = act(eng, "carol", "call")
    acts = kinds(ev, "action")
    assert [a["player"] for a in acts] == ["carol", "alice"]
    assert acts[1]["amount"] == 10 and eng.to_act() == "bob"


def test_a_refused_flying_fold_is_not_counted() -> None:
    """A flying fold that shows cards the player does not hold is refused whole: no count, no
    fold (the cards are checked before the flying action is counted)."""
    eng = table(3)
    deal(eng, {"alice": "Ah Ad Kc Qc"})
    assert refused(eng, "alice", "fold", cards=["2s"]) == ("omaha.show_not_held", {})
    assert eng.seating.sitters[1].fa_count == 0
    ev = act(eng, "alice", "fold", cards=["Ah"])
    assert kinds(ev, "flying_action")[0]["count"] == 1 and eng.shown("alice") == cards("Ah")


def test_fa_call_invalidated_must_call_or_fold_chips_stay() -> None:
    eng = table(3)
    deal(eng)
    act(eng, "alice", "call")
    ev = act(eng, "carol", "raise", to=70)
    assert kinds(ev, "fa_void")[0]["chips"] == 10
    assert eng.to_act() == "alice"
    assert refused(eng, "alice", "raise", to=200) == ("omaha.call_or_fold", {"call": 60})
    ev = act(eng, "alice", "fold")
    assert eng.stacks()["alice"] == 9980  # SB 10 + the FA's 10 stay in the pot
    eng = table(3)
    deal(eng)
    act(eng, "alice", "call")
    act(eng, "carol", "raise", to=70)
    ev = act(eng, "alice", "call")
    assert kinds(ev, "action")[0]["amount"] == 60 and eng.stacks()["alice"] == 9930


def test_fa_raise_still_valid_is_applied() -> None:
    eng = table(3)
    deal(eng)
    act(eng, "alice", "raise", to=60)  # legal now (40..60)
    ev = act(eng, "carol", "call")
    acts = kinds(ev, "action")
    assert acts[1] == {"event": "action", "player": "alice", "action": "raise", "amount": 50,
                       "to": 60}


def test_fa_raise_invalidated_must_raise_or_fold() -> None:
    eng = table(3)
    deal(eng)
    act(eng, "alice", "raise", to=60)
    act(eng, "carol", "raise", to=70)
    assert eng.to_act() == "alice"
    assert refused(eng, "alice", "call") == ("omaha.raise_or_fold", {"min": 120, "max": 230})
    o = eng.options_for("alice")
    assert o.min_to == 120
    assert eng.stacks()["alice"] == 9940  # the FA's 50 stay reserved
    ev = act(eng, "alice", "raise", to=120)
    assert kinds(ev, "action")[0]["amount"] == 110  # the FA's 50 included
    assert eng.stacks()["alice"] == 9880


def test_fa_raise_out_of_range_is_refused_and_not_counted() -> None:
    eng = table(3)
    deal(eng)
    assert refused(eng, "alice", "raise", to=500) == (
        "omaha.make_range", {"word": {"key": "omaha.word_make"}, "min": 40, "max": 60})
    assert refused(eng, "alice", "raise") == (
        "omaha.amount_needed", {"word": {"key": "omaha.word_make"}, "amount": "40"})
    assert eng.seating.sitters[1].fa_count == 0


def test_fa_check_still_valid_is_applied() -> None:
    eng = table(3)
    deal(eng)
    act(eng, "carol", "call")
    act(eng, "alice", "call")
    act(eng, "bob", "check")
    ev = act(eng, "carol", "check")  # flop: alice is to act
    assert kinds(ev, "flying_action")[0]["count"] == 1
    ev = act(eng, "alice", "check") + act(eng, "bob", "check")
    assert [a["player"] for a in kinds(ev, "action")] == ["alice", "bob", "carol"]
    assert eng.hand.street == 2


def test_fa_check_facing_a_bet_pays_one_bb_then_call_or_fold() -> None:
    eng = table(3)
    deal(eng)
    act(eng, "carol", "call")
    act(eng, "alice", "call")
    act(eng, "bob", "check")
    act(eng, "carol", "check")
    act(eng, "alice", "bet", amount=40)
    ev = act(eng, "bob", "call")
    assert kinds(ev, "penalty") == [{"event": "penalty", "player": "carol", "kind": "check_fa",
                                     "points": 0, "chips": 20}]
    assert eng.to_act() == "carol" and eng.stacks()["carol"] == 9960
    assert refused(eng, "carol", "raise", to=200) == ("omaha.call_or_fold", {"call": 40})
    ev = act(eng, "carol", "call")
    assert eng.hand.street == 2 and eng.stacks()["carol"] == 9920
    assert eng.hand.bet is not None and eng.hand.bet.pot_total() == 60 + 120 + 20


def test_allin_fa_is_void_folds_and_half_stays_in_the_pot() -> None:
    eng = table(3, chips=10001)
    deal(eng)
    ev = act(eng, "alice", "allin")  # 9991 behind after the SB
    assert kinds(ev, "penalty") == [{"event": "penalty", "player": "alice", "kind": "allin_fa",
                                     "points": 0, "chips": 4995}]
    assert eng.stacks()["alice"] == 4996  # the returned half rounded up
    assert eng.hand.bet is not None and eng.hand.bet.seats[0].folded
    ev = act(eng, "carol", "fold")
    # bob's unmatched 10 returns; 10 + 10 + 4995 = 5015, rake 2% = 100
    assert kinds(ev, "pot")[0]["shares"] == {"bob": 4915}
    assert kinds(ev, "hand_end")[0]["stacks"] == {"alice": 4996, "bob": 14906, "carol": 10001}


def test_fold_fa_folds_at_once() -> None:
    eng = table(3)
    deal(eng)
    ev = act(eng, "bob", "fold")
    assert kinds(ev, "flying_action")[0]["action"] == "fold"
    assert kinds(ev, "action")[0] == {"event": "action", "player": "bob", "action": "fold",
                                      "amount": 0}
    act(eng, "carol", "call")
    act(eng, "alice", "call")
    assert eng.hand.street == 1


def test_third_fa_folds_and_removes_counted_per_seating() -> None:
    eng = table(3)
    deal(eng)
    act(eng, "alice", "call")  # 1
    ev = act(eng, "alice", "raise", to=60)  # 2: counted, the first declaration stands
    assert kinds(ev, "flying_action")[0]["count"] == 2
    fold_around(eng)
    assert eng.seating.sitters[1].fa_count == 2
    deal(eng)  # button to alice (seat 1): bob SB, carol BB, alice first
    assert eng.to_act() == "alice"
    act(eng, "alice", "call")
    behind = eng.stacks()["alice"]
    ev = act(eng, "alice", "check")  # 3rd, while bob is to act
    assert kinds(ev, "flying_action")[0]["count"] == 3
    assert kinds(ev, "penalty")[0]["kind"] == "flying_action_limit"
    assert kinds(ev, "action")[0] == {"event": "action", "player": "alice", "action": "fold",
                                      "amount": 0}
    leave = kinds(ev, "leave")[0]
    assert leave["player"] == "alice" and leave["chips"] == behind
    assert "alice" not in eng.stacks()
    # a new seating starts from zero
    eng.sit(1, "alice", 5000)
    assert eng.seating.sitters[1].fa_count == 0


def test_all_in_and_folded_players_cannot_act() -> None:
    eng = table(3, chips=[10000, 10000, 60])
    deal(eng)
    act(eng, "carol", "allin")
    assert refused(eng, "carol", "call") == ("omaha.already_allin", {})
    act(eng, "alice", "fold")
    assert refused(eng, "alice", "call") == ("omaha.already_folded", {})


# --- operations ---------------------------------------------------------------

def test_force_fold_and_remove() -> None:
    """The engine's part of a penalty (the service charges the bank: see the next test)."""
    eng = table(4)
    deal(eng)
    ev = eng.force_fold("bob")
    assert kinds(ev, "action")[0] == {"event": "action", "player": "bob", "action": "fold",
                                      "amount": 0}
    ev = eng.remove("bob")
    assert kinds(ev, "leave")[0] == {"event": "leave", "player": "bob", "chips": 9980,
                                     "bank": 998}
    ev = eng.force_fold("carol") + eng.remove("carol")  # carol, to act: folded and removed
    assert [e["player"] for e in kinds(ev, "action")] == ["carol"]
    assert [e["player"] for e in kinds(ev, "leave")] == ["carol"]
    assert eng.to_act() == "dave"
    ev = act(eng, "dave", "fold")
    assert kinds(ev, "pot")[0]["shares"] == {"alice": 30}
    assert sorted(eng.stacks()) == ["alice", "dave"]


def test_a_moderators_penalty_mid_hand_folds_removes_and_charges_the_bank(tmp_path: Any) -> None:
    """``!penalty`` through the service (the one penalty path): the player to act is folded,
    the penalty charged to the bank, the seat removed; the hand goes on."""
    path = tmp_path / "penalty.txt"
    path.write_text(
        "# table: omaha level=1\n# moderator: dealer\n# bank: carol 5000\n"
        + "".join(f"# seat {k + 1}: {NAMES[k]} 10000\n" for k in range(4))
        + "# button: 4\n# deal: alice=Ah Ad Kc Qc | bob=Kh Kd 8c 4c | carol=Qh Qd 6c 5c | "
        "dave=Th Td 8d 6d | board=2c 7d 9h Js 3s\n"
        "dealer: !penalty @carol information_leak\ndave: フォールド\nalice: フォールド\n",
        encoding="utf-8",
    )
    evs = [e.to_json() for e in replay_events(path)]
    after = [e for e in evs if e["event"] in ("action", "penalty", "leave", "pot")]
    assert after == [
        {"event": "action", "player": "carol", "action": "fold", "amount": 0},
        {"event": "penalty", "player": "carol", "kind": "information_leak", "points": 1000,
         "chips": 0},
        {"event": "leave", "player": "carol", "chips": 10000, "bank": 1000},
        {"event": "action", "player": "dave", "action": "fold", "amount": 0},
        {"event": "action", "player": "alice", "action": "fold", "amount": 0},
        {"event": "pot", "index": 0, "amount": 20, "shares": {"bob": 20},  # 10 returned
         "uncontested": True},
    ]
    bank = [e for e in evs if e["event"] == "bank" and e.get("player") == "carol"]
    assert bank and bank[-1]["balance"] == 5000 - 1000 + 1000


# --- dealing mistakes ---------------------------------------------------------------

def test_misdeal_preflop_rewinds_and_redeals_that_player() -> None:
    eng = table(3)
    deal(eng, {"bob": "Kh Kd 8c 4c"}, shoe="2d 3d 4s 5h")
    act(eng, "carol", "raise", to=70)
    act(eng, "alice", "call")
    ev = eng.dealing_mistake("misdeal", "bob")
    assert kinds(ev, "misdeal")[0]["burned"] == ["Kh", "Kd", "8c", "4c"]
    assert eng.holdings("bob") == cards("2d 3d 4s 5h")
    assert eng.stacks() == {"alice": 9990, "bob": 9980, "carol": 10000}
    assert eng.to_act() == "carol"
    assert any(e["to"] == "bob" and "2♦" in e["text"] for e in kinds(ev, "say"))
    act(eng, "carol", "fold")
    act(eng, "alice", "fold")
    assert eng.stacks() == {"alice": 9990, "bob": 10010, "carol": 10000}


def test_misdeal_rewind_keeps_the_penalties_of_a_removed_player() -> None:
    """Regression (property seed 230): a misdeal rewinds every seat still in the hand, but a
    removed player's seat is not rewound -- so the penalty they paid into the dead money must stay
    in the pot too. It vanished when the rewind restored the dead money wholesale."""
    eng = table(4, button=4)  # alice SB, bob BB, carol first to act
    deal(eng, shoe="2d 3d 4s 5h")
    act(eng, "alice", "check")  # flying check
    act(eng, "bob", "check")  # flying check
    act(eng, "carol", "raise", to=70)
    ev = act(eng, "dave", "call")  # alice's turn: the check is void, she pays one BB
    assert kinds(ev, "penalty")[0]["chips"] == 20
    ev = act(eng, "alice", "call")  # bob's turn: his check is void too
    assert [e["player"] for e in kinds(ev, "penalty")] == ["bob"]
    ev = eng.remove("alice")  # a penalty's removal (the service charges the bank)
    assert kinds(ev, "leave")[0]["chips"] == 10000 - 10 - 20 - 60
    assert eng.hand.bet is not None
    pot = eng.hand.bet.pot_total()
    eng.dealing_mistake("misdeal", "carol")
    # bob, still in the hand, gets his penalty back with his stack; alice's 70 + 20 stay
    assert eng.stacks() == {"bob": 9980, "carol": 10000, "dave": 10000}
    assert eng.hand.bet.pot_total() == 70 + 20 + 20 < pot
    act(eng, "carol", "fold")
    ev = act(eng, "dave", "fold")
    assert kinds(ev, "pot")[0]["shares"] == {"bob": 110}
    assert sum(eng.stacks().values()) + 9910 == 40000


def test_misdeal_after_the_flop_is_refused() -> None:
    eng = table(3)
    deal(eng, shoe="2d 3d 4s 5h")
    act(eng, "carol", "call")
    act(eng, "alice", "call")
    act(eng, "bob", "check")
    with refused_with("omaha.misdeal_late"):
        eng.dealing_mistake("misdeal", "bob")


def test_nogame_pays_the_pot_to_active_and_20_percent_to_inactive() -> None:
    eng = table(3)
    deal(eng)
    act(eng, "carol", "call")
    act(eng, "alice", "call")
    act(eng, "bob", "check")
    act(eng, "alice", "bet", amount=40)
    act(eng, "bob", "fold")
    act(eng, "carol", "call")
    ev = eng.dealing_mistake("nogame")
    ng = kinds(ev, "nogame")[0]
    assert ng["pot"] == 140 and ng["payments"] == {"alice": 140, "bob": 28, "carol": 140}
    assert kinds(ev, "hand_end")[0]["stacks"] == {"alice": 10080, "bob": 10008, "carol": 10080}
    assert kinds(ev, "rake") == []


def test_nogame_inactive_cap_is_300_points() -> None:
    eng = table(3, chips=100000, level="7", limit="no")
    deal(eng)
    act(eng, "carol", "raise", to=50000)
    act(eng, "alice", "call")
    act(eng, "bob", "fold")
    ev = eng.dealing_mistake("nogame")
    assert kinds(ev, "nogame")[0]["payments"]["bob"] == 3000  # 300 points = 3000 chips (x10)


def test_exposed_hand_gets_half_the_pot_and_stays_face_up() -> None:
    eng = table(3)
    deal(eng, {"bob": "Kh Kd 8c 4c"})
    ev = eng.dealing_mistake("exposed", "bob")
    assert kinds(ev, "exposed")[0] == {"event": "exposed", "player": "bob",
                                       "cards": ["Kh", "Kd", "8c", "4c"], "chips": 15}
    assert eng.shown("bob") == cards("Kh Kd 8c 4c")
    ev = fold_around(eng)
    assert kinds(ev, "hand_end")[0]["stacks"]["bob"] == 10000 + 10 + 15


def test_exposed_board_card_is_shown_and_burned() -> None:
    eng = table(3)
    deal(eng, shoe="Ac")
    ev = eng.dealing_mistake("exposed")
    assert kinds(ev, "burned")[0]["card"] == "2c"
    act(eng, "carol", "call")
    act(eng, "alice", "call")
    ev = act(eng, "bob", "check")
    assert {"street": line("omaha.street_1"), "cards": "7♦ 9♥ J♠"} in said(ev, "omaha.street")
    with pytest.raises(IllegalAction):
        eng.dealing_mistake("exposed")  # no spare card left
    with pytest.raises(IllegalAction):
        eng.dealing_mistake("whatever")


# --- options, seating ---------------------------------------------------------------

@pytest.mark.parametrize("opts", [
    {"rules": "vegas"}, {"level": "8"}, {"level": "x"}, {"limit": "spread"}, {"ante": "maybe"},
    {"rake": "off"},
])
def test_bad_options_are_refused(opts: dict[str, str]) -> None:
    with pytest.raises(OptionError):
        create("omaha", opts)


def test_seating_checks() -> None:
    eng = table(2)
    with pytest.raises(IllegalAction):
        eng.sit(1, "zed", 100)  # taken
    with pytest.raises(IllegalAction):
        eng.sit(9, "zed", 100)  # 8 seats
    with pytest.raises(IllegalAction):
        eng.sit(3, "alice", 100)  # already seated
    with pytest.raises(IllegalAction):
        eng.sit(3, "zed", 0)
    with pytest.raises(IllegalAction):
        eng.start_hand(Deal(hands={"alice": cards("Ah Kh Qh Jh")}, board=cards(DEFAULT_BOARD)))
    eng.leave("bob")
    with refused_with("omaha.need_two"):
        deal(eng)


def test_action_clock_reminds_then_checks_or_folds() -> None:
    eng = table(3)
    deal(eng)
    assert eng.tick(0.0) == []  # the first reading after the deal starts carol's clock
    assert eng.tick(30.0) == []
    assert said_keys(eng.tick(60.0)) == ["omaha.remind"]
    ev = eng.tick(120.0)
    assert kinds(ev, "action")[0]["action"] == "fold" and eng.to_act() == "alice"


def test_action_clock_starts_at_the_first_reading_after_a_deal() -> None:
    eng = table(3)
    deal(eng)
    act(eng, "carol", "fold")
    eng.act("alice", action("fold"), now=100.0)  # hand 1 over at t=100
    deal(eng)  # hours later: the deal carries no time
    assert eng.tick(5000.0) == []  # not a timeout: the clock starts now
    assert eng.to_act() is not None
    assert kinds(eng.tick(5120.0), "action")[0]["action"] == "fold"


def test_action_clock_at_showdown_opens() -> None:
    eng = table(2)
    deal(eng)
    while eng.hand.phase == "betting":
        who = eng.to_act()
        assert who is not None
        o = eng.options_for(who)
        act(eng, who, "call" if o.call else "check")
    assert eng.hand.phase == "showdown"
    eng.tick(0.0)
    ev = eng.tick(200.0)
    assert OPENS & set(said_keys(ev)) and not eng.in_hand


def test_fold_showing_cards_not_held_is_refused_without_naming_them() -> None:
    eng = table(3)
    deal(eng, {"carol": "Qh Qd 6c 5c"})
    refused = refusal(eng, "carol", "fold", cards=["As"])
    reason = refusal_text(refused.code, refused.params)  # it names no card
    assert "A" not in reason and "♠" not in reason
    ev = act(eng, "carol", "fold", cards=["Qh", "6c"])
    assert said(ev, "omaha.fold_show") == [{"player": "carol", "cards": "Q♥ 6♣"}]
    assert eng.shown("carol") == cards("Qh 6c")


def test_the_phase_is_typed_and_the_showdown_is_told() -> None:
    assert set(get_args(Phase)) == {"idle", "betting", "showdown", "over"}
    eng = table(2)
    assert eng.hand.phase == "idle" and not eng.at_showdown()
    deal(eng)
    assert eng.hand.phase == "betting" and not eng.at_showdown()
    while eng.hand.phase == "betting":
        who = eng.to_act()
        assert who is not None
        act(eng, who, "call" if eng.options_for(who).call else "check")
    assert eng.at_showdown()
    check_down(eng)
    assert eng.hand.phase == "over" and not eng.at_showdown()


def test_the_uncontested_winner_showing_cards_not_held_is_refused_and_may_still_show() -> None:
    eng = table(3)
    deal(eng, {"bob": "Kh Kd 8c 4c"})
    fold_around(eng)
    assert eng.decision("bob") == "after_fold"
    assert refused(eng, "bob", "open", cards=["As"]) == ("omaha.show_not_held", {})
    assert eng.decision("bob") == "after_fold"  # the refusal left the choice open
    ev = act(eng, "bob", "open", cards=["Kh"])
    assert said(ev, "omaha.shown") == [{"player": "bob", "cards": "K♥"}]
    assert said_keys(ev) == ["omaha.shown"] and eng.decision("bob") is None


def test_the_turn_prompt_reads_like_every_games() -> None:
    eng = table(3, chips=200000, level="7")  # SB 1,000 / BB 2,000
    ev = deal(eng)
    assert said_keys(ev)[-1] == "seat.turn"
    prompt = said(ev, "seat.turn")[-1]
    assert prompt["player"] == "carol" and prompt["choices"]["items"] == [
        line("omaha.choice_call", call=2000),
        line("omaha.choice_range", word=line("omaha.word_make"), min=4000, max=7000),
        line("omaha.choice_fold")]
    ev = eng.leave("alice")
    assert said(ev, "seat.leaving") == [{"player": "alice"}] and len(said_keys(ev)) == 1
