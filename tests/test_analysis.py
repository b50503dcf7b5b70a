"""``referee analyze`` (docs/analysis.md): the batch evaluators agree with the referee's own, the
exact figures the issue states (holdem_aa AA bet 6.2430%, full-pay Deuces Wild 100.7620%),
Monte Carlo reproducibility and intervals, the JSON shape, ``--set`` and bad input."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from referee.analysis import analyze
from referee.analysis.batch import (
    BINOM,
    colex_index,
    five_card_hands,
    five_card_key_counts,
    standard_keys,
)
from referee.analysis.report import pool
from referee.analysis.tables import definition
from referee.cards import Card
from referee.cli import main
from referee.definitions import DefinitionError, load
from referee.games.deuces import draw
from referee.games.deuces.batch import deuces_classes, deuces_keys
from referee.games.deuces.draw import FULL_PAY_DEUCES_WILD, exact_result, table_key
from referee.games.deuces.hands import deuces_key
from referee.games.holdem_aa.analysis import aa_exact, aa_mc, ante_mc
from referee.hands import best5_key, class_of


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Optimal-hold tables go to a temporary cache, never the user's."""
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = 0
    try:
        main(["analyze", *argv])
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


# --- the batch evaluators are the referee's evaluators ---------------------------------------


def test_five_card_hands_are_in_colex_order() -> None:
    hands = five_card_hands()
    assert hands.shape == (2_598_960, 5)
    assert (np.diff(hands.astype(int), axis=1) > 0).all()
    assert (colex_index(hands) == np.arange(hands.shape[0])).all()


@pytest.mark.parametrize("size", [5, 6, 7])
def test_standard_keys_match_best5_key(size: int) -> None:
    rng = random.Random(size)
    hands = np.array([rng.sample(range(52), size) for _ in range(4000)])
    # and some flushes, which take the other path
    suited = np.array([[r * 4 + 2 for r in rng.sample(range(13), 5)]
                       + rng.sample([c for c in range(52) if c & 3 != 2], size - 5)
                       for _ in range(500)])
    for batch in (hands, suited):
        keys = standard_keys(batch)
        assert keys.tolist() == [best5_key([int(c) for c in h]) for h in batch]


def test_deuces_keys_match_deuces_key_with_identical_cards() -> None:
    rng = random.Random(9)
    shoe = list(range(52)) * 6
    hands = np.array([rng.sample(shoe, 5) for _ in range(4000)])
    keys = deuces_keys(hands)
    assert keys.tolist() == [deuces_key([Card(int(c)) for c in h]) for h in hands]


# --- the exact figures ----------------------------------------------------------------------


def test_aa_bet_exact_rows_and_house_edge() -> None:
    rules = load("holdem_aa").holdem_aa
    assert rules is not None
    rep = aa_exact(rules)
    n = 2_598_960
    counts = {r.row: round(r.probability * n) for r in rep.rows}
    assert counts == {
        "royal_flush": 4, "straight_flush": 36, "four_of_a_kind": 624, "full_house": 3744,
        "flush": 5108, "straight": 10200, "three_of_a_kind": 54912, "two_pair": 123552,
        "pair_of_aces": 84480, "lose": 2316300,
    }
    assert rep.exact and rep.hands == n and rep.ci95 is None
    assert round(rep.house_edge * 100, 4) == 6.2430
    assert sum(r.contribution for r in rep.rows) == pytest.approx(rep.ret)


