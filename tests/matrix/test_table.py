"""Full hands through the bot on a real Synapse: private cards in encrypted DMs, a room that never
shows hidden cards, and final stacks equal to the same hand replayed from a transcript."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, Table, TableFactory, cards_in, run, wait_for

pytestmark = [pytest.mark.server, pytest.mark.timeout(300)]

_TURN = re.compile(r"(\S+?) ?さんの番です（(.*)）")
_SHOWDOWN = re.compile(r"(\S+?) ?さん、オープンかマック")
_SEAT = re.compile(r"(\S+?) ?さんが ?(\d+)番席に着席しました（(?:チップ ?)?([\d,]+)）")


def hand_end(t: Table, hand: int = 1) -> dict[str, Any] | None:
    for e in t.bot.events():
        if e.get("event") == "hand_end" and e.get("hand") == hand:
            return e
    return None


async def drive_omaha(t: Table, sent: list[tuple[str, str]]) -> None:
    """Answer the bot's prompts until the hand ends: check when possible, else call; open."""
    seen = 0
    while hand_end(t) is None:
        msgs = t.bot_room_messages()
        if seen >= len(msgs):
            await wait_for(lambda n=seen: len(t.bot_room_messages()) > n
                           or hand_end(t) is not None, 30, "the bot's next prompt")
            continue
        m = msgs[seen]
        seen += 1
        turn, show = _TURN.search(m.body), _SHOWDOWN.search(m.body)
        if turn:
            who, options = t.by_name(turn.group(1)), turn.group(2)
            text = "チェック" if "チェック" in options else "コール"
        elif show:
            who, text = t.by_name(show.group(1)), "オープン"
        else:
            continue
        await t.say(who, text)
        sent.append((who.name, text))


def _deal_line(hands: dict[str, list[str]], **extra: list[str]) -> str:
    parts = [f"{k}={' '.join(v)}" for k, v in hands.items()]
    parts += [f"{k}={' '.join(v)}" for k, v in extra.items() if v]
    return "# deal: " + " | ".join(parts)


def replay_stacks(transcript: str, tmp: Path) -> dict[str, int]:
    path = tmp / "replay.txt"
    path.write_text(transcript, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "referee.cli", "replay", str(path)],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    ends = [json.loads(line) for line in out.stdout.splitlines()
            if json.loads(line).get("event") == "hand_end"]
    assert ends, out.stdout
    return {k: int(v) for k, v in ends[-1]["stacks"].items()}


def check_private_cards(t: Table, game_cards: int) -> dict[str, list[str]]:
    """Every player got exactly their own cards, encrypted; returns them as each one saw them."""
    deal = next(i["deal"] for i in t.bot.inputs() if i.get("deal"))
    seen: dict[str, list[str]] = {}
    for p in t.players:
        dms = [m for m in p.private_from(t.bot.user.user_id, t.room) if cards_in(m.body)]
        assert dms, f"{p.name} got no private cards"
        for m in dms:
            assert m.encrypted, "hole cards must travel in an encrypted room"
            assert t.mod.client.rooms.get(m.room) is None, "the moderator is not in that DM"
        mine = cards_in(dms[0].body)
        assert len(mine) == game_cards
        assert mine == deal["hands"][p.name]
        # Nobody else's cards in anyone's private messages.
        for other in t.players:
            if other is not p:
                assert not set(deal["hands"][other.name]) & set(
                    c for m in dms for c in cards_in(m.body))
        room = p.client.rooms[dms[0].room]
        assert room.encrypted
        seen[p.name] = mine
    return seen


def check_room_hides(t: Table, hole: dict[str, list[str]], reveal: str) -> None:
    """No hole card in the room before the first message that legitimately reveals cards."""
    for m in t.bot_room_messages():
        if re.search(reveal, m.body):
            break
        for name, cards in hole.items():
            assert not set(cards_in(m.body)) & set(cards), (name, m.body)
    # ... and none of the players' private messages were sent to the room.
    assert all(p.messages for p in t.players)


