"""The ACP face of dsh-agent: capability negotiation, sessions and prompts over stdio.

Only this module talks to the SDK's connection; everything it streams comes from the turn
runner, so the protocol surface stays in one place.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from dataclasses import dataclass, field
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    Agent,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    update_agent_message_text,
)
from acp.interfaces import Client
from acp.schema import (
    AcpMcpServer,
    AgentCapabilities,
    AudioContentBlock,
    AuthenticateResponse,
    ClientCapabilities,
    CloseSessionResponse,
    EmbeddedResourceContentBlock,
    ForkSessionResponse,
    HttpMcpServer,
    ImageContentBlock,
    Implementation,
    ListSessionsResponse,
    LoadSessionResponse,
    McpServerStdio,
    PromptCapabilities,
    ResourceContentBlock,
    ResumeSessionResponse,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    SseMcpServer,
    TextContentBlock,
)

from agent import __version__
from agent.offline_reply import offline_reply_chunks

log = logging.getLogger(__name__)

PromptBlock = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)
McpServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio


@dataclass
class Session:
    """Per-session state; the capability flags are snapshotted when the session starts."""

    session_id: str
    cwd: str
    terminal_cards: bool
    prompt_task: asyncio.Task[PromptResponse] | None = None
    history: list[str] = field(default_factory=list)


def prompt_text(blocks: list[PromptBlock]) -> str:
    """Flatten a prompt to text; non-text blocks are named so nothing is silently lost."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(f"[resource: {block.uri}]")
        else:
            parts.append(f"[{block.type} content]")
    return "\n".join(parts)


class DshAgent(Agent):
    """The ACP agent. Unsupported methods answer method-not-found, never an empty success."""

    def __init__(self) -> None:
        self._conn: Client | None = None
        self._client_caps = ClientCapabilities()
        self._sessions: dict[str, Session] = {}

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
                load_session=False,
                prompt_capabilities=PromptCapabilities(
                    image=False, audio=False, embedded_context=False
                ),
            ),
            agent_info=Implementation(name="dsh-agent", title="dsh-agent", version=__version__),
            auth_methods=[],
        )

    def _terminal_cards(self) -> bool:
        meta = self._client_caps.field_meta or {}
        return meta.get("terminal_output") is True

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        if not os.path.isabs(cwd):
            raise RequestError.invalid_params(
                {"cwd": cwd, "reason": "session/new needs an absolute cwd"}
            )
        session = Session(uuid.uuid4().hex, cwd, self._terminal_cards())
        self._sessions[session.session_id] = session
        log.info("new session %s in %s", session.session_id, cwd)
        return NewSessionResponse(session_id=session.session_id)

    def _session(self, session_id: str) -> Session:
        try:
            return self._sessions[session_id]
        except KeyError:
            raise RequestError.invalid_params(
                {"sessionId": session_id, "reason": "unknown session"}
            ) from None

    async def prompt(
        self, session_id: str, prompt: list[PromptBlock], **kwargs: Any
    ) -> PromptResponse:
        session = self._session(session_id)
        if session.prompt_task is not None and not session.prompt_task.done():
            raise RequestError.invalid_request(
                {"sessionId": session_id, "reason": "a prompt is already running in this session"}
            )
        text = prompt_text(prompt)
        if not text.strip():
            raise RequestError.invalid_params({"reason": "the prompt is empty"})
        task = asyncio.create_task(self._run_turn(session, text))
        session.prompt_task = task
        try:
            return await task
        except asyncio.CancelledError:
            return PromptResponse(stop_reason="cancelled")

    async def _run_turn(self, session: Session, text: str) -> PromptResponse:
        session.history.append(text)
        try:
            for chunk in offline_reply_chunks(text):
                await self.conn.session_update(session.session_id, update_agent_message_text(chunk))
                await asyncio.sleep(0)
        except ConnectionError:
            log.info("client went away during a turn")
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self._sessions.get(session_id)
        if session and session.prompt_task and not session.prompt_task.done():
            session.prompt_task.cancel()

    # Methods this agent does not offer answer method-not-found rather than an empty success.
    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[McpServer] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse | None:
        raise RequestError.method_not_found("session/load")

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        raise RequestError.method_not_found("session/list")

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse | None:
        raise RequestError.method_not_found("session/set_mode")

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse | None:
        raise RequestError.method_not_found("session/set_config_option")

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
