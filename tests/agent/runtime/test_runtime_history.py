"""The model's messages, rebuilt from events: one assistant message per step, results after."""

from __future__ import annotations

from agent.events import (
    Notice,
    ReasoningChunk,
    StepEnd,
    TextChunk,
    ToolCall,
    ToolFinished,
    ToolOutput,
    TurnEnd,
    TurnStart,
    Usage,
    UserMessage,
)
from agent.history import History


def feed(*events: object) -> History:
    history = History()
    for event in events:
        history.feed(event)  # type: ignore[arg-type]
    return history


def test_tool_step_then_text_step() -> None:
    history = feed(
        TurnStart(1),
        UserMessage("list files"),
        ReasoningChunk("I should "),
        ReasoningChunk("run ls."),
        ToolCall("call_1", "bash", '{"command": "ls"}'),
        Usage(10, 2, 128_000),
        StepEnd("tool_calls"),
        ToolOutput("call_1", "a\n"),
        ToolFinished("call_1", "bash", "a\n", False),
        TextChunk("One "),
        TextChunk("file."),
        StepEnd("stop"),
        TurnEnd("end_turn"),
    )
    assert history.messages == [
        {"role": "user", "content": "list files"},
        {
            "role": "assistant",
            "content": None,
            "reasoning_content": "I should run ls.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "bash", "arguments": '{"command": "ls"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "a\n"},
        {"role": "assistant", "content": "One file."},
    ]
    assert history.open_calls == {}
    assert history.turns == 1 and not history.turn_open


def test_an_empty_step_still_counts_as_one_assistant_message() -> None:
    history = feed(TurnStart(1), UserMessage("hi"), StepEnd("stop"), TurnEnd("end_turn"))
    assert history.messages[-1] == {"role": "assistant", "content": ""}


def test_slash_command_turns_are_not_shown_to_the_model() -> None:
    history = feed(
        TurnStart(1, command=True),
        UserMessage("/mode ask"),
        TextChunk("Mode: ask"),
        TurnEnd("end_turn"),
        TurnStart(2),
        UserMessage("hello"),
    )
    assert history.messages == [{"role": "user", "content": "hello"}]
    assert history.turns == 2 and history.turn_open


def test_a_cancelled_step_is_closed_before_its_aborted_results() -> None:
    history = feed(
        TurnStart(1),
        UserMessage("go"),
        TextChunk("Running"),
        ToolCall("call_1", "bash", "{}"),
        ToolCall("call_2", "read", "{}"),
        Notice("x"),
    )
    assert history.open_calls == {"call_1": "bash", "call_2": "read"}
    history.feed(ToolFinished("call_1", "bash", "Error: command aborted", True))
    history.feed(ToolFinished("call_2", "read", "Error: aborted", True))
    roles = [message["role"] for message in history.messages]
    assert roles == ["user", "assistant", "tool", "tool"]
    assert history.messages[1]["content"] == "Running"
    assert history.call_ids == {"call_1", "call_2"}
