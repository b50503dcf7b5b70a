"""Events are a closed set of typed kinds: every event any transcript produces is an
instance of the one class registered for its kind, and its JSON reads back, through
:func:`referee.rules.registry.parse_event`, as an equal event: the replay's (a sentence
rendered) as the same JSON, the store's (a sentence as its catalogue key and parameters) as the
same event once the voice renders it again."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.adapters.transcript import replay_events
from referee.events import Event, event_json, fact_json
from referee.rules.registry import event_types, parse_event
from referee.rules.voice import rendered

TRANSCRIPTS = sorted((Path(__file__).resolve().parent / "transcripts").rglob("*.txt"))


def test_kinds_are_unique_and_typed() -> None:
    kinds = event_types()
    assert {"say", "action", "hand_start", "hand_end", "settle", "deal_reveal", "bank",
            "flag_decided", "fa_applied", "nogame"} <= set(kinds)
    assert all(issubclass(cls, Event) for cls in kinds.values())
    assert all(cls.model_config.get("frozen") for cls in kinds.values())


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown event kind"):
        parse_event({"event": "teleport", "player": "alice"})
    with pytest.raises(ValueError):
        parse_event({"event": "say", "to": "room"})  # a say without its text or key


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_event_of_a_transcript_is_its_kinds_class(path: Path) -> None:
    import json

    from referee.adapters.transcript import TranscriptError

    kinds = event_types()
    try:
        events = replay_events(path)
    except TranscriptError:
        pytest.skip("a deliberately malformed transcript")
    for ev in events:
        assert type(ev) is kinds[ev.event], (ev.event, type(ev).__qualname__)
        again = parse_event(json.loads(event_json(ev)))
        assert again.to_json() == ev.to_json(), ev.event
        stored = parse_event(json.loads(fact_json(ev)))
        assert rendered(stored) == ev, ev.event


def test_a_refusal_carries_its_catalogue_code() -> None:
    """Tests and tools assert what was refused by its code, not by its wording."""
    from referee.lang.catalog import messages

    path = Path(__file__).resolve().parent / "transcripts" / "omaha" / "rejected.txt"
    refused = [e for e in replay_events(path) if e.event == "rejected"]
    assert [(e.text, e.code) for e in refused] == [  # type: ignore[attr-defined]
        ("メイク30", "omaha.make_range"), ("メイク100", "omaha.make_range"),
        ("レイズ", "omaha.amount_needed"), ("チェック", "omaha.no_check"),
        ("オープン", "omaha.not_showdown"), ("オールイン", "omaha.allin_over_max"),
        ("ベット10", "omaha.make_range"), ("こ", "omaha.already_folded")]
    assert all(e.code in messages() for e in refused)  # type: ignore[attr-defined]
