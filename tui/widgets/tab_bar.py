"""The tab bar: one row above the sessions, shown only once there are two (a single session
looks as it always did). Each label is a tab's number, state mark, agent and directory
(tui/tabs/marks.py); a click on one shows that tab."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import events
from textual.timer import Timer
from textual.widget import Widget

from tui.tabs.marks import TabInfo, TabState, bar_text, label_spans

SPINNER_INTERVAL_S = 0.1


class TabBar(Widget):
    DEFAULT_CSS = "TabBar { height: 1; width: 1fr; padding: 0 1; background: $panel; }"

    def __init__(self, on_pick: Callable[[int], None], **kwargs: str) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.on_pick = on_pick
        self.tabs: list[TabInfo] = []
        self.active = 0
        self._frame = 0
        self._spinner: Timer | None = None
        self.display = False

    def on_mount(self) -> None:
        # Ticking only while a shown label spins: a window of one session never wakes for it.
        if self.app.animation_level != "none":
            self._spinner = self.set_interval(SPINNER_INTERVAL_S, self._tick, pause=True)

    def _tick(self) -> None:
        self._frame += 1
        self.refresh()

    def show_tabs(self, tabs: list[TabInfo], active: int) -> None:
        self.tabs, self.active = tabs, active
        self.display = len(tabs) > 1
        if self._spinner is not None:
            if self.display and any(tab.state is TabState.RUNNING for tab in tabs):
                self._spinner.resume()
            else:
                self._spinner.pause()
        self.refresh()

    def render(self) -> Text:
        return bar_text(self.tabs, self.active, self.content_region.width or 80, self._frame)

    def on_click(self, event: events.Click) -> None:
        width = self.content_region.width or 80
        x = event.x - self.styles.padding.left
        for start, end, index in label_spans(self.tabs, self.active, width):
            if start <= x < end:
                self.on_pick(index)
                return
