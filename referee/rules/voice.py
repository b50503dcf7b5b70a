"""What every game says when it accepts an action: one line in the room, the same in every game
(「aliceさん: コール 100」). The house games (referee.rules.house) and omaha
(referee.rules.omaha.rounds) both say it from here; the words are the catalogue's
(voice.toml ``ack*`` and ``act_*``).
"""

from __future__ import annotations

from referee.events import Say
from referee.lang.catalog import text

__all__ = ["acknowledge"]


def acknowledge(who: str, action: str, amount: int = 0, aa: int = 0) -> Say:
    """The one line that tells the room an action was accepted (「aliceさん: コール 100」);
    ``who`` is the seat as the room knows it (「aliceさん」, 「ディーラー席」), ``action`` an
    ``act_*`` word of the catalogue, ``amount`` the chips it names (0: none)."""
    words = text(f"act_{action}")
    if action == "ante" and aa:
        return Say(to="room", text=text("ack_ante_aa", who=who, ante=amount - aa, aa=aa))
    if amount:
        return Say(to="room", text=text("ack_amount", who=who, action=words, amount=amount))
    return Say(to="room", text=text("ack", who=who, action=words))
