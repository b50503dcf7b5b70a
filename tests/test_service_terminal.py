"""``referee play``: the terminal table is the same pipeline, persisted, and survives a restart."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from event_helpers import said_keys

from referee.adapters.terminal import Terminal, render, serve
from referee.events import Say
from referee.lang.catalog import text as msg
from referee.service import Referee
from referee.store import Store

pytest.importorskip("referee.parse")

SESSION = [
    "dealer: !open omaha level=1",
    "dealer: !grant @alice 1000",
    "dealer: !grant @bob 1000",
    "alice: !sit",
    "bob: !sit",
    "# button: 2",
    "# deal: alice=Ah Kh Qd Jd | bob=2c 3c 4d 5d | board=Ts 9s 8c 2h 3h",
    "bob: コール",
    "",
    "this line has no colon",
    "# frobnicate: 1",
    "alice: チェック",
]


def test_render_marks_private_messages() -> None:
    assert render(Say(to="room", text="やあ")) == "[bot] やあ"
    assert render(Say(to="alice", text="A♥")) == "[bot → alice（非公開）] A♥"


def test_session_prints_says_and_refuses_bad_lines_politely() -> None:
    ref = Referee(moderators=["dealer"])
    out = io.StringIO()
    serve(Terminal(ref), SESSION, out)
    text = out.getvalue()
    assert "[bot] オマハ（PLO リングゲーム） のテーブルを開きました。" in text
    assert "[bot → alice（非公開）] ハンド#1 あなたの手札: A♥ K♥ Q♦ J♦" in text
    assert "（入力エラー）「名前: メッセージ」の形で入力してください" in text
    assert "（入力エラー）指示が不正です: 知らない指示です: 「# frobnicate」" in text
    # room lines never carry a hole card
    for line in text.splitlines():
        if line.startswith("[bot] "):
            assert "A♥" not in line and "2♣" not in line
    assert ref.tables["terminal"].engine.stacks() == {"alice": 9980, "bob": 9980}


def test_the_banner_and_help_explain_private_messages() -> None:
    """The chat rooms have private messages of their own; at the terminal the syntax is
    ``alice (dm): …``, said in the banner and after a bare !help (to whoever asked)."""
    assert "(dm):" in msg("terminal.banner")
    assert "(dm):" in msg("terminal.help_private")
    term = Terminal(Referee(moderators=["dealer"]))
    note = "terminal.help_private"
    assert said_keys(term.line("dealer: !help"))[-1] == note
    assert said_keys(term.line("dealer: ！ヘルプ"))[-1] == note  # any alias, any width
    assert said_keys(term.line("alice (dm): !help"), to="alice")[-1] == note
    assert note not in said_keys(term.line("dealer: !help sit"))  # one command's help: no note
    assert note not in said_keys(term.line("dealer: help me"))


def test_restart_rebuilds_the_table_from_the_database(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with Store(db) as store:
        ref = Referee(moderators=["dealer"], persistence=store)
        serve(Terminal(ref), SESSION, io.StringIO())
        state = ref.state()
    with Store(db) as store:
        again = Referee(moderators=["dealer"])
        again.rebuild(store.inputs())
    assert again.state() == state
    assert again.tables["terminal"].engine.holdings("alice") == ref.tables[
        "terminal"].engine.holdings("alice")


def test_referee_play_command_persists_across_runs(tmp_path: Path) -> None:
    db = tmp_path / "play.db"
    cmd = [sys.executable, "-m", "referee.cli", "play", "--db", str(db)]
    first = "\n".join(SESSION[:7]) + "\n"
    r1 = subprocess.run(cmd, input=first, capture_output=True, text=True, timeout=60)
    assert r1.returncode == 0, r1.stderr
    assert "ハンド#1 開始" in r1.stdout
    r2 = subprocess.run(cmd, input="bob: コール\nalice: !bank\n", capture_output=True, text=True,
                        timeout=60)
    assert r2.returncode == 0, r2.stderr
    # the hand from the first run goes on: bob's call is applied, not refused
    assert "ハンド中ではありません" not in r2.stdout
    assert "[bot] aliceさんのバンク残高: 0P" in r2.stdout
    with Store(db) as store:
        assert len(store.inputs()) == 10  # and the moderator's config input


def test_a_quiet_terminal_ticks_the_action_clock() -> None:
    """Nobody types: the timer's ticks remind bob, then time him out (the default action)."""
    ref = Referee(moderators=["dealer"])
    now = [1000.0]
    term = Terminal(ref)
    serve(term, SESSION[:7], io.StringIO(), clock=lambda: now[0])

    def quiet(at: float) -> str:
        now[0] = at
        out = io.StringIO()
        serve(term, [None], out, clock=lambda: now[0])
        return out.getvalue()

    assert quiet(1001.0) == ""  # the turn's clock starts (the deal line carries no time)
    assert quiet(1030.0) == ""
    assert quiet(1062.0) == "[bot] bobさん、アクションをお願いします\n"
    assert quiet(1064.0) == ""  # at most one tick every TICK_EVERY seconds
    out = quiet(1122.0)
    assert out.startswith("[bot] bobさんは時間切れです\n")
    assert ref.tables["terminal"].engine.stacks()["alice"] > 10000 - 20
    assert quiet(1200.0) == ""  # between hands nobody is waited on: no tick saved
    assert term.ticked["terminal"] == 1122.0


def test_typed_lines_yield_quiet_moments_and_whole_lines() -> None:
    import os
    import threading
    import time

    from referee.adapters.terminal import typed_lines

    r, w = os.pipe()
    got: list[str | None] = []

    def feed() -> None:
        os.write(w, "alice: コール\nbob: ".encode())
        time.sleep(0.3)
        data = "チェック\n".encode()
        os.write(w, data[:2])  # a character split between two reads
        time.sleep(0.05)
        os.write(w, data[2:] + b"carol: \xff!\n" + "dave: 最後".encode())
        os.close(w)

    t = threading.Thread(target=feed)
    t.start()
    got = list(typed_lines(r, 0.1))
    t.join()
    os.close(r)
    lines = [g for g in got if g is not None]
    assert lines == ["alice: コール", "bob: チェック", "carol: \ufffd!", "dave: 最後"]
    assert None in got[got.index("alice: コール"):got.index("bob: チェック")]
