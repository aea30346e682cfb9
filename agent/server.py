"""The ACP face of dsh-agent: capabilities, sessions (new, load, list), modes, config, prompts.

Only this module talks to the SDK's connection. Each session's updates go through its
`AgentSession` queue; the turn itself lives in `agent.loop`, slash commands in
`agent.commands`, and replay uses the same `agent.translate` as live turns.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    Agent,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
)
from acp.interfaces import Client
from acp.schema import (
    AcpMcpServer,
    AgentCapabilities,
    AudioContentBlock,
    AuthenticateRequest,
    AuthenticateResponse,
    AvailableCommandsUpdate,
    CancelNotification,
    ClientCapabilities,
    CloseSessionRequest,
    CloseSessionResponse,
    CurrentModeUpdate,
    EmbeddedResourceContentBlock,
    ForkSessionRequest,
    ForkSessionResponse,
    HttpMcpServer,
    ImageContentBlock,
    Implementation,
    InitializeRequest,
    ListSessionsRequest,
    ListSessionsResponse,
    LoadSessionRequest,
    LoadSessionResponse,
    McpCapabilities,
    McpServerStdio,
    NewSessionRequest,
    PermissionOption,
    PromptCapabilities,
    PromptRequest,
    RequestPermissionResponse,
    ResourceContentBlock,
    ResumeSessionRequest,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionForkCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SetSessionConfigOptionBooleanRequest,
    SetSessionConfigOptionResponse,
    SetSessionConfigOptionSelectRequest,
    SetSessionModeRequest,
    SetSessionModeResponse,
    SseMcpServer,
    TextContentBlock,
    ToolCallUpdate,
)
from pydantic import BaseModel

from agent import __version__
from agent.attachments import UnsupportedContent, prompt_parts
from agent.bridge import with_explicit_nulls
from agent.commands import available_commands, run_prompt
from agent.events import Notice, Title
from agent.log import (
    CwdMismatch,
    LogError,
    SessionLocked,
    SessionLog,
    SessionNotFound,
    SessionStore,
    default_session_dir,
)
from agent.loop import DEFAULT_MAX_STEPS
from agent.mcp.hub import McpHub
from agent.mcp.spec import read_specs
from agent.models.config import ConfigError, ModelSettings
from agent.permissions import DEFAULT_MODE, parse_mode
from agent.session import (
    AgentSession,
    AnyUpdate,
    ForkSessionWithModels,
    LoadSessionWithModels,
    NewSessionWithModels,
    PromptInFlight,
    SessionSettings,
)
from agent.tools.procs import kill_all_descendants, reap_orphans
from agent.translate import replay
from dsh_common.jsonrpc_lines import (
    MAX_MESSAGE_BYTES,
    READ_CHUNK_BYTES,
    LineTransport,
    envelope_problem,
    invalid_request,
    meta_shadowing,
    valid_id,
)
from dsh_common.proc_tree import become_subreaper

log = logging.getLogger(__name__)

# session/list's `_meta` key for a session's first prompt (the start of it: a list row).
FIRST_PROMPT_META_KEY = "dsh.firstPrompt"
FIRST_PROMPT_CHARS = 500

PromptBlock = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)
McpServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """Process-wide settings, from the command line."""

    session: SessionSettings = field(
        default_factory=lambda: SessionSettings(DEFAULT_MODE, ModelSettings(), DEFAULT_MAX_STEPS)
    )
    session_dir: Path = field(default_factory=default_session_dir)


def encodable(value: object) -> bool:
    """Whether every string in `value` (a dumped content block) encodes as UTF-8: JSON can
    carry a lone surrogate as an escape, but no file, log or reply can hold it."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(encodable(key) and encodable(item) for key, item in value.items())
    if isinstance(value, list | tuple):
        return all(encodable(item) for item in value)
    return True


def invalid_params(message: str, **data: Any) -> RequestError:
    """-32602 whose message itself says what is wrong (clients often show only the message)."""
    return RequestError(-32602, message, data or None)


def _absolute_cwd(cwd: str, method: str) -> str:
    if not os.path.isabs(cwd):
        raise invalid_params(f"{method} needs an absolute cwd, not {cwd!r}", cwd=cwd)
    return os.path.normpath(cwd)


