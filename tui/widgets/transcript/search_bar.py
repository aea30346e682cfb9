"""Ctrl+F: the search bar above the prompt, and what it does to the transcript.

The search itself is `tui.transcript.search`, over the state. Here: the bar's keys, the count
(`match k of N`) and the line around the current match, and the transcript's part: every
entry with a match is tinted and its matched words painted
(`tui.widgets.transcript.search_highlight`),
the current entry is marked and its current match painted apart, scrolled into view, a folded
card or closed thought opened for it.

Keys: in the query, Enter the next match (and the keys go to the bar, to step), Down the next,
Shift+Enter or Up the previous. Stepping, n and Enter the next, N the previous; any other key
that types goes back to the query. Esc closes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Collapsible, Input, Static

from tui.sanitize import clean_line
from tui.transcript.search import Results, nearest, search, step
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.transcript.search_highlight import Occurrences, Place, mark, unmark

if TYPE_CHECKING:
    from tui.state import Entry
    from tui.widgets.transcript.conversation import ConversationView

HIT = "-search-hit"
CURRENT = "-search-current"


class SearchInput(Input):
    BINDINGS = [
        Binding("enter", "step_here(1)", "Next match", show=False),
        Binding("down", "app.search_step(1)", "Next match", show=False),
        Binding("shift+enter,up", "app.search_step(-1)", "Previous match", show=False),
        Binding("escape", "app.search_close", "Close search", show=False),
    ]

    def action_step_here(self, direction: int) -> None:
        """The next match, and the keys to the bar, where n and N step."""
        bar = self.parent
        if isinstance(bar, SearchBar):
            bar.move(direction)
            if bar.results.matches:
                bar.focus()
                bar.refresh_bindings()


class SearchBar(Horizontal, can_focus=True):
    """The query, how many matches, and the line of the current one. Focused itself (not its
    query) while the user steps through the matches."""

    BINDINGS = [
        Binding("n,enter,down", "step(1)", "Next match"),
        Binding("N,shift+enter,up", "step(-1)", "Previous match"),
        Binding("escape", "app.search_close", "Close search"),
    ]
    DEFAULT_CSS = """
    SearchBar { height: 1; margin: 0 1; }
    SearchBar > .search-icon { width: 2; height: 1; color: $accent; }
    SearchBar > SearchInput, SearchBar > SearchInput:focus {
        width: 30; height: 1; border: none; padding: 0 1; background: $boost;
    }
    SearchBar > .search-where { width: 1fr; height: 1; padding: 0 1; color: $text-muted; }
    SearchBar:focus > .search-where { color: $text; background: $boost; }
    SearchBar:focus > .search-icon { background: $accent; color: $text; }
    """

    def __init__(
        self, view: ConversationView, entries: Callable[[], Sequence[Entry]], **kwargs: str
    ) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.view = view
        self.entries = entries
        self.results = Results("", (), {})
        self.current: int | None = None
        # Not selected on focus: keys that refine the query come back to it mid-burst, and a
        # select-all landing between two of them made the next key replace the whole query.
        self._input = SearchInput(placeholder="search the transcript", select_on_focus=False)
        self._where = Static("", classes="search-where", markup=False)
        self._marked: list[Widget] = []
        # By id of the entry: the occurrences to paint on its widget, for widgets the
        # transcript mounts later (it mounts only the entries near the screen).
        self._hits: dict[int, tuple[Occurrences, bool]] = {}

    def on_mount(self) -> None:
        self.view.on_entry_mounted = self._entry_mounted

    def _entry_mounted(self, widget: Widget) -> None:
        entry = self.view.entry_of(widget)
        found = None if entry is None else self._hits.get(id(entry))
        if found is not None:
            occurrences, current = found
            widget.add_class(HIT, *([CURRENT] if current else []))
            self._marked = [marked for marked in self._marked if marked.is_attached]
            self._marked.append(widget)
            # Its lines are drawn by children it has once composed.
            self.view.call_after_refresh(self._marked_again, widget, occurrences)

    def compose(self) -> ComposeResult:
        yield Static(Text("⌕", style="bold"), classes="search-icon")
        yield self._input
        yield self._where

    def focus_query(self, *, select: bool = False) -> None:
        """The keyboard to the query; `select` (Ctrl+F again) so typing starts a new one."""
        self.screen.set_focus(self._input)
        if select:
            self._input.select_all()

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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The bar's keys only while it has them (the footer shows them then); in the query,
        n and N are letters."""
        return self.screen.focused is self

    def action_step(self, direction: int) -> None:
        self.move(direction)

    def on_key(self, event: events.Key) -> None:
        """Stepping, a key that types (other than n and N) goes back to the query, refining it;
        and so do the keys that came in the same burst, already on their way to the bar."""
        if not (event.is_printable and event.character):
            return
        focused = self.screen.focused  # now, not as the Focus events already sent say
        stepping = focused is self and event.key not in ("n", "N")
        if stepping or focused is self._input:
            event.stop()
            event.prevent_default()
            self.focus_query()
            self._input.insert_text_at_cursor(event.character)
            self.refresh_bindings()  # the footer: its keys are the query's again

    def _show(self) -> None:
        entries = list(self.entries())
        hits = {match.entry for match in self.results.matches}
        current_entry = None
        place = None
        if self.current is not None:
            match = self.results.matches[self.current]
            current_entry = match.entry
            place = Place(self.results.texts[match.entry], match.start, match.end)
        for widget in self._marked:
            widget.remove_class(HIT, CURRENT)
            unmark(widget)
        self._marked = []
        query = self.results.query
        self._hits = {
            id(entries[index]): (
                Occurrences(query, place if index == current_entry else None),
                index == current_entry,
            )
            for index in hits
        }
        for index in sorted(hits):
            hit = self.view.widget_of(entries[index])
            if hit is not None:
                hit.add_class(HIT)
                mark(hit, Occurrences(query, place if index == current_entry else None))
                self._marked.append(hit)
        self._where.update(self._where_text())
        if current_entry is not None:
            self._reveal(entries[current_entry], Occurrences(query, place))

    def _where_text(self) -> Text:
        count = len(self.results.matches)
        if not self.results.query:
            return Text("enter next · shift+enter previous · esc close")
        if self.current is None:
            return Text("no match", style="bold")
        line, start, end = self.results.snippet(self.current)
        text = Text(f"match {self.current + 1} of {count}  ", style="bold")
        shown = clean_line(line)
        if len(shown) == len(line):
            text.append(shown[:start])
            text.append(shown[start:end], style="reverse")
            text.append(shown[end:])
        else:
            text.append(shown)
        return text

    def _reveal(self, entry: Entry, occurrences: Occurrences) -> None:
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
        mark(widget, occurrences)
        # What opening it mounted is marked too, once it is there.
        self.view.call_after_refresh(self._marked_again, widget, occurrences)
        self.view.call_after_refresh(self.view.show_entry, widget)

    def _marked_again(self, widget: Widget, occurrences: Occurrences) -> None:
        if widget in self._marked and widget.is_attached:
            mark(widget, occurrences)

    def close(self) -> None:
        if self.view.on_entry_mounted == self._entry_mounted:
            self.view.on_entry_mounted = None
        self._hits = {}
        for widget in self._marked:
            widget.remove_class(HIT, CURRENT)
            unmark(widget)
        self._marked = []
        self.remove()
