"""What the client asked for: one `ServerSpec` per entry of `mcpServers`, transport-neutral."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from acp.schema import AcpMcpServer, HttpMcpServer, McpServerStdio, SseMcpServer

from agent.mcp.names import safe_server

Transport = Literal["stdio", "http", "sse"]
AcpServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio


@dataclass(frozen=True, slots=True)
class ServerSpec:
    """One server: `name` is the client's, `key` the safe unique name its tools go by."""

    name: str
    key: str
    transport: Transport
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Unsupported:
    """A server this agent cannot connect to (an `acp` transport): one notice, no tools."""

    name: str
    reason: str


def read_specs(servers: Sequence[AcpServer]) -> tuple[list[ServerSpec], list[Unsupported]]:
    """The client's servers as specs, keys made unique (`docs`, `docs-2`, ...)."""
    specs: list[ServerSpec] = []
    unsupported: list[Unsupported] = []
    taken: set[str] = set()
    for server in servers:
        if isinstance(server, AcpMcpServer):
            unsupported.append(Unsupported(server.name, "the acp transport is not supported"))
            continue
        base = safe_server(server.name)
        key, number = base, 2
        while key in taken:
            key, number = f"{base}-{number}", number + 1
        taken.add(key)
        if isinstance(server, McpServerStdio):
            specs.append(
                ServerSpec(
                    name=server.name,
                    key=key,
                    transport="stdio",
                    command=server.command,
                    args=tuple(server.args),
                    env={variable.name: variable.value for variable in server.env},
                )
            )
        else:
            specs.append(
                ServerSpec(
                    name=server.name,
                    key=key,
                    transport="http" if isinstance(server, HttpMcpServer) else "sse",
                    url=server.url,
                    headers={header.name: header.value for header in server.headers},
                )
            )
    return specs, unsupported


__all__ = ["ServerSpec", "Transport", "Unsupported", "read_specs"]
