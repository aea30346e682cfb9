"""Snapshots of the client core, driven by the scripted test agent (tests/e2e/script_agent.py)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from scripted import SETTINGS

import tui.app
from support import SNAPSHOT_WORKSPACE, turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.pytest_plugin import PINNED_TIME, settle_cards
from tui.widgets.capabilities import CapabilitiesScreen
from tui.widgets.choice import ChoiceScreen
from tui.widgets.failure import AgentFailedScreen
from tui.widgets.help import HelpScreen
from tui.widgets.permission import PermissionPanel
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.terminal.pane import TerminalPane
from tui.widgets.transcript.conversation import ConversationView
from tui.widgets.transcript.messages import AgentMessage, ThoughtMessage

SCRIPT_AGENT = Path(__file__).parent.parent / "e2e" / "script_agent.py"
HELLO = str(SNAPSHOT_WORKSPACE / "hello.py")
SIZE = (100, 40)


def update(**fields: Any) -> dict[str, Any]:
    return {"update": fields}


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


TRANSCRIPT = [
    update(sessionUpdate="agent_thought_chunk", content=text("The greeting lives in *hello.py*.")),
    update(
        sessionUpdate="agent_message_chunk", content=text("I'll **read** the file, then fix it.")
    ),
    update(
        sessionUpdate="plan",
        entries=[
            {"content": "Read hello.py", "priority": "high", "status": "completed"},
            {"content": "Fix the greeting", "priority": "medium", "status": "in_progress"},
            {"content": "Run it", "priority": "low", "status": "pending"},
        ],
    ),
    update(
        sessionUpdate="tool_call",
        toolCallId="c1",
        title="Read hello.py",
        kind="read",
        status="completed",
        locations=[{"path": HELLO, "line": 3}],
        content=[{"type": "content", "content": text("print('hi')")}],
    ),
    update(
        sessionUpdate="tool_call",
        toolCallId="c2",
        title="Search TODO",
        kind="search",
        status="pending",
        rawInput={"pattern": "TODO"},
    ),
    update(
        sessionUpdate="tool_call",
        toolCallId="c3",
        title="Think",
        kind="think",
        status="in_progress",
    ),
    update(
        sessionUpdate="tool_call",
        toolCallId="c4",
        title="Fetch docs",
        kind="fetch",
        status="failed",
        content=[{"type": "content", "content": text("Error: 404 Not Found")}],
    ),
    update(
        sessionUpdate="tool_call",
        toolCallId="c5",
        title="Screenshot",
        kind="other",
        status="completed",
        content=[
            {
                "type": "content",
                "content": {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
            },
            {
                "type": "content",
                "content": {
                    "type": "resource_link",
                    "name": "guide",
                    "uri": "https://example.com/guide",
                },
            },
        ],
    ),
    update(
        sessionUpdate="tool_call",
        toolCallId="c6",
        title="Dry run",
        kind="execute",
        status="completed",
        rawOutput={"ok": True},
    ),
    update(sessionUpdate="usage_update", used=1200, size=64000),
]

PERMISSION = {
    "permission": {
        "toolCall": {
            "toolCallId": "p1",
            "title": "Edit hello.py",
            "kind": "edit",
            "content": [
                {
                    "type": "diff",
                    "path": HELLO,
                    "oldText": "print('hi')\n",
                    "newText": "print('hello')\n",
                }
            ],
        },
        "options": [
            {"optionId": "allow", "name": "Allow once", "kind": "allow_once"},
            {"optionId": "always", "name": "Allow always", "kind": "allow_always"},
            {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
        ],
    }
}


def script_app(
    tmp_path: Path, script: dict[str, Any], terminal: bool = True, **config: Any
) -> DshApp:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    command = shlex.join([sys.executable, str(SCRIPT_AGENT), str(path)])
    app_config = AppConfig(command, SNAPSHOT_WORKSPACE, terminal, log_dir=tmp_path, **config)
    return watch_turns(DshApp(app_config))


async def prompt(app: DshApp, pilot: Any, value: str = "fix the greeting") -> None:
    await wait_until(pilot, lambda: app.controller.session is not None)
    app.query_one(PromptArea).text = value
    await pilot.press("enter")


async def settled(app: DshApp, pilot: Any) -> None:
    await wait_until(pilot, lambda: turns_ended(app) == 1)
    await wait_until(pilot, lambda: not any(m.is_streaming for m in app.query(AgentMessage)))
    await settle_cards(pilot, app.controller.conversation, app.query_one(ConversationView))


def test_transcript(snap_compare: Any, snapshot_workspace: Path, tmp_path: Path) -> None:
    """A prompt, a collapsed thought, a reply, generic cards in every status, the plan and usage.

    The turn is held open: once a turn ends, the calls it left pending or running are settled,
    so only a turn that is still on shows them so."""
    sent, held = tmp_path / "sent", tmp_path / "held"
    held_turn = [*TRANSCRIPT, {"touch": str(sent)}, {"wait_file": str(held)}]
    app = script_app(tmp_path, {**SETTINGS, "prompts": [held_turn]})

    async def run(pilot: Any) -> None:
        await prompt(app, pilot)
        await wait_until(pilot, sent.exists)
        await wait_until(pilot, lambda: app.controller.conversation.usage is not None)  # the last
        await wait_until(pilot, lambda: not any(m.is_streaming for m in app.query(AgentMessage)))
        await settle_cards(pilot, app.controller.conversation, app.query_one(ConversationView))

    assert snap_compare(app, terminal_size=(100, 60), run_before=run)


def test_thought_expanded(snap_compare: Any, snapshot_workspace: Path, tmp_path: Path) -> None:
    """The thought block opened: dim Markdown under its title."""
    app = script_app(tmp_path, {"prompts": [TRANSCRIPT[:2]]})

    async def run(pilot: Any) -> None:
        await prompt(app, pilot)
        await settled(app, pilot)
        app.query_one(ThoughtMessage).collapsed = False
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_permission_prompt(snap_compare: Any, snapshot_workspace: Path, tmp_path: Path) -> None:
    """The inline permission panel replaces the prompt: diff preview and the agent's options.

    The snippet carries no position; `print('hi')` is found once in hello.py on disk, so the
    preview numbers it 7, the line it is on."""
    Path(HELLO).write_text("import sys\n\n\ndef greet() -> None:\n    pass\n\nprint('hi')\n")
    app = script_app(tmp_path, {"prompts": [[TRANSCRIPT[1], PERMISSION]]})

    async def run(pilot: Any) -> None:
        await prompt(app, pilot)
        await wait_until(pilot, lambda: bool(app.query(PermissionPanel)))
        await wait_until(pilot, lambda: not any(m.is_streaming for m in app.query(AgentMessage)))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal-on", "terminal-off"])
def test_capabilities_view(
    snap_compare: Any, snapshot_workspace: Path, tmp_path: Path, terminal: bool
) -> None:
    """Client advertised vs agent answered; the terminal switch shows in both flags."""
    app = script_app(tmp_path, {**SETTINGS, "prompts": [[]]}, terminal=terminal)

    async def run(pilot: Any) -> None:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await pilot.press("ctrl+k")
        await wait_until(pilot, lambda: isinstance(app.screen, CapabilitiesScreen))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_agent_failed_screen(
    snap_compare: Any, snapshot_workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command, its exit code and the stderr tail, with retry and quit keys."""
    log_path = Path("/tmp/dsh-snapshot-logs/agent.log")
    log_path.parent.mkdir(parents=True, exist_ok=True)

    def fixed_log(log_dir: Path | None = None) -> Path:
        log_path.write_bytes(b"")
        return log_path

    monkeypatch.setattr(tui.app, "new_agent_log", fixed_log)
    script = "echo 'Traceback: model weights not found' >&2; exit 2"
    app = DshApp(AppConfig(shlex.join(["sh", "-c", script]), SNAPSHOT_WORKSPACE, log_dir=tmp_path))

    async def run(pilot: Any) -> None:
        await wait_until(pilot, lambda: isinstance(app.screen, AgentFailedScreen))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_spec_terminal(snap_compare: Any, snapshot_workspace: Path, tmp_path: Path) -> None:
    """A command the agent ran through terminal/create: its live pane with output and exit."""
    script = {
        "prompts": [
            [
                {
                    "terminal": {
                        "command": "printf",
                        "args": ["\\033[32mgreen\\033[0m and plain\\n"],
                        "toolCallId": "t1",
                    }
                }
            ]
        ]
    }
    # A fixed clock: the pane's duration is the same however loaded the machine is.
    app = script_app(tmp_path, script, **PINNED_TIME)

    async def run(pilot: Any) -> None:
        await prompt(app, pilot, "run it")
        await settled(app, pilot)
        await wait_until(pilot, lambda: not any(pane.busy for pane in app.query(TerminalPane)))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_first_screen(snap_compare: Any, snapshot_workspace: Path, tmp_path: Path) -> None:
    """At 80 columns, before any prompt: the welcome (agent, mode, model, where to start), and
    a header that dropped the protocol details, not the mode and model; the mode by the prompt."""
    app = script_app(tmp_path, {**SETTINGS, "prompts": [[]]})

    async def run(pilot: Any) -> None:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run)


def test_help_screen(snap_compare: Any, snapshot_workspace: Path, tmp_path: Path) -> None:
    """F1: every key, the app's bindings and the prompt's own."""
    app = script_app(tmp_path, {**SETTINGS, "prompts": [[]]})

    async def run(pilot: Any) -> None:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_model_picker(snap_compare: Any, snapshot_workspace: Path, tmp_path: Path) -> None:
    """Ctrl+L: the picker shows its keys on one row, and a long name does not wrap."""
    long_name = "A model with a name far too long for the sixty columns, cut with an ellipsis"
    settings = {
        **SETTINGS,
        "configOptions": [
            {
                **SETTINGS["configOptions"][0],  # type: ignore[index]
                "options": [
                    {"value": "offline", "name": "Offline"},
                    {"value": "long", "name": long_name},
                ],
            }
        ],
    }
    app = script_app(tmp_path, {**settings, "prompts": [[]]})

    async def run(pilot: Any) -> None:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run)
