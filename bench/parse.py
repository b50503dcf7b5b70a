"""Messages per second of ``referee parse --game GAME -`` (stdin, JSON Lines) against a plain
regular-expression parser, on the SAME seeded mix of messages in the SAME run.

Both run as subprocesses reading the messages on stdin and writing one JSON object per line, so
both pay the same process start, decoding and JSON output; the referee goes through the real CLI
(``python -m referee.cli parse``). The baseline is the parser one would write first: a dozen
``re.fullmatch`` patterns over NFKC-lowered text, no grammar, no lexicon, no chat flags.

The mix imitates a table's chat: short actions (many repeat, as they do at a real table), actions
with random amounts and cards, chat, chat that starts like an action, hand talk, advice, commands,
and a few 10,000-character pastes. Also printed: process start-up, the cold rate (parse cache
cleared before every message, in-process) and the time of 10,000-character messages. Rates are
given per wall second and per CPU second of the child (rusage): on a shared machine only the
latter is stable.

Run: ``.venv/bin/python bench/parse.py [--messages 100000] [--game omaha]``.
Target: >= 20,000 messages/s through the CLI (per CPU second, start-up included); a
10,000-character message under 5 ms.

``--corpus``: the real lines instead of the mix. Every distinct text of the project's corpora
(tests/corpus/*.jsonl and tests/corpus/blind/*.jsonl, each read with the game of its first row)
is parsed in-process once (new to the parser's message caches, as a real distinct line is;
the caches of words and grammars stay warm, as in a running bot), against **fugashi alone**
tokenising the same lines (NFKC, then MeCab with unidic-lite: each word's surface, part of
speech and lemma): the cost of the analysis the reader is built on. Printed: messages per CPU
second of each and their ratio, and p50 / p99 of each by length bucket (characters).
Target: >= 0.5x fugashi alone; p99 < 5 ms up to 200 characters. ``--profile FILE`` also writes
a cProfile of the referee's pass.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import subprocess
import sys
import time
import unicodedata

TARGET_RATE = 20_000
TARGET_LONG_MS = 5.0

_SHORT = [
    "こ",
    "C",
    "c",
    "コール",
    "call",
    "ｺｰﾙ",
    "こーる",
    "コールで",
    "チェック",
    "ち",
    "check",
    "x",
    "F",
    "f",
    "ふぉ",
    "フォールド",
    "fold",
    "降り",
    "降ります",
    "オールイン",
    "AI",
    "all in",
    "ポット",
    "ポットベット",
    "ポットレイズ",
    "マック",
    "オープン",
    "クローズ",
    "レイズ",
    "R",
    "メイク",
]
_AMOUNT = [
    "メイク{}",
    "make {}",
    "レイズ {}",
    "R{}",
    "{}にレイズ",
    "ベット{}",
    "B{}",
    "bet {}",
    "{}ベット",
    "メイク{}で",
]
_CHAT = [
    "こんにちは",
    "こんばんは",
    "よろしくお願いします",
    "gg",
    "ｇｇ",
    "ナイスハンド！",
    "ｗｗｗ",
    "草",
    "トイレ行ってきます",
    "今日は寒いね",
    "ちょっと待って",
    "おつかれさまです",
    "ありがとう",
    "いまの凄かった",
    "そろそろ寝ます",
    "また明日",
    "了解です",
    "はい",
    "うーん",
    "まじか",
    "次のハンドから参加します",
    "回線落ちてた",
    "ディーラーさんお願いします",
    "ナイスフォールド",
]
_NEAR = [
    "コールする？",
    "ちぇっ",
    "降りたい",
    "こっち",
    "Fランク",
    "call me",
    "ポットいくら？",
    "オールインかな",
    "レイズしてもいいよ",
    "ここ",
    "コーラ飲みたい",
]
_HAND = [
    "AA持ってるから降りない",
    "フラッシュドロー引いてる",
    "ナッツだわ",
    "スペード2枚あるんだよね",
    "Kが来た",
    "セットできた",
    "降りたのはQQでした",
    "AKsだったのに",
    "ツーペアです",
]
_ADVICE = [
    "なんでそこでコールするの",
    "今のはレイズすべきでしょ",
    "降りたほうがいいよ",
    "それはミスだよ、訂正したら？",
    "チェックしとけ",
    "悪手だね",
]
_COMMANDS = ["!bank", "!sit 3", "!leave", "!help", "！着席", "!penalties @alice", "!deal"]
_RANKS, _SUITS = "23456789TJQKA", "cdhs"


def _card(rng: random.Random) -> str:
    return rng.choice(_RANKS) + rng.choice(_SUITS)


def _amount(rng: random.Random) -> str:
    n = rng.randrange(1, 400) * 50
    form = rng.random()
    if form < 0.6:
        return str(n)
    if form < 0.75:
        return f"{n:,}"
    if form < 0.85:
        return "".join(chr(ord(c) + 0xFEE0) for c in str(n))  # full-width digits
    return f"{n / 1000:g}k"


def messages(n: int, seed: int = 7) -> list[str]:
    """``n`` chat lines of an omaha table, seeded."""
    rng = random.Random(seed)
    out: list[str] = []
    for i in range(n):
        r = rng.random()
        if i % 20_000 == 19_999:
            out.append("".join(rng.choice("あいうえおかきくけこ、。AKQ ") for _ in range(10_000)))
        elif r < 0.35:
            out.append(rng.choice(_SHORT))
        elif r < 0.50:
            out.append(rng.choice(_AMOUNT).format(_amount(rng)))
        elif r < 0.55:
            cards = " ".join(_card(rng) for _ in range(rng.randrange(1, 5)))
            out.append(
                rng.choice(
                    ["F {}", "オープン {}", "マック {}", "フォールド {}だけ見せます"]
                ).format(cards)
            )
        elif r < 0.80:
            out.append(
                rng.choice(_CHAT) + rng.choice(["", "", "！", "ｗ", "〜", f" {rng.randrange(99)}"])
            )
        elif r < 0.88:
            out.append(rng.choice(_NEAR))
        elif r < 0.94:
            out.append(rng.choice(_HAND))
        elif r < 0.98:
            out.append(rng.choice(_ADVICE))
        else:
            out.append(rng.choice(_COMMANDS))
    return out


# --- the baseline: a plain regular-expression parser (run as a worker subprocess) --------------

_BASELINE = [
    (re.compile(p), a)
    for p, a in [
        (r"(?:c|call|こ|コール|こーる)", "call"),
        (r"(?:x|ch|check|ち|チェック)", "check"),
        (r"(?:f|fold|ふぉ|フォールド|降り(?:ます)?)", "fold"),
        (r"(?:r|raise|make|レイズ|メイク)\s*([\d,]+)?", "raise"),
        (r"(?:b|bet|ベット)\s*([\d,]+)?", "bet"),
        (r"(?:ai|all ?in|オールイン)", "allin"),
        (r"(?:pot|ポット)", "raise"),
        (r"(?:muck|マック)", "muck"),
        (r"(?:open|オープン)", "open"),
        (r"(?:close|クローズ)", "close"),
    ]
]


def _baseline_worker() -> None:
    out = sys.stdout
    for line in sys.stdin:
        text = unicodedata.normalize("NFKC", line.rstrip("\r\n")).lower().strip()
        obj: dict[str, object] = {"kind": "chat"}
        if text.startswith("!"):
            obj = {"kind": "command", "command": text[1:].split(" ")[0]}
        else:
            for pattern, action in _BASELINE:
                m = pattern.fullmatch(text)
                if m:
                    obj = {"kind": "action", "action": action}
                    if m.groups() and m.group(1):
                        obj["amount"] = int(m.group(1).replace(",", ""))
                    break
        out.write(json.dumps(obj, ensure_ascii=False) + "\n")


# --- measurement ---------------------------------------------------------------------------------


def _run(cmd: list[str], data: str) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) of the child, and lines written."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run(
        cmd, input=data, capture_output=True, text=True, encoding="utf-8", check=True
    )
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, done.stdout.count("\n")


BUCKETS = (10, 30, 60, 100, 150, 200, 300, 10**9)


def corpus_lines() -> list[tuple[str, str]]:
    """(text, game) of every distinct text of the corpora, in file order."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "tests" / "corpus"
    seen: dict[str, str] = {}
    for path in [*sorted(root.glob("*.jsonl")), *sorted((root / "blind").glob("*.jsonl"))]:
        for raw in path.read_text(encoding="utf-8").splitlines():
            if raw.strip():
                row = json.loads(raw)
                seen.setdefault(row["text"], row.get("game", "omaha"))
    return list(seen.items())


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def corpus(profile: str | None) -> None:
    """The ``--corpus`` run (module doc)."""
    import fugashi

    from referee.parse import clear_caches, parse

    lines = corpus_lines()
    tagger = fugashi.Tagger()
    for text in messages(400):  # both warmed on the bench's mix: grammars, dictionaries
        for game in ("omaha", "holdem_aa", "seven", "deuces"):
            parse(text, game)
        tagger(unicodedata.normalize("NFKC", text))
    clear_caches()  # no corpus line is in the message caches

    def fugashi_alone(text: str) -> object:
        return [(w.surface, w.feature.pos1, w.feature.lemma)
                for w in tagger(unicodedata.normalize("NFKC", text))]

    ours: list[float] = []
    theirs: list[float] = []
    clock = time.process_time
    for text, game in lines:
        t = clock()
        parse(text, game)
        ours.append(clock() - t)
        t = clock()
        fugashi_alone(text)
        theirs.append(clock() - t)
    n = len(lines)
    print(f"{n:,} distinct real lines of tests/corpus, each parsed once with its own game")
    print(f"  referee parse (in-process)   {n / sum(ours):>9,.0f} msg/s cpu")
    print(f"  fugashi alone (NFKC + MeCab) {n / sum(theirs):>9,.0f} msg/s cpu")
    print(f"  referee / fugashi alone      {sum(theirs) / sum(ours):9.3f}x  (target >= 0.5x)")
    print("  by length (characters): lines, referee p50 / p99 ms, fugashi p50 / p99 ms")
    lo = 0
    for hi in BUCKETS:
        idx = [i for i, (text, _) in enumerate(lines) if lo < len(text) <= hi]
        if idx:
            a, b = [ours[i] * 1000 for i in idx], [theirs[i] * 1000 for i in idx]
            name = f"{lo + 1}-{hi}" if hi < 10**9 else f"> {lo}"
            print(f"    {name:>9}: {len(idx):>6,}   {_pct(a, 0.5):6.2f} / {_pct(a, 0.99):6.2f}"
                  f"   {_pct(b, 0.5):6.3f} / {_pct(b, 0.99):6.3f}")
        lo = hi
    if profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
        clear_caches()
        for text, game in lines:
            parse(text, game)
        prof.disable()
        prof.dump_stats(profile)
        print(f"  cProfile of the referee's pass: {profile}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", action="store_true", help="the corpora's real lines (doc)")
    ap.add_argument("--profile", default=None, metavar="FILE", help="with --corpus: cProfile")
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--game", default="omaha")
    ap.add_argument("--baseline-worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.baseline_worker:
        _baseline_worker()
        return
    if args.corpus:
        corpus(args.profile)
        return

    msgs = messages(args.messages)
    data = "\n".join(msgs) + "\n"
    referee = [sys.executable, "-m", "referee.cli", "parse", "--game", args.game, "-"]
    baseline = [sys.executable, __file__, "--baseline-worker"]

    _, start_ref, _ = _run(referee, "こ\n")
    _, start_base, _ = _run(baseline, "こ\n")
    wall_ref, cpu_ref, n_ref = _run(referee, data)
    wall_base, cpu_base, n_base = _run(baseline, data)
    assert n_ref == n_base == len(msgs), (n_ref, n_base, len(msgs))
    n = len(msgs)

    from referee.parse import _parse_cached, clear_caches, parse

    sample = msgs[: min(len(msgs), 20_000)]
    t = time.process_time()
    for m in sample:
        _parse_cached.cache_clear()
        parse(m, args.game)
    cold = len(sample) / (time.process_time() - t)
    sample = sample[:5_000]
    t = time.process_time()
    for m in sample:
        clear_caches()
        parse(m, args.game)
    colder = len(sample) / (time.process_time() - t)
    longs = [
        "あ" * 10_000,
        "コールで" * 2_500,
        "A♠" * 5_000,
        msgs[19_999] if len(msgs) > 19_999 else "x" * 10_000,
    ]
    long_ms = []
    for m in longs:
        best = float("inf")
        for _ in range(5):
            clear_caches()
            t = time.process_time()
            parse(m, args.game)
            best = min(best, time.process_time() - t)
        long_ms.append(best * 1000)

    print(f"{n:,} mixed messages ({len(set(msgs)):,} distinct), game {args.game}, stdin mode")
    print("  (wall: elapsed; cpu: the child's user+system time -- on a shared machine the CPU")
    print("   rate is the one that measures the code, the wall rate measures the neighbours too)")
    for name, wall, cpu, start in (
        ("referee parse (CLI)", wall_ref, cpu_ref, start_ref),
        ("regex baseline", wall_base, cpu_base, start_base),
    ):
        print(
            f"  {name:<20} wall {n / wall:>9,.0f} msg/s   cpu {n / cpu:>9,.0f} msg/s"
            f"   (start-up {start:.2f} s cpu)"
        )
    ratio_wall, ratio_cpu = wall_base / wall_ref, cpu_base / cpu_ref
    print(f"  referee / baseline   wall {ratio_wall:9.2f}x        cpu {ratio_cpu:9.2f}x")
    print(f"  referee, start-up excluded: {n / (cpu_ref - start_ref):,.0f} msg/s cpu")
    print(f"  in-process, raw-text cache cleared per message: {cold:,.0f} msg/s cpu")
    print(f"  in-process, every cache cleared per message:    {colder:,.0f} msg/s cpu")
    longs_ms = ", ".join(f"{ms:.2f}" for ms in long_ms)
    print(f"  10,000-character messages: {longs_ms} ms cpu, best of 5")
    ok = n / cpu_ref >= TARGET_RATE and max(long_ms) < TARGET_LONG_MS
    verdict = "met" if ok else "NOT met"
    print(f"  target >= {TARGET_RATE:,} msg/s (cpu) and < {TARGET_LONG_MS} ms: {verdict}")


if __name__ == "__main__":
    main()
