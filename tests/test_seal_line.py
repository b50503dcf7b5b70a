"""The deck-seal line (a hand's commitment, docs/fairness.md) is the table's own line: said when
the table opens and when a hand ends, never inside the answer to whatever someone types first
(「!status」, a private question, a !sit) -- the terminal printed it as the first line of that
answer, IRC queued it as a reply to the asker (paced, and dropped with the asker's surplus), a
Matrix private question got it in the outcome of a DM. A refused !deal leaves the sealed deck
waiting instead of sealing a second, different one for the same hand."""

from __future__ import annotations

import asyncio
import itertools
import random
from pathlib import Path

from event_helpers import handle, of

from referee.adapters.terminal import Terminal
from referee.events import Event
from referee.inputs import Message, Tick
from referee.service import Referee

ROOM = "!seal:example.org"
_ids = itertools.count()


def send(ref: Referee, sender: str, text: str, dm: bool = False) -> list[Event]:
    return handle(ref, Message(id=f"s{next(_ids)}", room=ROOM, sender=sender, text=text,
                               time=1_700_000_000.0 + next(_ids), dm=dm))


def opened() -> tuple[Referee, list[Event]]:
    ref = Referee(moderators=["dealer"], rng=random.Random(5))
    for p in ("alice", "bob"):
        send(ref, "dealer", f"!grant @{p} 5000")
    return ref, send(ref, "dealer", "!open omaha level=1")


def test_the_seal_is_a_line_of_the_tables_opening() -> None:
    _, events = opened()
    seals = of(events, "deal_commitment")
    assert [s["hand"] for s in seals] == [1]
    said = [e["text"] for e in of(events, "say")]
    assert len(said) == 2 and seals[0]["sha256"] in said[1], said  # after 「…を開きました」


def test_no_first_command_is_answered_with_the_seal() -> None:
    for first, dm in (("!status", False), ("!status", True), ("!rules", False), ("!sit", False),
                      ("こんばんは", False), ("!help", True)):
        ref, _ = opened()
        events = send(ref, "alice", first, dm=dm)
        assert not of(events, "deal_commitment"), (first, dm)
        assert not any("SHA-256" in e["text"] for e in of(events, "say")), (first, dm)


def test_a_refused_deal_keeps_the_sealed_deck() -> None:
    ref, events = opened()
    sealed = of(events, "deal_commitment")[0]["sha256"]
    send(ref, "alice", "!sit")
    refused = send(ref, "dealer", "!deal")  # one player: no hand
    assert not of(refused, "hand_start") and not of(refused, "deal_commitment")
    send(ref, "bob", "!sit")
    dealt = send(ref, "dealer", "!deal")
    assert of(dealt, "hand_start") and not of(dealt, "deal_commitment")
    ending = send(ref, ref.tables[ROOM].engine.to_act() or "", "フォールド")
    reveal = of(ending, "deal_reveal")
    assert reveal and reveal[0]["hand"] == 1 and reveal[0]["sha256"] == sealed
    # the hand's end seals the next one, in the same outcome: the table's line again
    assert [s["hand"] for s in of(ending, "deal_commitment")] == [2]


def test_the_terminal_prints_the_seal_under_the_opening(tmp_path: Path) -> None:
    term = Terminal(Referee(moderators=["dealer"], rng=random.Random(2)), room=ROOM)
    opening = [e.to_json() for e in term.line("dealer: !open seven")]
    assert of(opening, "deal_commitment")
    for line in ("alice (dm): !status", "alice: !sit", "bob: !rules"):
        assert not of([e.to_json() for e in term.line(line)], "deal_commitment"), line


