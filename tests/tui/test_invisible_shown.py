"""Bidi controls and invisible characters are shown as `⟨U+202E⟩` wherever a command, its
output, its cwd or a replayed prompt is drawn, by the same functions that clean agent text
(tui/sanitize.py); terminal output keeps its SGR colours."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from textual.app import App, ComposeResult

from tui.glyphs import UNICODE_GLYPHS as UNICODE
from tui.terminal.labels import display_cwd
from tui.terminal.sgr import plain_line, styled_line
from tui.terminal.stream import TerminalScreenBuffer
from tui.terminal.terminals import TerminalManager
from tui.widgets.capabilities import terminals_text
from tui.widgets.terminal.header import command_content
from tui.widgets.transcript.messages import UserMessage

HIDDEN = "a\u202eb\u2066c\u200bd"
SHOWN = "a⟨U+202E⟩b⟨U+2066⟩c⟨U+200B⟩d"


def test_terminal_output_shows_invisible_characters_and_keeps_its_colours() -> None:
    buffer = TerminalScreenBuffer()
    buffer.feed(f"\x1b[31m{HIDDEN}\x1b[0m plain\n")
    text = buffer.styled(0)
    assert text is not None
    assert text.plain == f"{SHOWN} plain"
    spans = [(span.start, span.end, str(span.style)) for span in text.spans]
    assert spans == [(0, len(SHOWN), "color(1)")], spans  # the red runs over what is shown
    assert plain_line(buffer.lines[0]) == f"{SHOWN} plain"
    assert styled_line(HIDDEN).plain == SHOWN  # the line still being written, too


def test_a_terminal_panes_command_and_cwd_show_them() -> None:
    pane = SimpleNamespace(command=f"ls {HIDDEN}", glyphs=UNICODE)
    assert command_content(cast(Any, pane)).plain == f"{UNICODE.prompt} ls {SHOWN}"
    assert display_cwd(f"/project/{HIDDEN}", Path("/project")) == SHOWN
    assert display_cwd(f"/elsewhere/{HIDDEN}", Path("/project")) == f"/elsewhere/{SHOWN}"


def test_the_unreleased_terminals_list_shows_them() -> None:
    async def listed() -> str:
        manager = TerminalManager(kill_grace=0.3, drain_timeout=0.2)
        try:
            await manager.create(sys.executable, ["-c", "import time; time.sleep(30)", HIDDEN])
            text = terminals_text(manager)
            assert text is not None
            return text.plain
        finally:
            await manager.close_all()

    shown = asyncio.run(listed())
    assert SHOWN in shown and "\u202e" not in shown, shown


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield UserMessage(f"replayed {HIDDEN}")


async def test_a_replayed_prompt_shows_its_bidi_controls() -> None:
    app = _Host()
    async with app.run_test() as pilot:
        await pilot.pause()
        shown = str(app.query_one(UserMessage).render())
        # Prose keeps the zero-width space (emoji and right-to-left text need their joiners).
        assert "replayed a⟨U+202E⟩b⟨U+2066⟩c\u200bd" in shown, shown
