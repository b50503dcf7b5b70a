"""Score the leak and interference judgement on a labelled chat corpus.

    .venv/bin/python bench/judgement.py [CORPUS.jsonl] [--verbose] [--json]

Each corpus line is a JSON object: ``text``, ``game``, ``label`` (``hand_talk``,
``interference`` or ``innocent``; or ``labels``, a list, for a line that is both) and the
situation it was said in (all optional):
``role`` (``player`` dealt into the hand -- the default --, ``folded``, ``spectator`` or
``moderator``), ``holding`` / ``shown`` / ``board`` (cards, e.g. ``"Ah Kh Qd Jd"``), ``turn``
(the speaker is the player to act), ``in_hand`` (default true) and ``auto`` (a hand-talk line
that must be penalised at once).

Every line goes through the parser (:func:`referee.parse.parse`) and the referee's judgement
(:func:`referee.discipline.leak_judgement`, :func:`referee.discipline.interference_priority`),
under the same conditions the service applies (a hand running; leaks only from players dealt
in; interference from anyone but a moderator). Printed: precision and recall of hand talk (a
leak flag or penalty) and of interference (a flag), and the automatic penalties on lines
labelled innocent (the target is 0). ``--verbose`` lists every miss and false alarm.

The default corpus is ``tests/corpus/judgement.jsonl`` (written for this project; the issue's
acceptance figures are measured on a held-out corpus of the same format). ``--blind`` scores the
blind rounds' chat lines said in the hand instead (``tests/corpus/blind``: their ``hand_info``
and ``advice`` labels; hand talk only where hands are hidden, omaha and holdem_aa).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import scoring  # noqa: E402

from referee.cards import Card, CardError, parse_cards  # noqa: E402
from referee.discipline import interference_priority, leak_judgement  # noqa: E402
from referee.lexicon import read  # noqa: E402
from referee.parse import parse  # noqa: E402

DEFAULT = ROOT / "tests" / "corpus" / "judgement.jsonl"
SHOW_ACTIONS = {"fold", "open", "muck", "close", "discard", "play"}


@dataclass
class Verdict:
    leak: bool
    automatic: bool
    interference: bool


def _cards(value: Any) -> list[Card]:
    if isinstance(value, list):
        value = " ".join(str(v) for v in value)
    return parse_cards(str(value or ""))


def _get(row: dict[str, Any], *names: str, default: Any = None) -> Any:
    for n in names:
        if n in row:
            return row[n]
    return default


def labels(row: dict[str, Any]) -> set[str]:
    """A line's labels: ``label`` (one) or ``labels`` (a list: a line may be both)."""
    got = _get(row, "labels", "label", default=[])
    out = {str(x) for x in got} if isinstance(got, list) else {str(got)}
    return out - {"innocent"}


def judge(row: dict[str, Any]) -> Verdict:
    text, game = str(row["text"]), str(row.get("game", "omaha"))
    role = str(_get(row, "role", "speaker", default="player"))
    if row.get("spectator") is True:
        role = "spectator"
    in_hand = bool(_get(row, "in_hand", "hand_running", default=True))
    dealt = role in ("player", "folded")
    holding = _cards(_get(row, "holding", "holdings", "hand", "hole")) if dealt else []
    if dealt and not holding:
        holding = parse_cards({"omaha": "7c 8d 2s 3h", "holdem_aa": "7c 8d",
                               "seven": "3d 5h 8c Jd Qs 4c 9h",
                               "deuces": "3d 5h 8c Jd Qs"}.get(game, "7c 8d"))
    shown = _cards(row.get("shown"))
    if game == "seven" and not shown and not _get(row, "holding", "holdings", "hand", "hole"):
        shown = holding  # (seven is dealt face up: the default holding is on the table)
    board = _cards(row.get("board"))
    p = parse(text, game)
    leak = automatic = interference = False
    # as the service: the parser's own-hand flag, or (chat) a message that names a card, which
    # is judged against the holding even in a story about a finished hand
    candidate = p.hand_info or (p.kind != "action" and bool(read(text, game).cards))
    if in_hand and holding and candidate and not (
            p.kind == "action" and p.action in SHOW_ACTIONS):
        v = leak_judgement(text, game, holding, shown, board)
        if v is not None:
            leak, automatic = True, v.automatic
    # as the service: advice, or an action-shaped demand from someone who cannot act (「レイズ
    # して」 from a spectator parses as an action; a seated player's goes the action path)
    if in_hand and role != "moderator" and (p.advice or (p.kind == "action" and not dealt)):
        interference = interference_priority(
            text, game, to_act=bool(_get(row, "turn", "to_act", "own_turn", default=False)),
            dealt=bool(holding)) is not None
    return Verdict(leak, automatic, interference)


