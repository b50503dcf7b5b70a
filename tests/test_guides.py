"""The Japanese guides cover every command and every game: a command added to the
registry without a line in the guides fails here."""

from __future__ import annotations

from pathlib import Path

from referee.commands import COMMANDS
from referee.definitions import load
from referee.rules.registry import games

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_every_player_command_is_in_the_player_guide() -> None:
    guide = (DOCS / "player-guide.md").read_text(encoding="utf-8")
    missing = [n for n, c in COMMANDS.items() if not c.moderator and f"!{n}" not in guide]
    assert not missing


def test_every_command_is_in_the_moderator_guide() -> None:
    guide = (DOCS / "moderator-guide.md").read_text(encoding="utf-8")
    missing = [n for n, c in COMMANDS.items() if c.moderator and f"!{n}" not in guide]
    assert not missing


def test_every_game_has_its_section_in_the_player_guide() -> None:
    guide = (DOCS / "player-guide.md").read_text(encoding="utf-8")
    names = [load(g).name for g in games()]
    missing = [n for n in names if f"### {n.split('（')[0]}" not in guide]
    assert not missing, missing
