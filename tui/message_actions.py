"""The palette's "Open message in pager" and "Save message to file".

Which message: the agent message that holds the focus, else the last one. Its whole text comes
from the conversation state, which keeps what the screen cuts.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Static

from tui.message_export import page, write_new
from tui.sanitize import sanitize_text
from tui.state import MessageEntry
from tui.widgets.transcript.messages import AgentMessage

if TYPE_CHECKING:
    from tui.session_app import SessionApp


def chosen_message(app: SessionApp) -> str | None:
    """The focused agent message's whole text, else the last agent message's."""
    agents = [
        entry
        for entry in app.controller.conversation.entries
        if isinstance(entry, MessageEntry) and entry.role == "agent"
    ]
    focused: Widget | None = app.focused
    while focused is not None and not isinstance(focused, AgentMessage):
        parent = focused.parent
        focused = parent if isinstance(parent, Widget) else None
    if focused is not None:
        shown = app.transcript.shown_widgets()
        for entry in agents:
            if shown.get(id(entry)) is focused:
                return entry.text
    return agents[-1].text if agents else None


def open_in_pager(app: SessionApp) -> None:
    text = chosen_message(app)
    if text is None:
        app.notify("No agent message yet.")
        return
    try:
        with app.suspend():
            status = page(text, os.environ)
    except OSError as error:
        app.notify(f"Could not run the pager: {sanitize_text(str(error))}", severity="error")
        return
    if status != 0:
        app.notify(f"The pager exited with status {status}.", severity="warning")


def save_message(app: SessionApp) -> None:
    text = chosen_message(app)
    if text is None:
        app.notify("No agent message yet.")
        return

    def chosen(path: str | None) -> None:
        if not path:
            return
        target = Path(path).expanduser()
        if not target.is_absolute():
            target = app.config.cwd / target
        shown = sanitize_text(str(target))
        try:
            write_new(target, text)
        except FileExistsError:
            app.notify(f"{shown} exists already: not overwritten.", severity="warning")
        except OSError as error:
            app.notify(f"Could not save to {shown}: {sanitize_text(str(error))}", severity="error")
        else:
            app.notify(f"Saved the message ({len(text):,} characters) to {shown}.")

    app.push_screen(SavePathScreen(), chosen)


class SavePathScreen(ModalScreen[str | None]):
    """Where to save the message: a path (relative ones are in the workspace); Esc cancels."""

    DEFAULT_CSS = """
    SavePathScreen { align: center middle; }
    SavePathScreen > Vertical {
        width: 70; height: auto; border: round $primary; padding: 0 1; background: $surface;
    }
    """
    BINDINGS = [Binding("escape", "dismiss_none", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content("Save the message to (a new file, 0600):"))
            yield Input(placeholder="message.md", id="save-path")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
