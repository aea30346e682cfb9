"""A fix for a Textual 8.2.8 layout cache, applied once when any widget module is imported.

`Widget.refresh(layout=True)` counts a layout request (`_layout_updates`, part of the box
model's cache key) only when none is pending. A widget whose content changes again before its
pending request is handled, with a layout pass in between (another widget asked for one), keeps
the size measured for the intermediate content: a pane status reading "not run" at the width
of "awaiting approval", a card or reply at the height of an earlier draft. Counting every
request makes each content change a new cache key; an extra count costs one box model.
"""

from __future__ import annotations

from typing import Any

from textual.widget import Widget

_refresh = Widget.refresh


def _refresh_counting_every_layout(self: Widget, *args: Any, **kwargs: Any) -> Widget:
    if kwargs.get("layout") and self._layout_required:
        self._layout_updates += 1  # Textual counts only the request that set the flag
    return _refresh(self, *args, **kwargs)


def apply() -> None:
    """Install the fix (idempotent)."""
    if Widget.refresh is not _refresh_counting_every_layout:
        Widget.refresh = _refresh_counting_every_layout  # type: ignore[method-assign, assignment]
