"""What the turn loop hands models: the system prompt, one assistant message per step, results."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Sequence
from typing import Any

from runtime_support import Connect, Harness

from agent.models.base import (
    ChatMessage,
    Finish,
    ModelDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolSpec,
    UsageDelta,
)


class RecordingModel:
    """Plays fixed steps and keeps a copy of every conversation it was given."""

    name = "recording"

    def __init__(self, steps: list[list[Any]]) -> None:
        self.steps = steps
        self.seen: list[list[ChatMessage]] = []
        self.tools: list[str] = []

    def stream(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], *, cwd: str
    ) -> AsyncIterator[ModelDelta]:
        self.seen.append(copy.deepcopy(list(messages)))
        self.tools = [tool["function"]["name"] for tool in tools]
        return self._play(self.steps[len(self.seen) - 1])

    async def _play(self, step: list[Any]) -> AsyncIterator[ModelDelta]:
        for delta in step:
            if isinstance(delta, Exception):
                raise delta
            yield delta


async def use(h: Harness, model: RecordingModel) -> str:
    sid = await h.new()
    h.agent._sessions[sid].model = model
    return sid


async def test_the_model_gets_one_assistant_message_per_step_and_the_results(
    connect: Connect,
) -> None:
    model = RecordingModel(
        [
            [
                ReasoningDelta("Read it "),
                ReasoningDelta("first."),
                TextDelta("Looking: "),
                ToolCallDelta("a", "read", '{"file_path": "x.txt"}'),
                ToolCallDelta("b", "nope", "{}"),
                UsageDelta(50, 7),
                Finish("tool_calls"),
            ],
            [TextDelta("Done."), Finish("stop")],
        ]
    )
    async with connect() as h:
        (h.workspace / "x.txt").write_text("hello\n")
        sid = await use(h, model)
        assert await h.prompt(sid, "read x") == "end_turn"
    assert model.tools == ["read", "write", "edit", "bash", "todo_write"]
    first, second = model.seen
    assert first[0]["role"] == "system" and str(h.workspace) in first[0]["content"]
    assert first[1:] == [{"role": "user", "content": "read x"}]
    assistant, result_a, result_b = second[2:]
    assert assistant == {
        "role": "assistant",
        "content": "Looking: ",
        "reasoning_content": "Read it first.",
        "tool_calls": [
            {
                "id": "a",
                "type": "function",
                "function": {"name": "read", "arguments": '{"file_path": "x.txt"}'},
            },
            {"id": "b", "type": "function", "function": {"name": "nope", "arguments": "{}"}},
        ],
    }
    assert result_a["tool_call_id"] == "a" and "hello" in result_a["content"]
    assert result_b == {
        "role": "tool",
        "tool_call_id": "b",
        "content": "Error: unknown tool 'nope' (the tools are read, write, edit, bash, todo_write)",
    }


async def test_a_model_that_raises_ends_the_turn_with_a_message(connect: Connect) -> None:
    model = RecordingModel([[TextDelta("Hal"), RuntimeError("socket closed")]])
    async with connect() as h:
        sid = await use(h, model)
        assert await h.prompt(sid, "go") == "end_turn"
        assert "**Error:** the model failed: RuntimeError: socket closed" in h.client.text(sid)


async def test_a_stream_without_a_finish_is_an_error(connect: Connect) -> None:
    model = RecordingModel([[ToolCallDelta("a", "todo_write", '{"todos": []}')]])
    async with connect() as h:
        sid = await use(h, model)
        assert await h.prompt(sid, "go") == "end_turn"
        assert "ended without a finish" in h.client.text(sid)
        final = h.client.results(sid)["a"]
        assert final["status"] == "failed"  # logged, shown, and never run
