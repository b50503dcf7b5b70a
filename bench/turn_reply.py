"""What the player the table waits for gets back: every labelled action line of the corpora,
typed as that player in a real table of its game.

    .venv/bin/python bench/turn_reply.py [--silent] [--game GAME]

For each line labelled an action (``expect.kind == "action"``) in ``tests/corpus/*.jsonl`` and
``tests/corpus/blind/*.jsonl``, a table of the line's game is set up the way ``referee replay``
sets it up from a transcript -- seats, a fixed deal, and the inputs that bring it to the
decision the labelled action answers (omaha: alice first to act before the flop; holdem_aa,
seven, deuces: alice's stake, or after both stakes her decision) -- and the line is typed by
alice. What came back is counted:

- **acted**: an ``action`` event of alice;
- **answered**: no action, but something said to the table or alice (a refusal with its
  reason, the near-miss answer, a question);
- **silent**: nothing at all -- the player believes they acted, and the clock folds them.

Silent lines are split by the action vocabulary they hold: a near-miss word (the rows of
``grammar/words/`` used for "nearmiss": the service answers the awaited player's chat that holds
one), another action word of the clause reader (a row used for "clauses", the stem of an action
verb, a short form standing alone: 全ツッパ, 上げちゃる, 替えて), or none. The first two are the
lines the referee must never leave unanswered. ``--silent`` lists them.

The service is used in-process (referee.service.Referee, referee.adapters.transcript); each
line starts from a snapshot of its stage's table, so lines do not affect each other.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.adapters.transcript import read, run  # noqa: E402
from referee.lang.clauses import mentions  # noqa: E402
from referee.lang.nearmiss import mentions_action  # noqa: E402
from referee.lang.normalize import fold_nfkc  # noqa: E402
from referee.service import Referee  # noqa: E402

HEADS = {
    "omaha": """# table: omaha level=3
# moderator: dealer
# seat 1: alice 20000
# seat 2: bob 20000
# seat 3: carol 20000
# button: 1
# deal: alice=Ah Kh Qd Jd | bob=2c 3c 4d 5d | carol=9h 9d 8s 7s | board=Ts 9s 8c 2h 3h
""",
    "holdem_aa": """# table: holdem_aa ante=100
# seat 1: alice 1000
# seat 2: bob 1000
# deal: alice=As Kd | bob=Qh Qs | dealer=3h 3s | board=Ah 8c 7c 6d 2h
""",
    "seven": """# table: seven ante=100
# seat 1: alice 10000
# seat 2: bob 10000
# button: 2
# deal: alice=6c 6d 6h 4c 4d 2s 9h | bob=Qc Qd Qh Qs Jc Jd Jh | dealer=Kc Kd 2h 4s 6c 8d Th | dice=6
""",
    "deuces": """# table: deuces ante=100
# seat 1: alice 10000
# seat 2: bob 10000
# bonus: 3c 7d 9h Ks
# deal: alice=Ac Ad Ah 7s 9d | bob=3d 4h 5s 6c 7d | dealer=3c 4d 5h 6s 7c
""",
}
#: The inputs after the head that bring the table to the decision an action answers.
STAKES = ["alice: アンティ100", "bob: アンティ100"]
STAGE_ACTIONS = {"ante", "allin"}  # the house games' stake (or the all-in posted as one)


def stage(game: str, action: str) -> list[str]:
    if game == "omaha" or action in STAGE_ACTIONS:
        return []
    return STAKES


def transcript(game: str, before: list[str], last: str | None = None) -> str:
    lines = [*before, *([f"alice: {last}"] if last is not None else [])]
    return HEADS[game] + "".join(f"[21:00:{i:02d}] {x}\n" for i, x in enumerate(lines, 1))


_SNAPSHOTS: dict[tuple[str, tuple[str, ...]], tuple[str, bytes]] = {}


def table_at(game: str, before: list[str]) -> Referee:
    key = (game, tuple(before))
    if key not in _SNAPSHOTS:
        ref = Referee()
        for _ in run(read(transcript(game, before)), ref):
            pass
        _SNAPSHOTS[key] = ref.snapshot()
    ref = Referee()
    ref.restore(*_SNAPSHOTS[key])
    return ref


def reply(game: str, action: str, text: str) -> str:
    """acted, answered or silent: what alice got back for ``text``."""
    before = stage(game, action)
    ref = table_at(game, before)
    line = read(transcript(game, before, text))[-1]
    outcome = ref.process(line.given)
    got = [e.to_json() for e in outcome.events] if outcome is not None else []
    if any(e["event"] == "action" and e.get("player") == "alice" for e in got):
        return "acted"
    if any(e["event"] in ("say", "rejected") for e in got):
        return "answered"
    return "silent"


def rows(game: str | None) -> list[dict[str, Any]]:
    files = sorted((ROOT / "tests" / "corpus").glob("*.jsonl")) + sorted(
        (ROOT / "tests" / "corpus" / "blind").glob("*.jsonl"))
    out = []
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            want = row.get("expect") or {}
            g = str(row.get("game", "omaha"))
            if want.get("kind") == "action" and (game is None or g == game) and \
                    "\n" not in row["text"]:
                out.append({"game": g, "action": str(want.get("action")),
                            "text": row["text"], "file": f.name})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--silent", action="store_true", help="list the silent lines")
    ap.add_argument("--game", default=None)
    args = ap.parse_args()
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    silent: list[str] = []
    for row in rows(args.game):
        got = reply(row["game"], row["action"], row["text"])
        if got == "silent":
            folded = fold_nfkc(row["text"])
            got = "silent (near-miss word)" if mentions_action(folded) else \
                "silent (clause word)" if mentions(folded) else "silent (none)"
            silent.append(f"  {got}: [{row['game']}] {row['text']!r}  ({row['file']})")
        counts[row["game"]][got] += 1
        counts["all"][got] += 1
    kinds = ["acted", "answered", "silent (near-miss word)", "silent (clause word)",
             "silent (none)"]
    print(f"{'game':<10} {'lines':>6} " + " ".join(f"{k:>24}" for k in kinds))
    for game, c in sorted(counts.items(), key=lambda kv: kv[0] == "all"):
        total = sum(c.values())
        print(f"{game:<10} {total:>6} " + " ".join(
            f"{c[k]:>16} ({100 * c[k] / total:4.1f}%)" for k in kinds))
    if args.silent:
        print("\n".join(silent))


if __name__ == "__main__":
    main()