class DshAgent(Agent):
    """The ACP agent. Unsupported methods answer method-not-found, never an empty success."""

    def __init__(self, config: AgentConfig | None = None) -> None:
        self.config = config or AgentConfig()
        self.store = SessionStore(self.config.session_dir)
        self._conn: Client | None = None
        self._client_caps = ClientCapabilities()
        self._sessions: dict[str, AgentSession] = {}

    def on_connect(self, conn: Client) -> None:
        self._conn = conn

    @property
    def conn(self) -> Client:
        if self._conn is None:
            raise RuntimeError("the agent is not connected")
        return self._conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self._client_caps = client_capabilities or ClientCapabilities()
        log.info("initialize from %s (protocol %s)", client_info, protocol_version)
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(
                    image=False, audio=False, embedded_context=True
                ),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities(),
                    fork=SessionForkCapabilities(),
                    close=SessionCloseCapabilities(),
                ),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
            ),
            agent_info=Implementation(name="dsh-agent", title="dsh-agent", version=__version__),
            auth_methods=[],
        )

    def _terminal_cards(self) -> bool:
        """The `_meta.terminal_output` capability, snapshotted by each session at its start."""
        meta = self._client_caps.field_meta or {}
        return meta.get("terminal_output") is True

    def _make_session(self, session_id: str, cwd: str, session_log: SessionLog) -> AgentSession:
        async def send(update: AnyUpdate) -> None:
            await self.conn.session_update(session_id=session_id, update=update)

        async def ask(
            tool_call: ToolCallUpdate, options: list[PermissionOption]
        ) -> RequestPermissionResponse:
            return await self.conn.request_permission(
                session_id=session_id, tool_call=tool_call, options=options
            )

        return AgentSession(
            session_id=session_id,
            cwd=cwd,
            log=session_log,
            terminal_cards=self._terminal_cards(),
            settings=self.config.session,
            send=send,
            ask=ask,
        )

    def _commands_update(self, session: AgentSession) -> AvailableCommandsUpdate:
        return AvailableCommandsUpdate(
            session_update="available_commands_update",
            available_commands=available_commands(session.mcp),
        )

    async def _connect_mcp(self, session: AgentSession, servers: list[McpServer] | None) -> None:
        """Connect the client's MCP servers (in parallel, each within its timeout); a server
        that fails gets one notice in the session, which goes on without it."""
        if not servers:
            return
        specs, unsupported = read_specs(servers)
        session.mcp = McpHub(specs, session.cwd)
        for problem in await session.mcp.start(unsupported):
            session.emit(Notice(problem, "warning"))

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        cwd = _absolute_cwd(cwd, "session/new")
        if not os.path.isdir(cwd):
            raise invalid_params(f"cwd {cwd} is not a directory", cwd=cwd)
        session_id = uuid.uuid4().hex
        session = self._make_session(session_id, cwd, self.store.create(session_id, cwd))
        self._sessions[session_id] = session
        log.info("new session %s in %s", session_id, cwd)
        try:
            await self._connect_mcp(session, mcp_servers)
        except BaseException:
            await session.close()
            del self._sessions[session_id]
            raise
        # Queued now, written by the session's sender task, which first runs after this
        # handler has returned and the response is queued: the client knows the id by then.
        session.notify(self._commands_update(session))
        return NewSessionWithModels(
            session_id=session_id,
            modes=session.mode_state(),
            config_options=list(session.config_options()),
            models=session.model_state(),
        )

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[McpServer] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse | None:
        cwd = _absolute_cwd(cwd, "session/load")
        existing = self._sessions.get(session_id)
        if existing is not None:
            if existing.busy:
                raise RequestError(
                    -32600, f"session {session_id} has a prompt running", {"sessionId": session_id}
                )
            await existing.close()
            del self._sessions[session_id]
        try:
            loaded = self.store.load(session_id, cwd)
        except SessionNotFound as error:
            raise RequestError(-32002, str(error), {"sessionId": session_id}) from None
        except (CwdMismatch, SessionLocked) as error:
            raise invalid_params(str(error), sessionId=session_id) from None
        except LogError as error:
            raise RequestError(-32603, str(error), {"sessionId": session_id}) from None
        session = self._make_session(session_id, cwd, loaded.log)
        self._sessions[session_id] = session
        for event in loaded.events:
            session.history.feed(event)
            session.titled = session.titled or isinstance(event, Title)
        for update in replay(loaded.events, cwd, session.terminal_cards):
            session.notify(update)
        await self._connect_mcp(session, mcp_servers)
        session.notify(self._commands_update(session))
        await session.flush()
        log.info("loaded session %s (%d events)", session_id, len(loaded.events))
        return LoadSessionWithModels(
            modes=session.mode_state(),
            config_options=list(session.config_options()),
            models=session.model_state(),
        )

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        if cursor is not None:
            raise invalid_params("session/list returns every session at once: no cursor")
        wanted = _absolute_cwd(cwd, "session/list") if cwd is not None else None
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=summary.id,
                    cwd=summary.cwd,
                    title=summary.title,
                    updated_at=summary.updated_at,
                    # What the user first said: a picker tells same-titled sessions apart.
                    field_meta=None
                    if summary.first_prompt is None
                    else {FIRST_PROMPT_META_KEY: summary.first_prompt[:FIRST_PROMPT_CHARS]},
                )
                for summary in self.store.list(wanted)
            ]
        )

    def _session(self, session_id: str) -> AgentSession:
        try:
            return self._sessions[session_id]
        except KeyError:
            raise invalid_params(f"unknown session {session_id}", sessionId=session_id) from None

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse | None:
        session = self._session(session_id)
        try:
            mode = parse_mode(mode_id)
        except ValueError as error:
            raise invalid_params(str(error), modeId=mode_id) from None
        session.set_mode(mode)
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse | None:
        session = self._session(session_id)
        if not isinstance(value, str):
            raise invalid_params(
                f"config option {config_id!r} takes a select value", configId=config_id
            )
        try:
            if config_id == "mode":
                session.mode = parse_mode(value)
                session.notify(
                    CurrentModeUpdate(session_update="current_mode_update", current_mode_id=value)
                )
            elif config_id == "model":
                session.set_model(value)
                # No config_option_update: the response carries the options.
            else:
                raise ValueError(f"unknown config option {config_id!r} (mode, model)")
        except (ValueError, ConfigError) as error:
            raise invalid_params(str(error), configId=config_id) from None
        return SetSessionConfigOptionResponse(config_options=list(session.config_options()))

    async def prompt(
        self, session_id: str, prompt: list[PromptBlock], **kwargs: Any
    ) -> PromptResponse:
        session = self._session(session_id)
        if not all(encodable(block.model_dump()) for block in prompt):
            # Refused before anything is logged or run: this prompt fails, the session stays.
            raise invalid_params(
                "the prompt is not valid Unicode (it holds a lone surrogate, as a file name "
                "that is not UTF-8 decodes to)"
            )
        try:
            text, attachments = prompt_parts(prompt, session.cwd)
        except UnsupportedContent as error:
            raise invalid_params(str(error)) from None
        if not text.strip() and not attachments:
            raise invalid_params("the prompt is empty")
        try:
            stop = await session.run_exclusive(run_prompt(session, text, attachments))
        except PromptInFlight as error:
            raise RequestError(-32600, str(error), {"sessionId": session_id}) from None
        return PromptResponse(stop_reason=stop)

    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: Any,
    ) -> ForkSessionResponse:
        """A new session holding `session_id`'s conversation so far; the source goes on as
        it was. Its log is written whole and not held, so another dsh-agent process can
        `session/load` it (a client opening the fork in a tab of its own does)."""
        cwd = _absolute_cwd(cwd, "session/fork")
        if not os.path.isdir(cwd):
            raise invalid_params(f"cwd {cwd} is not a directory", cwd=cwd)
        source = self._sessions.get(session_id)
        if source is not None and source.busy:
            raise RequestError(
                -32600,
                f"session {session_id} has a prompt running: fork it once the turn ends",
                {"sessionId": session_id},
            )
        fork_id = uuid.uuid4().hex
        try:
            forked = self.store.fork(session_id, fork_id, cwd)
        except SessionNotFound as error:
            raise RequestError(-32002, str(error), {"sessionId": session_id}) from None
        except LogError as error:
            raise RequestError(-32603, str(error), {"sessionId": session_id}) from None
        session = self._make_session(fork_id, cwd, forked.log)
        for event in forked.events:
            session.history.feed(event)
            session.titled = session.titled or isinstance(event, Title)
        self._sessions[fork_id] = session
        try:
            await self._connect_mcp(session, mcp_servers)
        except BaseException:
            await session.close()
            del self._sessions[fork_id]
            raise
        session.notify(self._commands_update(session))
        log.info("forked session %s into %s (%d events)", session_id, fork_id, len(forked.events))
        return ForkSessionWithModels(
            session_id=fork_id,
            modes=session.mode_state(),
            config_options=list(session.config_options()),
            models=session.model_state(),
        )

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse | None:
        """Stop the session's turn and jobs and release its log; closing one that is not
        open here (or twice) is not an error."""
        session = self._sessions.pop(session_id, None)
        if session is not None:
            await session.close()
            log.info("closed session %s", session_id)
        return CloseSessionResponse()

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self._sessions.get(session_id)
        if session is not None:
            session.cancel()

    async def shutdown(self) -> None:
        """Stop every turn and release every log; for the end of the connection."""
        for session in list(self._sessions.values()):
            await session.close()
        self._sessions.clear()

    # Methods this agent does not offer answer method-not-found rather than an empty success.
    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse | None:
        raise RequestError.method_not_found("authenticate")

    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: Any,
    ) -> ResumeSessionResponse:
        raise RequestError.method_not_found("session/resume")

    async def set_session_model(self, session_id: str, model_id: str) -> dict[str, Any]:
        """`session/set_model` (unstable ACP): the same switch as the `model` config option.

        Clients that know only this method can switch models too. The change is announced as
        a `config_option_update`, so clients that follow the config options stay in step.
        """
        session = self._session(session_id)
        try:
            session.set_model(model_id)
        except ConfigError as error:
            raise invalid_params(str(error), modelId=model_id) from None
        session.notify_config()
        return {}

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == SET_MODEL:
            session_id, model_id = params.get("sessionId"), params.get("modelId")
            if not isinstance(session_id, str) or not isinstance(model_id, str):
                raise invalid_params("session/set_model needs a sessionId and a modelId")
            return await self.set_session_model(session_id, model_id)
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        log.info("ignoring extension notification %s", method)


