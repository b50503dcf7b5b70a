"""The options of an omaha table (``# table: omaha key=value…``, ``!open omaha key=value…``),
read against the game's definition (``definition.toml``): a separate step because a wrong
option must be refused before any table exists, with a message naming the option and what
it takes."""

from __future__ import annotations

from typing import Any

from referee.games.omaha.rules import OmahaRules
from referee.rules.base import OptionError
from referee.rules.tournament import parse_payouts

_ONOFF = {"on": True, "off": False, "true": True, "false": False, "1": True, "0": False}
# numeric options and their minimum
_COUNTS = {"maxbuyin": 0, "stack": 1, "entry": 0, "level_hands": 0, "level_minutes": 0}
_TOURNAMENT_ONLY = frozenset({"stack", "entry", "level_hands", "level_minutes", "payouts"})


def parse_options(rules: OmahaRules, options: dict[str, str]) -> dict[str, Any]:
    """The table's settings: the definition's defaults overridden by ``options``; OptionError
    for an unknown key or a value out of range."""
    t = rules.tournament
    out: dict[str, Any] = {
        "rules": rules.rules, "level": rules.level, "limit": rules.limit,
        "ante": rules.ante, "equal": rules.equal, "maxbuyin": rules.max_buyin,
        "tournament": False, "stack": t.stack, "entry": t.entry,
        "level_hands": t.level_hands, "level_minutes": t.level_minutes,
        "payouts": tuple(t.payouts),
    }
    given = set(options)
    for key, raw in options.items():
        val = str(raw).strip().lower()
        shown = str(raw)
        if key in _COUNTS:
            if not val.isdigit() or int(val) < _COUNTS[key]:
                raise OptionError("omaha.option_count", key=key, min=_COUNTS[key], raw=shown)
            out[key] = int(val)
            if key == "level_hands":
                out["level_minutes"] = 0 if "level_minutes" not in given else out["level_minutes"]
            elif key == "level_minutes":
                out["level_hands"] = 0 if "level_hands" not in given else out["level_hands"]
        elif key == "payouts":
            out["payouts"] = parse_payouts(shown)
        elif key in ("tournament", "ante", "equal"):
            if val not in _ONOFF:
                raise OptionError("omaha.option_onoff", key=key, raw=shown)
            out[key] = _ONOFF[val]
        elif key == "rules":
            if val not in ("loj", "world"):
                raise OptionError("omaha.option_rules", raw=shown)
            out["rules"] = val
        elif key == "level":
            if not val.isdigit() or not 1 <= int(val) <= len(rules.levels):
                raise OptionError("omaha.option_level", levels=len(rules.levels), raw=shown)
            out["level"] = int(val)
        elif key == "limit":
            if val not in ("pot", "no", "fixed"):
                raise OptionError("omaha.option_limit", raw=shown)
            out["limit"] = val
        else:
            raise OptionError("omaha.option_unknown", key=key)
    tour_only = given & _TOURNAMENT_ONLY
    if not out["tournament"] and tour_only:
        raise OptionError("omaha.option_tournament_only", key=sorted(tour_only)[0])
    if out["tournament"] and "maxbuyin" in given:
        raise OptionError("omaha.option_tournament_maxbuyin")
    if out["tournament"] and out["level_hands"] and out["level_minutes"]:
        raise OptionError("omaha.option_level_both")
    return out
