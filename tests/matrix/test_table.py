"""Full hands through the bot on a real Synapse: private cards in encrypted DMs, a room that never
shows hidden cards, and final stacks equal to the same hand replayed from a transcript."""

from __future__ import annotations

from pathlib import Path

import pytest
from four_games import check_and_verify
from matrix_helpers import (
    _SEAT,
    TableFactory,
    _deal_line,
    await_private_cards,
    cards_in,
    check_private_cards,
    check_room_hides,
    drive_omaha,
    hand_end,
    omaha_replay_matches,
    replay_stacks,
    run,
    wait_for,
)

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.timeout(300)]

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
            # A private question in the (encrypted) DM room gets a private answer.
            dm_room = next(m.room for m in a.private_from(t.bot.user.user_id, t.room)
                           if cards_in(m.body))
            n_dm = len(a.private_from(t.bot.user.user_id, t.room))
            await a.say(dm_room, "今の手札は？")
            await wait_for(lambda: len(a.private_from(t.bot.user.user_id, t.room)) > n_dm, 30,
                           "a private answer")
            answer = a.private_from(t.bot.user.user_id, t.room)[n_dm]
            assert answer.room == dm_room and answer.encrypted
            sent: list[tuple[str, str]] = []
            await drive_omaha(t, sent)
            end = hand_end(t)
            assert end is not None
            hole = check_private_cards(t, 4)
            assert cards_in(answer.body) == hole[a.name]
            # One DM room per player, reused, and published in the bot's m.direct.
            bot = t.bot.user
            direct = t.hs.request("GET", f"/_matrix/client/v3/user/{bot.user_id}"
                                  "/account_data/m.direct", token=bot.access_token)
            for p in t.players:
                rooms = {m.room for m in p.private_from(bot.user_id, t.room)}
                assert len(rooms) == 1
                assert direct[p.user_id] == list(rooms)
            check_room_hides(t, hole, r"オープン: ")
            # Suits are coloured in the HTML body.
            await t.reply(0, "^リバー")
            board_msgs = [m for m in t.bot_room_messages() if m.body.startswith("リバー")]
            assert board_msgs and "data-mx-color" in (board_msgs[0].formatted or "")
            assert len(cards_in(board_msgs[0].body)) == 5
            stacks = await omaha_replay_matches(t, sent, tmp_path)
            assert sum(stacks.values()) <= 40_000
            # the bot's database re-runs to the same state from its log alone (the configured
            # moderators are an input of it) and every revealed deal checks out
            check_and_verify(t.bot.db)
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
            await t.reply(n, "コール.*かフォールド")
            for p in (c, d):
                await t.say(p, "コール")
                sent.append((p.name, "コール"))
            await wait_for(lambda: hand_end(t) is not None, 60, "the end of the game")
            end = hand_end(t)
            assert end is not None
            await await_private_cards(t)
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


def test_history_before_the_bot_joined_is_ignored(make_table: TableFactory) -> None:
    async def scenario() -> None:
        t = await make_table(["frank"], before_bot=("!open omaha level=1", "!grant @nobody 5"))
        try:
            # Had the early !open been processed, this one would be refused.
            await t.command(t.mod, "!open omaha level=1", "テーブルを開きました")
            ids = set(t.bot.input_ids())
            assert ids and not ids & set(t.early)
        finally:
            await t.close()

    run(scenario())
