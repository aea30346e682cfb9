"""One agent connection: spawn, negotiate, open or resume a session, prompt, and shut down."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from acp import PROTOCOL_VERSION, RequestError, text_block
from acp.core import ClientSideConnection
from acp.schema import (
    ClientCapabilities,
    FileSystemCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    SessionInfo,
)

from dsh_common.jsonrpc_lines import MAX_MESSAGE_BYTES, READ_CHUNK_BYTES, LineTap
from tui import __version__
from tui.agent_log import read_tail
from tui.agent_text import clean, clean_error
from tui.capabilities import can_list, can_load
from tui.connection.client import ClientSink, TuiClient
from tui.connection.recording import Recorder
from tui.connection.taps import joined
from tui.connection.transport import SET_MODEL, InspectingTransport
from tui.fs import ConfinedFs
from tui.launch import AgentFailed, AgentProcess, LaunchSpec
from tui.mentions.blocks import PromptBlock
from tui.terminals import TerminalManager

log = logging.getLogger(__name__)

STREAM_LIMIT_BYTES = READ_CHUNK_BYTES
SHUTDOWN_TIMEOUT_S = 1.0

# The sessions to pick from, and the id asked for that the agent did not find (else None).
SessionChooser = Callable[[list[SessionInfo], str | None], Awaitable[str | None]]
# ACP's "resource not found", which dsh-agent answers for a session id it does not have.
NOT_FOUND = -32002


@runtime_checkable
class ServesClientSide(Protocol):
    """An agent that runs in this process and answers the client's own side too (a replay,
    tui/replay/): the connection serves the agent's files and terminals from it, so nothing
    on this machine is read, written or run."""

    def client_side(self) -> tuple[ConfinedFs, TerminalManager]: ...


def client_capabilities(terminal: bool) -> ClientCapabilities:
    """The spec's terminal flag and the `_meta.terminal_output` display convention go together."""
    return ClientCapabilities(
        fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
        terminal=terminal,
        field_meta={"terminal_output": terminal},
    )


@dataclass
class AgentConnection:
    """A live, negotiated connection to an agent process, with one session open."""

    spec: LaunchSpec
    conn: ClientSideConnection
    process: AgentProcess
    init: InitializeResponse
    session: NewSessionResponse | LoadSessionResponse
    capabilities: ClientCapabilities
    client: TuiClient
    session_id: str
    resumed: bool = False

    async def prompt(self, text: str) -> PromptResponse:
        return await self.prompt_blocks([text_block(text)])

    async def prompt_blocks(self, blocks: Sequence[PromptBlock]) -> PromptResponse:
        """session/prompt with these content blocks (text, and `@` mentions' resources)."""
        try:
            return await self.conn.prompt(session_id=self.session_id, prompt=list(blocks))
        except ConnectionError as error:
            raise await self.failure("the agent exited during the turn") from error

    async def cancel(self) -> None:
        with contextlib.suppress(ConnectionError):
            await self.conn.cancel(session_id=self.session_id)

    async def set_mode(self, mode_id: str) -> None:
        """session/set_mode. Raises RequestError or ConnectionError (show it with
        `clean_error`)."""
        await self.conn.set_session_mode(session_id=self.session_id, mode_id=mode_id)

    async def set_model(self, model_id: str) -> None:
        """session/set_model (unstable ACP, for agents that offer `models` rather than a model
        config option). This SDK has no call for it: it goes out through `ext_method`, and the
        transport gives it its own name back. Raises like `set_mode`."""
        params = {"sessionId": self.session_id, "modelId": model_id}
        await self.conn.ext_method(SET_MODEL, params)

    async def set_config(self, config_id: str, value: str) -> list[Any] | None:
        """session/set_config_option: the options as the agent now has them (cleaned, like
        every update), or None when it did not say. Raises like `set_mode`."""
        response = await self.conn.set_config_option(
            config_id=config_id, session_id=self.session_id, value=value
        )
        return None if response is None else clean(list(response.config_options))

    async def failure(self, reason: str) -> AgentFailed:
        return await describe_failure(self.spec, self.process, reason)


async def describe_failure(spec: LaunchSpec, process: AgentProcess, reason: str) -> AgentFailed:
    """Wait briefly for the exit code (it may lag the closed pipe), then read the stderr tail."""
    exit_code = process.returncode
    if exit_code is None:
        with contextlib.suppress(TimeoutError):
            exit_code = await asyncio.wait_for(process.wait(), timeout=2.0)
    return AgentFailed(spec, reason, exit_code, read_tail(spec.log_path))


async def close_connection(conn: ClientSideConnection) -> None:
    """Stop the receive loop and the handlers; the pipe to a dead agent may fail on close."""
    try:
        await conn.close()
    except (ConnectionError, OSError) as error:
        log.info("closing the agent connection: %s", error)