def test_omaha_hand_private_cards_and_replay(make_table: TableFactory, tmp_path: Path) -> None:
    async def scenario() -> None:
        t = await make_table(["alice", "bob"])
        try:
            a, b = t.players
            await t.command(t.mod, f"!grant @{a.name} 2000", "残高")
            await t.command(t.mod, f"!grant @{b.name} 2000", "残高")
            opened = await t.command(t.mod, "!open omaha level=1", "テーブルを開きました")
            assert opened.formatted and "<" not in opened.body
            await t.command(a, "!sit", "着席")
            await t.command(b, "!sit", "着席")
            n = len(t.bot_room_messages())
            await t.say(t.mod, "!deal")
            prompt = await t.reply(n, "さんの番です")
            # The player to act is mentioned (a pill in the HTML body, m.mentions).
            assert prompt.formatted and "https://matrix.to/#/@" in prompt.formatted
            await wait_for(lambda: all(
                any(cards_in(m.body) for m in p.private_from(t.bot.user.user_id, t.room))
                for p in t.players), 60, "private cards")
            sent: list[tuple[str, str]] = []
            await drive_omaha(t, sent)
            end = hand_end(t)
            assert end is not None
            hole = check_private_cards(t, 4)
            check_room_hides(t, hole, r"オープン: ")
            # Suits are coloured in the HTML body.
            await t.reply(0, "^リバー")
            board_msgs = [m for m in t.bot_room_messages() if m.body.startswith("リバー")]
            assert board_msgs and "data-mx-color" in (board_msgs[0].formatted or "")
            board = cards_in(board_msgs[0].body)
            assert len(board) == 5
            seats = [_SEAT.search(m.body) for m in t.bot_room_messages()]
            lines = ["# table: omaha level=1", f"# moderator: {t.mod.name}"]
            for s in seats:
                if s:
                    lines.append(f"# seat {s.group(2)}: {s.group(1)} {s.group(3).replace(',', '')}")
            lines.append("# button: 1")
            lines.append(_deal_line(hole, board=board))
            lines += [f"{who}: {text}" for who, text in sent]
            stacks = replay_stacks("\n".join(lines) + "\n", tmp_path)
            assert stacks == {k: int(v) for k, v in end["stacks"].items()}
            assert sum(stacks.values()) <= 40_000
        finally:
            await t.close()

    run(scenario())


def test_holdem_aa_round_private_cards_and_replay(make_table: TableFactory,
                                                  tmp_path: Path) -> None:
    async def scenario() -> None:
        t = await make_table(["carol", "dave"])
        try:
            c, d = t.players
            await t.command(t.mod, f"!grant @{c.name} 2000", "残高")
            await t.command(t.mod, f"!grant @{d.name} 2000", "残高")
            await t.command(t.mod, "!open holdem_aa", "テーブルを開きました")
            await t.command(c, "!sit", "着席")
            await t.command(d, "!sit", "着席")
            await t.command(t.mod, "!deal", "アンティ")
            sent = [(c.name, "アンティ100 AA50"), (d.name, "アンティ100")]
            n = len(t.bot_room_messages())
            for who, text in sent:
                await t.say(t.by_name(who), text)
            await t.reply(n, "コールかフォールド")
            for p in (c, d):
                await t.say(p, "コール")
                sent.append((p.name, "コール"))
            await wait_for(lambda: hand_end(t) is not None, 60, "the end of the game")
            end = hand_end(t)
            assert end is not None
            hole = check_private_cards(t, 2)
            check_room_hides(t, hole, r"さんのハンド: ")
            shown = (await t.reply(0, "ディーラー:.*ボード:")).body
            dealer_part, _, board_part = shown.partition("ボード:")
            dealer, board = cards_in(dealer_part), cards_in(board_part)
            assert len(dealer) == 2 and len(board) == 5
            seats = [_SEAT.search(m.body) for m in t.bot_room_messages()]
            lines = ["# table: holdem_aa", f"# moderator: {t.mod.name}"]
            for s in seats:
                if s:
                    lines.append(f"# seat {s.group(2)}: {s.group(1)} {s.group(3).replace(',', '')}")
            lines.append(_deal_line(hole, dealer=dealer, board=board))
            lines += [f"{who}: {text}" for who, text in sent]
            stacks = replay_stacks("\n".join(lines) + "\n", tmp_path)
            assert stacks == {k: int(v) for k, v in end["stacks"].items()}
        finally:
            await t.close()

    run(scenario())
