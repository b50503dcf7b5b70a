"""Hand histories (referee.history): ``--format phh`` replays in pokerkit to the referee's
stacks; nothing hidden (a folded or mucked hand never shown) reaches a history or ``!hand``;
``referee history`` reads a database."""

from __future__ import annotations

import json
import random
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_cli as _run
from deal_helpers import ROOM, Driver  # tests/ is on sys.path
from examples import QUICK

from referee import definitions
from referee.events import event_json
from referee.games.omaha.rules import OmahaRules
from referee.history import HandRecord, summary_lines, to_json, to_phh, to_phhs
from referee.service import Referee
from referee.store import Store

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _no_rake(monkeypatch: pytest.MonkeyPatch) -> None:
    """PHH has no rake: the PHH comparison runs omaha with the rake off (as the lock-step test)."""
    load = definitions.load

    def patched(game: str) -> Any:
        d = load(game)
        if game != "omaha":
            return d
        return d.model_copy(update={"omaha": d.section(OmahaRules).model_copy(
            update={"rake_percent": Decimal(0)})})

    monkeypatch.setattr(definitions, "load", patched)


def _omaha_hands(seed: int, tables: int, hands: int) -> list[tuple[Driver, HandRecord]]:
    out = []
    rng = random.Random(seed)
    for t in range(tables):
        ante = rng.choice(["on", "off"])
        d = Driver("omaha", seed * 100 + t, players=rng.randint(2, 7),
                   options=f"rules=world level={rng.randint(1, 7)} ante={ante}")
        for _ in range(hands):
            if not d.hand():
                break
        out += [(d, r) for r in d.ref.history.hands(ROOM)]
    return out


def test_phh_replays_in_pokerkit_to_the_same_stacks(monkeypatch: pytest.MonkeyPatch) -> None:
    from pokerkit import HandHistory

    _no_rake(monkeypatch)
    tables = 12 if QUICK else 40  # eight hands each
    recs = [r for _, r in _omaha_hands(seed=3, tables=tables, hands=8)]
    assert len(recs) >= 6 * tables
    phh = to_phhs(recs)
    loaded = list(HandHistory.loads_all(phh))
    assert len(loaded) == len(recs)
    exact = odd = showdowns = short = 0
    for rec, hh in zip(recs, loaded, strict=True):
        ante, bb = rec.blinds.get("ante", 0), rec.blinds["bb"]
        if min(c for _, _, c in rec.seats) <= ante + bb:
            # a blind posted short (all-in for less): the referee still makes the others call
            # the full big blind (TDA), pokerkit only the amount posted -- not comparable
            short += 1
            continue
        state = None
        for st, _ in hh.state_actions:
            state = st
        assert state is not None and not state.status, f"hand {rec.hand} did not finish"
        names = list(hh.players or [])
        ours = [rec.stacks[n] for n in names]
        theirs = list(state.stacks)
        odd_pots = sum(1 for p in rec.pots if len(p["shares"]) > 1
                       and p["amount"] % len(p["shares"]))
        showdowns += any(e["kind"] == "show" for e in rec.log)
        if odd_pots:  # pokerkit merges side pots before splitting odd chips (lock-step test)
            odd += 1
            assert sum(ours) == sum(theirs)
            assert all(abs(a - b) <= odd_pots for a, b in zip(ours, theirs, strict=True))
        else:
            exact += 1
            assert ours == theirs, (rec.hand, to_phh(rec), ours, theirs)
        assert list(hh.finishing_stacks or []) == ours
    assert exact > 5 * tables and showdowns > tables


def test_phh_of_the_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pokerkit import HandHistory

    _no_rake(monkeypatch)
    db = tmp_path / "h.db"
    store = Store(db)
    d = Driver("omaha", 8, players=4, ref=Referee(moderators=["dealer"], persistence=store,
                                                   rng=random.Random(8)))
    for _ in range(5):
        d.hand()
    store.close()
    code, out, err = _run(["history", "--db", str(db), "--format", "phh"])
    assert code == 0, err
    hands = list(HandHistory.loads_all(out))
    assert len(hands) == 5
    ends = [e for e in d.events if e.event == "hand_end"]
    for hh, end in zip(hands, ends, strict=True):
        assert dict(zip(hh.players or [], hh.finishing_stacks or [], strict=True)) == \
            end.stacks  # type: ignore[attr-defined]


