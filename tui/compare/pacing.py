"""`--pace`: the agent's tool calls reach the screen one step at a time, for a demo to follow.

The agent runs at its own speed; only what the client reads is held back: each line that
starts a tool call (a `session/update` of kind `tool_call`) waits until `pace` seconds after
the previous one was let through. Text chunks between them pass at once.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable

from tui.launch import AgentProcess

READ_BYTES = 64 * 1024


def starts_tool_call(line: bytes) -> bool:
    if b'"tool_call"' not in line:  # most lines; no need to parse them
        return False
    try:
        message = json.loads(line)
    except ValueError:
        return False
    params = message.get("params") if isinstance(message, dict) else None
    update = params.get("update") if isinstance(params, dict) else None
    return isinstance(update, dict) and update.get("sessionUpdate") == "tool_call"


class PacedAgentProcess(AgentProcess):
    """An agent process whose stdout the client reads through a pacing pump; started with
    `PacedAgentProcess.start(spec)`, then `pace` set."""

    pace = 0.0
    _pump: asyncio.Task[None] | None = None
    # What the pump waits with (tests note the waits instead).
    clock: Callable[[], float] = staticmethod(time.monotonic)
    sleep: Callable[[float], Awaitable[None]] = staticmethod(asyncio.sleep)

    async def attach(self, limit: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        source, writer = await super().attach(limit)
        paced = asyncio.StreamReader(limit=limit)
        self._pump = asyncio.get_running_loop().create_task(self._relay(source, paced))
        return paced, writer

    async def _relay(self, source: asyncio.StreamReader, paced: asyncio.StreamReader) -> None:
        last = -self.pace
        pending = b""
        try:
            while chunk := await source.read(READ_BYTES):
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    if starts_tool_call(line):
                        wait = last + self.pace - self.clock()
                        if wait > 0:
                            await self.sleep(wait)
                        last = self.clock()
                    paced.feed_data(line + b"\n")
            if pending:
                paced.feed_data(pending)
        finally:
            paced.feed_eof()

    def close_pipes(self) -> None:
        if self._pump is not None:
            self._pump.cancel()
        super().close_pipes()
