"""A real `dsh-agent` process on raw pipes, for tests that write bytes the SDK never would.

This directory's conftest puts it on sys.path (the name is unique, so nothing clashes).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}


class Agent:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    async def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        await self.process.stdin.drain()

    async def send(self, message: Any) -> None:
        await self.write(json.dumps(message).encode() + b"\n")

    async def read(self, timeout: float = 30) -> Any:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), timeout)
        assert line, "the agent closed its stdout"
        return json.loads(line)

    async def response(self, request_id: int, timeout: float = 30) -> Any:
        """The response to `request_id`, skipping notifications."""
        while True:
            message = await self.read(timeout)
            if isinstance(message, dict) and message.get("id") == request_id:
                return message

    async def initialize(self, request_id: int = 1) -> None:
        await self.send({**INIT, "id": request_id})
        response = await self.response(request_id)
        assert response["result"]["protocolVersion"] == 1

    def peak_rss(self) -> int:
        """The process's peak resident set size in bytes (VmHWM)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no VmHWM")


@asynccontextmanager
async def agent(
    tmp_path: Path, *args: str, env: Mapping[str, str] | None = None
) -> AsyncIterator[Agent]:
    """`python -m agent.cli` on pipes, in this environment unless `env` is given."""
    with (tmp_path / "agent-stderr.log").open("ab") as stderr:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "agent.cli",
            "--session-dir",
            str(tmp_path / "sessions"),
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            cwd=str(REPO),
            env=dict(os.environ if env is None else env),
            limit=16 * 1024 * 1024,
        )
    try:
        yield Agent(process)
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 10)
        except TimeoutError:
            process.kill()
            await process.wait()


async def new_session(dsh: Agent, cwd: Path, request_id: int = 2) -> str:
    await dsh.send(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "session/new",
            "params": {"cwd": str(cwd), "mcpServers": []},
        }
    )
    response = await dsh.response(request_id)
    session_id: str = response["result"]["sessionId"]
    return session_id


async def prompt(
    dsh: Agent, session_id: str, text: str, request_id: int, timeout: float = 60
) -> tuple[Any, list[Any]]:
    """Send a prompt; (its response, every message seen until it)."""
    await dsh.send(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "session/prompt",
            "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]},
        }
    )
    seen: list[Any] = []
    while True:
        message = await dsh.read(timeout)
        seen.append(message)
        if isinstance(message, dict) and message.get("id") == request_id:
            return message, seen


def final_updates(seen: list[Any]) -> dict[str, Any]:
    """The last tool_call_update with a status, per tool call id."""
    final: dict[str, Any] = {}
    for message in seen:
        if isinstance(message, dict) and message.get("method") == "session/update":
            update = message["params"]["update"]
            if update.get("sessionUpdate") == "tool_call_update" and "status" in update:
                final[update["toolCallId"]] = update
    return final
