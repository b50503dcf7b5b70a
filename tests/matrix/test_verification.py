"""Players verify the bot with SAS, on the client stack Element runs (matrix-js-sdk with its Rust
crypto; the pinned release, and the newest -- tests/matrix/js-newest, with the Node 22 it needs,
or the install REFEREE_JS_NEWEST names), against the bot on the real Synapse:

* "Verify user" in the DM (in-room request): the bot answers, writes its side of the emoji in
  the DM, and after the player confirms, the player's client reports the bot's device verified
  and the bot's identity cross-signing verified (the bot MACs its master key); the bot's
  messages carry no shield, and with "never send to unverified sessions" on, the player's
  messages still reach the bot;
* "Verify session" (to-device): a mismatch cancels with m.mismatched_sas (the bot tells the
  player why), a request nobody continues is cancelled by the bot with m.timeout (a short
  verify_timeout: no long sleeps), and a confirmed one verifies the device.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import nio
import pytest
from js_player import JS_DIR, NEWEST_DIR, JsPlayer, js_ready, newest_js, sdk_version
from matrix_helpers import BotProcess, Player, Table, cards_in, run, wait_for
from needs import need
from synapse_server import Synapse

from referee.lang.catalog import messages

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(500)]

# Seconds the bot waits for a verification's next step, in this test: short, so the idle case
# needs no long sleep, yet well above a step's latency on a loaded CI machine (six workers, each
# with its own Synapse, on two cores).
VERIFY_TIMEOUT = 20
STEP_MS = 50_000  # the player's client's wait for each step (three at most: see player.mjs)


def _sdk_dirs() -> list[Any]:
    # the newest install when there is one; else its missing directory, which need() below
    # skips locally and fails under CI
    return [pytest.param(JS_DIR, id="pinned"),
            pytest.param(newest_js() or NEWEST_DIR, id="newest")]


async def _table(hs: Synapse, tmp: Path, where: Path) -> tuple[Table, list[JsPlayer]]:
    # unique on the worker's one Synapse whichever release runs (a hash of the path could
    # give both the same tag)
    tag = f"{os.getpid() % 1000}v{secrets.token_hex(3)}"
    bot_user = hs.register(f"refv{tag}")
    mod = Player(hs, hs.register(f"dealerv{tag}"), tmp / "dealer")
    players = [JsPlayer(hs, hs.register(f"v{i}{tag}"), "all", log=tmp / f"js{i}.log",
                        xsign=True, js_dir=None if where == JS_DIR else where)
               for i in range(2)]
    bot = BotProcess(hs, bot_user, tmp / "bot.db", [mod.user_id],
                     {"verify_timeout": VERIFY_TIMEOUT})
    bot.start()
    await mod.start()
    for p in players:
        await p.start()
    r = await mod.client.room_create(name="table", invite=[p.user_id for p in players])
    assert isinstance(r, nio.RoomCreateResponse), r
    await mod.client.room_invite(r.room_id, bot_user.user_id)

    def all_joined() -> bool:
        rm = mod.client.rooms.get(r.room_id)
        ids = [bot_user.user_id] + [p.user_id for p in players]
        return rm is not None and all(i in rm.users and i not in rm.invited_users for i in ids)

    await wait_for(all_joined, 60, "everyone joined the table room")
    return Table(hs, bot, mod, players, r.room_id), players  # type: ignore[arg-type]


async def _verify(p: JsPlayer, bot: BotProcess, **args: Any) -> dict[str, Any]:
    """The player's "verify" with every stage bounded; a stall shows both sides' view."""
    ms = args.setdefault("waitMs", STEP_MS)
    r = await p.call("verify", timeout=3 * ms / 1000 + 20, **args)
    r["bot_says"] = [line for line in bot.log_text().splitlines() if "verification" in line][-8:]
    return r


async def _eventually(check: Callable[[], Awaitable[bool]], timeout: float = 60) -> bool:
    """Polls an async check (the player's client signs and re-queries keys in the background)."""
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.5)
    return True


def _part(key: str) -> str:
    """The fixed text of a catalogue sentence between its first and second placeholder."""
    return messages()[key].split("}", 1)[1].split("{", 1)[0].strip()


