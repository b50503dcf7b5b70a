"""``referee play``: the terminal table is the same pipeline, persisted, and survives a restart."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from referee.adapters.terminal import Terminal, render, serve
from referee.events import Say
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
    assert "（入力エラー）指示が不正です: unknown directive '# frobnicate'" in text
    # room lines never carry a hole card
    for line in text.splitlines():
        if line.startswith("[bot] "):
            assert "A♥" not in line and "2♣" not in line
    assert ref.tables["terminal"].engine.stacks() == {"alice": 9980, "bob": 9980}


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
        assert len(store.inputs()) == 9
