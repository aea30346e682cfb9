"""The one event -> `session/update` translation, shared by live turns and `session/load` replay.

`translate` is pure apart from the presenter it is handed (which remembers each in-flight
call's card), so feeding the same events to a fresh presenter yields the same updates: that
is the whole replay design (`docs/wire-contract.md` §7). Live turns pass
`include_user=False` because the client already shows the prompt it sent; replay includes it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias, assert_never

from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    SessionInfoUpdate,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
    UserMessageChunk,
)

from agent.attachments import attachments_from_json
from agent.events import (
    Event,
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
)
from agent.presenter import SessionPresenter
from agent.tools.base import ToolResult
from dsh_common.attachments import shown_prompt

EventUpdate: TypeAlias = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | SessionInfoUpdate
    | UsageUpdate
)
"""Every update a session event can become: a part of the SDK's union of session updates
(`SessionNotification.update`), which the connection takes whole; mode, config and command
updates are session chrome, sent by `agent.session` beside the events."""

_NOTICE_LABELS = {"info": "Note", "warning": "Warning", "error": "Error"}


def notice_markdown(text: str, level: str) -> str:
    """A notice as its own Markdown paragraph, so it stands apart from the answer around it."""
    label = _NOTICE_LABELS.get(level, "Note")
    return f"\n\n> **{label}:** {text}\n\n"


def _text(text: str) -> TextContentBlock:
    return TextContentBlock(type="text", text=text)


def translate(
    event: Event, presenter: SessionPresenter, *, include_user: bool = True
) -> list[EventUpdate]:
    """The updates one event shows; bookkeeping events (turn and step bounds) show nothing."""
    match event:
        case UserMessage():
            if not include_user:
                return []
            attached = [a.shown for a in attachments_from_json(event.attachments)]
            shown = shown_prompt(event.text, attached)
            return [UserMessageChunk(session_update="user_message_chunk", content=_text(shown))]
        case TextChunk():
            return [
                AgentMessageChunk(session_update="agent_message_chunk", content=_text(event.text))
            ]
        case ReasoningChunk():
            return [
                AgentThoughtChunk(session_update="agent_thought_chunk", content=_text(event.text))
            ]
        case ToolCall():
            return list(presenter.on_call(event.call_id, event.name, event.arguments, event.meta))
        case ToolOutput():
            return list(presenter.on_output(event.call_id, event.data))
        case ToolFinished():
            result = ToolResult(event.output, event.is_error, event.meta)
            return list(presenter.on_result(event.call_id, event.name, {}, result))
        case Title():
            return [SessionInfoUpdate(session_update="session_info_update", title=event.title)]
        case Notice():
            text = notice_markdown(event.text, event.level)
            return [AgentMessageChunk(session_update="agent_message_chunk", content=_text(text))]
        case Usage():
            used = event.input_tokens + event.output_tokens
            return [
                UsageUpdate(session_update="usage_update", used=used, size=event.context_window)
            ]
        case TurnStart() | StepEnd() | TurnEnd():
            return []
        case _:
            assert_never(event)


def replay(events: Iterable[Event], cwd: str, terminal_cards: bool) -> list[EventUpdate]:
    """A whole log's updates for `session/load`, through a throwaway presenter.

    Throwaway, so a call of the log never lingers in the live session's presenter; the
    capability is the loading connection's, so a log shows as that client can display it.
    """
    presenter = SessionPresenter(cwd, terminal_cards)
    return [update for event in events for update in translate(event, presenter)]


__all__ = ["EventUpdate", "notice_markdown", "replay", "translate"]
