"""The permission panel on screen: it replaces the prompt while the first queued question
(`SessionController.permissions`) waits, and the next one follows once it is answered."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from textual import events

from tui.widgets.diff_review import DiffReviewScreen
from tui.widgets.permission import TYPING_PAUSE_S, PermissionPanel
from tui.widgets.prompt import PromptArea

if TYPE_CHECKING:
    from tui.app import DshApp
    from tui.permissions import PendingPermission

log = logging.getLogger(__name__)


def show_permission(app: DshApp, request: PendingPermission) -> None:
    """Show the request's panel. One that cannot be shown (a panel that fails to build) is
    answered cancelled, which is fail-closed, and the controller then asks the next: raising
    here instead would leave it first in the queue for ever, unanswered, and no later panel
    would appear."""
    if request.answer.done():
        return  # answered (cancelled, say) before its turn on screen came
    try:
        card = app.controller.conversation.tool_calls.get(request.tool_call.tool_call_id)
        prompt = app.query_one(PromptArea)
        panel = PermissionPanel(
            request,
            app.config.cwd,
            card.content if card else None,
            typing_until=prompt.last_typed + TYPING_PAUSE_S,
            type_ahead=lambda event: type_ahead(app, event),
        )
        prompt.display = False
        app.query_one("#bottom").mount(panel, before=app.query_one("#prompt"))
        panel.focus()
    except Exception:
        log.exception("could not show a permission request")
        app.notify(
            "A permission request could not be shown; it was answered cancelled.",
            severity="error",
        )
        request.cancel()


def type_ahead(app: DshApp, event: events.Key) -> None:
    """Keys typed into the prompt just as a question appeared: they stay the prompt's."""
    prompt = app.query_one(PromptArea)
    if event.key == "enter":
        app.on_prompt_area_submitted(PromptArea.Submitted(prompt, prompt.text))
    elif event.character:
        prompt.insert(event.character)


def close_permission(
    app: DshApp, request: PendingPermission, following: PendingPermission | None
) -> None:
    # Drop focus before the panel leaves: Textual would hand it to the last focusable
    # widget before the panel, inside the transcript, and scroll the transcript to it.
    app.screen.set_focus(None)
    for panel in app.query(PermissionPanel):
        if panel.request is request:
            panel.remove()
    if following is not None:
        show_permission(app, following)
    else:
        prompt = app.query_one(PromptArea)
        prompt.display = True
        prompt.focus()


def review(app: DshApp, event: PermissionPanel.ReviewRequested) -> None:
    """Open the full-screen diff review; picking any of the agent's options there (allow
    always included) answers the request, with the lines numbered as in the preview."""
    panel = event.control
    request = event.request
    title = request.tool_call.title or ""  # the screen says "Review edit"; the id is a handle

    def answered(option_id: str | None) -> None:
        if option_id is not None:
            request.choose(option_id)

    screen = DiffReviewScreen(
        panel.review_items(),
        app.config.cwd,
        title,
        options=request.keyed_options,
        anchoring=panel.anchoring,
    )
    app.push_screen(screen, answered)
