"""What a hand's page in the console draws from a :class:`~referee.records.replay.ReplayedHand`:
its steps as stored (the figures, checked against the events by tests/test_replayer.py) and
one Japanese line per step, in the room's words where the room has them (the history's
renderings: :func:`referee.history.action_line`, :func:`~referee.history.shown_item`,
:func:`~referee.history.settle_line`) and the catalogue's ``console_step_*`` otherwise."""

from __future__ import annotations

import json
from typing import Any

from referee.faces import CARD_FACES as CARD_FACES
from referee.history import action_line, settle_line, shown_item
from referee.lang.catalog import chips, messages, text
from referee.records.replay import ReplayedHand, Step


def _label(group: str, value: str) -> str:
    key = f"console_{group}_{value}"
    return text(key) if key in messages() else value


def _amounts(shares: dict[str, Any]) -> str:
    return ", ".join(f"{p} {chips(int(v))}" for p, v in shares.items())


def _pot(d: dict[str, Any]) -> str:
    shares = _amounts(d.get("shares") or {})
    index = int(d.get("index") or 0)
    if index == 0:
        return text("console_pot_main", amount=int(d["amount"]), shares=shares)
    return text("console_pot_side", index=index, amount=int(d["amount"]), shares=shares)


def _board(d: dict[str, Any]) -> str:
    cards = " ".join(CARD_FACES.get(c, c) for c in d.get("cards") or [])
    return text("console_street", street=_label("street", str(d.get("street", "")))) + " " + cards


_SIMPLE = {"returned", "topup", "compensation", "joker", "bonus", "exposed", "misdeal", "fa_void",
           "flag", "penalty", "house"}


def step_line(game: str, step: Step) -> str:
    """One step as a moderator reads it."""
    d, kind = step.data, step.kind
    if kind == "action":
        return action_line(game, d)
    if kind == "shown":
        return shown_item(game, d)
    if kind == "settle":
        return settle_line(game, d)
    if kind == "board":
        return _board(d)
    if kind == "pot":
        return _pot(d)
    if kind == "rake":
        return text("hand_rake", rake=int(d["amount"]))
    if kind == "post":
        return text("console_step_post", posted=_amounts(d.get("posted") or {}))
    if kind == "nogame":
        return text("console_step_nogame", payments=_amounts(d.get("payments") or {}))
    if kind in _SIMPLE:
        fields = dict(d)
        if kind in ("flag", "penalty"):
            fields["kind"] = _label("kind", str(d.get("kind", "")))
        fields.setdefault("player", "")
        return text(f"console_step_{kind}", **fields)
    return text("console_step_other")


def replay_json(h: ReplayedHand) -> str:
    """The stored replay of a hand: its table, number, seats, steps and one line per step."""
    data = h.to_json()
    del data["room"]  # a room's id is never shown: the table's number names it
    data["lines"] = [step_line(h.game, s) for s in h.steps]
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
