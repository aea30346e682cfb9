"""The client side of ACP: spawn the agent, negotiate, and hand every update to the app.

This module holds no widgets. Updates are passed to a sink synchronously, in wire order,
before anything awaits, so the conversation can never be applied out of order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from acp import (
    PROTOCOL_VERSION,
    Client,
    RequestError,
    spawn_agent_process,
    text_block,
)
from acp.core import ClientSideConnection
from acp.schema import (
    AgentMessageChunk,
    AgentPlanContentUpdate,
    AgentPlanRemovedUpdate,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AvailableCommandsUpdate,
    ClientCapabilities,
    ConfigOptionUpdate,
    CreateElicitationResponse,
    CreateTerminalResponse,
    CurrentModeUpdate,
    DeniedOutcome,
    ElicitationMode,
    EnvVariable,
    FileSystemCapabilities,
    Implementation,
    InitializeResponse,
    KillTerminalResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    SessionInfoUpdate,
    TerminalOutputResponse,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
    UsageUpdate,
    UserMessageChunk,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from tui import __version__
from tui.agent_log import read_tail

log = logging.getLogger(__name__)

SessionUpdate = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | AgentPlanContentUpdate
    | AgentPlanRemovedUpdate
    | AvailableCommandsUpdate
    | CurrentModeUpdate
    | ConfigOptionUpdate
    | SessionInfoUpdate
    | UsageUpdate
)

# Long JSON-RPC lines (a big diff, a flood of output) must pass the stream reader.
STREAM_LIMIT_BYTES = 64 * 1024 * 1024
SHUTDOWN_TIMEOUT_S = 1.0


class ClientSink(Protocol):
    """What the app provides: a synchronous update recorder and a permission prompt."""

    def on_session_update(self, session_id: str, update: SessionUpdate) -> None: ...

    async def ask_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse: ...


@dataclass(frozen=True)
class LaunchSpec:
    """How to start the agent: argv, working directory, environment and stderr log."""

    argv: tuple[str, ...]
    cwd: Path
    log_path: Path
    terminal: bool = True

    @classmethod
    def from_command(cls, command: str, cwd: Path, log_path: Path, terminal: bool) -> LaunchSpec:
        argv = tuple(shlex.split(command))
        if not argv:
            raise ValueError("the agent command is empty")
        return cls(argv, cwd, log_path, terminal)

    @property
    def command_line(self) -> str:
        return shlex.join(self.argv)


class AgentFailed(Exception):
    """The agent could not start or died: what ran, how it ended, and its last words."""

    def __init__(
        self, spec: LaunchSpec, reason: str, exit_code: int | None, stderr_tail: str
    ) -> None:
        super().__init__(reason)
        self.spec = spec
        self.reason = reason
        self.exit_code = exit_code
        self.stderr_tail = stderr_tail


def client_capabilities(terminal: bool) -> ClientCapabilities:
    """The spec's terminal flag and the `_meta.terminal_output` display convention go together."""
    return ClientCapabilities(
        fs=FileSystemCapabilities(read_text_file=False, write_text_file=False),
        terminal=terminal,
        field_meta={"terminal_output": terminal},
    )


class TuiClient(Client):
    """The ACP client object. Methods the TUI does not offer answer method-not-found."""

    def __init__(self, sink: ClientSink) -> None:
        self._sink = sink

    async def session_update(self, session_id: str, update: SessionUpdate, **kwargs: Any) -> None:
        self._sink.on_session_update(session_id, update)

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        try:
            return await self._sink.ask_permission(session_id, tool_call, options)
        except asyncio.CancelledError:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse | None:
        raise RequestError.method_not_found("fs/write_text_file")

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:
        raise RequestError.method_not_found("fs/read_text_file")

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: list[EnvVariable] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> CreateTerminalResponse:
        raise RequestError.method_not_found("terminal/create")

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> TerminalOutputResponse:
        raise RequestError.method_not_found("terminal/output")

    async def release_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> ReleaseTerminalResponse | None:
        raise RequestError.method_not_found("terminal/release")

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        raise RequestError.method_not_found("terminal/wait_for_exit")

    async def kill_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> KillTerminalResponse | None:
        raise RequestError.method_not_found("terminal/kill")

    async def create_elicitation(
        self, message: str, mode: ElicitationMode, **kwargs: Any
    ) -> CreateElicitationResponse:
        raise RequestError.method_not_found("elicitation/create")

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        return None

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        log.info("ignoring extension notification %s", method)

    def on_connect(self, conn: Any) -> None:
        return None


