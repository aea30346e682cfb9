"""The permission queue survives a request whose panel cannot be shown (issue 15, item 9)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

import tui.widgets.permission
import tui.widgets.prompt
from support import turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.widgets.messages import AgentMessage
from tui.widgets.permission import TYPING_PAUSE_S, PermissionPanel
from tui.widgets.prompt import PromptArea

SCRIPT_AGENT = Path(__file__).with_name("script_agent.py")
OPTIONS = [
    {"optionId": "allow", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]


def call(call_id: str) -> dict[str, Any]:
    return {"toolCallId": call_id, "title": f"Run {call_id}", "kind": "execute"}


async def test_a_panel_that_fails_to_show_answers_cancelled_and_the_next_one_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[str] = []
    build = PermissionPanel.__init__

    def first_fails(panel: PermissionPanel, request: Any, *args: Any, **kwargs: Any) -> None:
        built.append(request.tool_call.tool_call_id)
        if len(built) == 1:
            raise RuntimeError("panel failed to build")
        build(panel, request, *args, **kwargs)

    monkeypatch.setattr(PermissionPanel, "__init__", first_fails)
    script = {
        "prompts": [
            [
                {"permission": {"toolCall": call("first"), "options": OPTIONS}},
                {"permission": {"toolCall": call("second"), "options": OPTIONS}},
            ]
        ]
    }
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    command = shlex.join([sys.executable, str(SCRIPT_AGENT), str(path)])
    app = DshApp(AppConfig(command, tmp_path, log_dir=tmp_path / "logs"))
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        app.query_one(PromptArea).text = "go"
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.query(PermissionPanel)))
        assert built == ["first", "second"]
        assert "Run second" in str(app.query_one(PermissionPanel).border_title)
        await pilot.press("a")
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        await wait_until(pilot, lambda: not any(m.is_streaming for m in app.query(AgentMessage)))
        replies = "\n".join(m.source for m in app.query(AgentMessage))
        assert "permission outcome: cancelled" in replies
        assert "permission outcome: selected allow" in replies
        assert not app.query(PermissionPanel)
        assert app.query_one(PromptArea).display
        await app.action_quit()


def replies(app: DshApp) -> str:
    return "\n".join(message.source for message in app.query(AgentMessage))


class TypingClock:
    """The clock the type-ahead rule reads (the prompt's last key, the question's pause), so
    a person's pace is a person's pace however busy the machine: 0.1 s a key, only when
    a key is typed."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


async def test_letters_typed_as_a_question_appears_stay_in_the_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = TypingClock()
    monkeypatch.setattr(tui.widgets.prompt, "time", clock)
    monkeypatch.setattr(tui.widgets.permission, "time", clock)
    permission = {"permission": {"toolCall": call("edit"), "options": OPTIONS}}
    release = tmp_path / "release"  # the question is asked once the typing has begun
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"prompts": [[{"wait_file": str(release)}, permission]]}))
    command = shlex.join([sys.executable, str(SCRIPT_AGENT), str(path)])
    app = DshApp(AppConfig(command, tmp_path, log_dir=tmp_path / "logs"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        prompt = app.query_one(PromptArea)
        prompt.text = "go"
        await pilot.press("enter")
        # Typing on at a person's pace while the question arrives, and on after it is there:
        # "a" and "r" would answer it.
        typed = ""

        async def type_on(letters: str) -> None:
            nonlocal typed
            for letter in letters:
                await pilot.press(letter)
                typed += letter
                clock.now += 0.1
                await pilot.pause(0.05)

        await type_on("ab")
        release.touch()
        for _ in range(200):
            if app.query(PermissionPanel):
                break
            await type_on("x")
        await type_on("abracadabra")
        assert app.query(PermissionPanel), "the question never appeared while typing"
        assert "permission outcome" not in replies(app)
        assert prompt.text.endswith(typed[-4:]) and prompt.text.count("a") == typed.count("a")
        # After a pause the keys are the question's.
        clock.now += TYPING_PAUSE_S + 0.2
        await pilot.press("r")
        await wait_until(pilot, lambda: "permission outcome: selected reject" in replies(app))
        assert prompt.text == typed
