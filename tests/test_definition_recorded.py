"""A table runs under the definition it was opened with (docs/rules.md, rulings on tables): the
opening input records it, so a re-run after the file changed -- a restart without a usable
snapshot, ``referee check --snapshots`` -- gives the same banks and seats as the ledger, and the
edited file applies only to tables opened after it changed. A real definition file (a copy)
and a real SQLite store."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from referee import definitions
from referee.inputs import Message
from referee.service import Referee
from referee.store import Store


@pytest.fixture
def omaha_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = tmp_path / "definition.toml"
    shutil.copy(definitions.path_of("omaha"), copy)
    real = definitions.path_of

    def path_of(game: str) -> Path:
        return copy if game == "omaha" else real(game)

    monkeypatch.setattr(definitions, "path_of", path_of)
    return copy


def test_an_edited_definition_changes_no_past_bank(omaha_file: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    store = Store(db)
    ref = Referee(moderators=["dealer"], rng=random.Random(11))
    ref.persistence = store
    n = 0

    def say(who: str, text: str, room: str = "!a") -> None:
        nonlocal n
        n += 1
        ref.process(Message(f"m{n}", room, who, text, time=100.0 + n))

    for p in ("alice", "bob", "carol"):
        say("dealer", f"!grant @{p} 2000")
    say("dealer", "!open omaha level=1")
    say("alice", "!sit")
    say("bob", "!sit")
    assert ref.table_chips("alice") == {"!a": 20000}
    # the file changes: an equal-value game from now on (no x10 on sitting, no /10 on leaving)
    text = omaha_file.read_text().replace("equal = false", "equal = true")
    assert text != omaha_file.read_text()
    omaha_file.write_text(text)
    say("alice", "!leave")  # the open table keeps its definition: 20,000 chips are 2,000P
    assert ref.bank.balance("alice") == 2000
    # a table opened now runs under the edited file
    say("dealer", "!open omaha level=1", room="!b")
    say("carol", "!sit", room="!b")
    assert ref.table_chips("carol") == {"!b": 2000}
    live = ref.state()
    store.close()
    # a full re-run of the stored inputs (no snapshot) agrees with the ledger and the seats
    again = Store(db)
    full = Referee(moderators=["dealer"])
    full.rebuild(again.stream_inputs(0))
    assert full.bank.balances() == {p: b for p, b in again.balances().items()}
    assert full.state()["tables"] == live["tables"]
    assert full.state()["balances"] == live["balances"]
    again.close()


def test_a_recorded_definition_is_the_file_as_it_was() -> None:
    for game in ("omaha", "holdem_aa", "seven", "deuces"):
        d = definitions.load(game)
        assert definitions.from_record(definitions.to_record(d)) == d
