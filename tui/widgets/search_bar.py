"""Ctrl+F: the search bar above the prompt, and what it does to the transcript.

The search itself is `tui.transcript_search`, over the state. Here: the bar's keys (Enter or
Down the next match, Shift+Enter or Up the previous, Esc closes), the count and the line
around the current match, and the transcript's part: every entry with a match is tinted, the
current one is marked and scrolled into view, a folded card or closed thought opens for it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Collapsible, Input, Static

from tui.sanitize import clean_line
from tui.transcript_search import Results, nearest, search, step
from tui.widgets.tool_card import ToolCard

if TYPE_CHECKING:
    from tui.state import Entry
    from tui.widgets.conversation import ConversationView

HIT = "-search-hit"
CURRENT = "-search-current"


class SearchInput(Input):
    BINDINGS = [
        Binding("enter,down", "app.search_step(1)", "Next match", show=False),
        Binding("shift+enter,up", "app.search_step(-1)", "Previous match", show=False),
        Binding("escape", "app.search_close", "Close search", show=False),
    ]


class SearchBar(Horizontal):
    """The query, how many matches, and the line of the current one."""

    DEFAULT_CSS = """
    SearchBar { height: 1; margin: 0 1; }
    SearchBar > .search-icon { width: 2; height: 1; color: $accent; }
    SearchBar > SearchInput, SearchBar > SearchInput:focus {
        width: 30; height: 1; border: none; padding: 0 1; background: $boost;
    }
    SearchBar > .search-where { width: 1fr; height: 1; padding: 0 1; color: $text-muted; }
    """

    def __init__(
        self, view: ConversationView, entries: Callable[[], Sequence[Entry]], **kwargs: str
    ) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.view = view
        self.entries = entries
        self.results = Results("", (), {})
        self.current: int | None = None
        self._input = SearchInput(placeholder="search the transcript")
        self._where = Static("", classes="search-where", markup=False)
        self._marked: list[Widget] = []

    def compose(self) -> ComposeResult:
        yield Static(Text("⌕", style="bold"), classes="search-icon")
        yield self._input
        yield self._where

    def focus_query(self) -> None:
        self.screen.set_focus(self._input)

    @on(Input.Changed)
    def _query_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.refresh_results(event.value)

    def refresh_results(self, query: str) -> None:
        entries = list(self.entries())
        self.results = search(entries, query, self.view.run_lookup or (lambda _id: None))
        cursor = self.view.cursor
        start = 0
        if cursor is not None:
            entry = self.view.entry_of(cursor)
            start = next((i for i, e in enumerate(entries) if e is entry), 0)
        self.current = nearest(self.results, start) if self.results.matches else None
        self._show()

    def move(self, direction: int) -> None:
        self.current = step(self.current, len(self.results.matches), direction)
        self._show()

    def _show(self) -> None:
        entries = list(self.entries())
        hits = {match.entry for match in self.results.matches}
        current_entry = None
        if self.current is not None:
            current_entry = self.results.matches[self.current].entry
        for widget in self._marked:
            widget.remove_class(HIT, CURRENT)
        self._marked = []
        for index in sorted(hits):
            hit = self.view.widget_of(entries[index])
            if hit is not None:
                hit.add_class(HIT)
                self._marked.append(hit)
        self._where.update(self._where_text())
        if current_entry is not None:
            self._reveal(entries[current_entry])

    def _where_text(self) -> Text:
        count = len(self.results.matches)
        if not self.results.query:
            return Text("enter next · shift+enter previous · esc close")
        if self.current is None:
            return Text("no match", style="bold")
        line, start, end = self.results.snippet(self.current)
        text = Text(f"{self.current + 1}/{count}  ", style="bold")
        shown = clean_line(line)
        if len(shown) == len(line):
            text.append(shown[:start])
            text.append(shown[start:end], style="reverse")
            text.append(shown[end:])
        else:
            text.append(shown)
        return text

    def _reveal(self, entry: Entry) -> None:
        widget = self.view.reveal(entry)
        if widget is None:
            return
        if isinstance(widget, ToolCard) and widget.collapsed:
            widget.toggle_collapsed()
        elif isinstance(widget, Collapsible) and widget.collapsed:
            widget.collapsed = False
        widget.add_class(HIT, CURRENT)
        if widget not in self._marked:
            self._marked.append(widget)
        self.view.call_after_refresh(self.view.show_entry, widget)

    def close(self) -> None:
        for widget in self._marked:
            widget.remove_class(HIT, CURRENT)
        self._marked = []
        self.remove()