# --- the wire, guarded ----------------------------------------------------------------------
#
# The SDK's router spreads a request's top-level `_meta` keys over the validated parameters,
# so `_meta: {"cwd": ...}` would replace a checked `cwd` with a raw value. `GuardedTransport`
# reads the lines through the shared line guard (`dsh_common.jsonrpc_lines`) and admits only
# what the SDK can dispatch.

SET_MODEL = "session/set_model"
_UNROUTED = frozenset({SET_MODEL})
"""ACP methods dsh-agent serves that SDK 0.12.1 cannot route (unstable ones it lacks): the
transport hands them to `DshAgent.ext_method` under their own name."""

_REQUEST_MODELS: dict[str, tuple[type[BaseModel], ...]] = {
    "initialize": (InitializeRequest,),
    "authenticate": (AuthenticateRequest,),
    "session/new": (NewSessionRequest,),
    "session/load": (LoadSessionRequest,),
    "session/list": (ListSessionsRequest,),
    "session/set_mode": (SetSessionModeRequest,),
    "session/set_config_option": (
        SetSessionConfigOptionSelectRequest,
        SetSessionConfigOptionBooleanRequest,
    ),
    "session/prompt": (PromptRequest,),
    "session/cancel": (CancelNotification,),
    "session/fork": (ForkSessionRequest,),
    "session/resume": (ResumeSessionRequest,),
    "session/close": (CloseSessionRequest,),
}
_SHADOWABLE: dict[str, frozenset[str]] = {
    method: frozenset(name for model in models for name in model.model_fields) - {"field_meta"}
    for method, models in _REQUEST_MODELS.items()
}
_ANY_PARAMETER = frozenset().union(*_SHADOWABLE.values())


