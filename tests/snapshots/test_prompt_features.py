"""Pictures of the prompt's own features: `@` mentions (chips on the border, the attachments
line of the sent message) and a `!` command's card, run by the user. Driven by the scripted
agent (tests/e2e/script_agent.py) in the fixed snapshot workspace."""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from support import SNAPSHOT_WORKSPACE, turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.pytest_plugin import PINNED_TIME
from tui.terminal.source import SpecTerminal, TerminalFacts
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.terminal.pane import TerminalPane
from tui.widgets.transcript.messages import AgentMessage

SCRIPT_AGENT = Path(__file__).parent.parent / "e2e" / "script_agent.py"
SIZE = (100, 30)


def script_app(tmp_path: Path, script: dict[str, Any]) -> DshApp:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"agent_name": "script-agent", **script}))
    command = shlex.join([sys.executable, str(SCRIPT_AGENT), str(path)])
    config = AppConfig(command, SNAPSHOT_WORKSPACE, log_dir=tmp_path, **PINNED_TIME)
    return watch_turns(DshApp(config))


def test_prompt_with_mentions(snap_compare: Any, snapshot_workspace: Path, tmp_path: Path) -> None:
    """A sent prompt with two mentions, its `attached:` line (lines counted), the agent's
    account of the blocks it got (two embedded resources); then a prompt being typed with
    two mentions, shown as chips on its border."""
    (snapshot_workspace / "app.py").write_text("import sys\n\nprint(sys.argv)\n")
    (snapshot_workspace / "notes.txt").write_text("remember the milk\n")
    script = {"embeddedContext": True, "prompts": [[{"blocks": "got:\n\n"}]]}
    app = script_app(tmp_path, script)

    async def run(pilot: Any) -> None:
        await wait_until(pilot, lambda: app.controller.session is not None)
        prompt = app.query_one(PromptArea)
        prompt.load("compare @app.py with @notes.txt please")
        await pilot.press("enter")
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        await wait_until(pilot, lambda: bool(app.query(AgentMessage)))
        prompt.load("and now @notes.txt against @app.py again")
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_bang_card(
    snap_compare: Any, snapshot_workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`!echo hi`: a terminal card `❯ ! echo hi  ✓ completed · run by you`, its pane with
    `hi` and `✓ exit 0` (timed 0 to 1.25 s: a real run's duration varies); nothing sent."""
    real_facts = SpecTerminal.facts

    def ran_from_0_to_1_25(terminal: SpecTerminal) -> TerminalFacts:
        facts = real_facts(terminal)
        end = facts.end and dataclasses.replace(facts.end, finished_at=1.25)
        return dataclasses.replace(facts, started_at=0.0, end=end)

    monkeypatch.setattr(SpecTerminal, "facts", ran_from_0_to_1_25)
    app = script_app(tmp_path, {"prompts": [[]]})

    async def run(pilot: Any) -> None:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await pilot.press(*"!echo hi", "enter")
        await wait_until(pilot, lambda: bool(app.query(ToolCard)))
        card = app.query_one(ToolCard)
        await wait_until(pilot, lambda: card.entry.status == "completed")
        pane = card.query_one(TerminalPane)
        await wait_until(pilot, lambda: pane.exited and not pane.busy)
        await pilot.pause()
        assert turns_ended(app) == 0

    assert snap_compare(app, terminal_size=SIZE, run_before=run)
