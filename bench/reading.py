"""Score the parser on a blind round: labelled lines written by people who never saw the grammar.

    .venv/bin/python bench/reading.py ROUND.jsonl [--misses] [--json]

Each line is a JSON object: ``game``, ``text``, ``expect`` (``{"kind": "chat"}`` or
``{"kind": "action", "action": ..., value fields}`` as CONTRACTS §2), and the judgement labels
``hand_info`` / ``advice`` (booleans: the speaker's own hidden hand; advice on another player's
decision) with ``in_hand`` (the speaker is dealt into the current hand; default true). Optional:
``situation`` and ``crowd`` (who wrote it), shown with the misses.

Printed, per game and overall:

- **actions exact**: lines labelled as an action that parse as that action with exactly the
  labelled value fields (``amount`` ``to`` ``pot`` ``aa`` ``cards`` ``hand`` ``keep``
  ``discard``; card lists compared as sets);
- **chat → action**: lines labelled chat that parse as an action (the target is 0: a chat line
  read as an action is a move nobody made);
- **hand_info** precision / recall over the chat lines said in the hand of a game whose hands
  are hidden (omaha, holdem_aa: ``OPEN_HANDS`` below), and **advice**
  precision / recall over the chat lines, from the parser's ``hand_info`` / ``advice`` flags.

The issue's rule for the first reading: score a round with this script *before* changing anything
for it, record the row it prints (``--row``) in ``docs/parser.md``, and only then look at
``--misses``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import scoring  # noqa: E402

from referee.parse import parse  # noqa: E402

#: Games whose hands the whole room sees when players talk: seven is dealt face up, and a
#: deuces hand is opened from the button seat for the duplicates before anyone plays it. Their
#: lines are not scored for hand talk (there is no hidden hand to reveal).
OPEN_HANDS = frozenset({"seven", "deuces"})


def _check(row: dict[str, Any]) -> str | None:
    if not isinstance(row.get("text"), str) or not isinstance(row.get("expect"), dict) or \
            "kind" not in row["expect"]:
        return "needs text and expect"
    return None


def load(path: Path) -> list[dict[str, Any]]:
    return scoring.load(path, _check)


def score(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    actions: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # game -> [exact, total]
    chat: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # game -> [as action, total]
    hand, advice = scoring.PR(), scoring.PR()
    misses: list[str] = []
    for row in rows:
        game, text, want = str(row.get("game", "omaha")), row["text"], row["expect"]
        got = parse(text, game).to_json()
        where = f"[{game}] {text!r}"
        if row.get("situation"):
            where += f"  ({row['situation']})"
        if want.get("kind") == "action":
            a = actions[game]
            a[1] += 1
            if scoring.exact(got, want):
                a[0] += 1
            else:
                shown = {k: v for k, v in got.items() if k not in ("hand_info", "advice")}
                misses.append(f"action {where}\n      want {want}\n      got  {shown}")
            continue
        c = chat[game]
        c[1] += 1
        if got.get("kind") == "action":
            c[0] += 1
            misses.append(f"CHAT->ACTION {where}: {got}")
            continue
        if bool(row.get("in_hand", True)) and game not in OPEN_HANDS:
            note = hand.add(bool(got.get("hand_info")), bool(row.get("hand_info")))
            if note:
                misses.append(f"{note} hand_info {where}")
        note = advice.add(bool(got.get("advice")), bool(row.get("advice")))
        if note:
            misses.append(f"{note} advice {where}")
    games = sorted(set(actions) | set(chat))
    out: dict[str, Any] = {
        "lines": len(rows),
        "actions": sum(a[1] for a in actions.values()),
        "exact": sum(a[0] for a in actions.values()),
        "chat": sum(c[1] for c in chat.values()),
        "chat_to_action": sum(c[0] for c in chat.values()),
        "hand_info": hand.summary(),
        "advice": advice.summary(),
        "games": {g: {"exact": actions[g][0], "actions": actions[g][1],
                      "chat_to_action": chat[g][0], "chat": chat[g][1]} for g in games},
    }
    return out, misses


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--misses", action="store_true", help="list every miss (after recording)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--row", metavar="ROUND,CROWD", help="print the docs/parser.md table row")
    args = ap.parse_args()
    rows = load(Path(args.corpus))
    out, misses = score(rows)
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(f"{out['lines']} lines ({args.corpus})")
        for g, s in out["games"].items():
            print(f"  {g:10} actions {scoring.pct(s['exact'], s['actions']):>6} ({s['exact']}/"
                  f"{s['actions']})  chat->action {s['chat_to_action']}/{s['chat']}")
        print(f"actions exact {scoring.pct(out['exact'], out['actions'])} ({out['exact']}/"
              f"{out['actions']}), chat->action {out['chat_to_action']}/{out['chat']}")
        for k in ("hand_info", "advice"):
            s = out[k]
            print(f"{k:9} precision {s['precision']:.1%} recall {s['recall']:.1%} "
                  f"(tp {s['tp']}, fp {s['fp']}, fn {s['fn']})")
    if args.row:
        rnd, _, crowd = args.row.partition(",")
        h, a = out["hand_info"], out["advice"]
        print(f"| {rnd} | {crowd} | {out['lines']} | {scoring.pct(out['exact'], out['actions'])} "
              f"({out['exact']}/{out['actions']}) | {out['chat_to_action']} | "
              f"{h['precision']:.0%} / {h['recall']:.0%} | {a['precision']:.0%} / "
              f"{a['recall']:.0%} |")
    if args.misses:
        for m in misses:
            print("  " + m)


if __name__ == "__main__":
    scoring.run(main)
