"""The bundled demo through the real dsh-agent, with the terminal capability on and off.

The same scenario renders commands as live terminal panes (on) or as the agent's fenced
console fallback in generic cards (off); diffs render as diff panels either way.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from support import turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.pytest_plugin import PINNED_TIME, settle_cards
from tui.widgets.diff.panel import DiffPanel
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.terminal.header import status_content
from tui.widgets.terminal.pane import TerminalPane
from tui.widgets.transcript.conversation import ConversationView
from tui.widgets.transcript.messages import AgentMessage

AGENT = shlex.join([sys.executable, "-m", "agent.cli", "--mode", "full-access"])


def demo_app(workspace: Path, logs: Path, terminal: bool, **config: Any) -> DshApp:
    return watch_turns(DshApp(AppConfig(AGENT, workspace, terminal, log_dir=logs, **config)))


async def play_demo(app: DshApp, pilot: Any) -> None:
    await wait_until(pilot, lambda: app.controller.session is not None)
    app.query_one(PromptArea).text = "demo"
    await pilot.press("enter")
    await wait_until(pilot, lambda: turns_ended(app) == 1, timeout=60)
    await wait_until(pilot, lambda: not any(m.is_streaming for m in app.query(AgentMessage)))
    await settle_cards(pilot, app.controller.conversation, app.query_one(ConversationView))


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal-on", "terminal-off"])
def test_demo(
    snap_compare: Any,
    snapshot_workspace: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    terminal: bool,
) -> None:
    """Every card kind: plan, new file, two-hunk edit, read, exit 0 and 3, SIGTERM, long output."""
    app = demo_app(snapshot_workspace, tmp_path, terminal, **PINNED_TIME)

    async def run(pilot: Any) -> None:
        await play_demo(app, pilot)
        app.query_one("#conversation").scroll_home(animate=False)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(100, 230), run_before=run)


async def test_demo_renders_each_card_type(tmp_path: Path) -> None:
    """Terminal panes with exit badges when the capability is on; diff panels for file edits."""
    workspace = tmp_path / "work"
    workspace.mkdir()
    app = demo_app(workspace, tmp_path / "logs", True)
    async with app.run_test(size=(100, 50)) as pilot:
        await play_demo(app, pilot)
        panes = list(app.query(TerminalPane))
        badges = [status_content(pane).plain for pane in panes]
        assert any("✓ exit 0" in badge for badge in badges)
        assert any("✕ exit 3" in badge for badge in badges)
        assert any("killed by SIGTERM" in badge for badge in badges)
        assert any(pane.line_count >= 400 for pane in panes)
        assert len(app.query(DiffPanel)) >= 2
        await app.action_quit()


async def test_demo_without_terminal_capability_shows_console_fallback(tmp_path: Path) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    app = demo_app(workspace, tmp_path / "logs", False)
    async with app.run_test(size=(100, 50)) as pilot:
        await play_demo(app, pilot)
        assert not app.query(TerminalPane)
        texts = [
            block.content.text
            for entry in app.controller.conversation.tool_calls.values()
            for item in entry.content
            if getattr(item, "type", "") == "content"
            for block in [item]
            if getattr(block.content, "type", "") == "text"
        ]
        assert any(text.startswith("```console\n") and "[exit code: 3]" in text for text in texts)
        await app.action_quit()
