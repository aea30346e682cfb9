"""The app after one exchange with the real dsh-agent: header, prompt echo and reply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support import AGENT_COMMAND, turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.transcript.messages import AgentMessage


def test_one_exchange(snap_compare: Any, snapshot_workspace: Path, tmp_path: Path) -> None:
    """You should see the header (dsh-agent 0.1.0, ACP v1), the prompt and the offline reply."""
    app = DshApp(AppConfig(AGENT_COMMAND, snapshot_workspace, True, log_dir=tmp_path))
    watch_turns(app)

    async def exchange(pilot: Any) -> None:
        await wait_until(pilot, lambda: app.controller.session is not None)
        app.query_one(PromptArea).text = "hello **agent**"
        await pilot.press("enter")
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        await wait_until(pilot, lambda: not app.query_one(AgentMessage).is_streaming)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(100, 30), run_before=exchange)