# --- nothing hidden ---------------------------------------------------------------------------

def _cards(text: str) -> list[str]:
    """Cards as the bot writes them (A♠, 10♥, JK), read by the test's own pattern."""
    suit = {"♣": "c", "♦": "d", "♥": "h", "♠": "s"}
    return [m[0] if m[0] == "JK" else ("T" if m[1] == "10" else m[1]) + suit[m[2]]
            for m in re.finditer(r"(10|[2-9JQKA])([♠♥♦♣])|JK", text)]


@pytest.mark.parametrize("game", ["omaha", "holdem_aa", "seven", "deuces"])
def test_no_hidden_card_in_history_or_hand_command(game: str) -> None:
    """For every hand: each card a history (text, JSON, PHH) or ``!hand N`` names was said in
    the room during that hand; and some folded or mucked hands held cards never shown, so the
    check has something to catch."""
    hidden_seen = 0
    for seed in range(6):
        d = Driver(game, 40 + seed, players=4)
        marks: list[tuple[int, int]] = []  # (hand, index of its hand_end in d.events)
        for _ in range(6):
            if not d.hand():
                break
        for i, e in enumerate(d.events):
            if e.event == "hand_end":
                marks.append((e.hand, i))  # type: ignore[attr-defined]
        starts = {e.hand: i for i, e in enumerate(d.events)  # type: ignore[attr-defined]
                  if e.event == "hand_start"}
        reveals = {e.hand: e for e in d.events if e.event == "deal_reveal"}  # type: ignore[attr-defined]
        nxt = [*sorted(starts.values()), len(d.events)]
        # the hand's room lines, and those after its end until the next hand (an OPEN after
        # everyone folded comes after hand_end)
        upto = {n: min(i for i in nxt if i > end) for n, end in marks}
        for n, _end in marks:
            room = [e.text for e in d.events[starts[n]:upto[n]]  # type: ignore[attr-defined]
                    if e.event == "say" and e.to == "room"]  # type: ignore[attr-defined]
            public = {c for t in room for c in _cards(t)}
            rec = d.ref.history.find(ROOM, n)
            assert rec is not None
            texts = [*summary_lines(rec), json.dumps(to_json(rec), ensure_ascii=False)]
            if game == "omaha":
                texts.append(re.sub(r"'d dh p\d+ [^']*'", "", to_phh(rec)))
                for hole in re.findall(r"'d dh p\d+ ([^']*)'", to_phh(rec)):
                    assert {hole[i:i + 2] for i in range(0, 8, 2)} - {"??"} <= public
            for t in texts:
                named = set(_cards(t)) | set(re.findall(r"(?<![A-Za-z])[2-9TJQKA][cdhs](?![a-z])",
                                                        t))
                assert named <= public, (game, n, named - public, t)
            dealt = reveals[n].dealt["hands"]  # type: ignore[attr-defined]
            hidden_seen += sum(1 for cs in dealt.values() for c in cs if c not in public)
        # !hand N in the chat: only room-visible cards of that hand
        for n, _end in marks[:3]:
            out = d.say("zed", f"!hand {n}")
            room = [e.text for e in d.events[starts[n]:upto[n]]  # type: ignore[attr-defined]
                    if e.event == "say" and e.to == "room"]  # type: ignore[attr-defined]
            public = {c for t in room for c in _cards(t)}
            said = [e.text for e in out if e.event == "say"]  # type: ignore[attr-defined]
            assert said and all(set(_cards(t)) <= public for t in said), said
    assert hidden_seen > 20


def test_hand_command_answers() -> None:
    d = Driver("omaha", 2, players=3)
    d.hand()
    out = d.say("zed", "!hand 1")
    texts = [e.text for e in out if e.event == "say"]  # type: ignore[attr-defined]
    assert "ハンド#1 " in texts[0] and any("結果" in t for t in texts)
    for bad in ("!hand", "!hand x", "!hand 99", "!ハンド 99"):
        out = d.say("zed", bad)
        assert len([e for e in out if e.event == "say"]) == 1
    assert "hand" in " ".join(e.text for e in d.say("zed", "!help")  # type: ignore[attr-defined]
                               if e.event == "say")


