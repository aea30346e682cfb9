"""One agent connection: spawn, negotiate, open or resume a session, prompt, and shut down."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from acp import PROTOCOL_VERSION, RequestError, text_block
from acp.core import ClientSideConnection
from acp.schema import (
    AuthCapabilities,
    ClientCapabilities,
    FileSystemCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    ResumeSessionResponse,
    SessionInfo,
)

from dsh_common.jsonrpc_lines import MAX_MESSAGE_BYTES, READ_CHUNK_BYTES, LineTap
from tui import __version__
from tui.agent_log import read_tail
from tui.agent_text import clean, clean_error
from tui.capabilities import can_list, can_load, can_resume
from tui.connection.client import ClientSink, TuiClient
from tui.connection.login import EnvAsker, LoginChooser, LoginFailed, with_login
from tui.connection.mcp import MaskingTap, SdkServer, for_agent
from tui.connection.recording import Recorder
from tui.connection.taps import joined
from tui.connection.transport import SET_MODEL, InspectingTransport
from tui.fs import ConfinedFs
from tui.launch import AgentFailed, AgentProcess, LaunchSpec
from tui.prompt.mentions.blocks import PromptBlock
from tui.terminal.terminals import TerminalManager

log = logging.getLogger(__name__)

STREAM_LIMIT_BYTES = READ_CHUNK_BYTES
SHUTDOWN_TIMEOUT_S = 1.0

# Builds the client object: TuiClient, or a subclass that serves less (`dsh-tui check`).
ClientFactory = Callable[[ClientSink, ConfinedFs, TerminalManager], TuiClient]
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
    """The spec's terminal flag and the `_meta.terminal_output` display convention go together.
    `auth.terminal`: a terminal login runs in the user's own terminal, whatever the flag."""
    return ClientCapabilities(
        fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
        terminal=terminal,
        auth=AuthCapabilities(terminal=True),
        field_meta={"terminal_output": terminal},
    )


@dataclass
class AgentConnection:
    """A live, negotiated connection to an agent process, with one session open."""

    spec: LaunchSpec
    conn: ClientSideConnection
    process: AgentProcess
    init: InitializeResponse
    response: NewSessionResponse | LoadSessionResponse
    capabilities: ClientCapabilities
    client: TuiClient
    session_id: str
    resumed: bool = False
    opened: OpenedSession | None = None

    @property
    def notices(self) -> tuple[str, ...]:
        return self.opened.notices if self.opened is not None else ()

    @property
    def mcp_passed(self) -> tuple[str, ...]:
        """The names of the MCP servers this session was given (the capabilities view)."""
        return self.opened.mcp_passed if self.opened is not None else ()

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

    async def fork(self) -> str:
        """session/fork of this session, in its directory with its MCP servers: the new
        session's id. Raises like `set_mode`, and HandshakeTimeout."""
        servers, _ = for_agent(self.spec.mcp_servers, self.init)
        forked = await answered(
            "session/fork",
            self.spec,
            self.conn.fork_session(
                session_id=self.session_id, cwd=str(self.spec.cwd), mcp_servers=servers
            ),
        )
        return forked.session_id

    async def close_other(self, session_id: str) -> None:
        """session/close of another session of this agent (a fork another tab opens)."""
        await answered("session/close", self.spec, self.conn.close_session(session_id=session_id))

    async def list_sessions(self) -> list[SessionInfo]:
        """session/list for this workspace, cleaned like every update (titles are the
        agent's). Raises like `set_mode`."""
        return await listed_sessions(self.conn, self.spec)

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


@dataclass(frozen=True)
class OpenedSession:
    """How the session was opened: its id and response, whether it was an earlier one, and
    what the transcript should say about it (MCP servers left out, history not replayed)."""

    session_id: str
    response: NewSessionResponse | LoadSessionResponse
    resumed: bool
    notices: tuple[str, ...] = ()
    mcp_passed: tuple[str, ...] = ()


def as_loaded(response: ResumeSessionResponse | None) -> LoadSessionResponse:
    """session/resume answers as session/load does, without the replay."""
    if response is None:
        return LoadSessionResponse()
    return LoadSessionResponse(
        modes=response.modes, config_options=response.config_options, field_meta=response.field_meta
    )


async def listed_sessions(conn: ClientSideConnection, spec: LaunchSpec) -> list[SessionInfo]:
    """session/list, with every string cleaned where it comes in, as updates are."""
    listed = await conn.list_sessions(cwd=str(spec.cwd))
    return clean(list(listed.sessions))


