"""Many tables in one process: the latency of every chat message and the memory over time.

What a chat bot does with N rooms: one :class:`~referee.service.Referee`, every message handed to
``Referee.process`` as the adapters hand it (a typed :class:`~referee.inputs.Message`), with the
store on (a real SQLite file opened as the bots open it: ``Store(path, check="background")``,
one commit per message) or off. Each table is an omaha table of six players playing
bench/replay.py's generated hands (the table mix, a seed per table: every action legal); the
tables' lines are interleaved round-robin, and before each action line, with probability
``--chat`` (15 %), one of the seated players says a real chat line (the labelled-innocent lines
of tests/corpus/judgement.jsonl that the parser reads as chat), so the leak and interference
checks run as in a real room. Tables are opened and seated first (``# table:`` / ``# seat``
directives, not timed).

Printed per configuration (tables x store on/off), all in one process after the set-up:
- p50 / p99 / p99.9 / max milliseconds of ``Referee.process`` per message (a message's
  reply path: the parse, the engine, the save and the snapshot when one is due), wall and
  CPU of this thread (on a shared machine the wall figures include other jobs' turns);
- garbage collection: count and longest pause (CPU) of each generation (``gc.callbacks``);
- memory at the start and at every tenth of the run: anonymous (what the process allocated and
  holds) and private (that plus file pages no other process maps: not this process's growth,
  see :func:`memory_mb`), Python's allocated blocks and the objects frozen out of the
  collector's walk (``gc.get_freeze_count``: with ``--gc`` every quiet full collection freezes
  its survivors, so a cycle among them would show here as growth);
- what the slowest 0.1 % of messages did (the tail that sets p99.9): chat lines, collections on
  the reply path, rooms pickled, a snapshot begun;
- snapshot: the CPU time and size of ``Referee.snapshot()`` (what the store pickles, every
  SNAPSHOT_SPACING inputs at a hand's end), in all and per table.

``--gc`` tunes the collector the way ``referee.adapters.gc_tuning`` does for the bots (freeze
after set-up, higher thresholds): compare a run with and without it.

    .venv/bin/python bench/scale.py [--tables 1,10,100,1000] [--messages 20000] [--store both]
                                    [--gc] [--chat 0.15] [--seed 1]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import sys
import tempfile
import time
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from replay import NAMES, generate  # noqa: E402

from referee.adapters.transcript import read  # noqa: E402
from referee.directives import DirectiveError  # noqa: E402
from referee.inputs import Directive, Input, Message  # noqa: E402
from referee.parse import parse  # noqa: E402
from referee.service import Referee  # noqa: E402


def memory_mb() -> tuple[float, float]:
    """(private, anonymous) MB of this process (/proc/self/smaps_rollup).

    Private (``Private_Clean + Private_Dirty``) also counts the clean pages of files mapped by
    no other process: the tokenizer's dictionary (unidic-lite's ``sys.dic`` and ``matrix.bin``,
    ~105 MB read-only, mapped by fugashi) and the shared libraries move in and out of it as
    other processes on the machine map the same files and exit -- steps of ~110 MB that are not
    this process's. Anonymous memory (the heap and malloc's and Python's own maps) is what the
    process allocated and holds: the figure that tells whether memory grows."""
    got = dict.fromkeys(("Private_Clean", "Private_Dirty", "Anonymous"), 0)
    with open("/proc/self/smaps_rollup") as f:
        for line in f:
            key = line.split(":", 1)[0]
            if key in got:
                got[key] = int(line.split()[1])
    return (got["Private_Clean"] + got["Private_Dirty"]) / 1024, got["Anonymous"] / 1024


def chat_lines() -> list[str]:
    """Real innocent chat lines that an omaha table reads as chat naming no hand and giving no
    advice (a line naming a card costs its sayer a penalty, which would change the scripted
    hands that follow)."""
    seen: dict[str, None] = {}
    with open(ROOT / "tests" / "corpus" / "judgement.jsonl", encoding="utf-8") as f:
        for raw in f:
            row = json.loads(raw)
            if row.get("label") != "innocent":
                continue
            got = parse(row["text"], "omaha")
            if got.kind == "chat" and not got.hand_info and not got.advice:
                seen[row["text"]] = None
    return list(seen)


def table_inputs(i: int, messages: int, chat: float, lines: list[str], rng: random.Random
                 ) -> tuple[list[Input], list[Input]]:
    """(set-up directives, then the play) of table ``i``: about ``messages`` messages."""
    room = f"!room{i}:bench"
    hands = max(2, int(messages * (1 - chat) / 7) + 2)
    text = generate(hands, seed=1000 + i, mix="table")[0]
    setup: list[Input] = []
    play: list[Input] = []
    n = 0
    for line in read(text, room=room):
        inp = line.given
        if not play and isinstance(inp, Directive) and inp.name in ("table", "seat"):
            setup.append(inp)
            continue
        if isinstance(inp, Message) and rng.random() < chat:
            n += 1
            play.append(Message(f"{room}:chat:{n}", room, rng.choice(NAMES),
                                rng.choice(lines), inp.time))
        play.append(inp)
        if len(play) >= messages and isinstance(inp, Message):
            break
    return setup, play


def interleave(plays: list[list[Input]]) -> Iterator[Input]:
    iters = [iter(p) for p in plays]
    while iters:
        alive = []
        for it in iters:
            nxt = next(it, None)
            if nxt is not None:
                alive.append(it)
                yield nxt
        iters = alive


class Measured(Referee):
    """The service as the adapters run it, timing the two pieces of a snapshot: the head (the
    service-wide state, pickled when a snapshot begins) and each room's part."""

    _NOT_SNAPSHOTTED = Referee._NOT_SNAPSHOTTED | {"part_cpu", "part_bytes", "head_cpu",
                                                    "head_bytes"}

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.part_cpu = array("d")
        self.part_bytes = 0
        self.head_cpu: list[float] = []
        self.head_bytes: list[int] = []
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def _part(self, room: str) -> bytes:
        t = time.thread_time()
        part = super()._part(room)
        self.part_cpu.append(time.thread_time() - t)
        self.part_bytes += len(part)
        return part

    def _head(self) -> bytes:
        t = time.thread_time()
        head = super()._head()
        self.head_cpu.append(time.thread_time() - t)
        self.head_bytes.append(len(head))
        return head


