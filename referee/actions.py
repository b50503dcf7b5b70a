"""What a chat message means, independent of any table (the parser's output, the engines' input).

Mirrors docs/contracts.md §2. Resolution against a table (whose turn, the call amount, a raise
with no live bet becoming a bet, a pot-sized amount) is the engines' job, not the parser's.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

Kind = Literal["action", "command", "chat"]
ActionName = Literal[
    "fold", "check", "call", "bet", "raise", "allin", "open", "muck", "close",
    "hyper_raise", "extra_raise", "discard", "play", "ante",
]


class Parsed(BaseModel):
    """One chat message, parsed. Cards are canonical strings (``As``), amounts integer chips."""

    model_config = ConfigDict(frozen=True)

    kind: Kind
    action: ActionName | None = None
    amount: int | None = None
    to: int | None = None
    pot: bool | None = None
    aa: int | None = None
    cards: list[str] | None = None
    hand: str | None = None
    keep: list[str] | None = None
    discard: list[str] | None = None
    command: str | None = None
    args: list[str] | None = None
    hand_info: bool = False
    advice: bool = False
    elsewhere: str | None = None  # chat tagged for another game (its id) or table (table:N)

    def to_json(self) -> dict[str, Any]:
        """The docs/contracts.md §2 object: unset keys left out, the two flags always present."""
        return self.model_dump(exclude_none=True)


def action(name: ActionName, **kw: Any) -> Parsed:
    """Shorthand for tests and the engines: ``action("raise", to=1800)``."""
    return Parsed(kind="action", action=name, **kw)
