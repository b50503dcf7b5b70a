"""The one command reader (referee.lang.reader.read_command): every way of typing a command --
a full-width mark, a name in full width, invisible characters anywhere -- reads as the plain
form, for the reader itself, the service, the private-message routing and the adapters."""

from __future__ import annotations

import itertools
import random

import pytest

from referee.adapters.irc import is_moderator_command
from referee.commands import moderator_only
from referee.events import Event
from referee.inputs import Message
from referee.lang.reader import read_command
from referee.routing import private_route
from referee.service import Referee

ZWSP, ZWJ, BOM, LRM, SHY = "\u200b", "\u200d", "\ufeff", "\u200e", "\u00ad"

# (typed, what it reads as: name and arguments)
SAME_AS_STATUS = [
    "!status",
    "！status",  # the IME's full-width mark
    "！ｓｔａｔｕｓ",  # and the name in full width
    "﹗status",  # SMALL EXCLAMATION MARK (NFKC: !)
    " !status ",
    "\u3000！status",  # an ideographic space before it
    f"{ZWSP}!status",  # an invisible character before the mark
    f"{BOM}!status",
    f"{LRM}！status",
    f"!{ZWSP}status",  # … between the mark and the name
    f"!sta{ZWJ}tus",  # … inside the name
    f"!status{SHY}",
    "!STATUS",
]


@pytest.mark.parametrize("typed", SAME_AS_STATUS)
def test_every_form_reads_as_the_plain_command(typed: str) -> None:
    cmd = read_command(typed)
    assert cmd is not None
    assert (cmd.name, cmd.args) == ("status", ())


def test_arguments_are_read_in_nfkc() -> None:
    cmd = read_command(f"{ZWSP}！ｇｒａｎｔ　＠ｂｏｂ　１００")
    assert cmd is not None
    assert (cmd.name, cmd.args, cmd.word) == ("grant", ("@bob", "100"), "grant")
    assert read_command("!Grant @bob").word == "Grant"  # type: ignore[union-attr]


@pytest.mark.parametrize("typed", ["", "   ", ZWSP, "こ", "status!", "コール !status",
                                   "?status", "i!status", f"{ZWSP}こ"])
def test_not_commands(typed: str) -> None:
    assert read_command(typed) is None


def test_a_lone_mark_is_an_empty_command() -> None:
    cmd = read_command(f"{ZWSP}！ ")
    assert cmd is not None and cmd.word == "" and cmd.name == ""


_ids = itertools.count()


def _answer(ref: Referee, text: str, sender: str = "dealer", room: str = "!t",
            dm: bool = False) -> list[Event]:
    out = ref.process(Message(f"c{next(_ids)}", room, sender, text, None, dm))
    assert out is not None
    return out.events


def _table() -> Referee:
    ref = Referee(moderators=["dealer"], rng=random.Random(5))
    _answer(ref, "!open omaha level=1")
    _answer(ref, "!grant @alice 2000")
    _answer(ref, "!sit", sender="alice")
    return ref


@pytest.mark.parametrize("typed", SAME_AS_STATUS)
def test_the_service_answers_every_form_as_the_plain_command(typed: str) -> None:
    plain = _answer(_table(), "!status")
    assert [e.model_dump() for e in _answer(_table(), typed)] == [
        e.model_dump() for e in plain]


def test_an_invisible_mark_before_an_unknown_name_is_still_one_command() -> None:
    """The refusal names the command once, as typed, without the hidden character."""
    ref = _table()
    plain = _answer(ref, "!nosuch")
    hidden = _answer(ref, f"{ZWSP}!nosuch")
    assert [e.model_dump() for e in hidden] == [e.model_dump() for e in plain]
    assert all(ZWSP not in e.model_dump().get("text", "") for e in hidden)


def test_the_input_record_keeps_the_text_as_typed() -> None:
    ref = _table()
    typed = f"{ZWSP}！ｓｔａｔｕｓ"
    out = ref.process(Message("kept", "!t", "alice", typed))
    assert out is not None and out.input["text"] == typed


def test_routing_never_takes_the_command_for_a_room() -> None:
    ref = Referee(moderators=["dealer"])
    _answer(ref, "!open omaha", room="!abc:hs")
    # the command word looks like the room id; hidden behind an invisible mark it still is the
    # command, not the table's name
    assert private_route(ref, "dealer", f"{ZWSP}!abc:hs").room is None
    named = private_route(ref, "dealer", f"{ZWSP}！deal !abc:hs")
    assert (named.room, named.text, named.named) == ("!abc:hs", f"{ZWSP}！deal", True)


@pytest.mark.parametrize("typed,needs", [
    ("!deal", True), (f"{ZWSP}！配る", True), ("！ｂａｎｋ　＠ｂｏｂ", True), ("!bank", False),
    (f"{ZWSP}!sit", False), ("コール", False), (f"{ZWSP}", False),
])
def test_adapters_ask_the_same_reader(typed: str, needs: bool) -> None:
    assert moderator_only(read_command(typed)) is needs
    assert is_moderator_command(typed) is needs


def test_importing_the_commands_alone_knows_every_command() -> None:
    """An adapter that imports only referee.commands still sees the discipline's moderator
    commands (a fresh interpreter: nothing else imported first)."""
    import subprocess
    import sys

    code = ("from referee.commands import moderator_only; from referee.registry import listed;"
            "from referee.lang.reader import read_command;"
            "assert moderator_only(read_command('!confirm 1'));"
            "assert moderator_only(read_command('!penalties @bob'));"
            "from referee.parse import command_name;"
            "assert {'confirm', 'dismiss', 'flags', 'penalty', 'penalties'} <= set(listed());"
            "assert all(command_name(n) == n for n in listed())")
    subprocess.run([sys.executable, "-c", code], check=True)
