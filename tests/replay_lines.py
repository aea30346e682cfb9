"""Recordings written line by line, as `dsh-tui --record` writes them, for replay tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SESSION = "s1"


def line(direction: str, t: float, message: dict[str, Any]) -> str:
    return json.dumps({"dir": direction, "t": t, "msg": {"jsonrpc": "2.0", **message}})


def update(t: float, body: dict[str, Any]) -> str:
    params = {"sessionId": SESSION, "update": body}
    return line("in", t, {"method": "session/update", "params": params})


def session(cwd: str, turn: list[str], end_t: float = 0.5) -> list[str]:
    """A whole recording: initialize, session/new in `cwd`, one prompt whose turn is `turn`."""
    capabilities = {"fs": {"readTextFile": True, "writeTextFile": True}}
    agent = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}
    prompt = {"sessionId": SESSION, "prompt": [{"type": "text", "text": "go"}]}
    return [
        line("out", 0.0, {"id": 0, "method": "initialize", "params": {
            "protocolVersion": 1, "clientCapabilities": capabilities}}),
        line("in", 0.01, {"id": 0, "result": agent}),
        line("out", 0.02, {"id": 1, "method": "session/new", "params": {
            "cwd": cwd, "mcpServers": []}}),
        line("in", 0.03, {"id": 1, "result": {"sessionId": SESSION}}),
        line("out", 0.04, {"id": 2, "method": "session/prompt", "params": prompt}),
        *turn,
        line("in", end_t, {"id": 2, "result": {"stopReason": "end_turn"}}),
    ]  # fmt: skip


def edit(t: float, path: Path, meta: dict[str, Any] | None = None) -> str:
    block: dict[str, Any] = {"type": "diff", "path": str(path), "oldText": "b\n", "newText": "B\n"}
    if meta is not None:
        block["_meta"] = meta
    call = {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Edit hello.py"}
    return update(t, {**call, "kind": "edit", "status": "completed", "content": [block]})


def write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "recording.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