async def start_or_resume(
    conn: ClientSideConnection,
    init: InitializeResponse,
    spec: LaunchSpec,
    resume: str | None,
    choose: SessionChooser | None,
    sink: ClientSink,
) -> OpenedSession:
    """session/new, or session/load of the given id (or of one the user picks from the list);
    session/resume when the agent offers it but not session/load.

    `resume` is None for a new session, "" to pick from session/list, or a session id.
    Replayed history arrives as ordinary updates before session/load answers.
    """
    servers, notices = for_agent(spec.mcp_servers, init)
    passed = tuple(server.name for server in servers)
    if resume is not None and not can_load(init) and not can_resume(init):
        sink.on_unsupported("", "session/load: this agent cannot resume sessions")
        resume = None
    if resume == "":
        resume = None
        if choose is not None and can_list(init):
            resume = await choose(await listed_sessions(conn, spec), None)
    mcp: list[SdkServer] = servers
    if resume and can_load(init):
        try:
            loaded = await conn.load_session(cwd=str(spec.cwd), session_id=resume, mcp_servers=mcp)
        except RequestError as error:
            if error.code != NOT_FOUND or choose is None or not can_list(init):
                raise
            # A mistyped or stale id: say so and offer the list, not a failed agent.
            chosen = await choose(await listed_sessions(conn, spec), resume)
            return await start_or_resume(conn, init, spec, chosen, None, sink)
        return OpenedSession(
            resume, clean(loaded or LoadSessionResponse()), True, tuple(notices), passed
        )
    if resume:
        resumed = await conn.resume_session(cwd=str(spec.cwd), session_id=resume, mcp_servers=mcp)
        notices.append(
            f"resumed session {resume} with session/resume: "
            "the agent did not replay the history, so earlier messages are not shown"
        )
        return OpenedSession(resume, clean(as_loaded(resumed)), True, tuple(notices), passed)
    created = await answered(
        "session/new", spec, conn.new_session(cwd=str(spec.cwd), mcp_servers=mcp)
    )
    return OpenedSession(created.session_id, clean(created), False, tuple(notices), passed)


T = TypeVar("T")


class HandshakeTimeout(Exception):
    """The agent did not answer a start-up request in time."""

    def __init__(self, method: str, seconds: float) -> None:
        super().__init__(f"the agent did not answer {method} within {seconds:g} s")
        self.method = method


async def answered(method: str, spec: LaunchSpec, request: Awaitable[T]) -> T:
    """The answer to a start-up request, or HandshakeTimeout after spec.handshake_timeout."""
    try:
        return await asyncio.wait_for(request, timeout=spec.handshake_timeout)
    except TimeoutError as error:
        raise HandshakeTimeout(method, spec.handshake_timeout) from error


async def negotiate(
    conn: ClientSideConnection,
    spec: LaunchSpec,
    process: AgentProcess,
    capabilities: ClientCapabilities,
    sink: ClientSink,
    resume: str | None,
    choose: SessionChooser | None,
    login: LoginChooser | None = None,
    ask_env: EnvAsker | None = None,
    login_failed: LoginFailed | None = None,
) -> tuple[InitializeResponse, OpenedSession]:
    """initialize, then a session; a refusal or an exit here is an AgentFailed."""
    try:
        init = clean(
            await answered(
                "initialize",
                spec,
                conn.initialize(
                    protocol_version=PROTOCOL_VERSION,
                    client_capabilities=capabilities,
                    client_info=Implementation(
                        name="dsh-tui", title="dsh-tui", version=__version__
                    ),
                ),
            )
        )
        opened = await with_login(
            lambda: start_or_resume(conn, init, spec, resume, choose, sink),
            conn,
            init,
            login,
            ask_env,
            login_failed,
        )
    except HandshakeTimeout as error:
        with contextlib.suppress(ProcessLookupError, OSError):
            process.kill()
        reason = (
            f"{error}; it was stopped "
            "(for an agent that starts slower: --handshake-timeout, or handshake_timeout in "
            "the settings file)"
        )
        raise await describe_failure(spec, process, reason) from error
    except ConnectionError as error:
        raise await describe_failure(spec, process, "the agent exited during start-up") from error
    except RequestError as error:
        reason = f"the agent refused to start a session: {clean_error(error)}"
        raise await describe_failure(spec, process, reason) from error
    return init, opened


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
    login: LoginChooser | None = None,
    ask_env: EnvAsker | None = None,
    login_failed: LoginFailed | None = None,
    capabilities: ClientCapabilities | None = None,
    make_client: ClientFactory = TuiClient,
    gate: Callable[[], Awaitable[None]] | None = None,
) -> AsyncIterator[AgentConnection]:
    """Spawn the agent (or take `process`, already started from `spec`), negotiate, open a
    session, and always reap the process on exit. `tap` (the traffic inspector's store) sees
    every line on the wire, and so does the `Recorder` writing `spec.record` when it is set.
    `capabilities` replaces the ones `spec.terminal` implies (the conformance check turns fs
    off too), and `make_client` builds the client object. `gate` is awaited before each
    message is read (the tabs' priority, tui/tabs/priority.py)."""
    if capabilities is None:
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
    client = make_client(sink, fs, terminals)
    async with contextlib.AsyncExitStack() as stack:
        # Unwound in reverse: the connection closes, the recording is written out, the agent
        # is reaped, then the terminals it left are closed, whatever went wrong on the way.
        stack.push_async_callback(client.terminals.close_all)
        stack.push_async_callback(reap, process)
        taps: list[LineTap] = [] if tap is None else [tap]
        if spec.record is not None:
            recorder = Recorder(spec.record)
            stack.push_async_callback(asyncio.to_thread, recorder.close)
            taps.append(recorder)
        if spec.mcp_servers and taps:  # their env and headers may hold secrets
            taps = [MaskingTap(each) for each in taps]
        reader, writer = await process.attach(STREAM_LIMIT_BYTES)
        transport = InspectingTransport(
            reader,
            writer,
            watcher=client,
            max_message_bytes=max_message_bytes,
            tap=joined(taps),
            gate=gate,
        )
        conn = ClientSideConnection(client, transport)
        stack.push_async_callback(close_connection, conn)
        init, opened = await negotiate(
            conn, spec, process, capabilities, sink, resume, choose, login, ask_env, login_failed
        )
        yield AgentConnection(
            spec,
            conn,
            process,
            init,
            opened.response,
            capabilities,
            client,
            opened.session_id,
            opened.resumed,
            opened,
        )
