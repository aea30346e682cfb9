"""Keys that nothing on screen took: printable ones belong to the prompt.

Focus can land on something that does not take text (the transcript after a click on a card
title or a drag to select, a diff panel after Tab). A key typed there used to be lost without
a sign; it goes to the prompt instead, and focus with it, so typing always ends up where the
user is looking. Only keys that no widget handled and no binding claimed come here, so a diff
panel's `s` or a question's `a` (once it has the keys) still work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events

from tui.widgets.prompt.prompt import PromptArea

if TYPE_CHECKING:
    from tui.session_app import SessionApp


def to_prompt(app: SessionApp, event: events.Key) -> bool:
    """Give a stray printable key (or the Enter after one) to the prompt of the shown tab;
    True if it took it."""
    if app.screen is not app.screen_stack[0]:
        return False  # a picker or a full-screen view has its own keys
    prompt = app.pane.query_one(PromptArea)
    # Not "unless the prompt has focus": the prompt stops every printable key it gets, so one
    # that arrives here with the prompt focused was typed before focus moved, and queued to
    # the widget that had it then.
    if prompt.disabled or not prompt.display:
        return False
    if event.is_printable and event.character:
        prompt.focus()
        prompt.replace(event.character, *prompt.selection, maintain_selection_offset=False)
        return True
    if event.key == "enter" and prompt.text.strip():
        prompt.focus()
        prompt.submit()
        return True
    return False
