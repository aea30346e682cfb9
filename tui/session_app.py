"""The app as its features see it: the palette, the pickers, the agent switch, the search and
the kept settings take a `SessionApp`, never `DshApp` itself.

`DshApp` (tui/app.py) is the one implementation. Depending on this instead keeps tui/app.py
out of every import chain but its entry points', so the app's module can import its features
without a circle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

if TYPE_CHECKING:
    from tui.config import AppConfig
    from tui.prompt.history import PromptHistory
    from tui.session.controller import SessionController
    from tui.session_pane import SessionPane
    from tui.settings_store import DiffView, SettingsStore
    from tui.widgets.transcript.conversation import ConversationView


class SessionApp(App[None]):
    """An app that shows one `SessionPane` and starts and stops its agent."""

    config: AppConfig
    pane: SessionPane
    # Set by kept_settings.restore: the settings kept between runs.
    settings_store: SettingsStore | None
    settings_notice: str | None
    diff_view: DiffView

    @property
    def controller(self) -> SessionController:
        return self.pane.controller

    @property
    def transcript(self) -> ConversationView:
        return self.pane.transcript

    @property
    def history(self) -> PromptHistory:
        return self.pane.history

    def reset_conversation(self) -> None:
        """Start from an empty transcript, e.g. before a load replays a session's history."""
        self.pane.reset_conversation()

    def hide_welcome(self) -> None:
        self.pane.hide_welcome()

    # -- what the implementation provides ------------------------------------------------

    def start_agent(self, resume: str | None = None) -> None:
        """Start the agent; with `resume`, load that session ("" lets the user pick one)."""
        raise NotImplementedError

    async def stop_agent(self) -> None:
        """Stop the agent and wait until its process is reaped."""
        raise NotImplementedError

    # The actions the palette lists (tui/palette.py).
    def action_next_mode(self) -> None:
        raise NotImplementedError

    def action_pick_model(self) -> None:
        raise NotImplementedError

    def action_capabilities(self) -> None:
        raise NotImplementedError

    async def action_resume(self) -> None:
        raise NotImplementedError

    def action_inspector(self) -> None:
        raise NotImplementedError

    def action_help(self) -> None:
        raise NotImplementedError

    async def action_search(self) -> None:
        raise NotImplementedError
