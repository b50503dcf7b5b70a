"""Game engines: pure state machines, one per game. No I/O, no clock, no randomness of their own."""

from __future__ import annotations

from referee.rules.base import Deal, Engine, IllegalAction, OptionError

__all__ = ["Deal", "Engine", "IllegalAction", "OptionError", "create"]


def create(game: str, options: dict[str, str] | None = None) -> Engine:
    """A new table of ``game`` with ``# table:`` / ``!open`` options (``rules=world level=3``)."""
    from referee.definitions import load

    definition = load(game)
    if game == "omaha":
        from referee.rules.omaha import OmahaEngine

        return OmahaEngine(definition, options or {})
    if game == "holdem_aa":
        from referee.rules.holdem_aa import HoldemAAEngine

        return HoldemAAEngine(definition, options or {})
    if game == "seven":
        from referee.rules.seven import SevenEngine

        return SevenEngine(definition, options or {})
    if game == "deuces":
        from referee.rules.deuces import DeucesEngine

        return DeucesEngine(definition, options or {})
    raise OptionError(f"未知のゲームです: {game}")
