"""Chat commands (docs/contracts.md §4) through the service: permissions, the bank and its ledger,
tables opened and closed, live deals recorded so a rebuild replays the same cards."""

from __future__ import annotations

import itertools
import random

import pytest
from event_helpers import as_json as j
from event_helpers import directive, handle, kinds, said, says, tick, told

from referee.events import Event
from referee.inputs import Message
from referee.lang import catalog
from referee.service import Referee
from referee.store import Store

ROOM = "!room"
_ids = itertools.count()


def msg(ref: Referee, sender: str, text: str, room: str = ROOM, dm: bool = False) -> list[Event]:
    return handle(ref, Message(id=f"m{next(_ids)}", room=room, sender=sender, text=text, dm=dm))


@pytest.fixture
def ref() -> Referee:
    r = Referee(moderators=["dealer"], rng=random.Random(7))
    msg(r, "dealer", "!grant @alice 2000 初回")
    msg(r, "dealer", "!grant @bob 1500")
    return r


def test_moderator_commands_refused_in_japanese_without_change(ref: Referee) -> None:
    before = ref.state()
    for text in ("!open omaha", "!grant @mallory 100000", "!deal", "!close", "!penalty @bob "
                 "interference", "!confirm 1", "!nogame", "!lastslot on", "!rank @bob 金"):
        ev = msg(ref, "mallory", text)
        assert kinds(ev) == ["say"], text
        assert told(ev) == ["command_moderator_only"], text
    after = ref.state()
    for key in ("balances", "ledger", "tables", "flags", "penalties", "ranks"):
        assert after[key] == before[key]


def test_bank_is_private_to_oneself_unless_moderator(ref: Referee) -> None:
    assert said(msg(ref, "alice", "!bank"), "bank_balance") == [
        {"player": "alice", "points": 2000}]
    ev = msg(ref, "alice", "!bank @bob")
    assert told(ev) == ["others_moderator_only"] and "1,500" not in says(ev)[0]
    assert said(msg(ref, "dealer", "!bank @bob"), "bank_balance") == [
        {"player": "bob", "points": 1500}]
    # asked by private message, answered privately
    private = msg(ref, "alice", "!残高", dm=True)
    assert said(private, "bank_balance", to="alice") == [{"player": "alice", "points": 2000}]
    assert told(private) == []


def test_grant_negative_and_reason_are_ledger_entries(ref: Referee) -> None:
    ev = msg(ref, "dealer", "!grant @alice -500 遅刻")
    bank = [e for e in j(ev) if e["event"] == "bank"]
    assert bank == [{"event": "bank", "player": "alice", "delta": -500, "balance": 1500,
                     "reason": "遅刻"}]
    assert ref.bank.balance("alice") == 1500
    assert sum(e.delta for e in ref.bank.ledger if e.player == "alice") == 1500
    assert told(msg(ref, "dealer", "!grant @alice lots")) == ["grant_bad_points"]


def test_open_sit_deal_leave_close_round_trip(ref: Referee) -> None:
    ev = msg(ref, "dealer", "!open omaha level=3 rules=world")
    assert ROOM in ref.tables and ref.tables[ROOM].options == {"level": "3", "rules": "world"}
    ev = msg(ref, "alice", "!sit")
    assert ref.tables[ROOM].engine.stacks() == {"alice": 20000}  # bank points x10
    assert ref.bank.balance("alice") == 0
    assert next(e for e in j(ev) if e["event"] == "bank")["delta"] == -2000
    msg(ref, "bob", "!着席 5")
    assert [(s.seat, s.name) for s in ref.tables[ROOM].engine.seated()] == [(1, "alice"),
                                                                            (5, "bob")]
    assert told(msg(ref, "bob", "!sit")) == ["sit_already"]
    ev = msg(ref, "dealer", "!deal")
    assert "hand_start" in kinds(ev)
    assert ref.tables[ROOM].engine.in_hand
    # every player got their own cards privately; the room got none of them
    hands = {p: ref.tables[ROOM].engine.holdings(p) for p in ("alice", "bob")}
    assert all(len(h) == 4 for h in hands.values())
    # closing during a hand waits for its end
    ev = msg(ref, "dealer", "!close")
    assert ROOM in ref.tables and ref.tables[ROOM].closing
    assert "!deal" not in says(ev)


def test_close_between_hands_cashes_everyone_out(ref: Referee) -> None:
    msg(ref, "dealer", "!open omaha")
    msg(ref, "alice", "!sit")
    msg(ref, "bob", "!sit")
    ev = msg(ref, "dealer", "!close")
    leaves = {e["player"]: e["bank"] for e in j(ev) if e["event"] == "leave"}
    assert leaves == {"alice": 2000, "bob": 1500}
    assert ROOM not in ref.tables
    assert ref.bank.balances() == {"alice": 2000, "bob": 1500}


