"""The names MCP tools go by: `mcp__SERVER__TOOL`, as OpenAI function names allow."""

from __future__ import annotations

import re

PREFIX = "mcp__"
MAX_NAME_CHARS = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def safe_part(raw: str) -> str:
    """A server or tool name cut to `A-Z a-z 0-9 _ -`, every other character `_`.

    A server name never keeps a double underscore, so `mcp__S__T` splits at its first `__`
    after the prefix whatever the tool is called."""
    part = _UNSAFE.sub("_", raw) or "_"
    return part


def safe_server(raw: str) -> str:
    return re.sub(r"__+", "_", safe_part(raw)).strip("_") or "server"


def tool_name(server: str, tool: str) -> str:
    """The model-facing name of `tool` on (already safe) `server`, at most 64 characters."""
    return (PREFIX + server + "__" + safe_part(tool))[:MAX_NAME_CHARS]


def split_name(name: str) -> tuple[str, str] | None:
    """(server, tool) of an `mcp__SERVER__TOOL` name, or None for any other name."""
    if not name.startswith(PREFIX):
        return None
    server, sep, tool = name[len(PREFIX) :].partition("__")
    if not sep or not server or not tool:
        return None
    return server, tool


__all__ = ["PREFIX", "safe_part", "safe_server", "split_name", "tool_name"]
