"""The conversation tools the app's keys, palette and slash commands reach: search (Ctrl+F),
export (`/export`) and a new session (`/new`). Kept apart from tui/app.py, which delegates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.widgets.prompt import PromptArea
from tui.widgets.search_bar import SearchBar

if TYPE_CHECKING:
    from tui.app import DshApp


async def open_search(app: DshApp) -> None:
    """Open the search bar above the prompt, or put the keyboard back in it. Awaited, so the
    keys typed right after Ctrl+F reach the bar, not the prompt."""
    for bar in app.query(SearchBar):
        bar.focus_query()
        return
    bar = SearchBar(app.transcript, lambda: app.controller.conversation.entries, id="search")
    await app.query_one("#bottom").mount(bar, before=app.query_one(PromptArea))
    bar.focus_query()


def step_search(app: DshApp, direction: int) -> None:
    for bar in app.query(SearchBar):
        bar.move(direction)


def close_search(app: DshApp) -> None:
    for bar in app.query(SearchBar):
        bar.close()
    app.screen.set_focus(app.query_one(PromptArea))
