"""The layout-cache fix: a widget whose content changes twice around a layout pass is measured
for what it shows last."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

import tui.widgets  # noqa: F401  (installs the fix, as every widget module does)


class StatusLine(App[None]):
    CSS = "Horizontal { height: 1; } #command { width: 1fr; } #status { width: auto; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static("$ make", id="command")
            yield Static("running", id="status")


async def test_a_label_changed_again_before_its_layout_request_is_handled_is_resized() -> None:
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
        assert status.region.width == len("not run")
        assert app.query_one("#command").region.width == 60 - len("not run")
