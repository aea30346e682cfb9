"""The command palette (Ctrl+P) holds the app's own actions, and they work."""

from __future__ import annotations

from pathlib import Path

from scripted import script_app, send

from support import turns_ended, wait_until, watch_turns
from tui.widgets.tool_card import ToolCard

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
