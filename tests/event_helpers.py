"""Helpers every test file shares: filters over events, whether they are the engines' typed
events or their JSON dicts (replay output, the store). Import them as
``from event_helpers import of, says, kinds, as_json`` (pytest puts ``tests/`` on the path; a
module, not ``conftest.py``: tests/irc and tests/matrix have conftests of their own, and the
name ``conftest`` would be theirs)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from pydantic import ConfigDict

from referee.events import Event, Say
from referee.inputs import Directive, Input, Tick
from referee.rules.base import IllegalAction
from referee.rules.voice import refusal_text, rendered
from referee.service import Referee

EventLike = Event | dict[str, Any]


def as_json(events: Iterable[EventLike]) -> list[dict[str, Any]]:
    """Every event as its JSON dict (docs/contracts.md §3 shape): an engine's ``say`` with its
    sentence rendered, as the service's turn renders it."""
    return [rendered(e).to_json() if isinstance(e, Event) else e for e in events]


def of(events: Iterable[EventLike], kind: str, **match: Any) -> list[dict[str, Any]]:
    """The events of ``kind`` whose fields equal ``match``, as dicts."""
    return [e for e in as_json(events)
            if e["event"] == kind and all(e.get(k) == v for k, v in match.items())]


def says(events: Iterable[EventLike], to: str = "room") -> list[str]:
    """The texts the bot said to ``to`` (the room, or a player's name)."""
    return [e["text"] for e in of(events, "say", to=to)]


def said_keys(events: Iterable[Event], to: str = "room") -> list[str]:
    """The catalogue keys of what the bot said to ``to``: what a test asserts of a sentence
    (its wording is the voice and catalogue tests')."""
    return [str(e.key) for e in events if isinstance(e, Say) and e.to == to]


def told(events: Iterable[Event], to: str = "room") -> list[str]:
    """:func:`said_keys`, a refusal named by its code: what a command or an action was refused
    for (``command_refused`` / ``action_refused`` / ``command_bad_options`` say the refusal's
    code as their ``reason``)."""
    out = []
    for e in events:
        if not isinstance(e, Say) or e.to != to:
            continue
        reason = (e.params or {}).get("reason")
        wraps = e.key in ("command_refused", "action_refused", "command_bad_options")
        out.append(str(reason["key"]) if wraps and isinstance(reason, dict) else str(e.key))
    return out


def said(events: Iterable[Event], key: str, to: str = "room") -> list[dict[str, Any]]:
    """The parameters of every ``key`` line said to ``to`` (nested phrases as they are)."""
    return [dict(e.params or {}) for e in events
            if isinstance(e, Say) and e.to == to and e.key == key]


def kinds(events: Iterable[EventLike]) -> list[str]:
    """The kinds of the events, in order."""
    return [e["event"] for e in as_json(events)]


class LooseEvent(Event):
    """An event of any shape: for tests that feed the store what the referee never builds (the
    referee's own kinds are closed, see referee.rules.registry.event_types)."""

    model_config = ConfigDict(extra="allow", frozen=True)


def handle(ref: Referee, inp: Input) -> list[Event]:
    """The events one input caused at ``ref`` ([] when it was processed already)."""
    out = ref.process(inp)
    return out.events if out is not None else []


def directive(ref: Referee, input_id: str, room: str, name: str,
              args: dict[str, Any]) -> list[Event]:
    """A directive (``# seat:``, ``# deal:`` …) at ``ref``; raises DirectiveError."""
    return handle(ref, Directive(input_id, room, name, args))


def tick(ref: Referee, input_id: str, room: str, now: float) -> list[Event]:
    """The action clock at ``now`` with no message."""
    return handle(ref, Tick(input_id, room, now))
@contextmanager
def refused_with(code: str, /, **params: Any) -> Iterator[None]:
    """The block raises IllegalAction with this catalogue ``code`` and (those given of) its
    parameters: what a refusal means, asserted without its Japanese wording (the voice and
    catalogue tests pin the sentences)."""
    with pytest.raises(IllegalAction) as info:
        yield
    got = info.value
    reason = refusal_text(got.code, got.params)
    assert got.code == code, (got.code, got.params, reason)
    assert {k: got.params.get(k) for k in params} == params, (got.params, reason)
