"""The agent's tools, by name, and their OpenAI function-calling specs."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from agent.jsonvalue import JsonObject
from agent.tools.base import PlanTool, Tool, ToolContext, ToolResult
from agent.tools.bash import BashTool
from agent.tools.fs import EditTool, ReadTool, WriteTool
from agent.tools.todo import TodoWriteTool

_TOOLS: tuple[Tool, ...] = (ReadTool(), WriteTool(), EditTool(), BashTool(), TodoWriteTool())

ALL_TOOLS: Mapping[str, Tool] = MappingProxyType({tool.name: tool for tool in _TOOLS})
"""Every tool by name: read, write, edit, bash, todo_write."""


def openai_tool_specs(tools: Mapping[str, Tool] = ALL_TOOLS) -> list[JsonObject]:
    """The `tools=[{"type": "function", ...}]` list for an OpenAI-compatible chat request."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }
        for tool in tools.values()
    ]


__all__ = [
    "ALL_TOOLS",
    "PlanTool",
    "Tool",
    "ToolContext",
    "ToolResult",
    "openai_tool_specs",
]
