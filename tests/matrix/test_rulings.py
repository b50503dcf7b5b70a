"""Rulings typed in a Matrix room: a flying action and a hand-information leak produce the
rulings and penalty records of docs/rules.md, which a moderator then reads with !penalties."""

from __future__ import annotations

import pytest
from matrix_helpers import TableFactory, open_omaha, run

from referee.lang.catalog import text

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(300)]


def test_flying_action_and_leak_penalties(make_table: TableFactory) -> None:
    async def scenario() -> None:
        t = await make_table(["alice", "bob", "carol"])
        try:
            a, b, c = t.players
            await open_omaha(t)
            await t.command(t.mod, "!deal", f"{a.name} ?さんの番です")
            # carol (big blind) checks before her turn: a flying action, recorded.
            await t.command(c, "チェック", "フライング")
            # alice raises, so carol's check is no longer legal at her turn (docs/rules.md, FA β).
            await t.command(a, "メイク60", f"{b.name} ?さんの番です")
            ruling = await t.command(b, "フォールド", "ペナルティ")
            assert c.name in ruling.body and "フライング" in ruling.body
            await t.command(c, "コール", "フロップ")
            # alice tells the room about her hand: information leak.
            leak = await t.command(a, "俺のハンドはAのペアだよ", "ハンド情報")
            assert a.name in leak.body and "1,000P" in leak.body
            # A claim the referee could verify is penalised at once; otherwise it is a flag the
            # moderator confirms (docs/rules.md: true or false, it is a leak).
            flags = [e for e in t.bot.events()
                     if e.get("event") == "flag" and e.get("player") == a.name]
            assert flags and flags[0]["kind"] == "information_leak"
            if not any(e.get("event") == "penalty" and e.get("player") == a.name
                       for e in t.bot.events()):
                # low, or high when the random deal happened to give her the pair she names
                # (the claim matches the holding): either way the moderator confirms
                assert flags[0]["confidence"] in ("low", "high")
                await t.command(t.mod, f"!confirm {flags[0]['id']}", "ハンド情報")
            fa = [e for e in t.bot.events() if e.get("event") == "flying_action"]
            assert [(e["player"], e["count"]) for e in fa] == [(c.name, 1)]
            pens = {(e["player"], e["kind"]) for e in t.bot.events()
                    if e.get("event") == "penalty"}
            assert (c.name, "check_fa") in pens
            assert (a.name, "information_leak") in pens
            r = await t.command(t.mod, f"!penalties @{a.name}", "ペナルティ記録")
            # named as the players read them, never the ids
            leak, check_fa = text("penalty_name_information_leak"), text("penalty_name_check_fa")
            assert leak in r.body and "1,000P" in r.body and "information_leak" not in r.body
            r = await t.command(t.mod, f"!penalties @{c.name}", "ペナルティ記録")
            assert check_fa in r.body and "check_fa" not in r.body
            # A player may not read someone else's record.
            r = await t.command(b, f"!penalties @{a.name}", "モデレーター")
            assert leak not in r.body
        finally:
            await t.close()

    run(scenario())
