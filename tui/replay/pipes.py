"""The two ends of an in-process connection: asyncio streams with no process behind them.

The client's transport reads the agent's lines from `AgentLines` and writes its own into
`ClientLines`, exactly as it does on an agent's pipes, so everything the client does with a
line (the line guard, its checks, the recording tap) happens as it did live.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from typing import Any, SupportsIndex

ClientMessage = dict[str, Any] | None  # None: the client closed its side


class AgentLines(asyncio.StreamReader):
    """What the client reads. The replay feeds it one line at a time and waits until the
    client has taken it (`taken`); `idle` is set once the client is back for the next line,
    having handed the last one on, so a notice queued then lands after it."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit=limit)
        self.taken = asyncio.Event()
        self.idle = asyncio.Event()

    def feed_data(self, data: Iterable[SupportsIndex]) -> None:
        self.idle.clear()
        super().feed_data(data)

    async def readuntil(self, separator: Any = b"\n") -> bytes:
        self.idle.set()
        try:
            return await super().readuntil(separator)
        finally:
            self.taken.set()

    async def readexactly(self, n: int) -> bytes:
        try:
            return await super().readexactly(n)
        finally:
            self.taken.set()

    async def feed_line(self, line: bytes) -> None:
        """Hand the client one line and wait until it has read it."""
        self.taken.clear()
        self.feed_data(line)
        await self.taken.wait()


class ClientLines(asyncio.WriteTransport):
    """The client's writes, split into messages for the replay (`messages`)."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: asyncio.Queue[ClientMessage] = asyncio.Queue()
        self._partial = b""
        self._closing = False
        self.protocol: asyncio.BaseProtocol | None = None  # told when closed, as a pipe's is

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._closing:
            return
        self._partial += bytes(data)
        *lines, self._partial = self._partial.split(b"\n")
        for line in lines:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                message = {"raw": line.decode("utf-8", "replace")}
            self.messages.put_nowait(message if isinstance(message, dict) else {"raw": message})

    def write_eof(self) -> None:
        self.close()

    def can_write_eof(self) -> bool:
        return True

    def close(self) -> None:
        if not self._closing:
            self._closing = True
            self.messages.put_nowait(None)
            if self.protocol is not None:
                # StreamWriter.wait_closed() waits for this, as on a real pipe.
                asyncio.get_running_loop().call_soon(self.protocol.connection_lost, None)

    def abort(self) -> None:
        self.close()

    def is_closing(self) -> bool:
        return self._closing

    def get_write_buffer_size(self) -> int:
        return 0


def client_writer(lines: ClientLines) -> asyncio.StreamWriter:
    """A StreamWriter on `lines`, built the way asyncio builds one on a pipe."""
    loop = asyncio.get_running_loop()
    protocol = asyncio.StreamReaderProtocol(asyncio.StreamReader(loop=loop), loop=loop)
    protocol.connection_made(lines)
    lines.protocol = protocol
    return asyncio.StreamWriter(lines, protocol, None, loop)
