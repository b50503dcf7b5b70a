"""The turn prompt offers exactly what the check accepts, in every game (``Engine.offers``:
the one place that knows what a decision accepts; the prompts render it, the checks consult it).

For random states of every game -- omaha tables driven with flying actions (so the β
restrictions occur), the house games played by chat through the service with all-in stakes --
every action an offer names is accepted (``Engine.can``), and every candidate action that is
accepted turns out, applied to a copy of the table, to be one of the offers with the offer's
chips (a call of the offer's amount, a make inside the offered range).
"""

from __future__ import annotations

import copy
import random
from typing import Any

from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from test_house_voice import Table, message

from referee.actions import Parsed, action
from referee.cards import Card, card_str
from referee.events import ActionEvent
from referee.games.omaha.engine import OmahaEngine
from referee.rules import create
from referee.rules.base import Deal, Engine, IllegalAction, Offer


def canonical(engine: Engine, player: str, o: Offer) -> list[Parsed]:
    """The messages that take offer ``o`` (a make at both ends of its range)."""
    if o.action == "raise":
        return [action("raise", to=o.min_to), action("raise", to=o.max_to)]
    if o.action == "play":
        return [action("play", keep=[card_str(c) for c in engine.holdings(player)])]
    return [action(o.action)]  # type: ignore[arg-type]


def candidates(engine: Engine, player: str, offers: tuple[Offer, ...]) -> list[Parsed]:
    """Every kind of action the player could type now, in and out of the offered ranges."""
    out = [action(n) for n in ("check", "call", "fold", "allin", "raise", "hyper_raise",
                               "extra_raise")]  # type: ignore[arg-type]
    out.append(action("raise", pot=True))
    for o in offers:
        if o.action == "raise":
            out += [action("raise", to=t) for t in (o.min_to - 1, o.max_to + 1)]
    if isinstance(engine, OmahaEngine):
        o_ = engine.options_for(player)
        out += [action("raise", to=t) for t in (o_.min_to, o_.max_to, o_.min_to - 1,
                                                 o_.max_to + 1, 2 * o_.max_to)]
        out.append(action("bet", amount=engine.settings.bb))
    held = [card_str(c) for c in engine.holdings(player)]
    if held:
        out += [action("play", keep=held), action("discard", cards=held[:1])]
    return out


def taken(engine: Engine, player: str, a: Parsed) -> tuple[str, int, int | None]:
    """What ``a`` does when applied (to a copy): (offer name, chips, make total)."""
    eng = copy.deepcopy(engine)
    top = eng.hand.b().max_bet if isinstance(eng, OmahaEngine) else 0
    events = eng.act(player, a)
    ev = next(e for e in events if isinstance(e, ActionEvent) and e.player == player)
    name = ev.action
    if name == "bet" or (name == "allin" and (ev.to or 0) > top):
        name = "raise"
    elif name == "allin":
        name = "call"
    elif name == "discard":
        name = "play"
    return name, ev.amount, ev.to


def check_offers(engine: Engine, player: str) -> int:
    """The property at one state, for one player; how many accepted actions it compared."""
    offers = engine.offers(player)
    if not offers:
        return 0
    assert len({o.action for o in offers}) == len(offers), offers
    for o in offers:
        for a in canonical(engine, player, o):
            assert engine.can(player, a), (player, o, a)
    compared = 0
    for a in candidates(engine, player, offers):
        if not engine.can(player, a):
            continue
        name, chips, to = taken(engine, player, a)
        match = [o for o in offers if o.action == name]
        assert match, (player, a, name, offers)
        o = match[0]
        if name == "raise" and isinstance(engine, OmahaEngine):
            assert to is not None and o.min_to <= to <= o.max_to, (a, to, o)
        elif name in ("call", "raise", "hyper_raise", "extra_raise"):
            assert chips == o.chips, (a, chips, o)
        compared += 1
    return compared


# --- omaha ------------------------------------------------------------------------------------