class GcTimer:
    """Every collection's pause, by generation, while installed: CPU seconds of this thread
    (a shared machine's preemption is not the collector's); those made at a quiet moment
    between inputs (``referee.adapters.gc_tuning.quiet``) apart from those on a reply path."""

    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.quiet: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.between = False  # set by the bench around gc_tuning.quiet()
        self._t = 0.0
        self.total = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._t = time.thread_time()
        else:
            spent = time.thread_time() - self._t
            (self.quiet if self.between else self.pauses)[info["generation"]].append(spent)
            self.total += spent


def crash_restart(store: object, tmp: str) -> tuple[int, float]:
    """A restart after a crash now: the database copied as it stands (no closing snapshot),
    then what a bot does at start (``resume``: the newest snapshot, the inputs after it
    re-run). (inputs re-run, CPU seconds)."""
    import sqlite3

    from referee.adapters import resume
    from referee.store import Store

    copy = Path(tmp) / "crashed.db"
    dst = sqlite3.connect(copy)
    store.conn.backup(dst)  # type: ignore[attr-defined]
    dst.close()
    t = time.process_time()
    with Store(copy, check="off") as s:
        snap = s.conn.execute("SELECT seq FROM snapshots WHERE id = 1").fetchone()
        last = s.conn.execute("SELECT max(seq) FROM inputs").fetchone()[0]
        resume(Referee(), s)
    return last - (snap[0] if snap else 0), time.process_time() - t


def pct(sorted_ms: Sequence[float], q: float) -> float:
    return sorted_ms[min(len(sorted_ms) - 1, int(q * len(sorted_ms)))]


