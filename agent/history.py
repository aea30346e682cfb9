"""The model's view of a session: OpenAI chat messages rebuilt from session events.

Live turns and loaded sessions feed the same events through `History`, so a resumed session
continues with exactly the conversation the model saw before. The rules the models rely on:
one assistant message per model step (even a text-only or empty one, since the offline and
scripted models count them), carrying `reasoning_content` and `tool_calls`; then one `tool`
message per result. A prompt's attached files follow its text in the user message
(`agent.attachments.user_content`). Slash-command turns are the user's business, not the
model's, and are left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.attachments import attachments_from_json, user_content
from agent.events import (
    Event,
    ReasoningChunk,
    StepEnd,
    TextChunk,
    ToolCall,
    ToolFinished,
    TurnEnd,
    TurnStart,
    UserMessage,
)
from agent.models.base import ChatMessage


@dataclass
class _Step:
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)


class History:
    """Accumulates events into chat messages, and tracks calls still waiting for a result."""

    def __init__(self) -> None:
        self.messages: list[ChatMessage] = []
        self.turns = 0
        self.call_ids: set[str] = set()
        self.open_calls: dict[str, str] = {}  # call id -> tool name, in call order
        self.turn_open = False
        self._step: _Step | None = None
        self._in_command = False

    def feed(self, event: Event) -> None:
        """Apply one event. Bookkeeping (ids, open calls) counts every turn, commands too."""
        if isinstance(event, TurnStart):
            self._close_step()
            self.turns = max(self.turns, event.turn)
            self.turn_open = True
            self._in_command = event.command
            return
        if isinstance(event, TurnEnd):
            self._close_step()
            self.turn_open = False
            self._in_command = False
            return
        if isinstance(event, ToolCall):
            self.call_ids.add(event.call_id)
            self.open_calls[event.call_id] = event.name
        elif isinstance(event, ToolFinished):
            self.open_calls.pop(event.call_id, None)
        if self._in_command:
            return
        match event:
            case UserMessage():
                self._close_step()
                attached = attachments_from_json(event.attachments)
                content = user_content(event.text, attached)
                self.messages.append({"role": "user", "content": content})
            case TextChunk():
                self._current().text.append(event.text)
            case ReasoningChunk():
                self._current().reasoning.append(event.text)
            case ToolCall():
                self._current().calls.append(event)
            case StepEnd():
                self._current()
                self._close_step()
            case ToolFinished():
                self._close_step()
                self.messages.append(
                    {"role": "tool", "tool_call_id": event.call_id, "content": event.output}
                )
            case _:
                pass

    def _current(self) -> _Step:
        if self._step is None:
            self._step = _Step()
        return self._step

    def _close_step(self) -> None:
        """Turn the pending step into its one assistant message."""
        step, self._step = self._step, None
        if step is None:
            return
        text = "".join(step.text)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if step.reasoning:
            message["reasoning_content"] = "".join(step.reasoning)
        if step.calls:
            message["content"] = text or None
            message["tool_calls"] = [
                {
                    "id": call.call_id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in step.calls
            ]
        self.messages.append(message)


__all__ = ["History"]
