"""Restarts: the bot killed mid-hand (and messages typed while it was down, more than one sync
timeline holds), and the homeserver restarted mid-hand. The hand continues; no action is lost or
applied twice; the result equals the same hand replayed from a transcript."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from matrix_helpers import (
    TableFactory,
    await_private_cards,
    cards_in,
    drive_omaha,
    omaha_replay_matches,
    open_omaha,
    run,
    wait_for,
)

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(400)]

DOWN_CHAT = 120  # > the bot's sync timeline limit (100): the restart sync is gappy


def test_bot_killed_mid_hand_resumes(make_table: TableFactory, tmp_path: Path) -> None:
    async def scenario() -> None:
        t = await make_table(["alice", "bob"])
        try:
            a, b = t.players
            await open_omaha(t)
            await t.command(t.mod, "!deal", f"{a.name} ?さんの番です")
            deal_before = [i["deal"] for i in t.bot.inputs() if i.get("deal")]
            sent = [(a.name, "コール")]
            await t.say(a, "コール")
            t.bot.kill()  # possibly while it is processing that very message
            assert not t.bot.alive()
            # While the bot is down: the next action and a lot of chat.
            sent.append((b.name, "チェック"))
            check_id = await t.say(b, "チェック")
            chat = [await t.say(a, f"待ってるよ {i}") for i in range(DOWN_CHAT)]
            n_before = len(t.bot_room_messages())
            t.bot.start()
            flop = await t.reply(n_before, "^フロップ", timeout=90)
            assert flop
            await wait_for(lambda: set(chat) <= set(t.bot.input_ids()), 90, "the chat backlog")
            log = t.bot.input_ids()
            assert len(log) == len(set(log)), "an input processed twice"
            assert log.index(check_id) < log.index(chat[0])
            assert [i for i in log if i in set(chat)] == chat, "backlog out of order"
            # The gap was filled from /messages.
            fetched = [int(x) for x in re.findall(r"fetched (\d+) missing", t.bot.log_text())]
            print(f"\nbacklog {DOWN_CHAT + 1} messages; gap-filled: {fetched}")
            assert max(fetched, default=0) >= DOWN_CHAT + 1 - 100
            # Nothing re-dealt, and each answer sent once.
            assert [i["deal"] for i in t.bot.inputs() if i.get("deal")] == deal_before
            acts = [e for e in t.bot.events() if e.get("event") == "action"]
            assert [(e["player"], e["action"]) for e in acts][:2] == [
                (a.name, "call"), (b.name, "check")]
            # The restarted bot still talks privately, encrypted, from its persistent crypto
            # store (same device, same olm account).
            bot_id = t.bot.user.user_id
            await await_private_cards(t)  # queued before the kill, delivered after it
            dm = next(m.room for m in a.private_from(bot_id, t.room) if cards_in(m.body))
            n_dm = len(a.private_from(bot_id, t.room))
            await a.say(dm, "手札を教えて")
            await wait_for(lambda: len(a.private_from(bot_id, t.room)) > n_dm, 60,
                           "a private answer after the restart")
            answer = a.private_from(bot_id, t.room)[n_dm]
            assert answer.room == dm and answer.encrypted
            assert cards_in(answer.body) == deal_before[0]["hands"][a.name]
            assert t.bot.log_text().count("device ") >= 2
            devices = re.findall(r"logged in as \S+, device (\S+)", t.bot.log_text())
            assert len(devices) == 2 and devices[0] == devices[1]
            await drive_omaha(t, sent, start=t.bot_room_messages().index(flop))
            await omaha_replay_matches(t, sent, tmp_path)
            bodies = [m.body for m in t.bot_room_messages()]
            assert sum(x.startswith("フロップ") for x in bodies) == 1
            assert len(bodies) == len({m.event_id for m in t.bot_room_messages()})
        finally:
            await t.close()

    run(scenario(), timeout=380)


def test_synapse_restart_mid_hand(make_table: TableFactory, tmp_path: Path) -> None:
    async def scenario() -> None:
        t = await make_table(["carol", "dave"])
        try:
            c, d = t.players
            await open_omaha(t)
            await t.command(t.mod, "!deal", f"{c.name} ?さんの番です")
            sent = [(c.name, "コール")]
            await t.command(c, "コール", f"{d.name} ?さんの番です")
            started = time.monotonic()
            t.hs.restart()
            print(f"\nsynapse restarted in {time.monotonic() - started:.1f}s")
            assert t.bot.alive()
            n = len(t.bot_room_messages())
            sent.append((d.name, "チェック"))
            await t.say(d, "チェック")
            flop = await t.reply(n, "^フロップ", timeout=90)
            await drive_omaha(t, sent, start=t.bot_room_messages().index(flop))
            await omaha_replay_matches(t, sent, tmp_path)
            assert t.bot.alive()
        finally:
            await t.close()

    run(scenario(), timeout=380)
