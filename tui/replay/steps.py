"""Where a stepped replay stops: before each thing a person would call the next step.

A recording streams a reply as dozens of chunks, so one wire message per key press shows a
thought growing word by word under its folded title: the key seems to do nothing. A step is
instead a unit of the transcript: a run of chunks of one kind (a thought, a reply, the user's
message), a tool call with every update that follows it, or the end of a turn (the answer to
`session/prompt`, after which the next prompt goes). Everything else (plans, usage, commands,
permission questions, terminal requests) goes with the unit it comes in. Pure: no Textual.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tui.replay.recording import Entry

CHUNKS = frozenset({"agent_message_chunk", "agent_thought_chunk", "user_message_chunk"})


def _update_kind(message: dict[str, Any]) -> str | None:
    params = message.get("params")
    update = params.get("update") if isinstance(params, dict) else None
    kind = update.get("sessionUpdate") if isinstance(update, dict) else None
    return kind if isinstance(kind, str) else None


def step_starts(entries: Sequence[Entry], prompt_ids: frozenset[object]) -> list[bool]:
    """For each entry, whether a stepped replay waits for a key before it. Only agent
    messages (incoming) can start a step; `prompt_ids` are the ids of the client's
    `session/prompt` requests, whose answers end a turn."""
    starts: list[bool] = []
    current: str | None = None  # the kind of chunk run being played, if any
    for entry in entries:
        start = False
        message = entry.message
        if entry.incoming and message is not None:
            if entry.method == "session/update":
                kind = _update_kind(message)
                if kind in CHUNKS:
                    start = kind != current
                    current = kind
                elif kind == "tool_call":
                    start, current = True, None
            elif entry.is_response and _key(entry.request_id) in prompt_ids:
                start, current = True, None
        starts.append(start)
    return starts


def _key(request_id: object) -> object:
    return request_id if isinstance(request_id, str | int | float | None) else repr(request_id)


def prompt_request_ids(entries: Sequence[Entry]) -> frozenset[object]:
    """The ids of the client's `session/prompt` requests in the recording."""
    return frozenset(
        _key(entry.request_id)
        for entry in entries
        if not entry.incoming and entry.method == "session/prompt" and entry.has_id
    )
