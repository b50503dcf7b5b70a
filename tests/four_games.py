"""One hand of each game, driven from the bot's room messages alone: the simplest legal answers
(antes, calls, checks, open at a showdown; in ``seven`` the two last cards thrown; in ``deuces``
every card kept). Shared by the Matrix and IRC tests of ``referee verify`` / ``check`` on a real
adapter's database (``test_four_games.py`` and ``test_irc_four_games.py``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from referee.cards import card_str, parse_cards

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("holdem_aa", "seven", "deuces", "omaha")
OPEN = {"omaha": "!open omaha level=1", "holdem_aa": "!open holdem_aa", "seven": "!open seven",
        "deuces": "!open deuces"}

_TURN = re.compile(r"(\S+?) ?さんの番です（(.*)）")
_SHOWDOWN = re.compile(r"(\S+?) ?さん、オープンかマック")
_DEALT = re.compile(r"\d+番 (\S+?) ?さん: ([^/]+)")
_DUPLICATES = re.compile(r"(\S+?) ?さん、重複カードが複数あります（(.*?)）")
END = "のシードを公開します"  # the deal's reveal, after the hand's end


def _ascii(text: str) -> list[str]:
    return [card_str(c) for c in parse_cards(text.strip())]


def seven_declaration(cards: list[str]) -> str:
    """The two cards outside the best five (a declaration that never weakens the hand), or the
    hand's name when it uses more than five cards."""
    from referee.hands import evaluate

    best = evaluate("seven", parse_cards(" ".join(cards)))
    if len(best.cards) != 5:
        return best.name
    rest = list(cards)
    for c in best.cards:
        rest.remove(card_str(c))
    return "捨て " + " ".join(rest)


class Driver:
    """``answers(text)``: what the players say to one message of the bot in the room (a list
    of (player, text)). ``players`` are the names the bot calls them by."""

    def __init__(self, game: str, players: list[str]) -> None:
        self.game, self.players = game, players
        self.cards: dict[str, list[str]] = {}  # seven: each player's face-up cards so far

    def answers(self, text: str) -> list[tuple[str, str]]:
        if "アンティ" in text and "ベットしてください" in text:
            return [(p, "アンティ100") for p in self.players]
        if self.game == "seven" and _DEALT.search(text):  # (or a part of a long line, on IRC)
            for name, cards in _DEALT.findall(text):
                try:
                    got = _ascii(cards)
                except ValueError:
                    continue
                if len(got) >= 2:
                    self.cards[name] = got
            return []
        if (m := _DUPLICATES.search(text)) is not None:
            return [(m.group(1), f"{_ascii(m.group(2))[0]} を捨てる")]
        if (m := _TURN.search(text)) is not None:
            return [(m.group(1), "チェック" if "チェック" in m.group(2) else "コール")]
        if (m := _SHOWDOWN.search(text)) is not None:
            return [(m.group(1), "オープン")]
        if "コール（アンティと同額）かフォールド" in text:  # holdem_aa, everyone at once
            return [(p, "コール") for p in self.players]
        if "捨てる2枚を宣言" in text:  # seven: keep the best five, or name a 7-card hand
            return [(p, seven_declaration(self.cards[p])) for p in self.players]
        if "勝負なら残すカードか捨てるカード" in text:  # deuces: keep all five
            return [(p, "そのまま") for p in self.players]
        return []


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *argv], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)


def hands_by_game(db: Path) -> dict[str, int]:
    """How many finished hands of each game the records (``referee history``) hold."""
    r = cli("history", "--db", str(db), "--json")
    assert r.returncode == 0, r.stderr
    out: dict[str, int] = {}
    for line in r.stdout.splitlines():
        if line.strip():
            game = json.loads(line)["game"]
            out[game] = out.get(game, 0) + 1
    return out


def rejected(db: Path) -> list[dict[str, object]]:
    """Every ``rejected`` event in the bot's log (the simple answers are all legal)."""
    import sqlite3

    from referee.store.log import register

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        register(conn)
        rows = conn.execute("SELECT events FROM log ORDER BY seq").fetchall()
    finally:
        conn.close()
    return [e for (raw,) in rows for e in json.loads(raw) if e.get("event") == "rejected"]


def check_and_verify(db: Path) -> None:
    """``referee check --snapshots`` and ``referee verify`` both pass on the bot's database."""
    for argv in (["check", "--db", str(db), "--snapshots"], ["verify", "--db", str(db)]):
        r = cli(*argv)
        assert r.returncode == 0, (argv, r.stdout, r.stderr)


def tampered_fails(db: Path, tmp: Path) -> None:
    """One stored input -- the first ``!deal``, a message of that hand's shuffle entropy --
    changed by one character in a copy of ``db``: ``check`` (the digest chain) and ``verify``
    (the revealed entropy is no longer the room's messages) exit non-zero with one line on
    stderr, no traceback."""
    import shutil
    import sqlite3

    import log_rows

    from referee.store.log import register

    copy = tmp / "tampered.db"
    shutil.copy(db, copy)
    conn = sqlite3.connect(str(copy))
    try:
        register(conn)
        seq, text = next((r[0], r[3]) for r in log_rows.rows(conn)
                         if json.loads(r[3]).get("text") == "!deal")
        conn.execute("DROP TRIGGER inputs_no_update")  # (the log is append-only)
        log_rows.rewrite(conn, seq, input_json=json.dumps(
            {**json.loads(text), "text": "!dealt"}, ensure_ascii=False))
        conn.commit()
    finally:
        conn.close()
    for argv in (["check", "--db", str(copy), "--snapshots"], ["verify", "--db", str(copy)]):
        r = cli(*argv)
        assert r.returncode != 0, (argv, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in r.stderr, (argv, r.stderr)
        from referee.lang.catalog import messages

        # verify names the entropy (verify.entropy: the text after the hand number)
        entropy = messages()["verify.entropy"].split("{hand}")[-1]
        assert (f"row {seq}" if argv[0] == "check" else entropy) in lines[0], (argv, lines[0])