@dataclass
class AgentSession:
    """A live, negotiated connection with one session open."""

    spec: LaunchSpec
    conn: ClientSideConnection
    process: asyncio.subprocess.Process
    init: InitializeResponse
    session: NewSessionResponse
    capabilities: ClientCapabilities

    @property
    def session_id(self) -> str:
        return self.session.session_id

    async def prompt(self, text: str) -> PromptResponse:
        try:
            return await self.conn.prompt(session_id=self.session_id, prompt=[text_block(text)])
        except ConnectionError as error:
            raise await self.failure("the agent exited during the turn") from error

    async def cancel(self) -> None:
        with contextlib.suppress(ConnectionError):
            await self.conn.cancel(session_id=self.session_id)

    async def failure(self, reason: str) -> AgentFailed:
        return await describe_failure(self.spec, self.process, reason)


async def describe_failure(
    spec: LaunchSpec, process: asyncio.subprocess.Process, reason: str
) -> AgentFailed:
    """Wait briefly for the exit code (it may lag the closed pipe), then read the stderr tail."""
    exit_code = process.returncode
    if exit_code is None:
        with contextlib.suppress(TimeoutError):
            exit_code = await asyncio.wait_for(process.wait(), timeout=2.0)
    return AgentFailed(spec, reason, exit_code, read_tail(spec.log_path))


async def close_agent(
    spawner: contextlib.AbstractAsyncContextManager[Any], process: asyncio.subprocess.Process
) -> None:
    """Close the connection and reap the agent, even if cancelled again while doing so."""
    interrupted: asyncio.CancelledError | None = None
    try:
        await spawner.__aexit__(None, None, None)
    except asyncio.CancelledError as error:
        interrupted = error
    except (ConnectionError, OSError) as error:
        # The pipe to a dead agent fails on close; the process is reaped below.
        log.info("closing the agent connection: %s", error)
    if process.stdin is not None and not process.stdin.is_closing():
        process.stdin.close()
    if process.returncode is None:
        process.kill()
    await process.wait()
    close_transport(process)
    if interrupted is not None:
        raise interrupted


def close_transport(process: asyncio.subprocess.Process) -> None:
    """Close the reaped child's transport now, while the loop runs.

    Left to the garbage collector, it is closed after the loop is gone and asyncio
    reports "Event loop is closed"; asyncio offers no public way to do this.
    """
    transport = getattr(process, "_transport", None)
    if transport is not None:
        transport.close()


@contextlib.asynccontextmanager
async def open_session(spec: LaunchSpec, sink: ClientSink) -> AsyncIterator[AgentSession]:
    """Spawn the agent, run initialize and session/new, and always reap the process on exit."""
    capabilities = client_capabilities(spec.terminal)
    with spec.log_path.open("ab") as stderr_file:
        try:
            spawner = spawn_agent_process(
                TuiClient(sink),
                spec.argv[0],
                *spec.argv[1:],
                env=dict(os.environ),
                cwd=spec.cwd,
                transport_kwargs={
                    "stderr": stderr_file,
                    "limit": STREAM_LIMIT_BYTES,
                    "shutdown_timeout": SHUTDOWN_TIMEOUT_S,
                },
            )
            entered = spawner.__aenter__()
            conn, process = await entered
        except OSError as error:
            raise AgentFailed(spec, f"could not start the agent: {error}", None, "") from error
        try:
            try:
                init = await conn.initialize(
                    protocol_version=PROTOCOL_VERSION,
                    client_capabilities=capabilities,
                    client_info=Implementation(
                        name="dsh-tui", title="dsh-tui", version=__version__
                    ),
                )
                session = await conn.new_session(cwd=str(spec.cwd), mcp_servers=[])
            except ConnectionError as error:
                raise await describe_failure(
                    spec, process, "the agent exited during start-up"
                ) from error
            except RequestError as error:
                raise await describe_failure(
                    spec, process, f"the agent refused to start a session: {error}"
                ) from error
            yield AgentSession(spec, conn, process, init, session, capabilities)
        finally:
            await close_agent(spawner, process)
