"""Session events survive a trip through JSON, and anything else is refused."""

from __future__ import annotations

import json

import pytest

from agent.events import (
    EVENT_CLASSES,
    EventError,
    Notice,
    ReasoningChunk,
    StepEnd,
    TextChunk,
    Title,
    ToolCall,
    ToolFinished,
    ToolOutput,
    TurnEnd,
    TurnStart,
    Usage,
    UserMessage,
    event_from_json,
    event_to_json,
)

SAMPLES = [
    TurnStart(3, command=True),
    UserMessage("fix the test\nplease"),
    TextChunk("Done "),
    ReasoningChunk("hmm"),
    ToolCall("call_1", "bash", '{"command": "ls"}'),
    ToolOutput("call_1", "a\nb\n"),
    ToolFinished("call_1", "edit", "ok", False, {"diffs": [{"path": "/a", "newText": "x"}]}),
    StepEnd("tool_calls"),
    Title("Fix the test"),
    Notice("Rate limited; retrying", "warning"),
    Usage(1200, 40, 128_000),
    TurnEnd("cancelled"),
]


def test_every_event_kind_has_a_sample() -> None:
    assert {type(event) for event in SAMPLES} == set(EVENT_CLASSES)


@pytest.mark.parametrize("event", SAMPLES, ids=lambda event: type(event).__name__)
def test_round_trip_through_json_text(event: object) -> None:
    record = json.loads(json.dumps(event_to_json(event)))  # type: ignore[arg-type]
    assert record["type"] == type(event).type  # type: ignore[attr-defined]
    assert event_from_json(record) == event


def test_defaults_may_be_omitted() -> None:
    assert event_from_json({"type": "turn/start", "turn": 1}) == TurnStart(1, False)
    assert event_from_json({"type": "notice", "text": "x"}) == Notice("x", "info")


def test_extra_keys_such_as_seq_and_time_are_ignored() -> None:
    record = {"seq": 4, "time": "2026-01-01T00:00:00Z", "type": "assistant/text", "text": "hi"}
    assert event_from_json(record) == TextChunk("hi")


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ([], "JSON object"),
        ({"type": "nope"}, "unknown event type"),
        ({"type": "assistant/text"}, "missing field 'text'"),
        ({"type": "assistant/text", "text": 3}, "'text' must be str"),
        ({"type": "usage", "input_tokens": True, "output_tokens": 1, "context_window": 1}, "int"),
        ({"type": "tool/result", "call_id": "c", "name": "n", "output": "", "is_error": 1}, "bool"),
    ],
)
def test_bad_records_are_refused(record: object, message: str) -> None:
    with pytest.raises(EventError, match=message):
        event_from_json(record)