@pytest.mark.slow  # the exact optimal hold over all 2,598,960 hands
def test_full_pay_deuces_wild_is_100_7620_percent() -> None:
    res = exact_result(table_key(FULL_PAY_DEUCES_WILD))
    assert round(res.ret * 100, 4) == 100.7620
    # Wizard of Odds' table of the optimal strategy's final hands
    wizard = {"natural_royal_flush": 0.000022, "four_deuces": 0.000204,
              "wild_royal_flush": 0.001796, "five_of_a_kind": 0.003202,
              "straight_flush": 0.004168, "four_of_a_kind": 0.064938, "full_house": 0.021229,
              "flush": 0.016784, "straight": 0.056070, "three_of_a_kind": 0.284690}
    for row, p in wizard.items():
        assert res.rows[row] == pytest.approx(p, abs=1e-6), row
    # a dealt natural royal is held whole, in any order of its cards
    assert res.hold_of([51, 47, 43, 39, 35]) == 31  # As Ks Qs Js Ts
    # every hand's hold (its suit class representative's, mapped back) is a best hold of the
    # hand itself, worked out directly from the subset counts without any suit classes
    t = draw.draw_tables()
    pays = np.array([float(FULL_PAY_DEUCES_WILD.get(k, 0)) for k in draw.CLASS_NAMES])
    hands = five_card_hands()
    sample = hands[np.random.default_rng(0).choice(hands.shape[0], 1000, replace=False)]
    own = deuces_classes(sample)
    for hand, klass in zip(sample.tolist(), own.tolist(), strict=True):
        rng = random.Random(sum(hand))
        order = rng.sample(hand, 5)  # any order of the cards
        ev = np.zeros(32)
        for mask in range(32):
            held = sorted(order[p] for p in range(5) if mask >> p & 1)
            if len(held) == 5:
                ev[mask] = pays[klass]
            else:
                ev[mask] = t.counts[len(held)][int(colex_index(np.array([held]))[0])] @ pays
        for b in range(5):  # inclusion-exclusion of the discards
            for mask in range(32):
                if not mask >> b & 1:
                    ev[mask] -= ev[mask | 1 << b]
        ev /= [BINOM[47, 5 - bin(m).count("1")] for m in range(32)]
        assert ev[res.hold_of(order)] == pytest.approx(ev.max(), rel=1e-12, abs=1e-12)


def test_draw_tables_count_what_they_claim() -> None:
    t = draw.draw_tables()
    # every subset of m cards lies in C(52 - m, 5 - m) hands
    for m in range(5):
        assert (t.counts[m].sum(axis=1) == BINOM[52 - m, 5 - m]).all()
    # the class totals are the classes of all hands, and a few 4-card subsets by hand
    hands = five_card_hands()
    cls = deuces_classes(hands)
    assert t.counts[0][0].tolist() == np.bincount(cls, minlength=len(draw.CLASS_NAMES)).tolist()
    rng = random.Random(4)
    for _ in range(30):
        four = sorted(rng.sample(range(52), 4))
        rows = np.array([sorted([*four, x]) for x in range(52) if x not in four])
        got = t.counts[4][int(colex_index(np.array([four]))[0])]
        want = np.bincount(deuces_classes(rows), minlength=len(draw.CLASS_NAMES))
        assert got.tolist() == want.tolist()
    # the suit classes: 134,459 representatives standing for every hand once
    assert t.reps.shape == (134_459, 5) and int(t.weight.sum()) == 2_598_960
    assert (np.diff(t.rep_colex) > 0).all()


def test_deuces_classes_are_the_evaluators_on_every_one_deck_hand() -> None:
    hands = five_card_hands()
    keys = deuces_keys(hands)  # the referee's own deuces_key, once per distinct shape
    uniq, inverse = np.unique(keys, return_inverse=True)
    names = draw.CLASS_NAMES
    ref = np.array([names.index(class_of("deuces", int(k))) for k in uniq])[inverse.reshape(-1)]
    assert np.array_equal(deuces_classes(hands), ref)


def test_draw_tables_cache_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path))
    draw.draw_tables.cache_clear()
    try:
        first = draw.draw_tables()
        path = draw.cache_path()
        assert path.parent == tmp_path and path.exists()
        draw.draw_tables.cache_clear()
        again = draw.draw_tables()  # read back from the file
        assert again is not first
        assert all(np.array_equal(a, b) for a, b in zip(first.counts, again.counts, strict=True))
        assert np.array_equal(first.reps, again.reps)
        path.write_bytes(b"not a table")  # a damaged file is computed again, never trusted
        draw.draw_tables.cache_clear()
        assert np.array_equal(draw.draw_tables().weight, first.weight)
    finally:
        draw.draw_tables.cache_clear()


