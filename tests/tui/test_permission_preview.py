"""The permission panel's preview says what the call does, never the agent's handles."""

from __future__ import annotations

from pathlib import Path

from acp.schema import (
    ContentToolCallContent,
    PermissionOption,
    TerminalToolCallContent,
    TextContentBlock,
    ToolCallUpdate,
)

from tui.permissions import PendingPermission
from tui.widgets.permission import PermissionPanel, preview_text

CWD = Path("/project")
OPTIONS = [PermissionOption(option_id="once", name="Allow once", kind="allow_once")]


def bash_request(title: str | None) -> PendingPermission:
    content: list[ContentToolCallContent | TerminalToolCallContent] = [
        ContentToolCallContent(
            type="content", content=TextContentBlock(type="text", text="Run seq 1 3")
        ),
        TerminalToolCallContent(type="terminal", terminal_id="call_5"),
    ]
    call = ToolCallUpdate(tool_call_id="call_5", kind="execute", title=title, content=list(content))
    return PendingPermission("s1", call, OPTIONS)


async def test_a_terminal_is_previewed_as_its_command_not_its_id() -> None:
    preview = preview_text(bash_request("seq 1 3"), CWD, []).plain
    assert "call_5" not in preview
    assert preview.splitlines() == ["Run seq 1 3", "❯ seq 1 3"]


async def test_the_terminal_line_says_where_it_runs_outside_the_session_directory() -> None:
    request = bash_request("make")
    assert preview_text(request, CWD, []).plain.endswith("❯ make")
    shown = preview_text(request, CWD, [], terminal_cwd="/project/src").plain
    assert shown.endswith("❯ make   in src")


async def test_without_a_title_neither_the_preview_nor_the_title_shows_the_id() -> None:
    request = bash_request(None)
    assert "call_5" not in preview_text(request, CWD, []).plain
    assert "call_5" not in str(PermissionPanel(request, CWD).border_title)
