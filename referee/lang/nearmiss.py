"""Near misses: a message that talks about an action but is not one.

When the player whose decision the table awaits writes 「コールかなぁ」 or 「降りようかな」, the bot
must not stay silent (the clock would fold them two minutes later): it says what it could not
read and what it accepts. Whether a message "talks about an action" is a question of vocabulary,
the action-word table (``grammar/words/``, the rows used for "nearmiss"); chat without any of
those words gets no answer. ``grammar/nearmiss.toml`` lists the command words players type
without ``!`` (「退席」).
"""

from __future__ import annotations

import re
import tomllib
from functools import cache

from referee import resources
from referee.lang import action_words
from referee.lang.normalize import fold_nfkc
from referee.lang.vocab import marks

NEARMISS = resources.GRAMMAR / "nearmiss.toml"


@cache
def _data() -> tuple[re.Pattern[str], frozenset[str]]:
    data = tomllib.loads(NEARMISS.read_text(encoding="utf-8"))
    words = sorted(set(action_words.nearmiss_words()), key=len, reverse=True)
    # ASCII words must stand apart from other letters ("call" is not in "recall").
    alts = [rf"(?<![a-z]){re.escape(w)}(?![a-z])" if w.isascii() else re.escape(w) for w in words]
    commands = frozenset(fold_nfkc(str(w)) for w in data.get("commands", []))
    return re.compile("|".join(alts)), commands


def mentions_action(norm: str) -> bool:
    """Whether folded text ``norm`` contains action vocabulary (コール, 降り, レイズ, 捨て…)."""
    return _data()[0].search(norm) is not None


def command_word(norm: str) -> str | None:
    """The command word a message is, typed without ``!`` (「退席」), or None."""
    word = norm.strip(marks("command_word_strip"))
    return word if word in _data()[1] else None
