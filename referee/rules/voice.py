"""What every game says when it accepts an action: one line in the room, the same in every game
(「aliceさん: コール 100」). The house games (referee.rules.house) and omaha
(referee.games.omaha.rounds) both say it from here; the words are the catalogue's
(voice.toml ``ack*`` and ``act_*``).
"""

from __future__ import annotations

from typing import Any

from referee.events import Say
from referee.games import is_game, spec
from referee.lang.catalog import messages, text

__all__ = ["acknowledge", "action_figure", "action_word", "result_word"]


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


def action_word(game: str, action: str) -> str:
    """The word the room uses for an ``action`` event's id in ``game`` (omaha's raise is a
    メイク, seven's a レイズ): the records (history, ``!hand``, the console) say the same."""
    if is_game(game):
        action = spec(game).action_words.get(action, action)
    key = f"act_{action}"
    return text(key) if key in messages() else text("act_other")


def typed_form(game: str, action: Any) -> str:
    """How a player types a parsed ``action`` (a :class:`~referee.actions.Parsed`) so that it is
    read: the room's word, then the figure or the cards (コール, メイク1800)."""
    word = action_word(game, str(action.action))
    figure = action.to if action.to is not None else action.amount
    cards = action.cards or action.keep or action.discard or []
    return word + (str(figure) if figure is not None else "") + (
        " " + " ".join(cards) if cards else "")


def action_figure(game: str, ev: dict[str, Any]) -> int:
    """The chips an ``action`` event's line names, as the room's acknowledgement names them:
    omaha's bet, make and all-in say the total (``to``), everything else what it put in."""
    to = ev.get("to")
    if to and is_game(game) and ev.get("action") in spec(game).total_actions:
        return int(to)
    return int(ev.get("amount") or 0)


def result_word(result: str) -> str:
    """A ``settle`` result's word (勝ち, ディーラーフォールド …), as the settlement line says it."""
    key = f"result_{result}"
    return text(key) if key in messages() else text("result_other")