def test_five_card_key_counts_are_the_dealt_hands() -> None:
    keys, counts = five_card_key_counts()
    dealt, dealt_counts = np.unique(standard_keys(five_card_hands()), return_counts=True)
    assert keys.tolist() == dealt.tolist() and counts.tolist() == dealt_counts.tolist()


# --- Monte Carlo ----------------------------------------------------------------------------


def test_aa_monte_carlo_interval_holds_the_exact_value() -> None:
    rules = load("holdem_aa").holdem_aa
    assert rules is not None
    exact = aa_exact(rules).ret
    mc = aa_mc(rules, 400_000, seed=11)
    assert mc.ci95 is not None
    assert mc.ci95[0] <= exact <= mc.ci95[1]
    assert mc.ci95[1] - mc.ci95[0] < 0.02


def test_monte_carlo_is_reproducible_with_seed() -> None:
    rules = load("holdem_aa").holdem_aa
    assert rules is not None
    a = ante_mc(rules, 3000, seed=5, inner=8, refine=16)
    b = ante_mc(rules, 3000, seed=5, inner=8, refine=16)
    c = ante_mc(rules, 3000, seed=6, inner=8, refine=16)
    assert a.to_json() == b.to_json()
    assert a.ret != c.ret
    s1 = analyze(load("seven"), hands=150, seed=3).to_json()
    s2 = analyze(load("seven"), hands=150, seed=3).to_json()
    assert s1 == s2


@pytest.mark.slow
def test_casino_holdem_ante_matches_wizard_of_odds() -> None:
    """The casino game (call = 2 antes, ante table 100/20/10/3/2/1 to 1) has a house edge of
    2.16% per ante and folds 18% of hands with the optimal strategy (Wizard of Odds): the
    estimated decision must get there too."""
    d = definition("holdem_aa", ["ante_table.full_house=4", "ante_table.flush=3",
                                 "ante_table.straight=2"])
    assert d.holdem_aa is not None
    rep = ante_mc(d.holdem_aa, 60_000, seed=2, call_antes=2)
    assert rep.ci95 is not None
    fold = next(r.probability for r in rep.rows if r.row == "fold")
    assert 0.17 < fold < 0.195
    # the interval is per unit staked; Wizard's 2.16% is per ante: convert with the mean stake
    stake = 1 + 2 * (1 - fold)
    assert rep.ci95[0] <= 1 - 0.0216 / stake <= rep.ci95[1]


def test_deuces_monte_carlo_through_the_engine() -> None:
    keep_all = list
    from referee.games.deuces.analysis import deuces_mc

    reps = deuces_mc(load("deuces"), 300, seed=4, hold=keep_all)
    assert [r.bet for r in reps] == ["ante", "play", "bonus", "total"]
    for r in reps:
        assert r.hands == 300 and not r.exact and r.ci95 is not None
        assert sum(x.contribution for x in r.rows) == pytest.approx(r.ret)
    assert reps[2].house_edge == -reps[2].ret  # the bonus takes no stake: all of it is cost
    # total: everything paid back per chip staked on the ante and the added bet
    staked = [float(np.concatenate(r.tally.staked).sum()) for r in reps]  # type: ignore[union-attr]
    paid = [r.ret * s for r, s in zip(reps, staked, strict=True)]
    assert reps[3].ret == pytest.approx(sum(paid[:3]) / (staked[0] + staked[1]))
    again = deuces_mc(load("deuces"), 300, seed=4, hold=keep_all)
    assert [r.to_json() for r in reps] == [r.to_json() for r in again]


