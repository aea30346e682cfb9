"""The command palette (Ctrl+P) holds the app's own actions, and they work."""

from __future__ import annotations

from pathlib import Path

from scripted import script_app, send

from support import turns_ended, wait_until, watch_turns
from tui.widgets.cards.tool_card import ToolCard

REPLY = {
    "update": {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": "**done**"},
    }
}
CARD = {
    "update": {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "Think",
        "kind": "think",
        "status": "completed",
        "content": [{"type": "content", "content": {"type": "text", "text": "a\nb\nc"}}],
    }
}


async def test_palette_lists_the_apps_actions_and_they_work(tmp_path: Path) -> None:
    app = script_app(tmp_path, {"prompts": [[CARD, REPLY]]})
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.controller.session is not None)
        titles = {command.title: command for command in app.get_system_commands(app.screen)}
        for title in (
            "Mode: next",
            "Model",
            "Capabilities",
            "Resume a session",
            "Toggle split diff",
            "Collapse all cards",
            "Copy the last reply",
            "Log directory",
            "Keys",
        ):
            assert title in titles, title
        await send(app, pilot)
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        titles["Copy the last reply"].callback()
        assert app.clipboard == "**done**"
        await wait_until(pilot, lambda: bool(app.query(ToolCard)))
        titles["Collapse all cards"].callback()
        assert all(card.collapsed for card in app.query(ToolCard))
        titles["Log directory"].callback()
        assert app.clipboard == str(tmp_path / "logs")


async def test_save_message_writes_the_whole_last_reply_to_a_new_private_file(
    tmp_path: Path,
) -> None:
    from textual.widgets import Input

    from tui.message_actions import SavePathScreen

    app = script_app(tmp_path, {"prompts": [[REPLY]]})
    watch_turns(app)
    async with app.run_test(size=(100, 30)) as pilot:
        titles = {command.title: command for command in app.get_system_commands(app.screen)}
        await send(app, pilot)
        await wait_until(pilot, lambda: turns_ended(app) == 1)
        saved = tmp_path / "work" / "saved.md"  # relative: in the workspace
        for written in ("**done**", "mine"):  # the second time it exists: not overwritten
            titles["Save message to file"].callback()
            await wait_until(pilot, lambda: bool(app.screen.query(Input)))
            app.screen.query_one(Input).value = "saved.md"
            await pilot.press("enter")
            await wait_until(pilot, lambda: not isinstance(app.screen, SavePathScreen))
            assert saved.read_text() == written
            if written == "**done**":
                assert saved.stat().st_mode & 0o777 == 0o600
                saved.write_text("mine")
