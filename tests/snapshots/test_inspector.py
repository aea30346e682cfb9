"""Snapshots of the traffic inspector (F12) in the app, on the scripted test agent.

The store's clock is a fake one that moves 3 ms a message, so the time column is the same on
every run; the workspace is SNAPSHOT_WORKSPACE and the agent's session id is fixed ("s1"), so
every size is too.
"""

from __future__ import annotations

import itertools
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from support import SNAPSHOT_WORKSPACE, turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.inspector.traffic import Traffic
from tui.pytest_plugin import settle_cards
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.inspector.panel import InspectorPane
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.transcript.conversation import ConversationView
from tui.widgets.transcript.messages import AgentMessage

SCRIPT_AGENT = Path(__file__).parent.parent / "e2e" / "script_agent.py"
HELLO = str(SNAPSHOT_WORKSPACE / "hello.py")
WIDE = (140, 45)


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


TURN = [
    {"update": {"sessionUpdate": "agent_message_chunk", "content": text("I'll read the file.")}},
    {
        "update": {
            "sessionUpdate": "tool_call",
            "toolCallId": "c1",
            "title": "Read hello.py",
            "kind": "read",
            "status": "in_progress",
            "locations": [{"path": HELLO}],
        }
    },
    {
        "update": {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "status": "completed",
            "content": [{"type": "content", "content": text("print('hi')")}],
        }
    },
    {
        "update": {
            "sessionUpdate": "tool_call",
            "toolCallId": "c2",
            "title": "Search TODO",
            "kind": "search",
            "status": "completed",
            "rawOutput": {"matches": 0},
        }
    },
    {"update": {"sessionUpdate": "agent_message_chunk", "content": text(" It prints hi.")}},
]


def inspector_app(tmp_path: Path) -> DshApp:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"prompts": [TURN]}))
    command = shlex.join([sys.executable, str(SCRIPT_AGENT), str(path)])
    app = watch_turns(DshApp(AppConfig(command, SNAPSHOT_WORKSPACE, True, log_dir=tmp_path)))
    clock = itertools.count(0.0, 0.003)
    app.controller.traffic = Traffic(clock=lambda: next(clock))
    return app


async def turn_then_inspector(app: DshApp, pilot: Any) -> InspectorPane:
    """One prompt and its turn, settled, then F12 and the pane up to date."""
    await wait_until(pilot, lambda: app.controller.session is not None)
    app.query_one(PromptArea).text = "what does hello.py print?"
    await pilot.press("enter")
    await wait_until(pilot, lambda: turns_ended(app) == 1)
    await wait_until(pilot, lambda: not any(m.is_streaming for m in app.query(AgentMessage)))
    await settle_cards(pilot, app.controller.conversation, app.query_one(ConversationView))
    await pilot.press("f12")
    await wait_until(pilot, lambda: bool(app.query(InspectorPane)))
    pane = app.query_one(InspectorPane)
    pane.sync()
    await pilot.pause()
    return pane


def test_list(snap_compare: Any, snapshot_workspace: Path, tmp_path: Path) -> None:
    """The pane beside the transcript: the initialize pair pinned above the list of every
    message of the session (→ what dsh-tui sent, ← what the agent sent), each with its id,
    size and time since the one before; the cursor on the last, the prompt's result."""
    app = inspector_app(tmp_path)

    async def run(pilot: Any) -> None:
        await turn_then_inspector(app, pilot)

    assert snap_compare(app, terminal_size=WIDE, run_before=run)


def test_negotiation(snap_compare: Any, snapshot_workspace: Path, tmp_path: Path) -> None:
    """`i` unfolds the pinned negotiation: protocol versions and names side by side, then a
    row per capability path, what the client offered (fs, terminal, auth,
    _meta.terminal_output) beside what the agent answered (the scripted agent: loadSession and
    promptCapabilities.embeddedContext), `—` where a side sent nothing."""
    app = inspector_app(tmp_path)

    async def run(pilot: Any) -> None:
        await turn_then_inspector(app, pilot)
        await pilot.press("i")
        await pilot.pause()

    assert snap_compare(app, terminal_size=WIDE, run_before=run)


def test_message_opened(snap_compare: Any, snapshot_workspace: Path, tmp_path: Path) -> None:
    """A click in the Read card's body filters the list to `tool:c1` (its tool_call and
    tool_call_update); Down and Enter open the update as pretty, highlighted JSON, the title
    naming the message, its size and time since the one before."""
    app = inspector_app(tmp_path)

    async def run(pilot: Any) -> None:
        pane = await turn_then_inspector(app, pilot)
        card = next(c for c in app.query(ToolCard) if c.entry.tool_call_id == "c1")
        await pilot.click(card, offset=(4, 3))  # print('hi'), not the header
        await wait_until(pilot, lambda: pane.filter.value == "tool:c1")
        await pilot.press("down", "enter")
        await pilot.pause()

    assert snap_compare(app, terminal_size=WIDE, run_before=run)


def test_list_over_the_transcript(
    snap_compare: Any, snapshot_workspace: Path, tmp_path: Path
) -> None:
    """At 80×24 the pane takes the transcript's place (F12 gives it back)."""
    app = inspector_app(tmp_path)

    async def run(pilot: Any) -> None:
        await turn_then_inspector(app, pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run)
