"""The records tell the truth: the history, ``!hand``, the console and ``referee verify`` are
built from typed events (``board``, ``shown``, ``muck``, ``table_open`` …), never from the bot's
own sentences; one hand identity (table + number + game) across the database; the state a full
re-run needs is an input; one word per action, bet and result, the room's."""

from __future__ import annotations

import copy
import json
import random
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import log_rows
import pytest
from cli_helpers import run_cli
from deal_helpers import ROOM, Driver
from event_helpers import handle, tick

import referee
from referee.adapters.transcript import read, replay, replay_events, run
from referee.events import Event, event_json
from referee.history import HistoryBook, summary_lines, to_json
from referee.inputs import Message
from referee.service import Referee
from referee.store import Store

REPO = Path(__file__).resolve().parent.parent
PACKAGE = Path(referee.__file__).resolve().parent
TRANSCRIPTS = REPO / "tests" / "transcripts"
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _json(events: list[Event]) -> list[dict[str, Any]]:
    return [json.loads(event_json(e)) for e in events]


class Room:
    """Chat messages into one room of a referee (optionally on a database)."""

    def __init__(self, ref: Referee, room: str = ROOM) -> None:
        self.ref, self.room, self.n, self.now = ref, room, 0, 1_700_000_000.0

    def __call__(self, sender: str, text: str) -> list[Event]:
        self.n += 1
        self.now += 1.0
        return handle(self.ref, Message(id=f"{self.room}:{self.n}", room=self.room,
                                        sender=sender, text=text, time=self.now, dm=False))


# --- nothing reads the bot's sentences ---------------------------------------------------------

RECORDS = ("history.py", "verify.py", "console.py", "at_table.py", "store/records.py")


def test_no_module_reads_the_bots_own_sentences() -> None:
    """The readers of the bot's wording are gone: no catalogue template turned into a pattern,
    no ``seen_*`` template, no text pattern in the console's metadata, and the records modules
    hold no regular expression and no card reader at all."""
    from referee.lang.catalog import messages

    assert not [k for k in messages() if k.startswith("seen_")]
    meta = (PACKAGE / "console_templates" / "metadata.toml").read_text(encoding="utf-8")
    assert "[patterns]" not in meta
    for path in sorted(PACKAGE.rglob("*.py")):
        src = path.read_text(encoding="utf-8")
        assert "template_pattern" not in src, path
        assert not re.search(r"""["']seen_""", src), path
    for name in RECORDS:
        src = (PACKAGE / name).read_text(encoding="utf-8")
        assert not re.search(r"^\s*(import re\b|from re import)", src, re.M), name
        for reader in ("bot_cards", "find_cards", "parse_cards", "named_cards"):
            assert reader not in src, (name, reader)


GAMES_SHOWN = [
    TRANSCRIPTS / "omaha" / "showdown_side_pots.txt",
    TRANSCRIPTS / "omaha" / "showdown_world.txt",
    TRANSCRIPTS / "omaha" / "exposed_hand.txt",
]