def test_irc_sends_the_seal_to_the_channel_as_a_table_line(tmp_path: Path) -> None:
    """The bot in-process (no server): the seal is queued for the channel as the table's line,
    not as a reply to anyone; the first !status's replies hold nothing but its answer."""
    from referee.adapters.irc import IrcBot, IrcConfig
    from referee.commands import asks_only

    async def go() -> None:
        bot = IrcBot(IrcConfig(server="127.0.0.1", port=6667, channels=["#t"],
                               database=tmp_path / "b.db", nick="referee",
                               moderators=["dealer"]))
        try:
            bot.session.registered = True
            bot.session.joined.add("#t")
            room = bot.session.room("#t")
            ref = bot.referee
            for text, who in (("!open deuces", "dealer"), ("!status", "alice")):
                out = ref.process(Message(f"i{next(_ids)}", room, who, text, 1.7e9, False))
                assert out is not None
                bot.outbox.deliver(out.events, room, who, who, answer=asks_only(text))
            seal = [x for x in bot.outbox.lines if "SHA-256" in x.text]
            assert len(seal) == 1 and not seal[0].reply and seal[0].asker is None
            answers = [x.text for x in bot.outbox.lines if x.asker == "alice"]
            assert answers and not any("SHA-256" in t for t in answers), answers
        finally:
            bot.close()

    asyncio.run(go())


def test_a_database_saved_before_rebuilds_the_seals_it_announced() -> None:
    """Inputs saved before this change sealed the first deck at the first input after !open
    (and again after a refused !deal): a rebuild takes every seed as recorded, so the pending
    commitment is the one the room was last told, not one this version would have made."""
    from referee.store import Store

    store = Store(":memory:")
    ref = Referee(moderators=["dealer"], persistence=store, rng=random.Random(4))
    for p in ("alice", "bob"):
        send(ref, "dealer", f"!grant @{p} 5000")
    send(ref, "dealer", "!open omaha level=1")
    send(ref, "alice", "!sit")
    send(ref, "dealer", "!deal")  # refused: one player
    send(ref, "bob", "!sit")
    store.commit()
    records = list(store.inputs())
    at = next(i for i, r in enumerate(records) if r.get("commits"))
    seed = records[at].pop("commits")[0]
    # as the older version drew them: at alice's !sit, and again after the refused !deal
    records[at + 1]["commits"] = ["ab" * 32]
    records[at + 3]["commits"] = ["cd" * 32]
    rebuilt = Referee(moderators=["dealer"])
    rebuilt.rebuild(records)
    pending = rebuilt.tables[ROOM].fair
    assert pending is not None and pending.seed == "cd" * 32 != seed


def test_irc_sends_what_the_clock_did_as_the_tables_lines_not_a_reply(tmp_path: Path) -> None:
    """A spectator's !status while the player to act has run out of time: the timeout's fold,
    the hand's end, its reveal and the next deck's seal are the table's lines (queued for the
    channel, no asker); the asker's replies are the status alone. Before, the message's own
    clock tick put them all in its outcome, delivered as replies to the asker."""
    import time

    from referee.adapters.irc import IrcBot, IrcConfig

    async def go() -> None:
        bot = IrcBot(IrcConfig(server="127.0.0.1", port=6667, channels=["#t"],
                               database=tmp_path / "b.db", nick="referee",
                               moderators=["dealer"]))
        try:
            bot.session.registered = True
            bot.session.joined.add("#t")
            room = bot.session.room("#t")
            ref = bot.referee
            start = time.time() - 10_000  # the hand was dealt long before the clock's limit
            for who, text in (("dealer", "!grant @alice 5000"), ("dealer", "!grant @bob 5000"),
                              ("dealer", "!open omaha level=1"), ("alice", "!sit"),
                              ("bob", "!sit"), ("dealer", "!deal")):
                ref.process(Message(f"i{next(_ids)}", room, who, text, start, False))
            ref.process(Tick(f"i{next(_ids)}", room, start + 1))  # the wait starts
            assert ref.wants_tick(room)
            bot.take(room, "carol", "!status", False, "carol", "#t", True, time.time())
            table = [x.text for x in bot.outbox.lines if x.asker is None and not x.reply]
            answers = [x.text for x in bot.outbox.lines if x.asker == "carol"]
            assert any("SHA-256" in t for t in table), table  # the hand ended: the next seal
            assert answers and not any("SHA-256" in t for t in answers), answers
            assert len(answers) == 1, answers
        finally:
            bot.close()

    asyncio.run(go())
