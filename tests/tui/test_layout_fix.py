"""The layout-cache fix: a widget whose content changes twice around a layout pass is measured
for what it shows last."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

import tui.widgets  # noqa: F401  (installs the fix, as every widget module does)
from support import grow_deep_inside
from tui.widgets import layout_fix


class StatusLine(App[None]):
    CSS = "Horizontal { height: 1; } #command { width: 1fr; } #status { width: auto; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static("$ make", id="command")
            yield Static("running", id="status")


async def status_width_after_two_changes() -> int:
    """The status label's width after it changed twice around a layout pass (bug 1)."""
    app = StatusLine()
    async with app.run_test(size=(60, 3)) as pilot:
        await pilot.pause()
        status = app.query_one("#status", Static)
        status.update("awaiting approval")
        # Another widget's change clears the row's arrangement and a layout pass runs before
        # the label's own request is handled: it measures "awaiting approval".
        app.query_one(Horizontal)._clear_arrangement_cache()
        app.screen._refresh_layout()
        assert status.region.width == len("awaiting approval")
        status.update("not run")
        await pilot.pause()
        await pilot.pause()
        assert app.query_one("#command").region.width == 60 - status.region.width
        return status.region.width


async def test_a_label_changed_again_before_its_layout_request_is_handled_is_resized() -> None:
    assert await status_width_after_two_changes() == len("not run")


async def test_the_pinned_textual_still_needs_the_refresh_fix() -> None:
    """Bug 1 with the fix taken out: fails once Textual measures the last content itself."""
    layout_fix.remove()
    try:
        assert await status_width_after_two_changes() == len("awaiting approval")
    finally:
        layout_fix.apply()


class PlainStream(VerticalScroll):
    """A stream container without `mark_deep_changes`: Textual's own marking only."""

    DEFAULT_CSS = "PlainStream { layout: stream; }"


class StreamHost(App[None]):
    def compose(self) -> ComposeResult:
        yield PlainStream()


async def test_the_pinned_textual_still_needs_the_deep_change_marking() -> None:
    """Bug 2 without `mark_deep_changes`: fails once Textual marks the entry itself."""
    app = StreamHost()
    async with app.run_test(size=(40, 20)) as pilot:
        entry, _ = await grow_deep_inside(pilot, app.query_one(PlainStream))
        assert entry.region.height == 1
