"""A short screen stays usable: at 80×24 a six-step plan and a bash permission question leave
the transcript most of the rows, through the real dsh-agent in Ask mode. (The same at 80×24
and 140×45 through the real binary in a pty: tests/tty/test_short_screen.py.)"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

from support import layout_still, wait_until
from tui.app import AppConfig, DshApp
from tui.pytest_plugin import PINNED_TIME
from tui.widgets.permission import PermissionPanel
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.terminal.pane import TerminalPane
from tui.widgets.transcript.messages import AgentMessage
from tui.widgets.transcript.plan import PlanView

AGENT = shlex.join([sys.executable, "-m", "agent.cli", "--mode", "ask"])
PLAN = "todo Read the code; Write the test; Fix the bug; Run the suite; Update docs; Commit"


def test_permission_and_plan_at_80x24(
    snap_compare: Any, snapshot_workspace: Path, tmp_path: Path
) -> None:
    """The plan is one line, `▸ plan 0/6 · ● Read the code`; the panel shows the command and
    `a allow · A always · r reject · esc cancel` on one row; the transcript keeps the rest."""
    app = DshApp(AppConfig(AGENT, snapshot_workspace, log_dir=tmp_path, **PINNED_TIME))

    async def run(pilot: Any) -> None:
        # The second prompt waits in the queue until the plan's turn is over.
        for prompt in (PLAN, "$ echo hello"):
            app.query_one(PromptArea).text = prompt
            await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.query(PermissionPanel)))
        await wait_until(pilot, lambda: len(app.query_one(PlanView).entries) == 6)
        await wait_until(pilot, lambda: not any(m.is_streaming for m in app.query(AgentMessage)))
        await wait_until(pilot, lambda: not any(pane.busy for pane in app.query(TerminalPane)))
        await layout_still(pilot, app.transcript)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run)
