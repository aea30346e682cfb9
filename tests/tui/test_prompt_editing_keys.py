"""Ctrl+U clears the draft, Ctrl+X Ctrl+E asks for the editor, and Ctrl+X still cuts."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tui.prompt.history import PromptHistory
from tui.widgets.prompt.prompt import CHORD_HINT, PromptArea


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.editor_requests = 0

    def compose(self) -> ComposeResult:
        yield PromptArea(PromptHistory(None), id="prompt")

    def on_prompt_area_editor_requested(self, event: PromptArea.EditorRequested) -> None:
        self.editor_requests += 1


async def test_ctrl_u_clears_every_line_and_ctrl_z_brings_them_back() -> None:
    app = Host()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptArea)
        await pilot.press("a", "ctrl+j", "b", "ctrl+j", "c")
        assert prompt.text == "a\nb\nc"
        await pilot.press("ctrl+u")
        assert prompt.text == ""
        await pilot.press("ctrl+z")
        assert prompt.text == "a\nb\nc"


async def test_ctrl_x_ctrl_e_asks_for_the_editor_and_keeps_the_draft() -> None:
    app = Host()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptArea)
        await pilot.press("h", "i", "ctrl+x")
        assert prompt.border_title == CHORD_HINT
        assert prompt.text == "hi"
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert app.editor_requests == 1
        assert prompt.text == "hi"
        assert prompt.border_title is None


async def test_ctrl_x_then_another_key_cuts_the_line_then_types_it() -> None:
    app = Host()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptArea)
        await pilot.press("a", "b", "ctrl+j", "c", "d", "ctrl+x", "z")
        await pilot.pause()
        assert app.editor_requests == 0
        assert prompt.text == "ab\nz"
        assert app.clipboard.rstrip("\n") == "cd"


async def test_ctrl_x_with_a_selection_cuts_at_once() -> None:
    app = Host()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptArea)
        await pilot.press("a", "b", "c", "shift+left", "shift+left", "ctrl+x")
        assert prompt.text == "a"
        assert prompt.border_title is None
