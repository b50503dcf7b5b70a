"""The clause reader (referee/lang/clauses.py) on labelled lines.

- ``tests/corpus/clauses.jsonl``: our own lines, one or more for every class of phrasing the
  language issue lists (a greeting or an afterthought around the action, corrections, register,
  dialect, English and romaji, slips, kanji numerals) and the chat that must stay chat.
- ``tests/corpus/blind/roundN.jsonl``: the blind rounds, written by people who had read only the
  player guide and the rules, each scored before anything was changed for it (docs/parser.md).
  Every chat line must stay chat (a chat line read as an action is a move nobody made); every
  action line must be read exactly, except those marked ``known_miss`` (what the reader cannot
  read yet, kept so that a line read today never silently stops being read).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.parse import parse

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import scoring

CORPUS = Path(__file__).parent / "corpus"


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


FILES = [CORPUS / "clauses.jsonl", *sorted((CORPUS / "blind").glob("round*.jsonl"))]


def _wrong(row: dict[str, Any]) -> str | None:
    """What is wrong with the reading of one labelled line, or None."""
    got = parse(row["text"], row["game"]).to_json()
    want = row["expect"]
    if want["kind"] != "action":
        return None if got["kind"] != "action" else f"{row['text']!r} read as an action: {got}"
    exact = scoring.exact(got, want)
    if row.get("known_miss"):
        return f"{row['text']!r} is read now: drop its known_miss mark" if exact else None
    return None if exact else f"{row['text']!r} misread: {got}"


# One test a file, naming every wrong line at once (``file:line``), rather than a test a line:
# 11,000 items cost more in collection and per-item overhead on each xdist worker than the
# reading itself.
@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_lines(path: Path) -> None:
    wrong = [f"{path.stem}:{n}: {why}" for n, row in enumerate(_rows(path), 1)
             if (why := _wrong(row)) is not None]
    assert not wrong, f"{len(wrong)} lines:\n" + "\n".join(wrong)


def test_rounds_are_blind_rounds() -> None:
    """Each round keeps the shape the measurement needs: 150+ lines, all four games, 40%+ chat."""
    for path in sorted((CORPUS / "blind").glob("round*.jsonl")):
        rows = _rows(path)
        chat = sum(r["expect"]["kind"] == "chat" for r in rows)
        assert len(rows) >= 150, path.name
        assert {r["game"] for r in rows} == {"omaha", "holdem_aa", "seven", "deuces"}, path.name
        assert chat / len(rows) >= 0.40, path.name


@pytest.mark.parametrize("text", [
    "コールしま〼", "ちぇつく", "ふおーるど", "コ一ル", "チェック-", "折ります", "おーるいn",
])
def test_slips_of_action_words_only(text: str) -> None:
    assert parse(text, "omaha").kind == "action"


@pytest.mark.parametrize("text,value", [
    ("メイク千八百", 1800), ("メイク一万二千", 12000), ("メイク にせん ごひゃく", 2500),
    ("メイク せんはっぴゃく", 1800), ("メイク二千五百で", 2500),
])
def test_kanji_and_kana_numerals(text: str, value: int) -> None:
    assert parse(text, "omaha").to_json().get("to") == value


@pytest.mark.parametrize("text", [
    "一枚だけ見せます",  # a count, not an amount
    "二回目もコールで",
])
def test_counts_are_no_amounts(text: str) -> None:
    got = parse(text, "omaha" if "見せ" in text else "seven").to_json()
    assert "amount" not in got and "to" not in got
