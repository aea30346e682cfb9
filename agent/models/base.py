"""The model seam: what the turn loop needs from any model, and nothing more.

A model turns the whole conversation (OpenAI chat format) into a stream of deltas. The loop
owns tools, permissions and the session log, so a model never executes anything; it only
says what to call. Keeping the seam this narrow is what lets the offline, scripted and
networked models be swapped per session and replayed in tests.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias

ChatMessage: TypeAlias = dict[str, Any]
"""One OpenAI chat message: role system|user|assistant|tool, content, tool_calls, tool_call_id."""

ToolSpec: TypeAlias = dict[str, Any]
"""One OpenAI function tool: {"type": "function", "function": {name, description, parameters}}."""

FinishReason: TypeAlias = Literal["stop", "tool_calls", "length", "error", "cancelled"]


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the visible answer (Markdown)."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """A piece of the model's thinking, shown as a thought chunk."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """One complete tool call; models buffer fragments so the loop never sees half a call."""

    id: str
    name: str
    arguments: str  # the JSON text, exactly as the model produced it


# A model server is as untrusted as a client: a tool call's id and name reach the wire (the
# id keys the client's card and may be shown), so escapes in them must never get through.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    r"|[\x1b][\]PX^_].*?(?:\x07|\x1b\\|\x9c|\Z)"  # OSC, DCS, SOS, PM, APC strings
    r"|[\x90\x98\x9d\x9e\x9f].*?(?:\x07|\x1b\\|\x9c|\Z)"  # ... in their 8-bit forms
    r"|\x1b.?",  # any other escape
    re.DOTALL,
)
_ID_CHARS = re.compile(r"[^A-Za-z0-9._:+=@-]")
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]")
MAX_CALL_ID_CHARS = 128
MAX_TOOL_NAME_CHARS = 64


def clean_call_id(raw: str) -> str:
    """A model's tool-call id with escape sequences and every character outside
    `A-Z a-z 0-9 . _ : + = @ -` removed (controls, C1, bidi and invisible characters
    included), at most 128 characters. Empty when nothing is left: the caller generates one."""
    return _ID_CHARS.sub("", _ESCAPES.sub("", raw))[:MAX_CALL_ID_CHARS]


def clean_tool_name(raw: str) -> str:
    """A model's tool name made safe to show: each escape sequence or character outside
    `A-Z a-z 0-9 _ . -` becomes `?`, at most 64 characters. A name that needed cleaning can
    never equal a real tool's, so such a call fails as an unknown tool."""
    return _NAME_CHARS.sub("?", _ESCAPES.sub("?", raw))[:MAX_TOOL_NAME_CHARS] or "?"


@dataclass(frozen=True, slots=True)
class UsageDelta:
    """Token counts for one model call."""

    input_tokens: int
    output_tokens: int


@dataclass(frozen=True, slots=True)
class NoticeDelta:
    """Something the user should see that is not the answer, e.g. a retry after a 429."""

    text: str


@dataclass(frozen=True, slots=True)
class Finish:
    """The last delta of every stream; `message` explains an "error" finish."""

    reason: FinishReason
    message: str | None = None


ModelDelta: TypeAlias = (
    TextDelta | ReasoningDelta | ToolCallDelta | UsageDelta | NoticeDelta | Finish
)


class Model(Protocol):
    """Anything the turn loop can drive.

    `stream` is called once per step with the whole conversation. It always ends with exactly
    one `Finish` and never raises for model failures (they become `Finish("error", ...)`);
    only task cancellation propagates, as `asyncio.CancelledError`.
    """

    @property
    def name(self) -> str: ...

    def stream(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], *, cwd: str
    ) -> AsyncIterator[ModelDelta]: ...


# Helpers shared by the local models (offline, scripted). They derive everything from the
# messages, so a model object holds no per-session state and one instance can serve many
# sessions, live or replayed.

_WORDISH = re.compile(r"\S+\s*|\s+")


def word_chunks(text: str) -> list[str]:
    """Split text into word-sized pieces (whitespace kept) so clients see real streaming."""
    return _WORDISH.findall(text)


def message_text(message: Mapping[str, Any]) -> str:
    """The text of a message whose content is a string or a list of OpenAI content parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and part.get("type", "text") == "text"
        ]
        return "".join(parts)
    return ""


def last_user_index(messages: Sequence[ChatMessage]) -> int:
    """Index of the last user message, or -1 when there is none."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == "user":
            return index
    return -1


def steps_since_user(messages: Sequence[ChatMessage]) -> int:
    """How many model calls this turn has already made: the assistant messages since the user's.

    The loop appends one assistant message per step, so the next step's 0-based index is this.
    """
    start = last_user_index(messages) + 1
    return sum(1 for message in messages[start:] if message.get("role") == "assistant")


def prior_tool_call_count(messages: Sequence[ChatMessage]) -> int:
    """Tool calls already made in the whole conversation, to number new ones deterministically."""
    count = 0
    for message in messages:
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        if isinstance(calls, list):
            count += len(calls)
    return count


def call_id(number: int) -> str:
    """The id of the `number`-th tool call of a session (1-based): stable across replays."""
    return f"call_{number}"


def tool_names_by_id(messages: Sequence[ChatMessage]) -> dict[str, str]:
    """Map tool call ids to tool names, from the assistant messages' tool_calls."""
    names: dict[str, str] = {}
    for message in messages:
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        if not isinstance(calls, list):
            continue
        for call in calls:
            if isinstance(call, Mapping):
                function = call.get("function")
                name = function.get("name") if isinstance(function, Mapping) else None
                names[str(call.get("id"))] = str(name or "tool")
    return names


def json_arguments(arguments: Mapping[str, Any]) -> str:
    """Serialize tool arguments the same way every time, so logs and snapshots are stable."""
    return json.dumps(arguments, ensure_ascii=False)
