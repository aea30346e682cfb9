"""The user's MCP servers as the SDK sends them in session/new, session/load and session/resume,
and the mask that keeps their env and header values out of the inspector and recordings.

Stdio servers go to every agent; an http or sse server only to an agent whose
`mcpCapabilities` advertise that transport. Each one left out gets one notice saying why.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from acp.schema import (
    AcpMcpServer,
    EnvVariable,
    HttpHeader,
    HttpMcpServer,
    InitializeResponse,
    McpServerStdio,
    SseMcpServer,
)

from dsh_common.jsonrpc_lines import LineTap
from tui.sanitize import clean_line
from tui.user_config import McpServer

SdkServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio
MASK = "••••"
SESSION_METHODS = ("session/new", "session/load", "session/resume")


def sdk_server(server: McpServer) -> SdkServer:
    if server.transport == "stdio":
        env = [EnvVariable(name=key, value=value) for key, value in server.env]
        return McpServerStdio(
            name=server.name, command=server.command, args=list(server.args), env=env
        )
    headers = [HttpHeader(name=key, value=value) for key, value in server.headers]
    if server.transport == "http":
        return HttpMcpServer(name=server.name, url=server.url, headers=headers, type="http")
    return SseMcpServer(name=server.name, url=server.url, headers=headers, type="sse")


def for_agent(
    servers: Sequence[McpServer], init: InitializeResponse
) -> tuple[list[SdkServer], list[str]]:
    """The servers this agent can take, and a notice for each one it cannot."""
    caps = init.agent_capabilities
    mcp = caps.mcp_capabilities if caps is not None else None
    offered = {"stdio": True, "http": bool(mcp and mcp.http), "sse": bool(mcp and mcp.sse)}
    passed: list[SdkServer] = []
    notices: list[str] = []
    for server in servers:
        if offered[server.transport]:
            passed.append(sdk_server(server))
        else:
            notices.append(
                f"MCP server {clean_line(server.name)} not passed: the agent does not advertise "
                f"mcpCapabilities.{server.transport}"
            )
    return passed, notices


def masked_params(params: Any) -> bool:
    """Mask every env and header value of the `mcpServers` in `params`; True if any was."""
    servers = params.get("mcpServers") if isinstance(params, dict) else None
    changed = False
    for server in servers if isinstance(servers, list) else []:
        for key in ("env", "headers"):
            pairs = server.get(key) if isinstance(server, dict) else None
            for pair in pairs if isinstance(pairs, list) else []:
                if isinstance(pair, dict) and "value" in pair:
                    pair["value"] = MASK
                    changed = True
    return changed


def masked_line(line: bytes) -> bytes:
    """The line with its MCP servers' secrets masked; any other line as it is."""
    if b'"mcpServers"' not in line:
        return line
    try:
        message = json.loads(line)
    except ValueError:
        return line
    if not isinstance(message, dict) or message.get("method") not in SESSION_METHODS:
        return line
    if not masked_params(message.get("params")):
        return line
    end = b"\n" if line.endswith(b"\n") else b""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + end


class MaskingTap:
    """A tap that sees the client's lines with the MCP servers' secrets masked."""

    def __init__(self, tap: LineTap) -> None:
        self.tap = tap

    def line_in(self, line: bytes, valid_json: bool) -> None:
        self.tap.line_in(line, valid_json)

    def line_out(self, line: bytes) -> None:
        self.tap.line_out(masked_line(line))

    def oversized_in(self, size: int, head: bytes) -> None:
        self.tap.oversized_in(size, head)
