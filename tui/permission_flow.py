"""The permission panel on screen: it shows above the prompt while the first queued question
(`SessionController.permissions`) waits, and the next one follows once it is answered.

The prompt keeps the keyboard: what is typed while a question is open goes to the prompt and
stays there (Enter queues it), so no word typed can answer. Tab gives the keys to the panel,
and Tab again gives them back; a click on an option answers with it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, cast

from tui.widgets.prompt.prompt import PromptArea

if TYPE_CHECKING:  # imported where used: no question is open at first (tui/widgets/deferred.py)
    from pathlib import Path

    from textual.widget import Widget

    from tui.permissions import PendingPermission
    from tui.session.controller import SessionController
    from tui.widgets.permission import PermissionPanel

log = logging.getLogger(__name__)


class PermissionFlow:
    """The questions of one session, shown in the `#bottom` of `root` above its `#prompt`."""

    def __init__(self, root: Widget, controller: SessionController, cwd: Path) -> None:
        self.root = root
        self.controller = controller
        self.cwd = cwd

    def show(self, request: PendingPermission) -> None:
        """Show the request's panel, without taking focus. One that cannot be shown (a panel
        that fails to build) is answered cancelled, which is fail-closed, and the controller
        then asks the next: raising here instead would leave it first in the queue for ever,
        unanswered, and no later panel would appear."""
        from tui.widgets.permission import PermissionPanel

        if request.answer.done():
            return  # answered (cancelled, say) before its turn on screen came
        root = self.root
        try:
            card = self.controller.conversation.tool_calls.get(request.tool_call.tool_call_id)
            panel = PermissionPanel(request, self.cwd, card.content if card else None)
            root.query_one("#bottom").mount(panel, before=root.query_one("#prompt"))
        except Exception:
            log.exception("could not show a permission request")
            root.app.notify(
                "A permission request could not be shown; it was answered cancelled.",
                severity="error",
            )
            request.cancel()

    def open_panel(self) -> PermissionPanel | None:
        """The question on screen, if one is open. Found by its type's name: every key
        binding's state asks this, and before any question the panel's module is not loaded."""
        panels = self.root.query("PermissionPanel")
        return cast("PermissionPanel", panels.first()) if panels else None

    def toggle_focus(self) -> None:
        """Tab: the keys to the open question, or back to the prompt."""
        panel = self.open_panel()
        if panel is None:
            return
        if panel.has_focus:
            self.root.query_one(PromptArea).focus()
        else:
            panel.focus()

    def close(self, request: PendingPermission, following: PendingPermission | None) -> None:
        """The next question shows without focus, like the first: a key pressed twice never
        answers two questions. Focus that was on the panel goes back to the prompt."""
        from tui.widgets.permission import PermissionPanel

        root = self.root
        had_focus = any(panel.has_focus for panel in root.query(PermissionPanel))
        if had_focus:
            # Drop focus before the panel leaves: Textual would hand it to the last focusable
            # widget before the panel, inside the transcript, and scroll the transcript to it.
            root.screen.set_focus(None)
        for panel in root.query(PermissionPanel):
            if panel.request is request:
                panel.remove()
        if following is not None:
            self.show(following)
        if had_focus:
            root.query_one(PromptArea).focus()

    def review(self, event: PermissionPanel.ReviewRequested) -> None:
        """Open the full-screen diff review; picking any of the agent's options there (allow
        always included) answers the request, with the lines numbered as in the preview."""
        from tui.widgets.diff.review import DiffReviewScreen

        panel = event.control
        request = event.request
        title = request.tool_call.title or ""  # the screen says "Review edit"; the id is a handle

        def answered(option_id: str | None) -> None:
            if option_id is not None:
                request.choose(option_id)

        screen = DiffReviewScreen(
            panel.review_items(),
            self.cwd,
            title,
            options=request.keyed_options,
            anchoring=panel.anchoring,
        )
        self.root.app.push_screen(screen, answered)
