"""Session events: what happened in a session, in order, as plain JSON-round-trippable records.

Events are the single source of truth for a session. The turn loop appends each one to the
session log before anything reaches the client; `agent.translate` turns it into ACP updates,
live and again on `session/load`; `agent.history` turns the same stream into the model's chat
messages. Keeping them provider- and ACP-neutral is what lets all three agree.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

from agent.jsonvalue import JsonObject, JsonValue, as_json


class EventError(ValueError):
    """A log record that is not a valid event (unknown type, missing or mistyped field)."""


@dataclass(frozen=True, slots=True)
class TurnStart:
    """A prompt began a turn; `command` marks a slash command, which the model never sees."""

    type: ClassVar[str] = "turn/start"
    turn: int
    command: bool = False


@dataclass(frozen=True, slots=True)
class UserMessage:
    """The prompt text as the user sent it, and the files attached to it.

    `attachments` is a list of `agent.attachments.Attachment` records, embedded text
    included, so a loaded session shows and gives the model the same files as the live one.
    """

    type: ClassVar[str] = "user/message"
    text: str
    attachments: JsonValue = None


@dataclass(frozen=True, slots=True)
class TextChunk:
    """One streamed piece of the assistant's answer; kept as sent so replay is token by token."""

    type: ClassVar[str] = "assistant/text"
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningChunk:
    """One streamed piece of the model's reasoning (a thought chunk)."""

    type: ClassVar[str] = "assistant/reasoning"
    text: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    """The model asked for a tool; `arguments` is the JSON text exactly as the model sent it.

    `meta` is what the tool read about the workspace when the call was received (the edit
    tool: the line `old_string` starts on), so its card renders the same live and on replay.
    """

    type: ClassVar[str] = "tool/call"
    call_id: str
    name: str
    arguments: str
    meta: JsonValue = None


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """Live output of a running tool (bash); logged so a replay streams the same chunks."""

    type: ClassVar[str] = "tool/output"
    call_id: str
    data: str


@dataclass(frozen=True, slots=True)
class ToolFinished:
    """A tool call's result; `meta` is the tool-private value its result card is read from."""

    type: ClassVar[str] = "tool/result"
    call_id: str
    name: str
    output: str
    is_error: bool
    meta: JsonValue = None


@dataclass(frozen=True, slots=True)
class StepEnd:
    """One model call finished (`finish` is its finish reason): closes one assistant message."""

    type: ClassVar[str] = "step/end"
    finish: str


@dataclass(frozen=True, slots=True)
class Title:
    """The session's title, taken from its first prompt."""

    type: ClassVar[str] = "session/title"
    title: str


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the user must see that is not the model's answer: a retry, a failure, a limit."""

    type: ClassVar[str] = "notice"
    text: str
    level: str = "info"  # info | warning | error


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one model call, with the context window they are measured against."""

    type: ClassVar[str] = "usage"
    input_tokens: int
    output_tokens: int
    context_window: int


@dataclass(frozen=True, slots=True)
class TurnEnd:
    """The turn is over; `stop_reason` is the ACP stop reason, or "interrupted" after a crash."""

    type: ClassVar[str] = "turn/end"
    stop_reason: str


Event: TypeAlias = (
    TurnStart
    | UserMessage
    | TextChunk
    | ReasoningChunk
    | ToolCall
    | ToolOutput
    | ToolFinished
    | StepEnd
    | Title
    | Notice
    | Usage
    | TurnEnd
)

EVENT_CLASSES: tuple[type[Event], ...] = (
    TurnStart,
    UserMessage,
    TextChunk,
    ReasoningChunk,
    ToolCall,
    ToolOutput,
    ToolFinished,
    StepEnd,
    Title,
    Notice,
    Usage,
    TurnEnd,
)
_BY_TYPE: dict[str, type[Event]] = {cls.type: cls for cls in EVENT_CLASSES}

# Field annotations are strings (postponed evaluation); these are the only ones events use.
_CHECKS: dict[str, tuple[type, ...] | None] = {
    "str": (str,),
    "int": (int,),
    "bool": (bool,),
    "JsonValue": None,  # any JSON value
}


def event_to_json(event: Event) -> JsonObject:
    """The log record of an event: `{"type": ..., field: value, ...}`."""
    record: JsonObject = {"type": event.type}
    for spec in dataclasses.fields(event):
        record[spec.name] = as_json(getattr(event, spec.name))
    return record


def event_from_json(record: Any) -> Event:
    """Read a log record back; anything that is not exactly an event raises EventError."""
    if not isinstance(record, dict):
        raise EventError("an event must be a JSON object")
    kind = record.get("type")
    cls = _BY_TYPE.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise EventError(f"unknown event type {kind!r}")
    values: dict[str, Any] = {}
    for spec in dataclasses.fields(cls):
        if spec.name not in record:
            if spec.default is dataclasses.MISSING:
                raise EventError(f"{kind}: missing field {spec.name!r}")
            continue
        value = record[spec.name]
        expected = _CHECKS[str(spec.type)]
        wrong_bool = expected == (int,) and isinstance(value, bool)
        if expected is not None and (not isinstance(value, expected) or wrong_bool):
            raise EventError(f"{kind}: field {spec.name!r} must be {spec.type}")
        values[spec.name] = value
    return cls(**values)


__all__ = [
    "EVENT_CLASSES",
    "Event",
    "EventError",
    "Notice",
    "ReasoningChunk",
    "StepEnd",
    "TextChunk",
    "Title",
    "ToolCall",
    "ToolFinished",
    "ToolOutput",
    "TurnEnd",
    "TurnStart",
    "Usage",
    "UserMessage",
    "event_from_json",
    "event_to_json",
]
