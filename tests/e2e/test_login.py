"""Logging in over real pipes: an agent that answers session/new with auth_required gets a
login picker of its `agent` methods, `authenticate`, and the session retried."""

from __future__ import annotations

import json
from pathlib import Path

from scripted import script_app

from support import wait_until
from tui.widgets.choice import ChoiceScreen
from tui.widgets.failure import AgentFailedScreen

METHODS = [
    {"id": "oauth", "name": "Log in with a browser", "description": "opens your account page"},
    {"id": "key", "name": "API key", "type": "env_var", "vars": [{"name": "ACME_KEY"}]},
]


def log_lines(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


async def test_auth_required_opens_the_login_picker_then_the_session(tmp_path: Path) -> None:
    log = tmp_path / "sessions.jsonl"
    script = {
        "prompts": [[]],
        "sessionLog": str(log),
        "auth": {"methods": METHODS, "accept": "oauth"},
    }
    app = script_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=60)
        screen = app.screen
        assert isinstance(screen, ChoiceScreen)
        assert screen.title_text == "Log in to the agent"
        assert [choice.value for choice in screen.choices] == ["oauth"]  # agent methods only
        assert screen.choices[0].label == "Log in with a browser"
        assert screen.choices[0].note == "opens your account page"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.controller.session is not None, timeout=60)
        assert [entry["method"] for entry in log_lines(log)] == ["authenticate", "session/new"]
        await app.action_quit()


async def test_declining_the_login_names_the_methods_on_the_failure_screen(
    tmp_path: Path,
) -> None:
    script = {"prompts": [[]], "auth": {"methods": METHODS, "accept": "oauth"}}
    app = script_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=60)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, AgentFailedScreen), timeout=60)
        assert app.controller.failure is not None
        assert "login cancelled" in app.controller.failure.reason


async def test_without_an_agent_method_the_failure_says_what_the_agent_asked_for(
    tmp_path: Path,
) -> None:
    script = {"prompts": [[]], "auth": {"methods": METHODS[1:], "accept": "none"}}
    app = script_app(tmp_path, script)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, AgentFailedScreen), timeout=60)
        assert app.controller.failure is not None
        reason = app.controller.failure.reason
        assert "needs a login (auth_required); its auth methods: key (env_var)" in reason