def test_leave_credits_bank_by_the_game_rule(ref: Referee) -> None:
    msg(ref, "dealer", "!open omaha")
    msg(ref, "alice", "!sit")
    ev = msg(ref, "alice", "!退席")
    assert [e for e in j(ev) if e["event"] == "leave"] == [
        {"event": "leave", "player": "alice", "chips": 20000, "bank": 2000}
    ]
    assert ref.bank.balance("alice") == 2000
    assert told(msg(ref, "alice", "!leave")) == ["leave_not_seated"]


def test_sit_without_points_or_table_is_refused(ref: Referee) -> None:
    assert told(msg(ref, "alice", "!sit")) == ["no_table"]
    msg(ref, "dealer", "!open omaha")
    assert told(msg(ref, "zed", "!sit")) == ["sit_no_points"]
    assert "sit_seat_taken" not in told(msg(ref, "alice", "!sit 2"))
    assert told(msg(ref, "bob", "!sit 2")) == ["sit_seat_taken"]
    assert ref.bank.balance("bob") == 1500


def test_open_refuses_unknown_games_and_options(ref: Referee) -> None:
    assert told(msg(ref, "dealer", "!open poker")) == ["game_unknown"]
    assert ROOM not in ref.tables
    assert told(msg(ref, "dealer", "!open omaha level=99")) == ["omaha.option_level"]
    assert ROOM not in ref.tables


def test_help_and_unknown_command(ref: Referee) -> None:
    assert "!sit" in says(msg(ref, "anyone", "!help"))[0]
    assert says(msg(ref, "anyone", "!help grant"))[0].startswith("!grant")
    assert told(msg(ref, "anyone", "!frobnicate")) == ["command_unknown"]


def test_rank_and_manual_penalty(ref: Referee) -> None:
    msg(ref, "dealer", "!rank @bob 金")
    assert ref.ranks["bob"] == "金"
    ev = msg(ref, "dealer", "!penalty @bob interference")
    pen = [e for e in j(ev) if e["event"] == "penalty"]
    assert pen == [{"event": "penalty", "player": "bob", "kind": "interference", "points": 5000,
                    "chips": 0}]
    assert ref.bank.balance("bob") == 1500 - 5000
    assert ref.ranks["bob"] == ""
    assert [e for e in j(ev) if e["event"] == "rank"] == [
        {"event": "rank", "player": "bob", "mark": "", "previous": "金"}
    ]
    record = says(msg(ref, "bob", "!penalties"))
    assert record == ["bobさんのペナルティ記録（1件）: 干渉行為 5,000P"]


def test_input_processed_once(ref: Referee) -> None:
    inc = Message(id="same", room=ROOM, sender="dealer", text="!grant @alice 1")
    assert handle(ref, inc)
    assert handle(ref, inc) == []
    assert ref.bank.balance("alice") == 2001


def test_live_deal_is_recorded_and_rebuild_replays_the_same_cards(ref: Referee) -> None:
    store = Store(":memory:")
    live = Referee(moderators=["dealer"], persistence=store)  # CSPRNG shoe
    for who, text in [("dealer", "!grant @alice 2000"), ("dealer", "!grant @bob 1500"),
                      ("dealer", "!open omaha"), ("alice", "!sit"), ("bob", "!sit"),
                      ("dealer", "!deal")]:
        msg(live, who, text)
    saved = store.inputs()
    assert "deal" in saved[-1] and len(saved[-1]["deal"]["hands"]["alice"]) == 4
    rebuilt = Referee(moderators=["dealer"])
    rebuilt.rebuild(saved)
    assert rebuilt.state() == live.state()
    for p in ("alice", "bob"):
        assert rebuilt.tables[ROOM].engine.holdings(p) == live.tables[ROOM].engine.holdings(p)
    assert store.balances() == live.bank.balances()


def test_close_during_a_hand_cashes_out_when_it_ends(ref: Referee) -> None:
    pytest.importorskip("referee.parse")
    msg(ref, "dealer", "!open omaha")
    msg(ref, "alice", "!sit")
    msg(ref, "bob", "!sit")
    msg(ref, "dealer", "!deal")
    msg(ref, "dealer", "!close")
    assert "このハンドの終了後にテーブルを閉じます。" in says(msg(ref, "dealer", "!close"))
    first = ref.tables[ROOM].engine.to_act()
    assert first is not None
    ev = msg(ref, first, "フォールド")
    assert ROOM not in ref.tables
    leaves = {e["player"]: e for e in j(ev) if e["event"] == "leave"}
    assert set(leaves) == {"alice", "bob"}
    assert ref.bank.balances() == {p: leaves[p]["bank"] for p in ("alice", "bob")}
    assert says(ev)[-1] == "テーブルを閉じました。ありがとうございました。"
    assert "!sit" in says(msg(ref, "dealer", "!open omaha"))[0]  # the room can open a new one


def test_deuces_bonus_area_outlives_the_table_and_a_restart(ref: Referee) -> None:
    store = Store(":memory:")
    live = Referee(moderators=["dealer"], persistence=store)
    msg(live, "dealer", "!open deuces")
    directive(live, "b1", ROOM, "bonus", {"cards": ["As", "Kd", "7h", "3c"]})
    msg(live, "dealer", "!close")
    assert ROOM not in live.tables
    msg(live, "dealer", "!open deuces")
    area = live.tables[ROOM].engine.carried()
    assert area is not None and area["cards"] == ["As", "Kd", "7h", "3c"]
    rebuilt = Referee(moderators=["dealer"])
    rebuilt.rebuild(store.inputs())
    assert rebuilt.tables[ROOM].engine.carried() == area
    assert rebuilt.state() == live.state()


