"""The todo_write tool: the agent's plan, replaced whole on every call.

Whole-list replacement keeps the log simple (the last write wins, on replay too) and lets a
client render the ACP `plan` update as-is. The validated list is stored in the result's `meta`,
and the plan update is read from there, so what the user sees is exactly what was accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import get_args

from agent.jsonvalue import JsonObject, JsonValue, as_object
from agent.tools.base import ToolArgsError, ToolContext, ToolResult
from agent.views import (
    GenericCallView,
    PlanItem,
    PlanStatus,
    ToolCallView,
    ToolResultView,
)

_STATUSES: tuple[PlanStatus, ...] = get_args(PlanStatus)


def _status(value: object) -> PlanStatus:
    for status in _STATUSES:
        if value == status:
            return status
    raise ToolArgsError(f"status must be one of {', '.join(_STATUSES)}, not {value!r}")


def parse_todos(args: Mapping[str, object]) -> list[PlanItem]:
    """Validate the list: contents trimmed, non-empty and unique; at most one in progress."""
    todos = args.get("todos")
    if not isinstance(todos, list):
        raise ToolArgsError("argument 'todos' must be a list of {content, status} objects")
    items: list[PlanItem] = []
    seen: set[str] = set()
    for number, todo in enumerate(todos, 1):
        if not isinstance(todo, dict):
            raise ToolArgsError(f"todo {number} must be an object with content and status")
        content = todo.get("content")
        if not isinstance(content, str) or not content.strip():
            raise ToolArgsError(f"todo {number} needs a non-empty content string")
        content = content.strip()
        if content in seen:
            raise ToolArgsError(f"todo {number} repeats {content!r}; each todo must be unique")
        seen.add(content)
        items.append(PlanItem(content, _status(todo.get("status"))))
    if sum(item.status == "in_progress" for item in items) > 1:
        raise ToolArgsError("at most one todo may be in_progress at a time")
    return items


def _items_to_meta(items: list[PlanItem]) -> JsonObject:
    todos: list[JsonValue] = [{"content": i.content, "status": i.status} for i in items]
    return {"todos": todos}


def _items_from_meta(meta: JsonValue) -> list[PlanItem] | None:
    if not isinstance(meta, dict):
        return None
    try:
        return parse_todos(meta)
    except ToolArgsError:
        return None


class TodoWriteTool:
    """`todo_write {todos: [{content, status}]}`: replace the plan."""

    name = "todo_write"
    read_only = True  # it changes only the agent's own plan, never the user's files
    description = (
        "Replace your todo list (the plan shown to the user) with the given list. Send the "
        "whole list every time. Use it for multi-step work: keep exactly one item in_progress "
        "while working and mark items completed as soon as they are done."
    )
    parameters: JsonObject = {
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "description": "The complete new list, in order.",
                "items": {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string", "description": "The task, briefly."},
                        "status": {"type": "string", "enum": list(_STATUSES)},
                    },
                    "required": ["content", "status"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["todos"],
        "additionalProperties": False,
    }

    def present_call(self, args: Mapping[str, object]) -> ToolCallView | None:
        todos = args.get("todos")
        if not isinstance(todos, list):
            return None
        return GenericCallView(
            card="generic", title="Update todo list", kind="other", raw_input=as_object(args)
        )

    def present_result(
        self, args: Mapping[str, object], result: ToolResult
    ) -> ToolResultView | None:
        return None

    def present_plan(self, args: Mapping[str, object], result: ToolResult) -> list[PlanItem] | None:
        """The plan as accepted (from `meta`); none for a rejected call."""
        if result.is_error:
            return None
        return _items_from_meta(result.meta)

    async def execute(self, args: Mapping[str, object], ctx: ToolContext) -> ToolResult:
        try:
            items = parse_todos(args)
        except ToolArgsError as exc:
            return ToolResult.error(str(exc))
        pending = sum(item.status == "pending" for item in items)
        active = sum(item.status == "in_progress" for item in items)
        done = sum(item.status == "completed" for item in items)
        return ToolResult(
            f"Updated todo list: {pending} pending, {active} in progress, {done} completed.",
            meta=_items_to_meta(items),
        )
