"""Helpers for the runtime tests: an in-process agent and a recording client.

The in-process pair runs the real `DshAgent` and the SDK's client connection over
`memory_transport_pair`, so protocol behaviour is exercised without a subprocess. This
directory's conftest puts it on sys.path (the name is unique, so nothing clashes) and
re-exports its fixtures.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process, text_block
from acp._transport import memory_transport_pair
from acp.core import AgentSideConnection, ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    InitializeResponse,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from agent.bridge import wire_dict
from agent.models.config import ModelSettings
from agent.permissions import Mode
from agent.server import AgentConfig, DshAgent
from agent.session import SessionSettings

Answer = Callable[[ToolCallUpdate, list[PermissionOption]], Awaitable[RequestPermissionResponse]]


def select(option_id: str) -> Answer:
    async def answer(
        tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=option_id)
        )

    return answer


async def never(
    tool_call: ToolCallUpdate, options: list[PermissionOption]
) -> RequestPermissionResponse:
    """An answer that never comes: the question stays open until the turn is stopped."""
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


async def dismiss(
    tool_call: ToolCallUpdate, options: list[PermissionOption]
) -> RequestPermissionResponse:
    return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


def wire(update: Any) -> dict[str, Any]:
    return wire_dict(update)


@dataclass
class RecordingClient:
    """A duck-typed ACP client: records every update and permission request, in order."""

    answer: Answer = field(default_factory=lambda: select("allow-once"))
    events: list[tuple[str, str, Any]] = field(default_factory=list)  # (kind, session, payload)
    asked: asyncio.Event = field(default_factory=asyncio.Event)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.events.append(("update", session_id, update))

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        self.events.append(("permission", session_id, (tool_call, options)))
        self.asked.set()
        return await self.answer(tool_call, options)

    async def read_text_file(self, **kwargs: Any) -> Any:
        raise RequestError.method_not_found("fs/read_text_file")

    async def write_text_file(self, **kwargs: Any) -> Any:
        raise RequestError.method_not_found("fs/write_text_file")

    def updates(self, session_id: str | None = None) -> list[dict[str, Any]]:
        """The session's updates as wire dicts."""
        return [
            wire(payload)
            for kind, sid, payload in self.events
            if kind == "update" and (session_id is None or sid == session_id)
        ]

    def kinds(self, session_id: str | None = None) -> list[str]:
        return [update["sessionUpdate"] for update in self.updates(session_id)]

    def permissions(self) -> list[tuple[ToolCallUpdate, list[PermissionOption]]]:
        return [payload for kind, _, payload in self.events if kind == "permission"]

    def text(self, session_id: str | None = None) -> str:
        return "".join(
            update["content"]["text"]
            for update in self.updates(session_id)
            if update["sessionUpdate"] == "agent_message_chunk"
        )

    def results(self, session_id: str | None = None) -> dict[str, dict[str, Any]]:
        """The last update carrying a status per tool call id."""
        final: dict[str, dict[str, Any]] = {}
        for update in self.updates(session_id):
            if update["sessionUpdate"] == "tool_call_update" and "status" in update:
                final[update["toolCallId"]] = update
        return final

    def clear(self) -> None:
        self.events.clear()


@dataclass
class Harness:
    agent: DshAgent
    client: RecordingClient
    conn: ClientSideConnection
    workspace: Path
    session_dir: Path

    async def new(self) -> str:
        response = await self.conn.new_session(cwd=str(self.workspace))
        await asyncio.sleep(0)  # let the queued available_commands_update through
        return response.session_id

    async def asking(self) -> tuple[str, asyncio.Task[str]]:
        """A new session whose prompt now waits on a permission question (with `never`)."""
        session_id = await self.new()
        running = asyncio.create_task(self.prompt(session_id, "$ true"))
        await self.client.asked.wait()
        return session_id, running

    async def prompt(self, session_id: str, text: str) -> str:
        response = await self.conn.prompt(session_id=session_id, prompt=[text_block(text)])
        return response.stop_reason


Connect = Callable[..., Any]


def scenario_file(directory: Path, steps: list[list[dict[str, Any]]], name: str = "test") -> str:
    """Write a scripted scenario and return its path (for ModelSettings.scenario)."""
    path = directory / f"{name}.json"
    path.write_text(json.dumps({"name": name, "steps": steps}), encoding="utf-8")
    return str(path)


def scripted(path: str) -> ModelSettings:
    return ModelSettings(provider="scripted", scenario=path)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def connect(tmp_path: Path, workspace: Path) -> Connect:
    """`async with connect(mode=..., model=..., terminal=..., answer=...) as harness:`."""

    @asynccontextmanager
    async def factory(
        *,
        mode: Mode = "ask",
        model: ModelSettings | None = None,
        max_steps: int = 50,
        terminal: bool = True,
        answer: Answer | None = None,
        session_dir: Path | None = None,
    ) -> AsyncIterator[Harness]:
        sessions = session_dir or tmp_path / "sessions"
        settings = SessionSettings(mode, model or ModelSettings(), max_steps)
        agent = DshAgent(AgentConfig(settings, sessions))
        client = RecordingClient(answer) if answer else RecordingClient()
        agent_end, client_end = memory_transport_pair()
        # As dsh-agent serves: session/fork and session/close are routed (unstable ACP).
        agent_conn = AgentSideConnection(agent, agent_end, use_unstable_protocol=True)
        client_conn = ClientSideConnection(client, client_end)
        caps = ClientCapabilities(terminal=terminal, field_meta={"terminal_output": terminal})
        await client_conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=caps)
        try:
            yield Harness(agent, client, client_conn, workspace, sessions)
        finally:
            await agent.shutdown()
            await client_conn.close()
            await agent_conn.close()

    return factory


REPO = Path(__file__).resolve().parents[3]


@asynccontextmanager
async def stdio_agent(
    tmp_path: Path,
    client: RecordingClient,
    *args: str,
    capabilities: ClientCapabilities | None = None,
) -> AsyncIterator[tuple[ClientSideConnection, asyncio.subprocess.Process, InitializeResponse]]:
    """A real `python -m agent.cli` over stdio, initialized, its stderr in tmp_path."""
    command = ["-m", "agent.cli", "--session-dir", str(tmp_path / "sessions"), *args]
    with (tmp_path / "agent-stderr.log").open("ab") as stderr:
        async with spawn_agent_process(
            client,
            sys.executable,
            *command,
            env=dict(os.environ),
            cwd=str(REPO),
            transport_kwargs={"stderr": stderr},
        ) as (conn, process):
            init = await conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=capabilities or ClientCapabilities(),
            )
            yield conn, process, init
