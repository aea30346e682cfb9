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
    `PacedAgentProcess.start(spec)`, then `pace` set.

    The pump reads the agent's stdout as fast as it comes, so the agent never blocks on a
    full pipe (it would stop reading its stdin too, and a quit would wait on it); only what
    it hands on to the client is held back.
    """

    pace = 0.0
    _pumps: tuple[asyncio.Task[None], ...] = ()
    # What the pump waits with (tests note the waits instead).
    clock: Callable[[], float] = staticmethod(time.monotonic)
    sleep: Callable[[float], Awaitable[None]] = staticmethod(asyncio.sleep)

    async def attach(self, limit: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        source, writer = await super().attach(limit)
        paced = asyncio.StreamReader(limit=limit)
        lines: asyncio.Queue[bytes | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        self._pumps = (
            loop.create_task(self._drain(source, lines)),
            loop.create_task(self._release(lines, paced)),
        )
        return paced, writer

    async def _drain(
        self, source: asyncio.StreamReader, lines: asyncio.Queue[bytes | None]
    ) -> None:
        """Everything the agent writes, in whole lines, as soon as it comes."""
        pending = b""
        try:
            while chunk := await source.read(READ_BYTES):
                pending += chunk
                *whole, pending = pending.split(b"\n")
                for line in whole:
                    lines.put_nowait(line + b"\n")
            if pending:
                lines.put_nowait(pending)
        finally:
            lines.put_nowait(None)

    async def _release(
        self, lines: asyncio.Queue[bytes | None], paced: asyncio.StreamReader
    ) -> None:
        """The lines to the client, a tool call's start `pace` after the previous one's."""
        last = -self.pace
        try:
            while (line := await lines.get()) is not None:
                if starts_tool_call(line):
                    wait = last + self.pace - self.clock()
                    if wait > 0:
                        await self.sleep(wait)
                    last = self.clock()
                paced.feed_data(line)
        finally:
            paced.feed_eof()

    def close_pipes(self) -> None:
        for pump in self._pumps:
            pump.cancel()
        super().close_pipes()