def shadowing_meta(method: str, params: object) -> list[str]:
    """The top-level `_meta` keys the SDK would spread over `method`'s parameters."""
    return meta_shadowing(params, _SHADOWABLE.get(method, _ANY_PARAMETER))


class GuardedTransport(LineTransport):
    """Newline-delimited JSON-RPC on asyncio streams, hardened for a hostile client.

    The shared line guard answers what is not one JSON-RPC object: a line over
    `max_message_bytes` is dropped whole (a request whose id is in its envelope gets -32600),
    invalid JSON gets -32700, a value that is not an object -32600, and a batch (ACP has
    none) -32600 for each member that is not a notification or a response. Here:

    * an object the SDK cannot dispatch (an id that is an object, a method that is not a
      string, ...) gets -32600;
    * `_meta` keys that would shadow the method's parameters are dropped, with a log line;
    * `session/set_model`, which the SDK cannot route, goes to `DshAgent.ext_method`.

    The connection carries on after each. Sending is the SDK's framing, byte for byte, except
    that diffs get back the `"oldText": null` the SDK drops (`agent.bridge.with_explicit_nulls`).
    """

    batch_reason = "batches are not supported: send one JSON-RPC message per line"

    async def send(self, message: dict[str, Any] | list[dict[str, Any]]) -> None:
        if isinstance(message, dict):
            message = with_explicit_nulls(message)
        await super().send(message)

    def admit(self, message: dict[str, Any]) -> dict[str, Any] | None:
        problem = envelope_problem(message)
        if problem is not None:
            log.warning("refused a message: %s", problem)
            request_id = message.get("id") if valid_id(message.get("id")) else None
            if "method" in message or request_id is None:
                self.reply(invalid_request(request_id, problem))
            return None
        method = message.get("method")
        if not isinstance(method, str):
            if message.get("id") is None and isinstance(message.get("error"), dict):
                # No request of ours has a null id: the client refused a notification (a
                # strict one validating a session/update it does not know). Said, not lost.
                error = message["error"]
                log.warning(
                    "the client answered a notification with error %r: %r",
                    error.get("code"),
                    str(error.get("message"))[:500],
                )
                return None
            return message  # a response to one of our requests
        if method in _UNROUTED:
            # The SDK's router has no route for it: dispatch it as our extension method.
            message = {**message, "method": "_" + method}
        params = message.get("params")
        shadowing = shadowing_meta(method, params)
        if shadowing and isinstance(params, dict):
            log.warning(
                "%s: dropped _meta keys that would replace parameters: %s",
                method,
                ", ".join(shadowing),
            )
            meta = {k: v for k, v in params["_meta"].items() if k not in shadowing}
            message = {**message, "params": {**params, "_meta": meta}}
        return message


