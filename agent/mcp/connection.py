"""One MCP server of one session: started, listed, called, stopped, restarted after a crash.

The SDK's transports and `ClientSession` are context managers that must be entered and left
in one task, so each connection runs in a task of its own (`_run`) that holds them open until
`stop`; calls are made from the turn's tasks through the open session. A server's stderr goes
to a temporary file, whose tail explains a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import tempfile
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import IO, Any, cast

from mcp import types
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from agent import __version__
from agent.mcp.spec import ServerSpec

log = logging.getLogger(__name__)

STOP_GRACE_S = 5.0
"""How long `stop` waits for the SDK to close a transport before cancelling its task."""
STDERR_TAIL_BYTES = 2000


class McpError(Exception):
    """A server that could not be started, listed or called; the message says why."""


class McpConnection:
    """One server: `start` connects and lists its tools and prompts; `call` calls a tool."""

    def __init__(self, spec: ServerSpec, cwd: str, timeout: float) -> None:
        self.spec = spec
        self.cwd = cwd
        self.timeout = timeout
        self.tools: list[types.Tool] = []
        self.prompts: list[types.Prompt] = []
        self._session: ClientSession | None = None
        self._runner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._stderr: IO[str] | None = (
            tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 (closed by close)
            if spec.transport == "stdio"
            else None
        )
        self._lock = asyncio.Lock()

    # --- life -------------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect, initialize and list; McpError (the server stopped again) on failure."""
        self._stop = asyncio.Event()
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._runner = asyncio.create_task(self._run(ready), name=f"mcp {self.spec.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.timeout)
        except TimeoutError:
            await self.stop()
            raise McpError(self._with_tail(f"no answer within {self.timeout:g} s")) from None
        except asyncio.CancelledError:
            await asyncio.shield(self.stop())
            raise
        except Exception as error:
            await self.stop()
            raise McpError(self._with_tail(_describe(error))) from None

    async def stop(self) -> None:
        """Close the session and the transport (a stdio server's whole process tree)."""
        runner, self._runner = self._runner, None
        self._session = None
        if runner is None:
            return
        self._stop.set()
        done, _ = await asyncio.wait({runner}, timeout=STOP_GRACE_S)
        if not done:
            runner.cancel()
            await asyncio.wait({runner}, timeout=STOP_GRACE_S)

    async def close(self) -> None:
        await self.stop()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    async def _run(self, ready: asyncio.Future[None]) -> None:
        try:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(
                    ClientSession(
                        read,
                        write,
                        client_info=types.Implementation(name="dsh-agent", version=__version__),
                    )
                )
                init = await session.initialize()
                self.tools = await _all_tools(session)
                caps = init.capabilities
                self.prompts = await _all_prompts(session) if caps.prompts is not None else []
                self._session = session
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error if isinstance(error, Exception) else McpError("stopped"))
            elif not isinstance(error, asyncio.CancelledError):
                log.info("MCP server %s: the connection ended: %s", self.spec.name, error)
            if isinstance(error, asyncio.CancelledError):
                raise
        finally:
            self._session = None

    @asynccontextmanager
    async def _transport(self) -> AsyncIterator[tuple[Any, Any]]:
        spec = self.spec
        if spec.transport == "stdio":
            if self._stderr is not None:
                self._stderr.seek(0)
                self._stderr.truncate()
            params = StdioServerParameters(
                command=spec.command, args=list(spec.args), env=spec.env or None, cwd=self.cwd
            )
            errlog = cast(Any, self._stderr)
            async with stdio_client(params, errlog=errlog) as streams:
                yield streams[0], streams[1]
        elif spec.transport == "http":
            async with (
                create_mcp_http_client(headers=spec.headers or None) as http,
                streamable_http_client(spec.url, http_client=http) as streams,
            ):
                yield streams[0], streams[1]
        else:
            async with sse_client(spec.url, headers=spec.headers or None) as streams:
                yield streams[0], streams[1]

    # --- calls ------------------------------------------------------------------------------

    async def session(self) -> ClientSession:
        """The open session, reconnecting first when the server died since the last call."""
        async with self._lock:
            if self._session is None:
                await self.stop()
                await self.start()
            assert self._session is not None
            return self._session

    async def call(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call `tool`; McpError when the server fails (it is reconnected on the next call).

        Cancelling the awaiting task cancels the request (`notifications/cancelled`)."""
        session = await self.session()
        try:
            return await session.call_tool(tool, arguments)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            await self.stop()
            raise McpError(self._with_tail(_describe(error))) from None

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> types.GetPromptResult:
        session = await self.session()
        try:
            return await session.get_prompt(name, arguments)
        except Exception as error:
            raise McpError(_describe(error)) from None

    # --- stderr -----------------------------------------------------------------------------

    def stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._stderr.flush()
            fd = self._stderr.fileno()
            size = os.fstat(fd).st_size
            start = max(0, size - STDERR_TAIL_BYTES)
            data = os.pread(fd, size - start, start).decode("utf-8", "replace")
            if start:
                data = data.split("\n", 1)[-1]
            return data.strip()
        return ""

    def _with_tail(self, message: str) -> str:
        tail = self.stderr_tail()
        return f"{message}\n[stderr]\n{tail}" if tail else message


def _describe(error: BaseException) -> str:
    """An exception as one line, unwrapping the exception groups anyio raises."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error) or type(error).__name__
    return f"{type(error).__name__}: {text}" if isinstance(error, OSError) else text


async def _all_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    while True:
        page = await session.list_tools(
            params=types.PaginatedRequestParams(cursor=cursor) if cursor else None
        )
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools


async def _all_prompts(session: ClientSession) -> list[types.Prompt]:
    prompts: list[types.Prompt] = []
    cursor: str | None = None
    while True:
        page = await session.list_prompts(
            params=types.PaginatedRequestParams(cursor=cursor) if cursor else None
        )
        prompts.extend(page.prompts)
        cursor = page.next_cursor
        if not cursor:
            return prompts


__all__ = ["McpConnection", "McpError"]