def test_pooled_runs_are_one_run_of_both() -> None:
    rules = load("holdem_aa").holdem_aa
    assert rules is not None
    a, b = aa_mc(rules, 3000, seed=1), aa_mc(rules, 5000, seed=2)
    both = pool(a, b)
    assert both.hands == 8000
    paid = a.ret * 3000 + b.ret * 5000  # the AA bet stakes one unit a hand
    assert both.ret == pytest.approx(paid / 8000)
    assert both.ci95 is not None and a.ci95 is not None
    assert both.half_width is not None and a.half_width is not None
    assert both.half_width < a.half_width
    # rows too: every hand settles one row of the ante, so the pooled rows still add up
    x, y = (ante_mc(rules, 800, seed=s, inner=8, refine=16) for s in (3, 4))
    xy = pool(x, y)
    assert sum(r.probability for r in xy.rows) == pytest.approx(1.0)
    fold = {r.row: r.probability for r in xy.rows}["fold"]
    assert fold == pytest.approx(({r.row: r.probability for r in x.rows}["fold"]
                                  + {r.row: r.probability for r in y.rows}["fold"]) / 2)


def test_monte_carlo_without_hands_runs_to_the_target(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    import referee.analysis as an

    how = an.analysis_of("holdem_aa")

    def sized(default: int, most: int) -> None:
        monkeypatch.setattr(an, "analysis_of", lambda game: dataclasses.replace(
            how, default_hands=default, max_hands=most))

    sized(2000, how.max_hands)
    monkeypatch.setattr(an, "TARGET", 0.02)
    rep = analyze(load("holdem_aa"), ["ante"])
    ante = rep.bets[0]
    assert ante.half_width is not None and ante.half_width <= 0.02
    assert ante.hands > 2000  # 2,000 hands give about +-0.03: more were played
    assert any("until every 95% interval" in n for n in rep.notes)
    sized(2000, 3000)
    monkeypatch.setattr(an, "TARGET", 0.001)
    capped = analyze(load("holdem_aa"), ["ante"])
    assert capped.bets[0].hands == 3000
    assert any("stopped at 3,000 hands" in n for n in capped.notes)
    fixed = analyze(load("holdem_aa"), ["ante"], hands=700)
    assert fixed.bets[0].hands == 700 and not fixed.notes


def test_seven_calling_every_hand_returns_more_than_the_npc_way() -> None:
    rep = analyze(load("seven"), ["main", "always_call"], hands=600, seed=5)
    main, call = rep.bets
    assert (main.bet, call.bet) == ("main", "always_call")
    assert main.ci95 is not None and call.ci95 is not None
    assert call.ci95[0] > main.ci95[1]


# --- the command ------------------------------------------------------------------------------


def test_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "holdem_aa", "--json", "--hands", "500", "--seed", "2")
    assert code == 0 and err == ""
    data: dict[str, Any] = json.loads(out)
    assert list(data) == ["game", "bets"] and data["game"] == "holdem_aa"
    assert [b["bet"] for b in data["bets"]] == ["ante", "aa"]
    for b in data["bets"]:
        assert list(b) == ["bet", "return", "house_edge", "exact", "ci95", "hands", "rows"]
        assert b["house_edge"] == pytest.approx(1 - b["return"])
        for r in b["rows"]:
            assert list(r) == ["row", "probability", "contribution"]
    ante, aa = data["bets"]
    assert ante["exact"] is False and len(ante["ci95"]) == 2 and ante["hands"] == 500
    assert aa["exact"] is True and aa["ci95"] is None and aa["hands"] == 2_598_960
    assert 0.5 < ante["return"] < 1.5  # a fraction, not a percentage


def test_set_tries_a_pay_table_change(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "holdem_aa", "--bet", "aa", "--json",
                       "--set", "aa_table.royal_flush=301")
    assert code == 0
    aa = json.loads(out)["bets"][0]
    # four royal flushes in 2,598,960 hands, each paying 100x more
    assert aa["house_edge"] == pytest.approx(0.0624295872195032 - 400 / 2_598_960)
    # the file itself is untouched
    assert load("holdem_aa").holdem_aa.aa_table["royal_flush"] == 201  # type: ignore[union-attr]
    # a row the file does not have yet, with the section named
    d = definition("holdem_aa", ["holdem_aa.ante_table.two_pair=3"])
    assert d.holdem_aa is not None and d.holdem_aa.ante_table["two_pair"] == 3


