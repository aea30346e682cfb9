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
from collections.abc import AsyncIterator, Awaitable, Callable
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
    ElicitationMode,
    EnvVariable,
    FileSystemCapabilities,
    Implementation,
    InitializeResponse,
    KillTerminalResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    SessionInfo,
    SessionInfoUpdate,
    TerminalExitStatus,
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
from tui.fs import ConfinedFs, FsError, FsFileNotFoundError
from tui.terminals import TerminalError, TerminalManager, UnknownTerminalError

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


SessionChooser = Callable[[list[SessionInfo]], Awaitable[str | None]]


class ClientSink(Protocol):
    """What the app provides: a synchronous update recorder and a permission prompt."""

    def on_session_update(self, session_id: str, update: SessionUpdate) -> None: ...

    def on_unsupported(self, session_id: str, what: str) -> None: ...

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
    allow_dirs: tuple[Path, ...] = ()

    @classmethod
    def from_command(
        cls,
        command: str,
        cwd: Path,
        log_path: Path,
        terminal: bool,
        allow_dirs: tuple[Path, ...] = (),
    ) -> LaunchSpec:
        argv = tuple(shlex.split(command))
        if not argv:
            raise ValueError("the agent command is empty")
        return cls(argv, cwd, log_path, terminal, allow_dirs)

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
        fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
        terminal=terminal,
        field_meta={"terminal_output": terminal},
    )


KNOWN_UPDATES = frozenset(
    {
        "user_message_chunk",
        "agent_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "plan",
        "available_commands_update",
        "current_mode_update",
        "config_option_update",
        "session_info_update",
        "usage_update",
    }
)
KNOWN_TOOL_CONTENT = frozenset({"content", "diff", "terminal"})
KNOWN_BLOCKS = frozenset({"text", "image", "audio", "resource_link", "resource"})


def unsupported_parts(message: dict[str, Any]) -> list[str]:
    """What in a raw `session/update` the SDK would drop silently: unknown kinds and types.

    The SDK validates before our handler runs and discards what it cannot parse, so this
    looks at the raw message to tell the user something was not shown.
    """
    params = message.get("params")
    update = params.get("update") if isinstance(params, dict) else None
    if not isinstance(update, dict):
        return ["malformed session/update"]
    kind = update.get("sessionUpdate")
    if kind not in KNOWN_UPDATES:
        return [f"update kind {kind!r}"]
    found: list[str] = []
    content = update.get("content")
    if kind in ("tool_call", "tool_call_update") and isinstance(content, list):
        for item in content:
            item_type = item.get("type") if isinstance(item, dict) else None
            if item_type not in KNOWN_TOOL_CONTENT:
                found.append(f"tool call content type {item_type!r}")
            elif item_type == "content":
                block = item.get("content")
                block_type = block.get("type") if isinstance(block, dict) else None
                if block_type not in KNOWN_BLOCKS:
                    found.append(f"content block type {block_type!r}")
    elif (
        kind.endswith("_chunk")
        and isinstance(content, dict)
        and content.get("type") not in KNOWN_BLOCKS
    ):
        found.append(f"content block type {content.get('type')!r}")
    return found


def fs_error(error: FsError, path: str) -> RequestError:
    if isinstance(error, FsFileNotFoundError):
        return RequestError.resource_not_found(path)
    return RequestError.invalid_params({"path": path, "reason": str(error)})


def terminal_error(error: TerminalError, terminal_id: str | None = None) -> RequestError:
    data: dict[str, Any] = {"reason": str(error)}
    if terminal_id is not None:
        data["terminalId"] = terminal_id
    return RequestError.invalid_params(data)


class InspectingTransport:
    """The SDK's stdio transport, with a synchronous look at each raw incoming message.

    Stands in for the SDK's stream observers, which deep-copy every message for them: about
    0.1 s of CPU per 2,000 streamed chunks (bench/bench_client.py). The look only reads.
    """

    def __init__(self, inner: Any, inspect: Callable[[dict[str, Any]], None]) -> None:
        self._inner = inner
        self._inspect = inspect

    async def send(self, message: dict[str, Any]) -> None:
        await self._inner.send(message)

    async def receive(self) -> dict[str, Any] | None:
        message: dict[str, Any] | None = await self._inner.receive()
        if message is not None:
            self._inspect(message)
        return message

    async def close(self) -> None:
        await self._inner.close()


def inspect_incoming(conn: ClientSideConnection, inspect: Callable[[dict[str, Any]], None]) -> None:
    """Wrap the connection's transport before its receive loop first runs: that loop is a task
    created with the connection, and nothing has awaited since. The SDK offers no public hook
    that does not copy; it is pinned exactly in pyproject.toml, and the e2e test of unknown
    update kinds fails if these attributes move."""
    connection = conn._conn
    connection._transport = InspectingTransport(connection._transport, inspect)


