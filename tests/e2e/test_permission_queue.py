"""The permission queue survives a request whose panel cannot be shown (issue 15, item 9)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from support import turns_ended, wait_until, watch_turns
from tui.app import AppConfig, DshApp
from tui.widgets.permission import PermissionPanel
from tui.widgets.prompt.prompt import PromptArea
from tui.widgets.transcript.messages import AgentMessage

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
        await pilot.press("tab")  # the question takes the keys
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


async def test_letters_typed_while_a_question_is_open_stay_in_the_prompt(
    tmp_path: Path,
) -> None:
    """Typed as the question arrives and after it is there, with every answer key in it:
    the prompt gets all of it, and only Tab then a key answers."""
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
        typed = ""

        async def type_on(letters: str) -> None:
            nonlocal typed
            for letter in letters:
                await pilot.press(letter)
                typed += letter

        await type_on("ab")
        release.touch()
        await wait_until(pilot, lambda: bool(app.query(PermissionPanel)))
        await type_on("abracadabra rAR")
        await pilot.press("enter", "enter")  # queued, then an Enter on the empty prompt
        await pilot.pause()
        assert "permission outcome" not in replies(app)
        assert app.controller.queued == [typed]
        assert app.query(PermissionPanel) and prompt.has_focus
        await pilot.press("tab")
        assert app.query_one(PermissionPanel).has_focus
        await pilot.press("r")
        await wait_until(pilot, lambda: "permission outcome: selected reject" in replies(app))
        await wait_until(pilot, lambda: prompt.has_focus)