REAP_EVERY_S = 2.0


async def _reap_periodically() -> None:
    while True:
        await asyncio.sleep(REAP_EVERY_S)
        reap_orphans()


async def serve_stdio(agent: DshAgent, *, max_message_bytes: int = MAX_MESSAGE_BYTES) -> None:
    """Run `agent` on this process's stdin and stdout through `GuardedTransport`.

    dsh-agent becomes the child subreaper of everything its commands start (Linux), so a
    daemon that double-forks or calls setsid is still its descendant. When stdin closes, or
    on SIGTERM or SIGHUP, every session ends (its jobs killed, background logs removed), then
    every descendant left is killed (SIGTERM, then SIGKILL) before the process exits.
    """
    import signal

    from acp.core import AgentSideConnection
    from acp.stdio import stdio_streams

    reaper = become_subreaper()
    reader, writer = await stdio_streams(limit=READ_CHUNK_BYTES)
    transport = GuardedTransport(reader, writer, max_message_bytes=max_message_bytes)
    # Unstable methods routed: session/fork and session/close (session/resume answers
    # method-not-found below, as the SDK would without the flag).
    conn = AgentSideConnection(agent, transport, listening=False, use_unstable_protocol=True)
    loop = asyncio.get_running_loop()
    listening = asyncio.ensure_future(conn.listen())
    reaping = asyncio.ensure_future(_reap_periodically()) if reaper else None
    stops = (signal.SIGTERM, signal.SIGHUP)
    for sig in stops:
        loop.add_signal_handler(sig, listening.cancel)
    try:
        await listening
    except asyncio.CancelledError:
        log.info("stopping on a signal")
    finally:
        for sig in stops:  # a second signal must not cut the clean-up short
            loop.add_signal_handler(sig, lambda: None)
        try:
            await asyncio.shield(agent.shutdown())
        finally:
            if reaping is not None:
                reaping.cancel()
            killed = await asyncio.shield(kill_all_descendants())
            if killed:
                log.info("killed %d process(es) left by commands", killed)
            await asyncio.shield(conn.close())


__all__ = [
    "MAX_MESSAGE_BYTES",
    "AgentConfig",
    "DshAgent",
    "GuardedTransport",
    "serve_stdio",
    "shadowing_meta",
]
