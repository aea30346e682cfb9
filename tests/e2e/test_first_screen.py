"""The first screen: the welcome until the first prompt, F1's keys, the mode by the prompt and
a notice when it changes."""

from __future__ import annotations

from pathlib import Path

from scripted import SETTINGS, script_app, send

from support import wait_until
from tui.widgets.help import HelpScreen
from tui.widgets.status import StatusLine
from tui.widgets.welcome import Welcome


async def test_welcome_names_agent_mode_and_model_and_leaves_with_the_first_prompt(
    tmp_path: Path,
) -> None:
    app = script_app(tmp_path, {**SETTINGS, "prompts": [[]]})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await pilot.pause()
        shown = str(app.query_one(Welcome).render())
        assert "script-agent" in shown and "Ask" in shown, shown
        assert "no real model configured" in shown, shown
        for hint in ("help", "demo", "shift+tab", "ctrl+k", "f1"):
            assert hint in shown, hint
        await send(app, pilot, "hi")
        await wait_until(pilot, lambda: not app.query(Welcome))


async def test_f1_opens_and_closes_the_keys(tmp_path: Path) -> None:
    app = script_app(tmp_path, {**SETTINGS, "prompts": [[]]})
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen))


async def test_mode_change_shows_by_the_prompt_and_flashes_a_notice(tmp_path: Path) -> None:
    app = script_app(tmp_path, {**SETTINGS, "prompts": [[]]})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        assert "mode Ask" in str(app.query_one(StatusLine).render())
        await pilot.press("shift+tab")
        await wait_until(pilot, lambda: "Full access" in str(app.query_one(StatusLine).render()))
        await wait_until(
            pilot, lambda: any(n.message == "Mode: Full access" for n in app._notifications)
        )