def _reworded(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = copy.deepcopy(events)
    for e in out:
        if e["event"] == "say":
            e["text"] = "…"
    return out


def _book(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    book = HistoryBook(keep=None)
    for e in events:
        book.feed("r", [e])
    return [to_json(r) for r in book.hands()]


def test_the_history_does_not_depend_on_the_wording() -> None:
    """Every sentence reworded: the same hands, boards, shown cards and settlements (before,
    the board and the shown hands were read out of the sentences and would be lost)."""
    texts = [*GAMES_SHOWN, *sorted((TRANSCRIPTS / "seven").glob("*.txt"))[:3],
             *sorted((TRANSCRIPTS / "holdem_aa").glob("*.txt"))[:3],
             *sorted((TRANSCRIPTS / "deuces").glob("*.txt"))[:3]]
    boards = shown = 0
    for path in texts:
        try:
            evs = _json(replay_events(path))
        except Exception:
            continue  # a deliberately malformed transcript
        hands = _book(evs)
        assert hands == _book(_reworded(evs)), path
        boards += sum(bool(h["board"]) for h in hands)
        shown += sum(bool(h["shown"]) for h in hands)
    assert boards >= 5 and shown >= 8


# --- the console: a table's game is its table_open, never a player's text ----------------------

def test_the_console_does_not_depend_on_the_wording(tmp_path: Path) -> None:
    """The console's hands from a database whose every sentence is reworded: the same rows
    (only the hand log, which copies what the room was told, differs)."""
    db = tmp_path / "w.db"
    with open(tmp_path / "out.jsonl", "w") as out:
        for path in GAMES_SHOWN:
            replay(path, db=db, out=out)
    first = _console(db, tmp_path).execute("SELECT * FROM hands ORDER BY 番号").fetchall()
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER inputs_no_update")  # (the log is append-only: tampered here)
    for seq, _, _, _, raw in log_rows.rows(conn):
        log_rows.rewrite(conn, seq, events_json=json.dumps(_reworded(json.loads(raw))))
    conn.commit()
    conn.close()
    again = _console(db, tmp_path).execute("SELECT * FROM hands ORDER BY 番号").fetchall()
    assert again == first and any(row[10] for row in first)  # ボード

def _console(db: Path, tmp: Path) -> sqlite3.Connection:
    from referee.console import build

    out = tmp / "console.db"
    build(db, out)
    return sqlite3.connect(out)


def test_the_console_takes_the_game_from_the_table_not_from_what_was_typed(
        tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    with Store(db) as store:
        ref = Referee(moderators=["dealer"], persistence=store, rng=random.Random(3))
        say = Room(ref)
        say("dealer", "!開卓 omaha")  # the documented alias
        say("bob", "!open seven")  # refused: bob is no moderator
        d = Driver("omaha", 5, players=2, ref=ref)  # (its own !open is refused: one is open)
        assert d.hand()
        other = Room(ref, "!other")
        other("dealer", "!open holdem_aa")
        other("carol", "!open omaha")
    conn = _console(db, tmp_path)
    games = dict(conn.execute("SELECT テーブル, ゲーム FROM tables"))
    from referee.console import table_name
    from referee.history import game_name

    # tables by their number in the order they opened (never the room's id)
    assert games == {table_name(1): game_name("omaha"), table_name(2): game_name("holdem_aa")}
    assert [g for (g,) in conn.execute("SELECT ゲーム FROM hands")] == [game_name("omaha")]
    assert game_name("omaha") != "omaha"  # a name people read, never the id


def test_console_hand_page_in_the_rooms_words(tmp_path: Path) -> None:
    """A declared メイク 1,400 is written メイク 1,400 (not レイズ 1,300), and the winner's OPEN
    after everyone folded is part of the hand."""
    db = tmp_path / "c.db"
    text = (
        "# table: omaha rules=world level=5\n# moderator: dealer\n# seat 1: alice 20000\n"
        "# seat 2: bob 20000\n# seat 3: carol 20000\n# button: 3\n"
        "# deal: alice=Ah Ad Kc Qc | bob=Kh Kd 8c 4c | carol=Qh Qd 6c 5c | board=2c 7d 9h Js 3s\n"
        "carol: メイク1400\nalice: フォールド\nbob: フォールド\ncarol: オープン\n"
    )
    path = tmp_path / "t.txt"
    path.write_text(text, encoding="utf-8")
    with open(tmp_path / "out.jsonl", "w") as out:
        replay(path, db=db, out=out)
    conn = _console(db, tmp_path)
    actions, shown = conn.execute("SELECT アクション, 公開された手札 FROM hands").fetchone()
    assert "carol メイク 1,400" in actions and "レイズ" not in actions
    assert shown == "carol Q♥ Q♦ 6♣ 5♣（オープン）"
    assert "Ah" not in json.dumps(conn.execute("SELECT * FROM hand_log").fetchall())


# --- verify and check on databases of every game and adapter -------------------------------

class _Driver(Driver):
    """A Driver whose message ids do not repeat another Driver's of the same referee."""

    def __init__(self, prefix: str, *args: Any, **kw: Any) -> None:
        self.prefix = prefix
        super().__init__(*args, **kw)

    def say(self, sender: str, text: str, dm: bool = False) -> list[Event]:
        self.n += 1
        self.now += 1.0
        out = handle(self.ref, Message(id=f"{self.prefix}{self.n}", room=ROOM, sender=sender,
                                       text=text, time=self.now, dm=dm))
        self.events += out
        return out

    def tick(self, dt: float) -> None:
        self.n += 1
        self.now += dt
        self.events += tick(self.ref, f"{self.prefix}t{self.n}", ROOM, self.now)


def _driven_db(path: Path, games: tuple[str, ...] = ("omaha", "holdem_aa", "seven", "deuces"),
               hands: int = 2) -> None:
    with Store(path) as store:
        ref = Referee(moderators=["dealer"], persistence=store, rng=random.Random(11))
        for i, game in enumerate(games):
            d = _Driver(f"{game}:", game, 40 + i, players=3, ref=ref)  # one table after another
            for _ in range(hands):
                d.hand()
            d.say("dealer", "!close")
            assert ROOM not in ref.tables


def test_verify_db_passes_with_settled_house_hands_and_fails_on_a_tampered_one(
        tmp_path: Path) -> None:
    db = tmp_path / "all.db"
    _driven_db(db)
    code, out, err = run_cli(["verify", "--db", str(db)])
    assert code == 0, err  # was: invalid literal for int() with base 10: 'three_of_a_kind'
    assert "検証しました" in out
    with Store(db) as s:
        settled = [e for (raw,) in s.conn.execute("SELECT events FROM log")
                   for e in json.loads(raw) if e["event"] == "settle" and e.get("hand")]
    assert settled
    # a board card changed in the log: one line, exit 1
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER inputs_no_update")  # (the log is append-only: tampered here)
    seq, raw = next((seq, raw) for seq, _, _, _, raw in log_rows.rows(conn)
                    if '"board"' in raw and '"street"' in raw)
    events = json.loads(raw)
    board = next(e for e in events if e["event"] == "board")
    board["board"][0] = "As" if board["board"][0] != "As" else "Kd"
    log_rows.rewrite(conn, seq, events_json=json.dumps(events))
    conn.commit()
    conn.close()
    code, _, err = run_cli(["verify", "--db", str(db)])
    from referee.lang.catalog import messages

    said = messages()["verify.board_order"].split("{cards}")[0].format(hand=1)  # the board's
    assert code == 1 and err.count("\n") == 1 and said in err, err


def test_verify_db_fails_on_any_input_changed_after_it_was_written(tmp_path: Path) -> None:
    """Not only a shuffle's own inputs: any row rewritten breaks the digest chain, and verify
    says where in one line (the deals' entropy is the room's record)."""
    db = tmp_path / "chat.db"
    _driven_db(db, games=("omaha",), hands=1)
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER inputs_no_update")
    seq, raw = [(seq, inp) for seq, _, _, inp, _ in log_rows.rows(conn)
                if json.loads(inp).get("kind") == "message"
                and not json.loads(inp).get("text", "").startswith("!")][-1]  # (after the deal)
    changed = json.loads(raw)
    changed["text"] = changed["text"] + "!"
    log_rows.rewrite(conn, seq, input_json=json.dumps(changed, ensure_ascii=False))
    conn.commit()
    conn.close()
    code, _, err = run_cli(["verify", "--db", str(db)])
    assert code == 1 and err.count("\n") == 1 and f" {seq} " in err


def test_check_snapshots_passes_on_a_replayed_database(tmp_path: Path) -> None:
    db = tmp_path / "replay.db"
    with open(tmp_path / "out.jsonl", "w") as out:
        for path in [*GAMES_SHOWN, TRANSCRIPTS / "service" / "holdem_aa_leak.txt",
                     TRANSCRIPTS / "seven" / "results.txt",
                     *sorted((TRANSCRIPTS / "deuces").glob("*.txt"))[:2]]:
            replay(path, db=db, out=out)
    with Store(db) as s:
        games = {e["game"] for (raw,) in s.conn.execute("SELECT events FROM log")
                 for e in json.loads(raw) if e["event"] == "hand_seats"}
    assert games == {"omaha", "holdem_aa", "seven", "deuces"}
    code, _, err = run_cli(["check", "--db", str(db), "--snapshots"])
    assert code == 0, err
    code, _, err = run_cli(["verify", "--db", str(db)])
    assert code == 0, err


PLAY = [
    "dealer: !open omaha level=1",
    "dealer: !grant @alice 1000",
    "dealer: !grant @bob 1000",
    "alice: !sit",
    "bob: !sit",
    "dealer: !deal",
    "bob: フォールド",
    "dealer: !close",
    "dealer: !open holdem_aa",
    "alice: !sit",
    "bob: !sit",
    "dealer: !deal",
    "alice: アンティ100",
    "bob: アンティ100",
    "alice: コール",
    "bob: コール",
    # antes, then both fold (seven's button set so that alice acts first: a table draws it)
    *(line for game in ("seven", "deuces") for line in (
        "dealer: !close", f"dealer: !open {game}", "alice: !sit", "bob: !sit",
        *(["# button: 2"] if game == "seven" else []), "dealer: !deal",
        "alice: アンティ100", "bob: アンティ100", "alice: フォールド", "bob: フォールド")),
]


def test_check_snapshots_passes_on_a_terminal_database(tmp_path: Path) -> None:
    """The terminal's moderator is an input of the log (a ``config`` directive): the full
    re-run of ``check --snapshots`` sees it, and finds the same ledger (it found an empty
    state before), on hands of all four games played at the terminal."""
    db = tmp_path / "play.db"
    cmd = [sys.executable, "-m", "referee.cli", "play", "--db", str(db)]
    r = subprocess.run(cmd, input="\n".join(PLAY) + "\n", capture_output=True, text=True,
                       timeout=120, cwd=REPO)
    assert r.returncode == 0, r.stderr
    with Store(db) as s:
        first = s.inputs()[0]
        events = [e for (raw,) in s.conn.execute("SELECT events FROM log")
                  for e in json.loads(raw)]
    settled = [e for e in events if e["event"] == "settle"]
    assert first["kind"] == "directive" and first["name"] == "config"
    assert {e["player"] for e in settled} == {"alice", "bob"}  # house hands were settled
    assert {e["game"] for e in events if e["event"] == "hand_seats"} == {
        "omaha", "holdem_aa", "seven", "deuces"}
    assert not [e for e in events if e["event"] == "rejected"]
    code, _, err = run_cli(["check", "--db", str(db), "--snapshots"])
    assert code == 0, err
    code, _, err = run_cli(["verify", "--db", str(db)])
    assert code == 0, err
    # a second start with the same moderator records nothing new
    r = subprocess.run(cmd, input="alice: !bank\n", capture_output=True, text=True, timeout=120,
                       cwd=REPO)
    with Store(db) as s:
        assert sum(i["kind"] == "directive" and i.get("name") == "config"
                   for i in s.inputs()) == 1


# --- one hand identity -----------------------------------------------------------------------

def test_a_hand_is_its_table_its_number_and_its_game(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    _driven_db(db, games=("omaha", "holdem_aa"), hands=1)
    code, out, err = run_cli(["history", "--db", str(db), "--hand", "1", "--json"])
    rows = [json.loads(x) for x in out.splitlines()]
    assert code == 0, err
    assert [(r["table"], r["game"], r["hand"]) for r in rows] == [(1, "omaha", 1),
                                                                   (2, "holdem_aa", 1)]
    assert len({r["key"] for r in rows}) == 2
    code, out, _ = run_cli(["history", "--db", str(db), "--table", "2", "--hand", "1",
                            "--json"])
    assert [json.loads(x)["game"] for x in out.splitlines()] == ["holdem_aa"]
    code, out, _ = run_cli(["records", "--db", str(db), "hands", "--json"])
    assert [(json.loads(x)["table"], json.loads(x)["game"]) for x in out.splitlines()] == [
        (1, "omaha"), (2, "holdem_aa")]


def test_hand_command_answers_for_the_rooms_current_table() -> None:
    ref = Referee(moderators=["dealer"], rng=random.Random(2))
    d = _Driver("x", "omaha", 7, players=2, ref=ref)
    assert d.hand()
    d.say("dealer", "!close")
    d.say("dealer", "!open holdem_aa")
    for p in d.names:
        d.say(p, "!sit")
    d.game = "holdem_aa"
    assert d.hand()
    out = d.say("zed", "!hand 1")
    first = next(e for e in out if e.event == "say").text  # type: ignore[attr-defined]
    assert first.startswith("テーブル2・ハンド#1 ホールデムAA")
    out = d.say("zed", "!hand 1-1")  # the room's earlier table
    first = next(e for e in out if e.event == "say").text  # type: ignore[attr-defined]
    assert first.startswith("テーブル1・ハンド#1 オマハ")


# --- one word per action, bet and result -----------------------------------------------------

_ENGLISH = re.compile(r"\b(?:win|lose|push|dealer_fold|dq|fold|hyper_raise|extra_raise|raise|"
                      r"call|ante|allin|omaha|holdem_aa|seven|deuces|[a-z]+_[a-z_]+)\b")


def _summaries(game: str, seed: int, hands: int = 6, players: int = 3) -> list[str]:
    d = Driver(game, seed, players=players)
    for _ in range(hands):
        d.hand()
    return [line for rec in d.ref.history.hands(ROOM) for line in summary_lines(rec)]


@pytest.mark.parametrize("game", ["omaha", "holdem_aa", "seven", "deuces"])
def test_no_english_id_reaches_a_person(game: str) -> None:
    lines = _summaries(game, 3)
    assert lines
    for line in lines:
        assert not _ENGLISH.search(line), line
        assert "ボタン: 0番" not in line
    if game == "holdem_aa":  # no button at that table
        assert not any("ボタン" in line for line in lines)


def test_the_aa_bet_is_not_merged_into_the_ante() -> None:
    text = ("# table: holdem_aa\n# seat 1: alice 2000\n# seat 2: bob 2000\n"
            "# deal: alice=Ah Ad | bob=7c 2d | dealer=Kc Kd | board=As 9s 4h 3c 2h\n"
            "alice: アンティ100 AA50\nbob: アンティ100\nalice: コール\nbob: フォールド\n")
    ref = Referee()
    for _ in run(read(text), ref):
        pass
    (rec,) = ref.history.hands()
    lines = " ".join(summary_lines(rec))
    assert "alice アンティ 100・AA 50" in lines and "bob アンティ 100" in lines
    # the settlement says why: the player's hand against the dealer's
    assert "（スリー・オブ・ア・カインド 対 ディーラーのワンペア）" in lines


def test_seven_raise_is_a_raise_and_omaha_make_names_its_total() -> None:
    lines = " ".join(_summaries("seven", 5, hands=8))
    assert "レイズ" in lines and "メイク" not in lines
    text = ("# table: omaha rules=world level=5\n# seat 1: alice 20000\n# seat 2: bob 20000\n"
            "# seat 3: carol 20000\n# button: 3\n"
            "# deal: alice=Ah Ad Kc Qc | bob=Kh Kd 8c 4c | carol=Qh Qd 6c 5c"
            " | board=2c 7d 9h Js 3s\ncarol: メイク1400\nalice: フォールド\nbob: フォールド\n")
    ref = Referee()
    for _ in run(read(text), ref):
        pass
    (rec,) = ref.history.hands()
    assert "carol メイク 1,400" in " ".join(summary_lines(rec))


def test_one_spelling_of_rake() -> None:
    from referee.lang.catalog import messages

    room = messages()["rake"].split()[0]
    assert room == "レイク" and messages()["hand_rake"].split()[0] == room
    for path in [*PACKAGE.rglob("*.toml"), *PACKAGE.rglob("*.sql"),
                 *(REPO / "docs").glob("*.md")]:
        assert "レーキ" not in path.read_text(encoding="utf-8"), path


# --- the bank views show chips at a table ------------------------------------------------------

def test_bank_views_show_chips_held_at_a_table(tmp_path: Path) -> None:
    db = tmp_path / "b.db"
    with Store(db) as store:
        ref = Referee(moderators=["dealer"], persistence=store, rng=random.Random(1))
        say = Room(ref)
        say("dealer", "!open omaha")
        say("dealer", "!grant @alice 500")
        say("alice", "!sit")
        answer = [e for e in say("alice", "!bank") if e.event == "say"]
        chips = ref.tables[ROOM].engine.stacks()["alice"]
    assert chips > 0
    assert f"{chips:,}" in answer[0].text  # type: ignore[attr-defined]
    code, out, _ = run_cli(["records", "--db", str(db), "bank", "--json"])
    assert code == 0 and [json.loads(x) for x in out.splitlines()] == [
        {"player": "alice", "balance": 0, "at_table": chips}]
    conn = _console(db, tmp_path)
    assert conn.execute("SELECT 残高, テーブルのチップ FROM bank WHERE プレイヤー = 'alice'"
                        ).fetchone() == (0, chips)


# --- what the room is told, and when ------------------------------------------------------------

def test_an_uncontested_pot_announces_its_rake() -> None:
    evs = _json(replay_events(TRANSCRIPTS / "omaha" / "rake_loj_preflop.txt"))
    at = next(i for i, e in enumerate(evs) if e["event"] == "rake")
    said = next(e for e in evs[at:] if e["event"] == "say")
    assert "84" in said["text"] and said["text"].startswith("レイク")


def test_the_penalty_is_announced_at_the_offence() -> None:
    """Heads-up: bob names his own cards, is folded and removed, and the pot goes to alice --
    the penalty line comes first, not after the pot."""
    text = ("# table: omaha rules=world level=3\n# moderator: dealer\n# bank: bob 3000\n"
            "# seat 1: alice 20000\n# seat 2: bob 20000\n# button: 1\n"
            "# deal: alice=Ah Kh Qd Jd | bob=2c 3c 4d 5d | board=Ts 9s 8c 2h 3h\n"
            "bob: 俺2♣3♣持ってる\n")
    evs = _json(replay_events(text=text))
    kinds = [e["event"] for e in evs]
    assert "penalty" in kinds and "pot" in kinds
    said = next(i for i, e in enumerate(evs) if e["event"] == "say" and "ペナルティ" in e["text"])
    assert said < kinds.index("pot") and said < kinds.index("hand_end")
    assert said < next(i for i, e in enumerate(evs) if e["event"] == "action"
                       and e["player"] == "bob" and e["action"] == "fold")


def test_house_results_say_why() -> None:
    text = ("# table: holdem_aa\n# seat 1: alice 2000\n# seat 2: bob 2000\n"
            "# deal: alice=Ah Ad | bob=7c 2d | dealer=Kc Kd | board=As 9s 4h 3c 2h\n"
            "alice: アンティ100\nbob: アンティ100\nalice: コール\nbob: コール\n")
    evs = _json(replay_events(text=text))
    settle = {e["player"]: e for e in evs if e["event"] == "settle"}
    assert settle["alice"]["dealer_class"] == "one_pair"
    line = next(e["text"] for e in evs if e["event"] == "say" and e["text"].startswith("精算"))
    assert "aliceさん: 勝ち" in line
    assert "（スリー・オブ・ア・カインド 対 ディーラーのワンペア）" in line
    shown = {e["player"]: e for e in evs if e["event"] == "shown"}
    assert shown["dealer"]["cards"] == ["Kc", "Kd"] and shown["dealer"]["hand_class"]
    # seven: the dice line names the dealer hand's class
    lines = []
    for seed in range(4):
        d = Driver("seven", 60 + seed, players=3)
        d.hand()
        lines += [e.text for e in d.events if e.event == "say"  # type: ignore[attr-defined]
                  and e.text.startswith("ダイス")]  # type: ignore[attr-defined]
    from referee.hands import NAMES

    assert lines and all(any(f"の{n}" in t for n in NAMES["seven"].values()) or "フォールド" in t
                         for t in lines)


def test_cards_sent_reads_what_each_event_put_before_someone() -> None:
    """verify.cards_sent: a private message's cards are the player's own (or the spare shoe's),
    the room is shown only the board and hands their owners showed -- from typed events."""
    from referee.verify import cards_sent

    checked = 0
    for game in ("omaha", "holdem_aa", "deuces", "seven"):
        d = Driver(game, 90, players=3)
        for _ in range(3):
            d.hand()
        evs = _json(d.events)
        for rev in (e for e in evs if e["event"] == "deal_reveal"):
            dealt = rev["dealt"]
            start = next(i for i, e in enumerate(evs) if e["event"] == "hand_start"
                         and e["hand"] == rev["hand"])
            spare = set(dealt.get("shoe", []))
            for e in evs[start: evs.index(rev)]:
                sent = cards_sent(e)
                if sent is None:
                    continue
                to, cards = sent
                if to != "room":
                    assert set(cards) <= set(dealt["hands"][to]) | spare, (game, e)
                elif e["event"] == "shown" and e["player"] in dealt["hands"]:
                    own = set(dealt["hands"][e["player"]]) | spare
                    assert set(cards) <= own, (game, e)
                elif e["event"] == "board":
                    assert set(cards) <= set(dealt.get("board", [])) | spare, (game, e)
                checked += 1
    assert checked > 30


def test_check_snapshots_finds_a_ledger_row_changed_with_its_bank(tmp_path: Path) -> None:
    """The ledger and the bank are derived from the chained inputs: changed together (so
    their sums agree) they still disagree with a re-run of the inputs."""
    db = tmp_path / "replay.db"
    transcript = tmp_path / "bank.txt"
    transcript.write_text("# table: omaha level=1\n# moderator: dealer\n" + "".join(
        f"dealer: !grant @{p} 1000\n" for p in ("alice", "bob"))
        + "alice: !sit\nbob: !sit\nalice: !leave\n")
    with open(tmp_path / "out.jsonl", "w") as out:
        replay(transcript, db=db, out=out)
    code, _, err = run_cli(["check", "--db", str(db), "--snapshots"])
    assert code == 0, err
    conn = sqlite3.connect(db)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"
                                " AND (tbl_name = 'ledger' OR tbl_name = 'bank')").fetchall():
        conn.execute(f"DROP TRIGGER {name}")
    lid, player = conn.execute("SELECT id, player FROM ledger ORDER BY id DESC LIMIT 1"
                               ).fetchone()
    conn.execute("UPDATE ledger SET delta = delta + 500 WHERE id = ?", (lid,))
    conn.execute("UPDATE bank SET balance = balance + 500 WHERE player = ?", (player,))
    conn.commit()
    conn.close()
    for argv in (["check", "--db", str(db)], ["check", "--db", str(db), "--snapshots"]):
        code, _, err = run_cli(argv)
        assert code == 1 and err.count("\n") == 1 and f"ledger entry {lid} " in err, err


def test_check_finds_the_newest_rows_removed(tmp_path: Path) -> None:
    """Truncation keeps the chain linked; the head kept beside the database is not reached."""
    db = tmp_path / "replay.db"
    with open(tmp_path / "out.jsonl", "w") as out:
        replay(GAMES_SHOWN[0], db=db, out=out)
    assert (tmp_path / "replay.db.head").exists()
    code, _, err = run_cli(["check", "--db", str(db)])
    assert code == 0, err
    conn = _untriggered(db)
    newest = conn.execute("SELECT max(seq) FROM inputs").fetchone()[0]
    conn.execute("DELETE FROM ledger WHERE input_seq >= ?", (newest - 2,))
    conn.execute("DELETE FROM inputs WHERE seq >= ?", (newest - 2,))
    conn.commit()
    conn.close()
    code, _, err = run_cli(["check", "--db", str(db)])
    assert code == 1 and err.count("\n") == 1 and f"input {newest}" in err, err


def _untriggered(db: Path) -> sqlite3.Connection:
    """A connection to ``db`` with its guarding triggers dropped: what a tamperer does first."""
    conn = sqlite3.connect(db)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"
                                ).fetchall():
        conn.execute(f"DROP TRIGGER {name}")
    return conn


def test_check_finds_the_newest_rows_removed_with_their_ledger_and_bank(tmp_path: Path) -> None:
    """Issue 45, observation 8: the newest rows removed together with their ledger rows, and
    the bank rolled back to what the rest sums to (every invariant inside the file holds, and
    the chain of what is left links): the head kept beside the database names where the log
    should end, in one line, and so do `check --snapshots` and the bots' refusal to start (a
    bot that started would save over the cut and write a new head)."""
    db = tmp_path / "bank.db"
    transcript = tmp_path / "bank.txt"
    transcript.write_text("# table: omaha level=1\n# moderator: dealer\n" + "".join(
        f"dealer: !grant @{p} {n}\n" for p, n in (("alice", 1000), ("bob", 1000),
                                                  ("alice", 500), ("bob", 700))))
    with open(tmp_path / "out.jsonl", "w") as out:
        replay(transcript, db=db, out=out)
    code, _, err = run_cli(["check", "--db", str(db)])
    assert code == 0, err
    conn = _untriggered(db)
    newest = conn.execute("SELECT max(seq) FROM inputs").fetchone()[0]
    cut = conn.execute("SELECT min(input_seq) FROM (SELECT input_seq FROM ledger"
                       " ORDER BY id DESC LIMIT 2)").fetchone()[0]
    assert cut is not None and cut <= newest
    conn.execute("DELETE FROM ledger WHERE input_seq >= ?", (cut,))
    conn.execute("DELETE FROM inputs WHERE seq >= ?", (cut,))
    conn.execute("DELETE FROM bank")  # rolled back: what the remaining ledger says
    conn.execute("INSERT INTO bank(player, balance, last_ledger_id) SELECT player, sum(delta),"
                 " max(id) FROM ledger GROUP BY player")
    conn.commit()
    balances = dict(conn.execute("SELECT player, balance FROM bank").fetchall())
    conn.close()
    assert balances == {"alice": 1000, "bob": 1000}, balances
    conn = sqlite3.connect(db)
    from referee.store.chain import first_bad

    assert first_bad(conn) is None  # what is left links: only the head shows the cut
    conn.close()
    for argv in (["check", "--db", str(db)], ["check", "--db", str(db), "--snapshots"]):
        code, _, err = run_cli(argv)
        assert code == 1 and err.count("\n") == 1, err
        assert f"input {cut} (the first missing)" in err and f"input {newest}" in err, err
    from test_store_integrity import referee as run_referee

    r = run_referee("irc", "--server", "127.0.0.1", "--port", "1", "--no-tls", "--channel", "#x",
                    "--db", str(db))  # refused before any connection
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr[-2000:]
    assert "Traceback" not in r.stderr and f"input {cut} (the first missing)" in r.stderr
