"""No internal id reaches a person (a catalogue test: wording is what it checks): a grant
without a reason, the chips held at a table, a player's penalties and a hand's pots are said
with their Japanese names from the catalogue, never as ``grant``, a room id, ``interference``
or ``#0``; moderators may type a penalty's Japanese name where its id is accepted."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

from event_helpers import handle, of, says

from referee.adapters.transcript import replay_events
from referee.discipline import PENALTY_KINDS, penalty_kind, penalty_name
from referee.events import Event
from referee.inputs import Message
from referee.rules.voice import phrase_text
from referee.service import Referee

ROOM = "!abcdef:example.org"
_ids = itertools.count()


def send(ref: Referee, sender: str, text: str, room: str = ROOM) -> list[Event]:
    return handle(ref, Message(id=f"j{next(_ids)}", room=room, sender=sender, text=text))


def table() -> Referee:
    ref = Referee(moderators=["dealer"], rng=random.Random(3))
    for p in ("alice", "bob", "carol"):
        send(ref, "dealer", f"!grant @{p} 2000")
    send(ref, "dealer", "!open omaha level=1")
    for p in ("alice", "bob", "carol"):
        send(ref, p, "!sit")
    return ref


def test_a_grant_without_a_reason_is_said_without_an_id() -> None:
    ref = Referee(moderators=["dealer"], rng=random.Random(1))
    said = says(send(ref, "dealer", "!grant @alice 2000"))
    assert said and not any("grant" in t for t in said), said


def test_chips_at_a_table_name_the_table_not_its_room_id() -> None:
    ref = table()
    said = says(send(ref, "alice", "!bank"))
    assert said and not any(ROOM in t for t in said), said
    assert any("テーブル" in t and "オマハ" in t for t in said), said


def test_penalties_are_listed_by_name_and_typed_by_name() -> None:
    ref = table()
    send(ref, "dealer", "!deal")
    events = send(ref, "dealer", "!penalty @carol 干渉行為")
    assert [e["kind"] for e in of(events, "penalty")] == ["interference"]
    events = send(ref, "dealer", "!penalty @bob ハンド情報の公開")
    assert [e["kind"] for e in of(events, "penalty")] == ["information_leak"]
    said = says(send(ref, "dealer", "!penalties @carol"))
    assert said and not any(k in t for t in said for k in PENALTY_KINDS), said
    assert any(phrase_text(penalty_name("interference")) in t for t in said), said


def test_penalty_kind_reads_ids_and_names() -> None:
    for kind in PENALTY_KINDS:
        assert penalty_kind(kind) == kind
        assert penalty_kind(phrase_text(penalty_name(kind))) == kind
    assert penalty_kind("ペナルティ") is None


def test_a_hands_pots_are_named_not_numbered() -> None:
    ref = table()
    send(ref, "dealer", "!deal")
    for _ in range(3):
        who = ref.tables[ROOM].engine.to_act()
        if who is None:
            break
        send(ref, who, "フォールド")
    said = says(send(ref, "alice", "!hand 1"))
    assert any("ポット" in t for t in said), said
    assert not any("#0" in t for t in said), said


def test_a_deuces_hand_record_uses_the_rooms_words_and_shows_no_board(tmp_path: Path) -> None:
    """The room announced the play as 「勝負 100」: !hand says the same word, and a game
    without community cards has no 「ボード: （なし）」 line part."""
    path = tmp_path / "deuces.txt"
    path.write_text("\n".join([
        "# table: deuces ante=100", "# seat 1: alice 10000", "# seat 2: bob 10000",
        "# deal: alice=Ah Kd Qh 9c 5s | bob=Qc Jd 9d 6h 4s | dealer=Tc 8d 7h 5c 3c"
        " | shoe=Jc Jh 8c 7c 6c 2c 3d 4h",
        "alice: アンティ100", "bob: アンティ100", "alice: 5s を捨てる", "bob: フォールド",
        "alice: !hand 1"]) + "\n", encoding="utf-8")
    events = [e.to_json() for e in replay_events(path)]
    played = [e for e in events if e["event"] == "say" and "alice" in e["text"]
              and e["text"].startswith("aliceさん: 勝負")]
    assert played, [e.get("text") for e in events if e["event"] == "say"]
    record = [e["text"] for e in events if e["event"] == "say" and "アクション: " in e["text"]]
    assert record and "勝負" in record[-1] and "プレイ" not in record[-1], record
    lines = [e["text"] for e in events if e["event"] == "say"][-4:]
    assert not any("ボード" in t for t in lines), lines


def test_a_hand_is_named_the_same_way_in_every_game() -> None:
    """The hand number is said 「ハンド#N」 in every game's start and private-card lines, as
    !hand, the console and the flags say it (was ゲーム1 / 第1ハンド in the house games)."""
    from referee.lang.catalog import messages

    keys = ["omaha.hand_start", "omaha.your_cards", "holdem_aa.start", "holdem_aa.your_hand",
            "seven.start", "seven.start_npc", "deuces.start", "hand_header", "hand_unknown",
            "status_in_hand", "console_hand_label"]
    for key in keys:
        assert "ハンド#{hand}" in messages()[key], key
    for key, template in messages().items():
        assert "ゲーム{hand}" not in template and "第{hand}ハンド" not in template, key


def _forbidden_ids() -> set[str]:
    """The ids people must never read: every snake_case literal of the event models (penalty
    kinds, results, event kinds), the game ids, ledger reasons and pot numbers."""
    import typing

    import referee.events as ev

    out: set[str] = set()
    for cls in vars(ev).values():
        if isinstance(cls, type) and issubclass(cls, ev.Event):
            for info in cls.model_fields.values():
                for a in (info.annotation, *typing.get_args(info.annotation)):
                    if typing.get_origin(a) is typing.Literal:
                        out.update(str(x) for x in typing.get_args(a) if "_" in str(x))
    return out | {"interference", "dq", "grant", "penalty:", "#0", "omaha", "holdem_aa",
                  "seven", "deuces"}


def test_no_id_in_any_transcripts_room_or_private_lines() -> None:
    """Every ``say`` of every transcript's replay (all games, the service's, the language
    corpus's): no id a person could read (commands typed back, like 「!open omaha」, excepted)."""
    import re

    ids = _forbidden_ids()
    pattern = re.compile(r"(?<![A-Za-z_:!/@])("
                         + "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
                         + r")(?![A-Za-z_])")
    root = Path(__file__).parent / "transcripts"
    paths = sorted(root.rglob("*.txt"))
    assert len(paths) > 50
    found = []
    for path in paths:
        for e in replay_events(path):
            said = e.to_json()
            if said["event"] == "say":
                found += [(path.name, m, said["text"]) for m in pattern.findall(said["text"])]
    assert not found, found[:5]