@pytest.mark.parametrize("where", _sdk_dirs())
def test_players_verify_the_bot(synapse: Synapse, tmp_path: Path, where: Path) -> None:
    why = js_ready(where)
    need(why is None, f"the matrix-js-sdk players ({why})",
         f"npm ci in {where}, or bash scripts/setup.sh --test")

    async def scenario() -> None:
        t, (a, b) = await _table(synapse, tmp_path, where)
        bot_id = t.bot.user.user_id
        try:
            await wait_for(lambda: "cross-signing identity" in t.bot.log_text(), 90,
                           "the bot's cross-signing")
            for p in (a, b):
                await t.command(t.mod, f"!grant @{p.name} 2000", "残高")
            await t.command(t.mod, "!open omaha level=1", "テーブルを開きました")
            for p in (a, b):
                await t.command(p, "!sit", "着席")  # type: ignore[arg-type]
            await t.command(t.mod, "!deal", "さんの番です")

            def dm_of(p: JsPlayer) -> str | None:
                return next((m.room for m in p.from_user(bot_id)
                             if m.room != t.room and cards_in(m.body)), None)

            await wait_for(lambda: dm_of(a) and dm_of(b), 90, "hole cards in both DMs")
            dm_a, dm_b = dm_of(a), dm_of(b)
            assert dm_a and dm_b
            device = t.bot.device_id()
            before = await a.call("device", userId=bot_id, deviceId=device)
            assert before["signedByOwner"] and not before["isVerified"], before

            # !verify in the table room: the bot's keys and what to do with them.
            n = len(a.from_user(bot_id, t.room))
            await a.say(t.room, "!verify")
            info = await wait_for(lambda: next((m for m in a.from_user(bot_id, t.room)[n:]
                                                if device in m.body), None),
                                  60, "the !verify answer")
            assert _part("verify_info") in info.body  # type: ignore[attr-defined]

            # "Verify user" in the DM, confirmed: the bot is verified, identity and device.
            n = len(a.from_user(bot_id, dm_a))
            done = await _verify(a, t.bot, userId=bot_id, room=dm_a, answer="confirm")
            assert done["phase"] == "Done", done
            sas_text = await wait_for(lambda: next(
                (m for m in a.from_user(bot_id, dm_a)[n:] if _part("verify_sas") in m.body),
                None), 60, "the bot's side of the emoji in the DM")
            assert done["emoji"] and all(e in sas_text.body for e in done["emoji"])  # type: ignore[attr-defined]
            assert " ".join(f"{d:04d}" for d in done["decimals"]) in sas_text.body  # type: ignore[attr-defined]
            assert "emoji " + " ".join(  # the log line a moderator compares with
                f"{e}(" for e in done["emoji"][:1]) in t.bot.log_text()

            async def verified(p: JsPlayer) -> bool:
                s = await p.call("device", userId=bot_id, deviceId=device)
                u = await p.call("user", userId=bot_id)
                return bool(s["isVerified"] and s["crossSigningVerified"]
                            and u["isCrossSigningVerified"])

            assert await _eventually(lambda: verified(a)), await a.call(
                "device", userId=bot_id, deviceId=device)
            await wait_for(lambda: any(_part("verify_done") in m.body
                                       for m in a.from_user(bot_id, dm_a)), 60,
                           "the bot says the verification is done")

            # "Never send to unverified sessions": the bot is verified, so the player acts.
            await a.call("withhold", on=True)
            n = len(a.from_user(bot_id, dm_a))
            asked = await a.say(dm_a, "!penalties")
            answer = await wait_for(lambda: next(
                (m for m in a.from_user(bot_id, dm_a)[n:] if "ペナルティ記録" in m.body), None),
                60, "the answer with keys withheld from unverified devices")
            assert answer.encrypted and answer.failure is None  # type: ignore[attr-defined]
            assert asked in t.bot.input_ids()
            shield = await a.call("shield", room=dm_a, eventId=answer.event_id)  # type: ignore[attr-defined]
            assert shield["shieldColour"] == 0, shield  # EventShieldColour.NONE

            # "Verify session" with a mismatch: cancelled, and the player is told why.
            n = len(b.from_user(bot_id, dm_b))
            bad = await _verify(b, t.bot, userId=bot_id, deviceId=device,
                              answer="mismatch")
            assert bad["phase"] == "Cancelled" and bad["cancelCode"] == "m.mismatched_sas", bad
            reason = messages()["verify_reason_mismatched_sas"]
            await wait_for(lambda: any(reason in m.body for m in b.from_user(bot_id, dm_b)[n:]),
                           60, "the mismatch told in the DM")
            # A request nobody continues: the bot cancels it (m.timeout).
            idle = await _verify(b, t.bot, userId=bot_id, deviceId=device,
                               answer="none", waitMs=VERIFY_TIMEOUT * 1000 + 30_000)
            assert idle["phase"] == "Cancelled" and idle["cancelCode"] == "m.timeout", idle
            # (the bot's log line may follow the cancel the player's client already saw)
            await wait_for(lambda: "cancelled by the bot: m.timeout" in t.bot.log_text(), 15,
                           "the bot's log names its timeout cancel")
            # And confirmed, by device: verified.
            ok = await _verify(b, t.bot, userId=bot_id, deviceId=device,
                             answer="confirm")
            assert ok["phase"] == "Done", ok
            assert await _eventually(lambda: verified(b))
            print(f"matrix-js-sdk {sdk_version(where)}: verified in the DM and by device")
        finally:
            t.bot.stop()
            await t.mod.stop()
            for p in (a, b):
                await p.stop()

    run(scenario(), timeout=450)
