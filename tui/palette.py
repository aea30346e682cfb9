"""The app's own actions in the command palette (Ctrl+P), beside Textual's defaults."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from textual.app import App, SystemCommand

from tui import agent_switch, conversation_tools, kept_settings, message_actions
from tui.agent_log import client_log_path, default_log_dir
from tui.grants import show_grants
from tui.state import MessageEntry
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.diff.panel import DiffPanel, ViewMode
from tui.widgets.transcript.plan import PlanView

if TYPE_CHECKING:
    from tui.session_app import SessionApp


def toggle_split(app: SessionApp) -> None:
    """Every diff panel to the other view, in step: split if any is unified, else unified."""
    panels = list(app.pane.query(DiffPanel))  # the shown tab's
    if not panels:
        app.notify("No diff on screen.")
        return
    view: ViewMode = "split" if any(not panel.is_split for panel in panels) else "unified"
    for panel in panels:
        panel.view = view
    kept_settings.keep(app, diff_view=view)  # the panels to come too, and the next run


def collapse_all(app: SessionApp) -> None:
    cards = [card for card in app.pane.query(ToolCard) if not card.collapsed]
    for card in cards:
        card.toggle_collapsed()
    app.notify(f"Collapsed {len(cards)} card{'s' if len(cards) != 1 else ''}.")


def last_reply(app: SessionApp) -> str | None:
    for entry in reversed(app.controller.conversation.entries):
        if isinstance(entry, MessageEntry) and entry.role == "agent":
            return entry.text
    return None


def toggle_plan(app: App[Any]) -> None:
    """Unfold a plan folded to its summary line, or fold it (the key for a click on it)."""
    root = getattr(app, "pane", app)  # the shown tab's plan, in an app with tabs
    plans = [plan for plan in root.query(PlanView) if plan.entries]
    if not plans:
        app.notify("No plan yet.")
        return
    for plan in plans:
        plan.toggle()


def copy_last_reply(app: SessionApp) -> None:
    text = last_reply(app)
    if text is None:
        app.notify("No reply to copy yet.")
        return
    app.copy_to_clipboard(text)
    app.notify("Copied the last reply.")


def show_log_dir(app: SessionApp) -> None:
    """Say where the logs are and copy the path (a terminal app cannot open a file manager)."""
    client_log = client_log_path()
    directory = client_log.parent if client_log else (app.config.log_dir or default_log_dir())
    app.copy_to_clipboard(str(directory))
    app.notify(f"Logs: {directory} (path copied)")


def app_commands(app: SessionApp) -> Iterator[SystemCommand]:
    yield SystemCommand(
        "Mode: next", "Switch to the agent's next mode (Shift+Tab)", app.action_next_mode
    )
    yield SystemCommand("Model", "Pick the agent's model (Ctrl+L)", app.action_pick_model)
    yield SystemCommand(
        "Capabilities", "What client and agent negotiated (Ctrl+K)", app.action_capabilities
    )
    yield SystemCommand(
        "Resume a session",
        "Load an earlier session (Ctrl+R)",
        lambda: app.run_worker(app.action_resume()),
    )
    yield SystemCommand(
        "Toggle split diff", "Every diff panel unified or split", lambda: toggle_split(app)
    )
    yield SystemCommand(
        "Collapse all cards", "Fold every tool card to its title", lambda: collapse_all(app)
    )
    yield SystemCommand(
        "Plan: fold or unfold", "The whole plan, or its one-line summary", lambda: toggle_plan(app)
    )
    yield SystemCommand(
        "Copy the last reply", "The agent's last message, as Markdown", lambda: copy_last_reply(app)
    )
    yield SystemCommand(
        "Log directory", "Show and copy where the logs are", lambda: show_log_dir(app)
    )
    yield SystemCommand(
        "Traffic inspector",
        "Every JSON-RPC message of the session, beside the transcript (F12)",
        app.action_inspector,
    )
    yield SystemCommand("Keys", "Every key (F1)", app.action_help)
    yield SystemCommand(
        "Permissions…",
        'The session\'s "always allow" grants, to see and revoke (/permissions)',
        lambda: show_grants(app),
    )
    yield SystemCommand(
        "Open message in pager",
        "The focused or last agent message, whole, in $PAGER (default less)",
        lambda: message_actions.open_in_pager(app),
    )
    yield SystemCommand(
        "Save message to file",
        "The focused or last agent message, whole, to a new 0600 file",
        lambda: message_actions.save_message(app),
    )
    # The conversation tools (tui/conversation_tools.py).
    yield SystemCommand(
        "Export…",
        "The conversation as Markdown and HTML, in the workspace (/export FILE names it)",
        lambda: conversation_tools.export_conversation(app),
    )
    yield SystemCommand(
        "New session",
        "Close this session and start a fresh one (/new)",
        lambda: app.run_worker(conversation_tools.new_session(app), group="new-session"),
    )
    yield SystemCommand(
        "Search the transcript", "Ctrl+F", lambda: app.run_worker(app.action_search())
    )
    yield SystemCommand(
        "Switch agent…",
        "A new session on a registry agent or a named one from the settings file",
        lambda: agent_switch.open_catalogue(app),
    )
