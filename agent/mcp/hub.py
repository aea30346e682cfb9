"""A session's MCP servers: connected in parallel, each within its timeout, stopped together.

A server that fails to start is reported once (`start` returns the messages) and left out;
the session goes on with the others.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.jsonvalue import JsonObject
from agent.mcp.spec import ServerSpec, Unsupported

if TYPE_CHECKING:  # the SDK is imported only by sessions that have MCP servers
    from mcp import types

    from agent.mcp.connection import McpConnection
    from agent.mcp.tool import McpTool

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 30.0
TIMEOUT_ENV = "DSH_MCP_TIMEOUT"
"""Seconds a server may take to start and list its tools (default 30)."""


def connect_timeout() -> float:
    try:
        value = float(os.environ.get(TIMEOUT_ENV, ""))
    except ValueError:
        return CONNECT_TIMEOUT_S
    return value if value > 0 else CONNECT_TIMEOUT_S


@dataclass(frozen=True, slots=True)
class McpPrompt:
    """A server's prompt, offered as the slash command `/SERVER:PROMPT`."""

    command: str
    connection: McpConnection
    prompt: types.Prompt


class McpHub:
    """Every MCP server of one session and the tools they offer."""

    def __init__(self, specs: Sequence[ServerSpec] = (), cwd: str = "/", timeout: float = 0):
        self.connections: list[McpConnection] = []
        if specs:
            from agent.mcp.connection import McpConnection

            wait = timeout or connect_timeout()
            self.connections = [McpConnection(spec, cwd, wait) for spec in specs]
        self.tools: dict[str, McpTool] = {}
        self.prompts: dict[str, McpPrompt] = {}
        self.failed: dict[str, str] = {}

    async def start(self, unsupported: Sequence[Unsupported] = ()) -> list[str]:
        """Connect every server at once; one message per server that could not be used."""
        from agent.mcp.connection import McpError
        from agent.mcp.tool import McpTool

        results = await asyncio.gather(
            *(connection.start() for connection in self.connections), return_exceptions=True
        )
        problems = [f"MCP server {u.name} is not used: {u.reason}" for u in unsupported]
        for connection, result in zip(self.connections, results, strict=True):
            name = connection.spec.name
            if isinstance(result, BaseException):
                error = str(result) if isinstance(result, McpError) else repr(result)
                log.warning("MCP server %s failed to start: %s", name, error)
                self.failed[name] = error
                problems.append(f"MCP server {name} failed to start: {error}")
                continue
            for tool in connection.tools:
                mcp_tool = McpTool(connection, tool)
                self.tools.setdefault(mcp_tool.name, mcp_tool)
            for prompt in connection.prompts:
                command = f"{connection.spec.key}:{prompt.name}"
                self.prompts.setdefault(command, McpPrompt(command, connection, prompt))
            log.info("MCP server %s: %d tool(s)", name, len(connection.tools))
        return problems

    def specs(self) -> list[JsonObject]:
        """The tools as OpenAI function specs, beside the agent's own."""
        return [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            }
            for tool in self.tools.values()
        ]

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self.connections), return_exceptions=True)


__all__ = ["CONNECT_TIMEOUT_S", "TIMEOUT_ENV", "McpHub", "McpPrompt", "connect_timeout"]
