"""A minimal ACP agent that streams slowly until cancelled: exercises Esc during a turn."""

from __future__ import annotations

import asyncio
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    run_agent,
    update_agent_message_text,
)
from acp.schema import AgentCapabilities, Implementation


class SlowAgent:
    def on_connect(self, conn: Any) -> None:
        self.conn = conn
        self.cancelled = asyncio.Event()

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(),
            agent_info=Implementation(name="slow-agent", version="1"),
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id="slow")

    async def prompt(self, session_id: str, prompt: Any, **kwargs: Any) -> PromptResponse:
        self.cancelled.clear()
        for _ in range(600):
            if self.cancelled.is_set():
                return PromptResponse(stop_reason="cancelled")
            await self.conn.session_update(session_id, update_agent_message_text("tick "))
            await asyncio.sleep(0.05)
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.cancelled.set()


if __name__ == "__main__":
    asyncio.run(run_agent(SlowAgent()))  # type: ignore[arg-type]
