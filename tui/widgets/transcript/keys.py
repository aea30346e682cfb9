"""Keyboard access to the transcript: a cursor on one entry at a time.

Alt+Up (or Ctrl+Up) from the prompt puts focus on the transcript with the cursor on the last
entry; Up and Down move it, Enter opens or folds a card or a thought, `c` copies the entry,
`s` `n` `p` act on the diff of the card under the cursor, Escape goes back to the prompt. The
cursor is a class on the entry's widget, drawn only while the transcript has focus.

The keys are live only after that deliberate step: focus that lands on the transcript by a
click or a drag leaves them to the rest of the app (letters go to the prompt, Up and Down
scroll, Esc cancels the turn), and so does any focus change away from the transcript.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Collapsible

from tui.transcript.text import copy_text

if TYPE_CHECKING:
    from tui.state import Entry
    from tui.transcript.text import RunLookup

CURSOR = "-cursor"

CURSOR_CSS = """
ConversationView:focus > .-cursor { outline-left: thick $accent; background-tint: $accent 8%; }
ConversationView:focus > .-cursor > CollapsibleTitle { background: $accent 30%; }
ConversationView:focus { background-tint: $foreground 2%; }
ConversationView > .-search-hit { background-tint: $warning 10%; }
ConversationView > .-search-current {
    background-tint: $warning 22%;
    outline-right: thick $warning;
}
"""

# The conversation tools' keys (docs/client.md, "Keys"; F1), in one place.
CONVERSATION_KEYS: list[tuple[str, str]] = [
    ("alt+up / ctrl+up", "from the prompt: into the transcript, on its last entry"),
    ("up / down", "in the transcript: the entry before or after (marked at the left)"),
    ("enter", "in the transcript: open or fold the card or thought"),
    ("c", "in the transcript: copy the entry (text, code, a command's output, a diff)"),
    ("s / n / p", "in the transcript, on a diff: split or unified, next or previous change"),
    ("esc", "in the transcript: back to the prompt"),
    ("ctrl+f", "search the transcript: enter / down next, shift+enter / up previous, esc close"),
    ("n / N", "searching, after enter: the next / previous match (other letters refine)"),
    ("/export [FILE]", "the conversation as FILE.md and FILE.html (0600), in the workspace"),
    ("/new", "a new session: the old one closed (session/close when offered), transcript cleared"),
]


# The host's BINDINGS: Textual reads bindings only off widget classes, not off a mixin.
CURSOR_BINDINGS: list[BindingType] = [
    Binding("up", "cursor_move(-1)", "Previous entry", show=False),
    Binding("down", "cursor_move(1)", "Next entry", show=False),
    Binding("enter", "cursor_toggle", "Open/fold", show=False),
    Binding("c", "cursor_copy", "Copy", show=False),
    Binding("s", "cursor_diff('toggle_view')", "Split/unified", show=False),
    Binding("n", "cursor_diff('next_change')", "Next change", show=False),
    Binding("p", "cursor_diff('previous_change')", "Previous change", show=False),
    Binding("escape", "cursor_leave", "Back to the prompt", show=False),
]


class TranscriptCursor:
    """The cursor's keys, mixed into the transcript's scroller. The host supplies its entry
    widgets in order (`cursor_widgets`) and the entry behind a widget (`entry_of`)."""

    _cursor: Widget | None = None
    _cursor_live = False  # entered with Alt+Up, and focus has not left since
    run_lookup: RunLookup | None = None

    # -- supplied by the host -------------------------------------------------------------
    def cursor_widgets(self) -> list[Widget]:
        raise NotImplementedError

    def entry_of(self, widget: Widget) -> Entry | None:
        raise NotImplementedError

    def show_entry(self, widget: Widget) -> None:
        raise NotImplementedError

    # -- the cursor ----------------------------------------------------------------------
    @property
    def cursor(self) -> Widget | None:
        """The entry widget under the cursor, if it is still in the transcript."""
        widget = self._cursor
        if widget is not None and widget in self.cursor_widgets():
            return widget
        return None

    def enter_transcript(self) -> bool:
        """Focus the transcript with the cursor on the last entry; False when it is empty."""
        widgets = self.cursor_widgets()
        if not widgets:
            return False
        self._put_cursor(widgets[-1])
        self._cursor_live = True
        assert isinstance(self, Widget)
        # At once, not after this event as `focus()` does: keys read with this one (Alt+Up
        # then Up in one burst) must reach the transcript.
        self.screen.set_focus(self)
        return True

    def on_blur(self) -> None:
        self._cursor_live = False
        if self._cursor is not None:
            self._cursor.remove_class(CURSOR)

    def _require_live(self) -> None:
        """The cursor's keys act only once the transcript was entered on purpose."""
        if not self._cursor_live:
            raise SkipAction()

    def _put_cursor(self, widget: Widget) -> None:
        assert isinstance(self, Widget)
        if self._cursor is not None:
            self._cursor.remove_class(CURSOR)
        self._cursor = widget
        widget.add_class(CURSOR)
        self.scroll_to_widget(
            widget, animate=False, top=widget.outer_size.height > self.size.height
        )

    def action_cursor_move(self, step: int) -> None:
        self._require_live()
        widgets = self.cursor_widgets()
        if not widgets:
            return
        current = self.cursor
        if current is None:
            index = len(widgets) - 1
        else:
            index = max(0, min(len(widgets) - 1, widgets.index(current) + step))
        self._put_cursor(widgets[index])

    def action_cursor_toggle(self) -> None:
        from tui.widgets.cards.tool_card import ToolCard

        self._require_live()
        widget = self.cursor
        if isinstance(widget, ToolCard):
            widget.toggle_collapsed()
        elif isinstance(widget, Collapsible):
            widget.collapsed = not widget.collapsed
        if widget is not None:
            assert isinstance(self, Widget)
            self.call_after_refresh(self.scroll_to_widget, widget, animate=False)

    def action_cursor_copy(self) -> None:
        self._require_live()
        assert isinstance(self, Widget)
        widget = self.cursor
        entry = None if widget is None else self.entry_of(widget)
        if entry is None:
            return
        lookup = self.run_lookup
        text = copy_text(entry) if lookup is None else copy_text(entry, lookup)
        self.app.copy_to_clipboard(text)
        lines = text.count("\n") + 1 if text else 0
        self.app.notify(f"Copied {lines} line{'s' if lines != 1 else ''}.")

    def action_cursor_diff(self, action: str) -> None:
        from tui.widgets.diff.panel import DiffPanel

        self._require_live()
        widget = self.cursor
        panels = [] if widget is None else list(widget.query(DiffPanel))
        if not panels:
            return
        panel = panels[0]
        getattr(panel, f"action_{action}")()

    def action_cursor_leave(self) -> None:
        self._require_live()
        assert isinstance(self, Widget)
        from tui.widgets.prompt.prompt import PromptArea

        for prompt in self.screen.query(PromptArea):
            self.screen.set_focus(prompt)
            return