async def reap(process: AgentProcess) -> None:
    """End the agent: EOF on its stdin, then terminate and kill if it lingers, even if
    cancelled again while doing so."""
    interrupted: asyncio.CancelledError | None = None
    try:
        await shut_down(process)
    except asyncio.CancelledError as error:
        interrupted = error
    except (ConnectionError, OSError) as error:
        log.info("closing the agent's stdin: %s", error)
    process.kill()
    await process.wait()
    process.close_pipes()  # the one place the pipes' transports are closed (see there why)
    if interrupted is not None:
        raise interrupted


async def shut_down(process: AgentProcess) -> None:
    """The SDK's own stdio shutdown, once the connection is closed: close the agent's stdin,
    and give it SHUTDOWN_TIMEOUT_S to exit on that EOF before it is terminated, then killed."""
    stdin = process.stdin
    if stdin is not None:
        try:
            stdin.write_eof()
        except (AttributeError, OSError, RuntimeError):
            stdin.close()
        with contextlib.suppress(Exception):
            await stdin.drain()
        with contextlib.suppress(Exception):
            stdin.close()
        with contextlib.suppress(Exception):
            await stdin.wait_closed()
    try:
        await asyncio.wait_for(process.wait(), timeout=SHUTDOWN_TIMEOUT_S)
    except TimeoutError:
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), timeout=SHUTDOWN_TIMEOUT_S)
        except TimeoutError:
            process.kill()


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
            resume = await choose(clean(listed.sessions), None)
    if resume:
        try:
            loaded = await conn.load_session(cwd=str(spec.cwd), session_id=resume, mcp_servers=[])
        except RequestError as error:
            if error.code != NOT_FOUND or choose is None or not can_list(init):
                raise
            # A mistyped or stale id: say so and offer the list, not a failed agent.
            listed = await conn.list_sessions(cwd=str(spec.cwd))
            return await start_or_resume(
                conn, init, spec, await choose(clean(listed.sessions), resume), None, sink
            )
        return resume, clean(loaded or LoadSessionResponse()), True
    created = await conn.new_session(cwd=str(spec.cwd), mcp_servers=[])
    return created.session_id, clean(created), False


async def negotiate(
    conn: ClientSideConnection,
    spec: LaunchSpec,
    process: AgentProcess,
    capabilities: ClientCapabilities,
    sink: ClientSink,
    resume: str | None,
    choose: SessionChooser | None,
) -> tuple[InitializeResponse, str, NewSessionResponse | LoadSessionResponse, bool]:
    """initialize, then a session; a refusal or an exit here is an AgentFailed."""
    try:
        init = clean(
            await conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=capabilities,
                client_info=Implementation(name="dsh-tui", title="dsh-tui", version=__version__),
            )
        )
        session_id, session, resumed = await start_or_resume(conn, init, spec, resume, choose, sink)
    except ConnectionError as error:
        raise await describe_failure(spec, process, "the agent exited during start-up") from error
    except RequestError as error:
        reason = f"the agent refused to start a session: {clean_error(error)}"
        raise await describe_failure(spec, process, reason) from error
    return init, session_id, session, resumed


@contextlib.asynccontextmanager
async def open_session(
    spec: LaunchSpec,
    sink: ClientSink,
    resume: str | None = None,
    choose: SessionChooser | None = None,
    process: AgentProcess | None = None,
    tap: LineTap | None = None,
    max_message_bytes: int = MAX_MESSAGE_BYTES,
    clock: Callable[[], float] = time.monotonic,
) -> AsyncIterator[AgentConnection]:
    """Spawn the agent (or take `process`, already started from `spec`), negotiate, open a
    session, and always reap the process on exit. `tap` (the traffic inspector's store) sees
    every line on the wire, and so does the `Recorder` writing `spec.record` when it is set."""
    capabilities = client_capabilities(spec.terminal)
    if process is None:
        process = AgentProcess.start(spec)
    if isinstance(process, ServesClientSide):
        fs, terminals = process.client_side()
    else:
        fs, terminals = (
            ConfinedFs([spec.cwd, *spec.allow_dirs]),
            TerminalManager(default_cwd=spec.cwd, clock=clock),
        )
    client = TuiClient(sink, fs, terminals)
    async with contextlib.AsyncExitStack() as stack:
        # Unwound in reverse: the connection closes, the recording is written out, the agent
        # is reaped, then the terminals it left are closed, whatever went wrong on the way.
        stack.push_async_callback(client.terminals.close_all)
        stack.push_async_callback(reap, process)
        taps = [] if tap is None else [tap]
        if spec.record is not None:
            recorder = Recorder(spec.record)
            stack.push_async_callback(asyncio.to_thread, recorder.close)
            taps.append(recorder)
        reader, writer = await process.attach(STREAM_LIMIT_BYTES)
        transport = InspectingTransport(
            reader, writer, watcher=client, max_message_bytes=max_message_bytes, tap=joined(taps)
        )
        conn = ClientSideConnection(client, transport)
        stack.push_async_callback(close_connection, conn)
        init, session_id, session, resumed = await negotiate(
            conn, spec, process, capabilities, sink, resume, choose
        )
        yield AgentConnection(
            spec, conn, process, init, session, capabilities, client, session_id, resumed
        )
