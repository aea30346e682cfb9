"""The ACP face of dsh-agent: capabilities, sessions (new, load, list), modes, config, prompts.

Only this module talks to the SDK's connection. Each session's updates go through its
`AgentSession` queue; the turn itself lives in `agent.loop`, slash commands in
`agent.commands`, and replay uses the same `agent.translate` as live turns.
"""

from __future__ import annotations

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
    AuthenticateResponse,
    AvailableCommandsUpdate,
    ClientCapabilities,
    CloseSessionResponse,
    CurrentModeUpdate,
    EmbeddedResourceContentBlock,
    ForkSessionResponse,
    HttpMcpServer,
    ImageContentBlock,
    Implementation,
    ListSessionsResponse,
    LoadSessionResponse,
    McpServerStdio,
    PermissionOption,
    PromptCapabilities,
    RequestPermissionResponse,
    ResourceContentBlock,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    SseMcpServer,
    TextContentBlock,
    ToolCallUpdate,
)

from agent import __version__
from agent.commands import available_commands, run_prompt
from agent.events import Title
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
from agent.models.config import ConfigError, ModelSettings
from agent.permissions import DEFAULT_MODE, parse_mode
from agent.session import AgentSession, AnyUpdate, PromptInFlight, SessionSettings
from agent.translate import replay

log = logging.getLogger(__name__)

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


def invalid_params(message: str, **data: Any) -> RequestError:
    """-32602 whose message itself says what is wrong (clients often show only the message)."""
    return RequestError(-32602, message, data or None)


def prompt_text(blocks: list[PromptBlock]) -> str:
    """Flatten a prompt to text. Only text and resource links are accepted; the rest is
    refused rather than dropped, since the model would otherwise answer without it."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(f"\n[resource_link name={block.name!r} uri={block.uri!r}]\n")
        else:
            raise invalid_params(f"dsh-agent does not accept {block.type} content in prompts")
    return "".join(parts)


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
                    image=False, audio=False, embedded_context=False
                ),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
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

    def _commands_update(self) -> AvailableCommandsUpdate:
        return AvailableCommandsUpdate(
            session_update="available_commands_update", available_commands=available_commands()
        )

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
        if mcp_servers:
            log.info("ignoring %d MCP server(s): dsh-agent has no MCP support", len(mcp_servers))
        session_id = uuid.uuid4().hex
        session = self._make_session(session_id, cwd, self.store.create(session_id, cwd))
        self._sessions[session_id] = session
        log.info("new session %s in %s", session_id, cwd)
        # Queued now, written by the session's sender task, which first runs after this
        # handler has returned and the response is queued: the client knows the id by then.
        session.notify(self._commands_update())
        return NewSessionResponse(
            session_id=session_id,
            modes=session.mode_state(),
            config_options=list(session.config_options()),
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
        session.notify(self._commands_update())
        await session.flush()
        log.info("loaded session %s (%d events)", session_id, len(loaded.events))
        return LoadSessionResponse(
            modes=session.mode_state(), config_options=list(session.config_options())
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
            else:
                raise ValueError(f"unknown config option {config_id!r} (mode, model)")
        except (ValueError, ConfigError) as error:
            raise invalid_params(str(error), configId=config_id) from None
        return SetSessionConfigOptionResponse(config_options=list(session.config_options()))

    async def prompt(
        self, session_id: str, prompt: list[PromptBlock], **kwargs: Any
    ) -> PromptResponse:
        session = self._session(session_id)
        text = prompt_text(prompt)
        if not text.strip():
            raise invalid_params("the prompt is empty")
        try:
            stop = await session.run_exclusive(run_prompt(session, text))
        except PromptInFlight as error:
            raise RequestError(-32600, str(error), {"sessionId": session_id}) from None
        return PromptResponse(stop_reason=stop)

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

    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: Any,
    ) -> ForkSessionResponse:
        raise RequestError.method_not_found("session/fork")

    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: Any,
    ) -> ResumeSessionResponse:
        raise RequestError.method_not_found("session/resume")

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse | None:
        raise RequestError.method_not_found("session/close")

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        log.info("ignoring extension notification %s", method)


__all__ = ["AgentConfig", "DshAgent", "prompt_text"]
