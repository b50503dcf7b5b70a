"""Random table talk through the whole pipeline: whatever players, spectators and moderators type,
the referee never crashes, the bank stays the sum of its ledger, no hole card reaches the room,
and a rebuild from the saved inputs reaches the same state."""

from __future__ import annotations

import random

from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_privacy import leaks  # tests/ is on sys.path (rootdir-less import)

from referee.adapters.transcript import read, run
from referee.service import Referee
from referee.store import Store

HEADERS = {
    "omaha": (
        "# table: omaha level=3\n# moderator: dealer\n# bank: alice 3000\n# bank: dave 500\n"
        "# seat 1: alice 20000\n# seat 2: bob 20000\n# seat 3: carol 3000\n"
        "# deal: alice=Ah Kh Qd Jd | bob=2c 3c 4d 5d | carol=9h 9d 8s 7s | board=Ts 9s 8c 2h 3h\n"
    ),
    "holdem_aa": (
        "# table: holdem_aa\n# moderator: dealer\n# bank: dave 500\n"
        "# seat 1: alice 2000\n# seat 2: bob 2000\n# seat 3: carol 300\n"
        "# deal: alice=Ah Ad | bob=7c 2d | carol=Qs Qh | dealer=Kc Kd | board=As 9s 4h 3c 2h\n"
    ),
}
TEXTS = [
    "こ", "コール", "チェック", "ち", "F", "フォールド", "メイク300", "メイク250", "ベット200",
    "ポット", "オールイン", "オープン", "マック", "クローズ", "アンティ100", "アンティ100 AA50",
    "アンティ200", "こんにちは", "AA持ってる", "ナッツだわ", "なんでそこでコールするの", "2♣あるよ",
    "gg", "!bank", "!sit", "!leave", "!deal", "!nogame", "!confirm 1", "!confirm 2",
    "!dismiss 1", "!penalty @bob interference", "!grant @dave 100", "!close", "!open omaha",
    "!open holdem_aa", "!misdeal @alice", "!exposed @bob", "!lastslot on", "!help",
    "!penalties @alice", "!rank @bob 金", "", "!", "！ｂａｎｋ",
]
SENDERS = ["alice", "bob", "carol", "dealer", "dave", "zed"]

_line = st.tuples(st.sampled_from(SENDERS), st.sampled_from(TEXTS), st.booleans())


def _transcript(game: str, lines: list[tuple[str, str, bool]]) -> str:
    body = "".join(
        f"[21:{i // 60:02d}:{i % 60:02d}] {who}{' (dm)' if dm else ''}: {text}\n"
        for i, (who, text, dm) in enumerate(lines)
    )
    return HEADERS[game] + body


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(HEADERS)), st.lists(_line, max_size=30))
def test_random_table_talk(game: str, lines: list[tuple[str, str, bool]]) -> None:
    text = _transcript(game, lines)
    store = Store(":memory:")
    ref = Referee(persistence=store, rng=random.Random(5))
    for _ in run(read(text), ref):
        pass
    sums: dict[str, int] = {}
    for r in store.ledger():  # with a store, the ledger is the store's (memory keeps none)
        sums[r["player"]] = sums.get(r["player"], 0) + r["delta"]
    assert ref.bank.balances() == sums == store.balances()
    rebuilt = Referee()
    rebuilt.rebuild(store.inputs())
    assert rebuilt.state() == ref.state()
    assert leaks(text) == []
