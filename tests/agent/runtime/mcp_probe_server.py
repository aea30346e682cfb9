"""A real MCP server for the MCP tests, written with the SDK's server API (FastMCP's successor).

    python mcp_probe_server.py MARKS_DIR                 # on stdio
    python mcp_probe_server.py MARKS_DIR --http PORT     # streamable HTTP on 127.0.0.1:PORT
    python mcp_probe_server.py MARKS_DIR --sse PORT      # SSE on 127.0.0.1:PORT/sse

MARKS_DIR receives files that say what happened inside the server (its pid, a call that
started, a call that was cancelled), so tests can wait for state instead of sleeping.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import (
    EmbeddedResource,
    ImageContent,
    TextResourceContents,
    ToolAnnotations,
)

MARKS = Path(sys.argv[1])
server = MCPServer("probe")
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGA"
    "WjR9awAAAABJRU5ErkJggg=="
)


def mark(name: str, text: str = "") -> None:
    (MARKS / name).write_text(text, encoding="utf-8")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def echo(text: str) -> str:
    """Say the text back."""
    return text


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def picture() -> list[ImageContent | EmbeddedResource]:
    """An image and an embedded text resource."""
    return [
        ImageContent(type="image", data=PNG, mimeType="image/png"),
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(
                uri="file:///notes/readme.txt", mimeType="text/plain", text="hello from a resource"
            ),
        ),
    ]


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def measure(n: int) -> dict[str, int]:
    """Structured content."""
    return {"n": n, "double": n * 2}


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def fails() -> str:
    """Always an error result."""
    raise ValueError("the probe refuses")


@server.tool(annotations=ToolAnnotations(destructiveHint=True))
def write_note(text: str) -> str:
    """Changes something: asks in ask mode."""
    mark("note", text)
    return "noted"


@server.tool()
async def slow() -> str:
    """Runs until cancelled."""
    mark("slow-started")
    try:
        await asyncio.sleep(600)
    except asyncio.CancelledError:
        mark("slow-cancelled")
        raise
    return "late"


@server.tool()
def crash() -> str:
    """The server dies mid-call, saying why on stderr."""
    print("probe: dying on purpose", file=sys.stderr, flush=True)
    os._exit(3)


@server.prompt()
def review(path: str) -> str:
    """Ask for a review of a file."""
    return f"Please review {path}."


if __name__ == "__main__":
    mark(f"pid-{os.getpid()}", str(os.getpid()))
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        server.run("streamable-http", host="127.0.0.1", port=port)
    elif "--sse" in sys.argv:
        server.run("sse", host="127.0.0.1", port=int(sys.argv[sys.argv.index("--sse") + 1]))
    else:
        server.run()
