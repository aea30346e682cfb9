"""The conversation tools the app's keys, palette and slash commands reach: search (Ctrl+F),
export (`/export`) and a new session (`/new`). Kept apart from tui/app.py, which delegates.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from tui.capabilities import can_close
from tui.widgets.prompt.prompt import PromptArea

if TYPE_CHECKING:
    from tui.session_app import SessionApp

log = logging.getLogger(__name__)


async def open_search(app: SessionApp) -> None:
    """Open the search bar above the prompt, or put the keyboard back in it. Awaited, so the
    keys typed right after Ctrl+F reach the bar, not the prompt."""
    from tui.widgets.transcript.search_bar import SearchBar  # on use: not for the first frame

    pane = app.pane  # the shown tab's
    for bar in pane.query(SearchBar):
        bar.focus_query(select=True)
        return
    bar = SearchBar(app.transcript, lambda: app.controller.conversation.entries, id="search")
    await pane.query_one("#bottom").mount(bar, before=pane.query_one(PromptArea))
    bar.focus_query()


def step_search(app: SessionApp, direction: int) -> None:
    from tui.widgets.transcript.search_bar import SearchBar

    for bar in app.pane.query(SearchBar):
        bar.move(direction)


def close_search(app: SessionApp) -> None:
    from tui.widgets.transcript.search_bar import SearchBar

    for bar in app.pane.query(SearchBar):
        bar.close()
    app.screen.set_focus(app.pane.query_one(PromptArea))


def run_client_command(app: SessionApp, name: str, argument: str) -> None:
    """Run `/export [FILE]` or `/new` (tui/client_commands.py)."""
    if name == "new":
        app.run_worker(new_session(app), group="new-session", exclusive=True)
    else:
        export_conversation(app, argument)


def export_conversation(app: SessionApp, argument: str = "") -> None:
    """Write the transcript's state (nothing else) as Markdown and HTML, both 0600."""
    from tui.export import export, export_paths  # on use: not for start-up
    from tui.transcript.text import runs_of

    entries = app.controller.conversation.entries
    if not entries:
        app.notify("Nothing to export yet.")
        return
    paths = export_paths(argument, app.config.cwd)
    title = app.controller.conversation.title or ""
    try:
        md_path, html_path = export(entries, paths, runs_of(app.transcript.terminals), title)
    except OSError as error:
        app.notify(f"Could not export: {error.strerror or error}", severity="error")
        return
    app.notify(f"Exported to {md_path} and {html_path.name}")


async def new_session(app: SessionApp) -> None:
    """Close the session (when the agent offers session/close), then start a fresh one."""
    session = app.controller.session
    if session is not None and can_close(session.init):
        try:
            await asyncio.wait_for(session.conn.close_session(session_id=session.session_id), 10)
        except Exception as error:  # the agent's trouble: a new session still starts
            log.warning("session/close failed: %r", error)
    await app.stop_agent()
    app.reset_conversation()
    app.start_agent(None)
    app.notify("New session.")