def test_clock_ticks_without_messages_time_out_the_player_and_rebuild_alike() -> None:
    pytest.importorskip("referee.parse")
    store = Store(":memory:")
    live = Referee(moderators=["dealer"], persistence=store)
    for who, text in [("dealer", "!grant @alice 2000"), ("dealer", "!grant @bob 1500"),
                      ("dealer", "!open omaha"), ("alice", "!sit"), ("bob", "!sit"),
                      ("dealer", "!deal")]:
        handle(live, Message(id=f"t{who}{text}", room=ROOM, sender=who, text=text, time=1000.0))
    first = live.tables[ROOM].engine.to_act()
    assert first is not None
    clock = live.tables[ROOM].engine.definition.clock
    assert tick(live, "k0", ROOM, 1000.0) == []  # the clock starts at its first reading
    reminded = tick(live, "k1", ROOM, 1000.0 + clock.remind_after)
    assert any(first in s for s in says(reminded))
    timed_out = tick(live, "k2", ROOM, 1000.0 + clock.act_after)
    assert next(e.to_json() for e in timed_out if e.event == "action")["player"] == first
    assert tick(live, "k2", ROOM, 5000.0) == []  # an input id applies once
    rebuilt = Referee(moderators=["dealer"])
    rebuilt.rebuild(store.inputs())
    assert rebuilt.state() == live.state()


def test_auto_table_deals_by_itself_after_a_pause_and_rebuilds_alike() -> None:
    pytest.importorskip("referee.parse")
    from referee.service import AUTO_DEAL_AFTER

    store = Store(":memory:")
    live = Referee(moderators=["dealer"], persistence=store)
    n = itertools.count()

    def at(t: float, who: str, text: str) -> list[Event]:
        return handle(live, Message(id=f"a{next(n)}", room=ROOM, sender=who, text=text, time=t))

    at(0, "dealer", "!grant @alice 2000")
    at(0, "dealer", "!grant @bob 2000")
    assert "自動" in says(at(1, "dealer", "!open omaha auto=on"))[0]
    assert "hand_start" not in kinds(at(2, "alice", "!sit"))  # one player: nothing to deal
    assert "hand_start" in kinds(at(3, "bob", "!sit"))
    first = live.tables[ROOM].engine.to_act()
    assert first is not None
    assert "hand_end" in kinds(at(4, first, "フォールド"))
    assert "hand_start" not in kinds(at(4 + AUTO_DEAL_AFTER / 2, "alice", "gg"))
    ev = at(4 + AUTO_DEAL_AFTER, "bob", "gg")
    assert [e.to_json()["hand"] for e in ev if e.event == "hand_start"] == [2]
    assert "auto_deals" in store.inputs()[-1]
    rebuilt = Referee(moderators=["dealer"])
    rebuilt.rebuild(store.inputs())
    assert rebuilt.state() == live.state()
    for p in ("alice", "bob"):
        assert rebuilt.tables[ROOM].engine.holdings(p) == live.tables[ROOM].engine.holdings(p)
    assert "auto は on か off" in says(handle(live, Message(
        id="other", room="!other", sender="dealer", text="!open deuces auto=maybe")))[0]
    assert "!other" not in live.tables


def test_status(ref: Referee) -> None:
    assert told(msg(ref, "alice", "!status")) == ["no_table"]
    msg(ref, "dealer", "!open omaha")
    msg(ref, "alice", "!sit")
    msg(ref, "bob", "!sit 3")
    assert says(msg(ref, "carol", "!状況")) == [
        "オマハ（PLO リングゲーム） / ハンド間 / 1番 alice 20,000・3番 bob 15,000"]
    msg(ref, "dealer", "!deal")
    status = says(msg(ref, "carol", "!status"))[0]
    assert "ハンド#1 進行中" in status and "手番: " in status


@pytest.mark.parametrize("alias", ["!開卓 omaha", "!卓立て omaha", "！ＯＰＥＮ omaha"])
def test_every_alias_the_parser_knows_is_a_command_the_service_runs(ref: Referee,
                                                                     alias: str) -> None:
    # One alias table (grammar/commands.lark) for the parser and the service.
    assert told(msg(ref, "bob", alias)) == ["command_moderator_only"]
    assert ref.tables == {}
    assert "テーブルを開きました" in says(msg(ref, "dealer", alias))[0]


def test_cards_asked_privately_with_no_single_table_are_answered(ref: Referee) -> None:
    for room in ("!a", "!b"):
        msg(ref, "dealer", "!open omaha level=1", room=room)
        msg(ref, "alice", "!sit", room=room)
    ev = msg(ref, "alice", "手札", room="!dm", dm=True)
    assert says(ev, to="alice") == [catalog.text("private_cards_which", sender="alice")]
