"""The README's main picture: the app at a common terminal size (120×40) after the bundled demo,
through the real dsh-agent, scrolled to its two-hunk edit."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from support import turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.pytest_plugin import PINNED_TIME, settle_cards
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.transcript.conversation import ConversationView
from tui.widgets.transcript.messages import AgentMessage

AGENT = shlex.join([sys.executable, "-m", "agent.cli", "--mode", "full-access"])


def test_demo_at_120x40(
    snap_compare: Any, snapshot_workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = DshApp(AppConfig(AGENT, snapshot_workspace, True, log_dir=tmp_path, **PINNED_TIME))
    watch_turns(app)

    async def run(pilot: Any) -> None:
        await wait_until(pilot, lambda: app.controller.session is not None)
        app.query_one(PromptArea).text = "demo"
        await pilot.press("enter")
        await wait_until(pilot, lambda: turns_ended(app) == 1, timeout=60)
        await wait_until(pilot, lambda: not any(m.is_streaming for m in app.query(AgentMessage)))
        await settle_cards(pilot, app.controller.conversation, app.query_one(ConversationView))
        # The two-hunk edit at the top, the read below it.
        view = app.query_one(ConversationView)
        cards = list(app.query(ToolCard))
        view.scroll_to_widget(cards[2], animate=False, top=True)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 40), run_before=run)