# --- the command ------------------------------------------------------------------------------


def test_history_command(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    store = Store(db)
    d = Driver("holdem_aa", 1, players=3, ref=Referee(moderators=["dealer"], persistence=store,
                                                       rng=random.Random(1)))
    for _ in range(3):
        d.hand()
    store.close()
    code, out, _ = _run(["history", "--db", str(db)])
    assert code == 0 and out.count("ハンド#") == 3
    code, out, _ = _run(["history", "--db", str(db), "--hand", "2", "--json"])
    rows = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and [r["hand"] for r in rows] == [2] and rows[0]["game"] == "holdem_aa"
    code, out, _ = _run(["history", "--db", str(db), "--player", "bob", "--json"])
    assert code == 0 and len(out.splitlines()) == 3
    code, out, _ = _run(["history", "--db", str(db), "--player", "nobody"])
    assert code == 0 and "該当するハンドはありません" in out
    code, out, _ = _run(["history", "--db", str(db), "--since", "2100-01-01", "--json"])
    assert code == 0 and out == ""
    code, out, _ = _run(["history", "--db", str(db), "--since", "2000-01-01", "--json"])
    assert code == 0 and len(out.splitlines()) == 3
    for argv in (["history", "--db", str(tmp_path / "none.db")],
                 ["history", "--db", str(db), "--since", "yesterday"],
                 ["history", "--db", str(db), "--format", "phh"]):  # no omaha hand
        code, _, err = _run(argv)
        assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, (argv, err)
    # the events of the run verify too
    evs = [json.loads(event_json(e)) for e in d.events]
    from referee.verify import verify

    assert verify(evs) == 3


def test_phh_quotes_any_name() -> None:
    from pokerkit import HandHistory

    # heads-up: the button (seat 1, o'neil) posts the SB and acts first
    rec = HandRecord(room="!r:ex.org", game="omaha", hand=7, button=1,
                     seats=[(1, "o'neil", 1000), (2, 'say "hi"\\', 1000)],
                     blinds={"sb": 10, "bb": 20, "ante": 0},
                     log=[{"kind": "action", "player": "o'neil", "action": "fold",
                           "amount": 0, "to": None}],
                     stacks={"o'neil": 990, 'say "hi"\\': 1010})
    hh = HandHistory.loads(to_phh(rec))
    assert hh.players == ['say "hi"\\', "o'neil"] and hh.table == "!r:ex.org"
    state = None
    for st, _ in hh.state_actions:
        state = st
    assert state is not None and list(state.stacks) == [1010, 990]


def test_an_open_after_everyone_folded_is_in_the_history() -> None:
    from pokerkit import HandHistory

    from referee.adapters.transcript import read, run

    text = (
        "# table: omaha rules=world level=3\n# seat 1: alice 20000\n# seat 2: bob 20000\n"
        "# seat 3: carol 20000\n"
        "# deal: alice=Ah Kh Qd Jd | bob=2c 3c 4d 5d | carol=9h 9d 8s 7s | board=Ts 9s 8c 2h 3h\n"
        "alice: フォールド\nbob: フォールド\ncarol: オープン\n"
    )
    ref = Referee()
    for _ in run(read(text), ref):
        pass
    rec = ref.history.find("", 1) or ref.history.hands()[0]
    assert rec.shown == {"carol": ["9h", "9d", "8s", "7s"]}
    assert any("carol 9♥ 9♦ 8♠ 7♠" in line for line in summary_lines(rec))
    assert "alice" not in rec.shown and "Ah" not in json.dumps(to_json(rec))
    hh = HandHistory.loads(to_phh(rec))
    state = None
    for st, _ in hh.state_actions:
        state = st
    assert state is not None and dict(zip(hh.players or [], state.stacks, strict=True)) == \
        rec.stacks