def run(tables: int, messages: int, store: bool, tune_gc: bool, chat: float, seed: int,
        lines: list[str], thresholds: tuple[int, ...] = (), quiet_every: int = 0) -> None:
    rng = random.Random(seed)
    per = max(messages // tables, 20)
    built = [table_inputs(i, per, chat, lines, rng) for i in range(tables)]
    with tempfile.TemporaryDirectory() as tmp:
        persistence = None
        if store:
            from referee.store import Store

            persistence = Store(Path(tmp) / "referee.db", check="background")
            persistence.verify()
        ref = Measured(persistence=persistence)
        for setup, _ in built:
            for inp in setup:
                ref.process(inp)
        plays = [p for _, p in built]
        del built
        # CPython keeps a non-ASCII string's UTF-8 form on the string once something asks for
        # it (the store's JSON of each input does): one block a prepared input's text, made
        # here instead of during the run, so the memory figures are the service's alone (the
        # ~1 block a message the long runs showed before this).
        from pydantic_core import to_json

        for p in plays:
            to_json([getattr(inp, "text", "") for inp in p])
        default_thresholds = gc.get_threshold()
        from referee.adapters import gc_tuning

        if tune_gc:
            gc_tuning.tune()
            if thresholds:
                gc.set_threshold(*thresholds)
            gc_tuning.QUIET_EVERY = quiet_every or sys.maxsize
        else:
            gc.collect()
        timer = GcTimer()
        stats0 = gc.get_stats()
        gc.callbacks.append(timer)
        total = sum(len(p) for p in plays)
        every = max(total // 10, 1)
        mem = [memory_mb()]
        blocks = [sys.getallocatedblocks()]
        frozen_at = [gc.get_freeze_count()]
        complete0 = getattr(gc_tuning, "complete", 0)  # (another tree's, --code-less runs)
        # the bench's own arrays are made whole before the run: its memory figures are the
        # service's (and the prepared inputs', which do not change)
        lat = array("d", bytes(8 * total))
        lat_cpu = array("d", bytes(8 * total))
        what = bytearray(total)  # per message: 1 chat, 2 collected, 4 rooms pickled, 8 begun
        timed = 0
        done = 0
        wall0 = time.perf_counter()
        cpu0 = time.process_time()
        refused = 0
        slowest: list[tuple[float, float, int, int, float, str]] = []
        del ref.part_cpu[:]
        ref.head_cpu.clear()
        ref.head_bytes.clear()
        ref.part_bytes = 0
        for inp in interleave(plays):
            parts, heads, paused = len(ref.part_cpu), len(ref.head_cpu), timer.total
            t, c = time.perf_counter(), time.thread_time()
            try:
                ref.process(inp)
            except DirectiveError:  # a scripted deal after a hand went otherwise (counted)
                refused += 1
            spent, used = time.perf_counter() - t, time.thread_time() - c
            if tune_gc:  # the adapters: an input answered, then (nothing waits) a quiet moment
                gc_tuning.answered()
                timer.between = True
                gc_tuning.quiet()
                timer.between = False
            if isinstance(inp, Message):
                lat[timed] = spent * 1000
                lat_cpu[timed] = used * 1000
                what[timed] = ((":chat:" in inp.id) | 2 * (timer.total > paused)
                               | 4 * (len(ref.part_cpu) > parts) | 8 * (len(ref.head_cpu) > heads))
                timed += 1
                if len(slowest) < 5 or used * 1000 > slowest[-1][0]:
                    slowest.append((used * 1000, spent * 1000, len(ref.part_cpu) - parts,
                                    len(ref.head_cpu) - heads, (timer.total - paused) * 1000,
                                    "chat" if ":chat:" in inp.id else "action"))
                    slowest.sort(reverse=True)
                    del slowest[5:]
            done += 1
            if done % every == 0:
                mem.append(memory_mb())
                blocks.append(sys.getallocatedblocks())
                frozen_at.append(gc.get_freeze_count())
        wall = time.perf_counter() - wall0
        cpu = time.process_time() - cpu0
        gc.callbacks.remove(timer)
        found = [b["collected"] - a["collected"] for a, b in zip(stats0, gc.get_stats(),
                                                                 strict=True)]
        walked = len(gc.get_objects())  # what a full collection walks now (frozen excluded)
        frozen = gc.get_freeze_count()
        complete = getattr(gc_tuning, "complete", 0) - complete0
        t = time.thread_time()
        _, state = ref.snapshot()
        snap = time.thread_time() - t
        restart = None
        if persistence is not None:
            restart = crash_restart(persistence, tmp)
            persistence.close()
        used_thresholds = gc.get_threshold()
        if tune_gc:
            gc.unfreeze()
            gc.set_threshold(*default_thresholds)
    tail = sorted(range(timed), key=lat_cpu.__getitem__)[timed - max(timed // 1000, 1):]
    ms = array("d", sorted(lat[:timed]))
    cms = array("d", sorted(lat_cpu[:timed]))
    hands = sum(t.engine.hand_no for t in ref.tables.values())
    print(f"\n{tables:,} tables, store {'on (SQLite file)' if store else 'off'}, "
          f"gc {'tuned' if tune_gc else 'default'} {used_thresholds}: {len(ms):,} messages "
          f"({hands:,} hands), {len(ms) / cpu:,.0f} msg per CPU s, wall {wall:.1f} s"
          + (f"; {refused} directives refused" if refused else "")
          + f"; load average {os.getloadavg()[0]:.1f}")
    for name, xs in (("wall", ms), ("CPU", cms)):
        print(f"  per message {name} ms: p50 {pct(xs, 0.5):.2f}  p99 {pct(xs, 0.99):.2f}  "
              f"p99.9 {pct(xs, 0.999):.2f}  max {xs[-1]:.1f}")
    print("  gc pauses on reply paths (CPU): " + ";  ".join(
        f"gen{g} {len(p):,}x, max {max(p, default=0) * 1000:.1f} ms"
        for g, p in timer.pauses.items()))
    if any(timer.quiet.values()):
        print(f"  gc at quiet moments, every {quiet_every} inputs (CPU): " + ";  ".join(
            f"gen{g} {len(p):,}x, max {max(p, default=0) * 1000:.1f} ms"
            for g, p in timer.quiet.items()))
    print(f"  objects a full collection walks at the end: {walked:,} ({frozen:,} frozen); "
          "garbage found by generation: " + " / ".join(f"{n:,}" for n in found)
          + f"; complete collections (everything unfrozen and walked): {complete}")
    print("  memory at the start and each tenth, MB (module doc of memory_mb):")
    print("    anonymous: " + " ".join(f"{a:.0f}" for _, a in mem))
    print("    private:   " + " ".join(f"{p:.0f}" for p, _ in mem))
    print("    Python blocks, thousands: " + " ".join(f"{b / 1000:.0f}" for b in blocks))
    print("    frozen objects, thousands: " + " ".join(f"{b / 1000:.0f}" for b in frozen_at))
    parts = sorted(ref.part_cpu)
    if ref.head_cpu:
        print(f"  snapshots taken during the run: {len(ref.head_cpu)}; head (service-wide) "
              f"max {max(ref.head_cpu) * 1000:.2f} ms CPU, {max(ref.head_bytes) / 1e3:.1f} KB; "
              f"rooms pickled {len(parts):,} ({len(parts) / len(ref.head_cpu):,.0f} a snapshot),"
              f" per room p50 {pct(parts, 0.5) * 1000:.3f} / p99 {pct(parts, 0.99) * 1000:.3f} /"
              f" max {parts[-1] * 1000:.2f} ms CPU, {ref.part_bytes / len(parts) / 1e3:.1f} KB")
    print(f"  the slowest 0.1 % by CPU ({len(tail)} messages, from "
          f"{lat_cpu[tail[0]]:.1f} ms): " + ", ".join(
              f"{sum(1 for i in tail if what[i] & bit)} {name}" for bit, name in
              ((1, "chat"), (2, "collected"), (4, "pickled rooms"), (8, "began a snapshot")))
          + f"; {sum(1 for i in tail if not what[i] & 3)} actions without a collection")
    print("  slowest messages (CPU ms, wall ms, rooms pickled, snapshot begun, gc CPU ms, kind):"
          + ";".join(f" {a:.1f} {b:.1f} {p} {h} {g:.1f} {k}" for a, b, p, h, g, k in slowest))
    if restart is not None:
        print(f"  a crash now: the restart re-runs {restart[0]:,} inputs after the newest "
              f"snapshot; resume {restart[1]:.2f} s CPU (snapshot read, re-run, a fresh "
              "snapshot when it re-ran more than RESNAPSHOT_AFTER)")
    print(f"  whole snapshot at the end (a start-up's after a full re-run): {snap * 1000:.1f} ms "
          f"CPU, {len(state) / 1e6:.2f} MB; per table {snap * 1000 / tables:.2f} ms, "
          f"{len(state) / tables / 1e3:.1f} KB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", default="1,10,100,1000")
    ap.add_argument("--messages", type=int, default=20_000, help="messages per configuration")
    ap.add_argument("--store", choices=("on", "off", "both"), default="both")
    ap.add_argument("--gc", action="store_true", help="tune the collector as the bots do")
    ap.add_argument("--thresholds", default="", metavar="A,B,C",
                    help="with --gc: these collector thresholds instead of the bots' own")
    ap.add_argument("--quiet", type=int, default=None, metavar="N",
                    help="with --gc: collect at a quiet moment every N inputs (0: never; "
                         "default: the bots' referee.adapters.gc_tuning.QUIET_EVERY)")
    ap.add_argument("--chat", type=float, default=0.15)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    lines = chat_lines()
    from referee.adapters import gc_tuning

    quiet = gc_tuning.QUIET_EVERY if args.quiet is None else args.quiet
    stores = {"on": [True], "off": [False], "both": [False, True]}[args.store]
    for n in (int(x) for x in args.tables.split(",")):
        for store in stores:
            run(n, args.messages, store, args.gc, args.chat, args.seed, lines,
                tuple(int(x) for x in args.thresholds.split(",") if x), quiet)


if __name__ == "__main__":
    main()
