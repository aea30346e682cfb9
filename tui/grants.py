"""Palette "Permissions…": the agent's "always allow" grants for this session.

The grants are the agent's (it decides which calls ask), so the list and the revoking are
its slash command `/permissions`, sent as a prompt like any other: it works with any client
and shows in the transcript. An agent that does not offer the command is said to have none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.session_app import SessionApp

COMMAND = "permissions"


def offers_grants(app: SessionApp) -> bool:
    return any(command.name == COMMAND for command in app.controller.conversation.commands)


def show_grants(app: SessionApp) -> None:
    """Ask the agent for its grants (queued behind a running turn, as a typed prompt is)."""
    if not offers_grants(app):
        app.notify(
            f"This agent offers no /{COMMAND} command: its grants cannot be listed here.",
            severity="warning",
        )
        return
    app.hide_welcome()
    app.controller.submit_prompt(f"/{COMMAND}")