@pytest.mark.parametrize("argv", [
    ["holdem_aa", "--set", "aa_table.nope=3"],
    ["holdem_aa", "--set", "nope=3"],
    ["holdem_aa", "--set", "aa_table.flush=-1"],
    ["holdem_aa", "--set", "aa_table.flush"],
    ["holdem_aa", "--set", "aa_table=3"],
    ["deuces", "--set", "dealer_strategy=mine"],
    ["holdem_aa", "--bet", "main"],
    ["poker"],
    ["seven", "--hands", "0"],
    ["seven", "--hands", "many"],
    ["seven", "--seed", "x"],
    ["seven", "--plot", "out.txt"],
])
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str],
                                          argv: list[str]) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("referee: ") and "Traceback" not in err


def test_definition_errors_name_the_key() -> None:
    with pytest.raises(DefinitionError, match=r"aa_table\.flush"):
        definition("holdem_aa", ["aa_table.flush=-1"])


def test_text_output_and_plot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    png = tmp_path / "seven.png"
    code, out, _ = run(capsys, "seven", "--hands", "200", "--plot", str(png))
    assert code == 0
    assert "main: return" in out and "還元率" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, _ = run(capsys, "omaha", "--json")
    assert code == 0 and json.loads(out) == {"game": "omaha", "bets": []}


def test_progress_bar_only_on_a_terminal(tmp_path: Path) -> None:
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import sys
    import termios

    def stderr_of(*argv: str) -> bytes:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
        p = subprocess.Popen([sys.executable, "-m", "referee.cli", "analyze", *argv],
                             stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        buf = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
        assert p.wait() == 0
        os.close(master)
        return buf

    assert b"main:" in stderr_of("seven", "--hands", "400")
    assert stderr_of("seven", "--hands", "400", "--json") == b""


def test_cache_key_follows_code_and_definition(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.analysis import cache

    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path))
    a = cache.cache_path("t", ["games/deuces/hands.py"], ("decks", 1))
    assert a.parent == tmp_path
    assert a == cache.cache_path("t", ["games/deuces/hands.py"], ("decks", 1))
    assert a != cache.cache_path("t", ["games/deuces/hands.py"], ("decks", 6))
    assert a != cache.cache_path("t", ["games/deuces/hands.py", "hands/core.py"], ("decks", 1))
    calls: list[int] = []

    def compute() -> dict[str, Any]:
        calls.append(1)
        return {"x": np.arange(3)}

    assert cache.cached(a, compute)["x"].tolist() == [0, 1, 2]
    assert cache.cached(a, compute)["x"].tolist() == [0, 1, 2] and len(calls) == 1
    # a table that fails its check is computed again
    assert cache.cached(a, compute, lambda z: z["x"].size == 4)["x"].size == 3
    assert len(calls) == 2


def test_optimal_hold_chooses_for_engine_hands() -> None:
    from referee.cards import JOKER, parse_cards
    from referee.games.deuces.draw import optimal_hold

    choose = optimal_hold(FULL_PAY_DEUCES_WILD)
    royal = parse_cards("Kh Ah Qh Th Jh")
    assert choose(royal) == royal  # held whole, in the order given
    # a lone deuce with nothing else: keep the deuce only (any strategy table says so)
    junk = parse_cards("2c 7d 9s Jh 4c")
    assert choose(junk) == parse_cards("2c")
    # a joker is looked up as a deuce the hand does not hold: kept like one
    with_joker = [*parse_cards("7d 9s Jh 4c"), Card(JOKER)]
    assert choose(with_joker) == [Card(JOKER)]
    # identical cards (a six-deck shoe) are kept as they are
    twins = parse_cards("7d 7d 9s Jh 4c")
    assert choose(twins) == twins
