"""A tool card's long text, scrolling inside the card, with a line that says which end is shown."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from tui.widgets.cards.markdown import card_markdown


class _TextScroll(VerticalScroll):
    """The scroller of a `CardText`; tells it when the position changes."""

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        parent = self.parent
        if isinstance(parent, CardText):
            parent.show_position()


class CardText(Widget):
    """Long text in a card, scrolling inside it, with a line that says which end is shown.

    Command output (an execute card's console fallback, when the terminal capability is off)
    opens at its end, as a terminal pane does: the exit code and the error are there. The
    start is a click on the line below away, or Home once the text has focus.
    """

    DEFAULT_CSS = """
    CardText { height: auto; }
    CardText > _TextScroll { height: auto; max-height: 24; }
    CardText > .card-text--where { height: 1; color: $text-muted; text-wrap: nowrap; }
    CardText > .card-text--where:hover { color: $text; }
    """

    def __init__(self, markdown: str, *, tail: bool) -> None:
        super().__init__(classes="card-text")
        self.markdown = markdown
        self.tail = tail
        self._body = Static(card_markdown(markdown, self))
        self._scroll = _TextScroll(self._body)
        self._where = Static("", classes="card-text--where", markup=False)

    def compose(self) -> ComposeResult:
        yield self._scroll
        yield self._where

    def on_mount(self) -> None:
        if self.tail:
            self._scroll.anchor()  # stays at the end as the output grows, until scrolled
        self.call_after_refresh(self.show_position)

    def update(self, markdown: str) -> None:
        self.markdown = markdown
        self._body.update(card_markdown(markdown, self))
        self.call_after_refresh(self.show_position)

    @property
    def at_start(self) -> bool:
        return self._scroll.scroll_y <= 0

    def show_position(self) -> None:
        scroll = self._scroll
        lines = self.markdown.count("\n") + 1
        if scroll.max_scroll_y <= 0:
            self._where.display = False
            return
        self._where.display = True
        if self.at_start:
            where = f"▮ {lines:,} lines · showing the start · ▾ the end: click, or End"
        else:
            end = "the end" if scroll.scroll_y >= scroll.max_scroll_y else "lines further on"
            where = f"▮ {lines:,} lines · showing {end} · ▴ the start: click, or Home"
        self._where.update(where)

    def on_click(self, event: events.Click) -> None:
        if event.widget is self._where:
            event.stop()
            if self.at_start:
                self._scroll.scroll_end(animate=False)
            else:
                self._scroll.scroll_home(animate=False)
