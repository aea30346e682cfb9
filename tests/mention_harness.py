"""A prompt with the `@` menu above it, wired as the app's prompt is meant to be.

The prompt passes its text and cursor to the menu on every change, and while the menu is
open Up and Down move its highlight and Tab or Enter take the highlighted path. The
workspace is the fixed tree under tests/fixtures, so pictures never show a temporary path.
"""

from __future__ import annotations

import threading
from pathlib import Path

from textual import events
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Static, TextArea

from tui.prompt.mentions.index import PathIndex, build_index
from tui.widgets.prompt.mention_menu import MentionMenu, apply_to_text_area, follow_text_area

WORKSPACE = Path(__file__).parent / "fixtures" / "mention_workspace"


class MentionPrompt(TextArea):
    """A TextArea that gives the menu its keys while the menu is open."""

    async def _on_key(self, event: events.Key) -> None:
        menu = self.app.query_one(MentionMenu)
        if menu.is_open and event.key in ("up", "down", "tab", "enter"):
            event.stop()
            event.prevent_default()
            if event.key in ("up", "down"):
                menu.move(-1 if event.key == "up" else 1)
            elif (taken := menu.take()) is not None:
                apply_to_text_area(self, *taken)
            return
        await super()._on_key(event)


class MentionHost(App[None]):
    CSS = """
    Screen { layout: vertical; }
    #transcript { height: 1fr; padding: 1 2; color: $text-muted; }
    #bottom { height: auto; }
    MentionPrompt { height: 3; border: round $primary; padding: 0 1; }
    """
    TITLE = "dsh-tui"

    def __init__(self, *, hold_index: bool = False) -> None:
        super().__init__()
        self.release = threading.Event()
        if not hold_index:
            self.release.set()
        self.chosen: list[str] = []
        self.builds = 0  # indexes built (started) so far

    def on_load(self) -> None:
        self.theme = "textual-dark"

    def build(self, root: Path) -> PathIndex:
        self.builds += 1
        self.release.wait()
        return build_index(root)

    def compose(self) -> ComposeResult:
        yield Static("Type @ and part of a path.", id="transcript")
        with Vertical(id="bottom"):
            yield MentionMenu(WORKSPACE, builder=self.build, id="mentions")
            yield MentionPrompt(id="prompt", show_line_numbers=False, soft_wrap=True)

    def on_mount(self) -> None:
        self.query_one(MentionPrompt).focus()

    def on_unmount(self) -> None:
        self.release.set()  # a held index thread must end, or the loop cannot close

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        follow_text_area(self.query_one(MentionMenu), event.text_area)

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        follow_text_area(self.query_one(MentionMenu), event.text_area)

    def on_mention_menu_chosen(self, event: MentionMenu.Chosen) -> None:
        self.chosen.append(event.path)
