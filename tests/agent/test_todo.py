"""todo_write: whole-list replacement, validation, and the plan it produces."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.tools.base import ToolContext, ToolResult
from agent.tools.todo import TodoWriteTool
from agent.views import GenericCallView, PlanItem

todo = TodoWriteTool()


async def test_a_valid_list_is_accepted(tmp_path: Path) -> None:
    args = {
        "todos": [
            {"content": "  Read the code ", "status": "completed"},
            {"content": "Fix the bug", "status": "in_progress"},
            {"content": "Run the tests", "status": "pending"},
            {"content": "Write notes", "status": "pending"},
        ]
    }
    result = await todo.execute(args, ToolContext(tmp_path))
    assert result == ToolResult(
        "Updated todo list: 2 pending, 1 in progress, 1 completed.",
        meta={
            "todos": [
                {"content": "Read the code", "status": "completed"},
                {"content": "Fix the bug", "status": "in_progress"},
                {"content": "Run the tests", "status": "pending"},
                {"content": "Write notes", "status": "pending"},
            ]
        },
    )
    assert todo.present_plan(args, result) == [
        PlanItem("Read the code", "completed"),
        PlanItem("Fix the bug", "in_progress"),
        PlanItem("Run the tests", "pending"),
        PlanItem("Write notes", "pending"),
    ]


async def test_an_empty_list_clears_the_plan(tmp_path: Path) -> None:
    result = await todo.execute({"todos": []}, ToolContext(tmp_path))
    assert result.output == "Updated todo list: 0 pending, 0 in progress, 0 completed."
    assert todo.present_plan({"todos": []}, result) == []


@pytest.mark.parametrize(
    ("todos", "message"),
    [
        (None, "Error: argument 'todos' must be a list of {content, status} objects"),
        ("a, b", "Error: argument 'todos' must be a list of {content, status} objects"),
        (["x"], "Error: todo 1 must be an object with content and status"),
        (
            [{"content": "  ", "status": "pending"}],
            "Error: todo 1 needs a non-empty content string",
        ),
        ([{"status": "pending"}], "Error: todo 1 needs a non-empty content string"),
        (
            [{"content": "a", "status": "pending"}, {"content": " a", "status": "completed"}],
            "Error: todo 2 repeats 'a'; each todo must be unique",
        ),
        (
            [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}],
            "Error: at most one todo may be in_progress at a time",
        ),
        (
            [{"content": "a", "status": "done"}],
            "Error: status must be one of pending, in_progress, completed, not 'done'",
        ),
    ],
)
async def test_invalid_lists_are_rejected(tmp_path: Path, todos: object, message: str) -> None:
    args = {"todos": todos}
    result = await todo.execute(args, ToolContext(tmp_path))
    assert result == ToolResult(message, True)
    assert todo.present_plan(args, result) is None


def test_card() -> None:
    todos = [{"content": "a", "status": "pending"}]
    assert todo.present_call({"todos": todos}) == GenericCallView(
        card="generic", title="Update todo list", kind="other", raw_input={"todos": todos}
    )
    assert todo.present_result({"todos": todos}, ToolResult("Updated")) is None


def test_plan_comes_from_the_accepted_meta_only() -> None:
    assert todo.present_plan({}, ToolResult("x", meta=None)) is None
    assert todo.present_plan({}, ToolResult("x", meta={"todos": [{"content": "a"}]})) is None
    meta = {"todos": [{"content": "a", "status": "pending"}]}
    assert todo.present_plan({}, ToolResult("x", meta=meta)) == [PlanItem("a", "pending")]
