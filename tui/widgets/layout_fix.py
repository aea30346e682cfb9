"""Workarounds for two Textual 8.2.8 layout-cache bugs, each kept here and nowhere else.

The upstream reports are in `docs/upstream.md`; a test reproduces each bug on the pinned
Textual with the workaround off, so it fails once a release fixes it.

1. `Widget.refresh(layout=True)` counts a layout request (`_layout_updates`, part of the box
   model's cache key) only when none is pending. A widget whose content changes again before
   its pending request is handled, with a layout pass in between, keeps the size measured for
   the intermediate content (a status "not run" at the width of "awaiting approval").
   Minimal reproduction: a `width: auto` Static in a Horizontal; `update("awaiting
   approval")`, force a layout pass, `update("not run")`: the label stays 17 cells wide.
   `apply` counts every request, so each content change is a new cache key.
2. `Screen._on_layout` tests `widget not in self._layout_widgets` (the dict of containers)
   instead of that container's own set, so a change two or more levels below a `layout:
   stream` child never marks that child; when a later child is marked in the same pass, the
   changed one keeps its old place. Minimal reproduction: an auto-height Vertical holding a
   Vertical holding a Static, and a Static after it, in a stream container; change both
   Statics in one `batch_update`: the first entry keeps its 1-row height.
   `mark_deep_changes` is called from the container's `pre_layout`.
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
    """Install the fix for bug 1 (idempotent)."""
    if Widget.refresh is not _refresh_counting_every_layout:
        Widget.refresh = _refresh_counting_every_layout  # type: ignore[method-assign, assignment]


def remove() -> None:
    """Take the fix for bug 1 out again: the test that shows Textual still needs it."""
    Widget.refresh = _refresh  # type: ignore[method-assign]


def mark_deep_changes(container: Widget) -> None:
    """Bug 2: mark every child of `container` on the path of a pending layout change.

    Every widget on the path of such a change is a key of the screen's dict of marked
    containers, so the container's children among those keys are the ones to measure again.
    """
    pending = container.screen._layout_widgets
    marked = pending.get(container)
    if marked:  # empty or absent: the stream layout measures every child anyway
        marked.update(
            node for node in pending if isinstance(node, Widget) and node.parent is container
        )