def score(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    pr = {"hand_talk": scoring.PR(), "interference": scoring.PR()}
    auto_innocent = auto_missed = 0
    notes: list[str] = []
    for row in rows:
        v = judge(row)
        want = labels(row)
        label = "/".join(sorted(want)) or "innocent"
        got = {"hand_talk": v.leak, "interference": v.interference}
        for kind, counts in pr.items():
            note = counts.add(got[kind], kind in want)
            if note == "false":
                notes.append(f"false {kind}: {row['text']!r} ({label})")
            elif note == "missed":
                notes.append(f"missed {kind}: {row['text']!r}")
        if v.automatic and "hand_talk" not in want:
            auto_innocent += 1
            notes.append(f"AUTOMATIC PENALTY on {label}: {row['text']!r}")
        if row.get("auto") and not v.automatic:
            auto_missed += 1
            notes.append(f"not penalised at once: {row['text']!r}")
    out: dict[str, Any] = {"lines": len(rows)}
    for kind, counts in pr.items():
        out[kind] = counts.summary()
    out["automatic_on_innocent"] = auto_innocent
    out["automatic_missed"] = auto_missed
    return out, notes


def _check(row: dict[str, Any]) -> str | None:
    if not isinstance(row.get("text"), str) or not ("label" in row or "labels" in row):
        return "needs text and label (hand_talk/interference/innocent)"
    try:
        judge(row)
    except CardError as e:
        return str(e)
    return None


def load(path: Path) -> list[dict[str, Any]]:
    return scoring.load(path, _check)


#: Games whose hands are dealt face up (seven) or opened to the room (deuces): no hand talk.
OPEN_HANDS = frozenset({"seven", "deuces"})


def blind_rows(folder: Path) -> list[dict[str, Any]]:
    """The blind rounds' chat lines said in the hand, as judgement rows: hand talk from their
    ``hand_info`` label (hidden hands only), interference from their ``advice`` label."""
    rows: list[dict[str, Any]] = []
    for path in sorted(folder.glob("round*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if r["expect"].get("kind") != "chat" or not r.get("in_hand", True):
                continue
            want = ["interference"] if r.get("advice") else []
            if r.get("hand_info") and r["game"] not in OPEN_HANDS:
                want.append("hand_talk")
            rows.append({"text": r["text"], "game": r["game"], "labels": want or ["innocent"],
                         "open": r["game"] in OPEN_HANDS})
    return rows


def _blind_score(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    """Hand talk scored on the hidden hands' lines only, interference on all."""
    hidden, hidden_notes = score([r for r in rows if not r["open"]])
    out, notes = score(rows)
    out["hand_talk"] = hidden["hand_talk"]
    return out, ([n for n in hidden_notes if "hand_talk" in n] +
                 [n for n in notes if "hand_talk" not in n])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", nargs="?", default=str(DEFAULT))
    ap.add_argument("--blind", action="store_true",
                    help="score the blind rounds' in-hand chat lines (tests/corpus/blind)")
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.blind:
        args.corpus = str(DEFAULT.parent / "blind")
        out, notes = _blind_score(blind_rows(Path(args.corpus)))
    else:
        out, notes = score(load(Path(args.corpus)))
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(f"{out['lines']} lines ({args.corpus})")
        for kind in ("hand_talk", "interference"):
            k = out[kind]
            print(f"{kind:13} precision {k['precision']:.1%}  recall {k['recall']:.1%}"
                  f"  (tp {k['tp']}, fp {k['fp']}, fn {k['fn']})")
        print(f"automatic penalties on innocent lines: {out['automatic_on_innocent']}")
        print(f"exact-card leaks not penalised at once: {out['automatic_missed']}")
    if args.verbose:
        for note in notes:
            print("  " + note)


if __name__ == "__main__":
    scoring.run(main)
