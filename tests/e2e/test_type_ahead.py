"""Type-ahead: what is sent before the session is ready, or during a turn, waits in a visible
queue and is sent in order; it can be taken back or cancelled before it is sent."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from support import AGENT_COMMAND, turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.prompt.queued import QueuedPrompts
from tui.widgets.transcript.messages import AgentMessage, UserMessage

HERE = Path(__file__).parent


def delayed(seconds: float, command: str) -> str:
    """The agent command, started only after a pause: a slow agent start, made certain."""
    return shlex.join(["sh", "-c", f"sleep {seconds}; exec {command}"])


def app_for(tmp_path: Path, command: str) -> DshApp:
    workspace = tmp_path / "work"
    workspace.mkdir(exist_ok=True)
    return DshApp(AppConfig(command, workspace, log_dir=tmp_path / "logs"))


def user_texts(app: DshApp) -> list[str]:
    return [str(message.render()).removeprefix("› ") for message in app.query(UserMessage)]


def queue_text(app: DshApp) -> str:
    strip = app.query_one(QueuedPrompts)
    return str(strip.render()) if strip.display else ""


async def test_enter_before_the_session_is_ready_queues_the_prompt(tmp_path: Path) -> None:
    app = app_for(tmp_path, delayed(1.0, AGENT_COMMAND))
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("h", "e", "l", "l", "o", "enter")
        assert app.controller.session is None
        assert "queued" in queue_text(app) and "hello" in queue_text(app)
        assert user_texts(app) == []
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        await wait_until(pilot, lambda: user_texts(app) == ["hello"])
        await wait_until(
            pilot, lambda: "hello" in "\n".join(m.source for m in app.query(AgentMessage))
        )
        assert queue_text(app) == ""


def script_command(tmp_path: Path, script: dict[str, Any]) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    return shlex.join([sys.executable, str(HERE / "script_agent.py"), str(path)])


def chunk(text: str) -> dict[str, Any]:
    return {
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text},
        }
    }


async def test_a_prompt_sent_during_a_turn_waits_and_follows_it(tmp_path: Path) -> None:
    release = tmp_path / "release"  # the first turn lasts until "two" is queued
    first = [{"wait_file": str(release)}, chunk("done one")]
    script = {"prompts": [first, [chunk("done two")]]}
    app = app_for(tmp_path, script_command(tmp_path, script))
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await pilot.press("o", "n", "e", "enter")
        await wait_until(pilot, lambda: app.controller.turn_running)
        await pilot.press("t", "w", "o", "enter")
        assert "two" in queue_text(app)
        release.touch()
        await wait_until(pilot, lambda: user_texts(app) == ["one"])
        await wait_until(pilot, lambda: turns_ended(app) == 2)
        await wait_until(pilot, lambda: user_texts(app) == ["one", "two"])
        await wait_until(
            pilot, lambda: "done two" in "\n".join(m.source for m in app.query(AgentMessage))
        )
        assert queue_text(app) == ""


async def test_queued_prompts_can_be_taken_back_or_cancelled(tmp_path: Path) -> None:
    slow = shlex.join([sys.executable, str(HERE / "slow_agent.py")])
    app = app_for(tmp_path, slow)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        prompt = app.query_one(PromptArea)
        await pilot.press("g", "o", "enter")
        await wait_until(pilot, lambda: app.controller.turn_running)
        await pilot.press("a", "enter", "b", "enter")
        assert app.controller.queued == ["a", "b"]
        await pilot.press("up")  # on the empty prompt: the last queued prompt comes back
        assert prompt.text == "b" and app.controller.queued == ["a"]
        assert "b" not in queue_text(app).split("\n")[0]
        await pilot.press("escape")  # cancels the turn; queued prompts return, unsent
        assert app.controller.queued == []
        assert prompt.text == "a\nb"
        await wait_until(pilot, lambda: not app.controller.turn_running)
        await pilot.pause(0.3)
        assert user_texts(app) == ["go"]
        assert queue_text(app) == ""
