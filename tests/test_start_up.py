"""What a command loads before its work, and the collector settings the bots start with."""

from __future__ import annotations

import gc
import subprocess
import sys

from referee.adapters import gc_tuning
from referee.games import game_ids, listed_ids


def test_the_command_line_is_built_without_loading_a_game() -> None:
    """``referee --help`` names the games without importing their specs (pydantic, engines)."""
    code = ("import sys; from referee.cli import build_parser; build_parser().format_help(); "
            "print(sorted(m for m in ('pydantic', 'referee.games.omaha.spec', 'referee.hands')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_listed_ids_are_the_registered_games() -> None:
    assert listed_ids() == game_ids()


def test_tune_freezes_what_start_up_made_and_raises_the_thresholds() -> None:
    before = gc.get_threshold()
    gc_tuning._tuned = False  # this process may have run a terminal session already
    try:
        gc_tuning.tune()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == gc_tuning.AUTOMATIC
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
