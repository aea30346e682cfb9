"""Helpers for tests that run the real app against tests/e2e/script_agent.py, which plays a
JSON script of raw protocol actions (importable because pytest puts tests/ on sys.path)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from acp.schema import PermissionOption, RequestPermissionResponse, ToolCallUpdate

from support import turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.connection import SessionUpdate
from tui.state import MessageEntry
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.transcript.messages import AgentMessage, Notice

SCRIPT_AGENT = Path(__file__).parent / "e2e" / "script_agent.py"

# A session with two modes and one model option, as the scripted agent answers session/new.
SETTINGS = {
    "modes": {
        "currentModeId": "ask",
        "availableModes": [{"id": "ask", "name": "Ask"}, {"id": "full", "name": "Full access"}],
    },
    "configOptions": [
        {
            "type": "select",
            "id": "model",
            "name": "Model",
            "category": "model",
            "currentValue": "offline",
            "options": [{"value": "offline", "name": "Offline"}],
        }
    ],
}


def script_app(tmp_path: Path, script: dict[str, Any], **config: Any) -> DshApp:
    """The app on a scripted agent, in a workspace of its own under tmp_path."""
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    workspace = tmp_path / "work"
    workspace.mkdir(exist_ok=True)
    command = shlex.join([sys.executable, str(SCRIPT_AGENT), str(path)])
    return watch_turns(DshApp(AppConfig(command, workspace, log_dir=tmp_path / "logs", **config)))


async def send(app: DshApp, pilot: Any, text: str = "go") -> None:
    """Type a prompt and press Enter once the session is up; return once the turn began."""
    await wait_until(pilot, lambda: app.controller.session is not None)
    app.query_one(PromptArea).text = text
    done = turns_ended(app)
    await pilot.press("enter")
    await wait_until(pilot, lambda: app.controller.turn_running or turns_ended(app) > done)


def replies(app: DshApp) -> str:
    return "\n".join(m.source for m in app.query(AgentMessage))


async def first_turn_replies(app: DshApp, pilot: Any) -> str:
    """Send a prompt; the agent's replies once that first turn ended and stopped streaming."""
    await send(app, pilot)
    await wait_until(pilot, lambda: turns_ended(app) == 1)
    # The state holds every reply once the turn ended; the transcript mounts its widgets in
    # batches after that, so wait until it shows all of them.
    await wait_until(pilot, lambda: replies(app) == state_replies(app))
    return replies(app)


def state_replies(app: DshApp) -> str:
    """The agent's replies as the conversation state holds them."""
    entries = app.controller.conversation.entries
    return "\n".join(e.text for e in entries if isinstance(e, MessageEntry) and e.role == "agent")


def notices(app: DshApp) -> list[str]:
    return [str(n.render()) for n in app.query(Notice)]


class NoteSink:
    """A session sink for wire-level tests: keeps what the client could not show, and
    fails a test that would need a permission answer."""

    def __init__(self) -> None:
        self.notes: list[str] = []

    def on_session_update(self, session_id: str, update: SessionUpdate) -> None:
        return None

    def on_unsupported(self, session_id: str, what: str) -> None:
        self.notes.append(what)

    async def ask_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        raise AssertionError("no permission is asked here")


def recorded(path: Path) -> list[dict[str, Any]]:
    """The lines of a `--record` file, parsed."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