class TuiClient(Client):
    """The ACP client object: updates go to the sink; fs and terminals are served here."""

    def __init__(self, sink: ClientSink, fs: ConfinedFs, terminals: TerminalManager) -> None:
        self._sink = sink
        self.fs = fs
        self.terminals = terminals

    def inspect(self, message: dict[str, Any]) -> None:
        """Sees each raw incoming message before dispatch, so a note lands in order with the
        updates."""
        if message.get("method") != "session/update":
            return
        problems = unsupported_parts(message)
        if problems:
            params = message.get("params")
            session_id = params.get("sessionId") if isinstance(params, dict) else None
            for problem in problems:
                log.warning("unsupported %s", problem)
                self._sink.on_unsupported(str(session_id), problem)

    async def session_update(self, session_id: str, update: SessionUpdate, **kwargs: Any) -> None:
        self._sink.on_session_update(session_id, update)

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        return await self._sink.ask_permission(session_id, tool_call, options)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse | None:
        try:
            await asyncio.to_thread(self.fs.write_text, path, content)
        except FsError as error:
            raise fs_error(error, path) from error
        return WriteTextFileResponse()

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:
        try:
            content = await asyncio.to_thread(self.fs.read_text, path, line, limit)
        except FsError as error:
            raise fs_error(error, path) from error
        return ReadTextFileResponse(content=content)

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
        try:
            terminal_id = await self.terminals.create(
                command,
                args,
                {variable.name: variable.value for variable in env or []},
                cwd,
                output_byte_limit,
            )
        except (TerminalError, ValueError) as error:
            raise RequestError.invalid_params({"command": command, "reason": str(error)}) from error
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> TerminalOutputResponse:
        try:
            output = self.terminals.output(terminal_id)
        except UnknownTerminalError as error:
            raise terminal_error(error, terminal_id) from error
        status = output.exit_status
        return TerminalOutputResponse(
            output=output.output,
            truncated=output.truncated,
            exit_status=None
            if status is None
            else TerminalExitStatus(exit_code=status.exit_code, signal=status.signal),
        )

    async def release_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> ReleaseTerminalResponse | None:
        try:
            await self.terminals.release(terminal_id)
        except UnknownTerminalError as error:
            raise terminal_error(error, terminal_id) from error
        return ReleaseTerminalResponse()

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        try:
            status = await self.terminals.wait_for_exit(terminal_id)
        except UnknownTerminalError as error:
            raise terminal_error(error, terminal_id) from error
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> KillTerminalResponse | None:
        try:
            await self.terminals.kill(terminal_id)
        except UnknownTerminalError as error:
            raise terminal_error(error, terminal_id) from error
        return KillTerminalResponse()

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
    session: NewSessionResponse | LoadSessionResponse
    capabilities: ClientCapabilities
    client: TuiClient
    session_id: str
    resumed: bool = False

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


def can_load(init: InitializeResponse) -> bool:
    caps = init.agent_capabilities
    return bool(caps and caps.load_session)


def can_list(init: InitializeResponse) -> bool:
    caps = init.agent_capabilities
    return bool(caps and caps.session_capabilities and caps.session_capabilities.list is not None)


async def start_or_resume(
    conn: ClientSideConnection,
    init: InitializeResponse,
    spec: LaunchSpec,
    resume: str | None,
    choose: SessionChooser | None,
    sink: ClientSink,
) -> tuple[str, NewSessionResponse | LoadSessionResponse, bool]:
    """session/new, or session/load of the given id (or of one the user picks from the list).

    `resume` is None for a new session, "" to pick from session/list, or a session id.
    Replayed history arrives as ordinary updates before session/load answers.
    """
    if resume is not None and not can_load(init):
        sink.on_unsupported("", "session/load: this agent cannot resume sessions")
        resume = None
    if resume == "":
        resume = None
        if choose is not None and can_list(init):
            listed = await conn.list_sessions(cwd=str(spec.cwd))
            resume = await choose(listed.sessions)
    if resume:
        loaded = await conn.load_session(cwd=str(spec.cwd), session_id=resume, mcp_servers=[])
        return resume, loaded or LoadSessionResponse(), True
    created = await conn.new_session(cwd=str(spec.cwd), mcp_servers=[])
    return created.session_id, created, False


@contextlib.asynccontextmanager
async def open_session(
    spec: LaunchSpec,
    sink: ClientSink,
    resume: str | None = None,
    choose: SessionChooser | None = None,
) -> AsyncIterator[AgentSession]:
    """Spawn the agent, negotiate, open a session, and always reap the process on exit."""
    capabilities = client_capabilities(spec.terminal)
    client = TuiClient(
        sink,
        ConfinedFs([spec.cwd, *spec.allow_dirs]),
        TerminalManager(default_cwd=spec.cwd),
    )
    with spec.log_path.open("ab") as stderr_file:
        try:
            spawner = spawn_agent_process(
                client,
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
            inspect_incoming(conn, client.inspect)
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
                session_id, session, resumed = await start_or_resume(
                    conn, init, spec, resume, choose, sink
                )
            except ConnectionError as error:
                raise await describe_failure(
                    spec, process, "the agent exited during start-up"
                ) from error
            except RequestError as error:
                raise await describe_failure(
                    spec, process, f"the agent refused to start a session: {error}"
                ) from error
            yield AgentSession(
                spec, conn, process, init, session, capabilities, client, session_id, resumed
            )
        finally:
            try:
                await close_agent(spawner, process)
            finally:
                await client.terminals.close_all()
