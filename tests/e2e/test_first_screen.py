"""The first screen: the welcome until the first prompt, F1's keys, the mode by the prompt and
a notice when it changes."""

from __future__ import annotations

from pathlib import Path

from scripted import SETTINGS, script_app, send

from support import wait_until
from tui.app import DshApp
from tui.widgets.help import HelpScreen
from tui.widgets.prompt.prompt import PromptArea
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
        for hint in ("shift+tab", "ctrl+k", "f1"):
            assert hint in shown, hint
        # dsh-agent's own commands are not offered to an agent that has none.
        assert "help" not in shown and "demo" not in shown, shown
        await send(app, pilot, "hi")
        await wait_until(pilot, lambda: not app.query(Welcome))


async def test_welcome_offers_help_and_demo_once_the_agent_advertises_them(
    tmp_path: Path,
) -> None:
    commands = [
        {"name": "help", "description": "what I can do"},
        {"name": "demo", "description": "a tour"},
    ]
    update = {"sessionUpdate": "available_commands_update", "availableCommands": commands}
    app = script_app(tmp_path, {**SETTINGS, "prompts": [[]], "newUpdates": [update]})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: "demo" in str(app.query_one(Welcome).render()))
        shown = str(app.query_one(Welcome).render())
        assert "help" in shown and "shift+tab" in shown, shown


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


def footer(app: DshApp) -> list[str]:
    """The footer's key descriptions, left to right, as drawn (the palette key aside)."""
    from textual.widgets._footer import FooterKey

    keys = sorted(app.screen.query(FooterKey), key=lambda key: key.region.x)
    return [key.description for key in keys if not key.has_class("-command-palette")]


async def test_footer_lists_only_keys_that_act_in_one_order(tmp_path: Path) -> None:
    """The prompt's own Ctrl+K once put Capabilities first; Mode and Model showed for an agent
    with neither, Resume for one that cannot load, Cancel turn with no turn."""
    app = script_app(tmp_path, {**SETTINGS, "prompts": [[{"sleep": 30}]]})
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await wait_until(pilot, lambda: footer(app) == ["Mode", "Model", "Quit", "Capabilities"])
        app.screen.set_focus(None)  # the order does not depend on what has focus
        # The footer is recomposed after the focus change: waited for, not read at once.
        await wait_until(pilot, lambda: footer(app) == ["Mode", "Model", "Quit", "Capabilities"])
        app.query_one(PromptArea).focus()
        await send(app, pilot, "hi")
        # The key of the moment first.
        await wait_until(pilot, lambda: footer(app)[:1] == ["Cancel turn"])
        assert footer(app) == ["Cancel turn", "Mode", "Model", "Quit", "Capabilities"]
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.controller.turn_running)
        await wait_until(pilot, lambda: "Cancel turn" not in footer(app))


async def test_footer_leaves_out_settings_the_agent_does_not_offer(tmp_path: Path) -> None:
    app = script_app(tmp_path, {"prompts": [[]]})
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        await wait_until(pilot, lambda: footer(app) == ["Quit", "Capabilities"])
        await pilot.press("ctrl+l", "shift+tab")  # bound to nothing now: no picker, no notice
        await pilot.pause()
        assert app.screen is app.screen_stack[0] and not app._notifications