def omaha_step(eng: OmahaEngine, rng: random.Random) -> None:
    actor = eng.to_act()
    assert actor is not None
    live = [p.name for p in eng.hand.players
            if not p.removed and not eng.hand.b().seats[p.idx].folded
            and eng.hand.b().seats[p.idx].stack > 0 and p.name != actor]
    try:
        if live and rng.random() < 0.3:  # a flying action: a make, a call or a check
            who = rng.choice(live)
            o = eng.options_for(who)
            kind = rng.choice(["raise", "raise", "call", "check"])
            if kind == "raise" and o.can_raise:
                eng.act(who, action("raise", to=rng.randint(o.min_to, o.max_to)))
            else:
                eng.act(who, action("call" if kind != "check" else "check"))
            return
        offers = eng.offers(actor)
        o = rng.choice(offers)
        if o.action == "raise":
            eng.act(actor, action("raise", to=rng.choice([o.min_to, o.max_to,
                                                          rng.randint(o.min_to, o.max_to)])))
        elif o.action == "fold" and rng.random() < 0.6:
            eng.act(actor, action("call" if any(x.action == "call" for x in offers)
                                  else "check"))
        else:
            eng.act(actor, action(o.action))  # type: ignore[arg-type]
    except IllegalAction:
        pass


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_omaha_prompt_offers_exactly_what_is_accepted(seed: int) -> None:
    rng = random.Random(seed)
    eng = create("omaha", {"rules": rng.choice(["loj", "world"]), "level": "1",
                           "limit": rng.choice(["pot", "no", "fixed"])})
    assert isinstance(eng, OmahaEngine)
    for k in range(rng.randint(2, 6)):
        eng.sit(k + 1, f"p{k}", rng.choice([rng.randint(30, 400), rng.randint(400, 5000)]))
    deck = [Card(c) for c in range(52)]
    rng.shuffle(deck)
    names = [s.name for s in eng.seated()]
    eng.start_hand(Deal(hands={n: deck[4 * i: 4 * i + 4] for i, n in enumerate(names)},
                        board=deck[40:45], shoe=deck[45:]))
    for _ in range(40):
        if not eng.in_hand or eng.hand.phase != "betting":
            break
        actor = eng.to_act()
        assert actor is not None
        for name in names:
            if name != actor:
                assert eng.offers(name) == ()
        check_offers(eng, actor)
        omaha_step(eng, rng)


def test_a_flying_raise_turned_invalid_is_offered_raise_or_fold_only() -> None:
    """β: alice's flying make of 60 is no longer legal after carol's 70: her turn offers a make
    or a fold, no call; the call is refused with the restriction's code."""
    eng = create("omaha", {"rules": "loj", "level": "1"})
    assert isinstance(eng, OmahaEngine)
    for k, n in enumerate(["alice", "bob", "carol"]):
        eng.sit(k + 1, n, 10000)
    eng.set_button(3)
    deck = [Card(c) for c in range(52)]
    eng.start_hand(Deal(hands={n: deck[4 * i: 4 * i + 4]
                               for i, n in enumerate(["alice", "bob", "carol"])},
                        board=deck[20:25], shoe=deck[25:]))
    eng.act("alice", action("raise", to=60))  # before carol: a flying action
    eng.act("carol", action("raise", to=70))
    assert eng.to_act() == "alice"
    offers = eng.offers("alice")
    assert [o.action for o in offers] == ["raise", "fold"]
    assert (offers[0].min_to, offers[0].max_to) == (120, 230)
    try:
        eng.act("alice", action("call"))
    except IllegalAction as e:
        assert e.code == "omaha.raise_or_fold"
    else:  # pragma: no cover
        raise AssertionError("the call was accepted")


# --- the house games, played by chat ----------------------------------------------------------

def house_hand(game: str, seed: int) -> int:
    rng = random.Random(seed)
    t = Table(game, seed, 1 + seed % 3)
    t.send("dealer", "!deal")
    compared = 0
    for _ in range(60):
        after = t.decisions()
        if not after:
            break
        for player in after:
            compared += check_offers(t.engine, player)
        player = rng.choice(sorted(after))
        t.send(player, message(game, t.engine, player, after[player], rng))
    return compared


@settings(max_examples=examples(40), deadline=None)
@given(st.sampled_from(["holdem_aa", "seven", "deuces"]), st.integers(0, 2**32 - 1))
def test_house_prompts_offer_exactly_what_is_accepted(game: str, seed: int) -> None:
    house_hand(game, seed)


def test_an_all_in_seven_player_is_offered_no_raise() -> None:
    """A seven player who staked all in may call or fold only: no raise, hyper or extra raise
    is offered (each is refused)."""
    for seed in range(40):
        t = Table("seven", seed, 2)
        t.send("dealer", "!deal")
        t.send("alice", "オールイン")
        t.send("bob", "アンティ100")
        if t.engine.decision("alice") in ("round1", "round2"):
            break
        if t.engine.decision("bob") in ("round1", "round2"):
            t.send("bob", "コール")
        if t.engine.decision("alice") in ("round1", "round2"):
            break
    else:  # pragma: no cover
        raise AssertionError("alice never came to act")
    offers: Any = t.engine.offers("alice")
    assert [o.action for o in offers] == ["call", "fold"]
    for name in ("raise", "hyper_raise", "extra_raise"):
        assert not t.engine.can("alice", action(name))  # type: ignore[arg-type]
