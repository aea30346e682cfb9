"""The rows of a terminal pane: a Line API view of a `TerminalScreenBuffer`.

Only the visible rows are turned into `Strip`s, from the styled text the buffer keeps for each
line (parsed once, tui/terminal/stream.py), and cached by absolute line number: completed lines
never change. `Log` is as fast but renders no styles; `RichLog` renders every line up front
(14-40 s for 10 MB).
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from tui.terminal.sgr import plain_line, styled_line
from tui.terminal.stream import TerminalScreenBuffer

__all__ = ["TerminalOutputView", "still_following"]


def still_following(following: bool, old_y: float, new_y: float, max_scroll_y: float) -> bool:
    """Whether a view that follows its end still does after a scroll from `old_y` to `new_y`.

    Decided by what the user did, from public scroll state: moving up stops following, reaching
    the end again resumes it, and content growing (no scroll) changes nothing. Textual's anchor
    keeps the same rule privately; `is_anchored` alone stays true after the user scrolls away.
    """
    if new_y >= max_scroll_y:
        return True
    return following and new_y >= old_y


class TerminalOutputView(ScrollView, can_focus=True):
    """The output rows: a Line API view of a `TerminalScreenBuffer`.

    It shows the buffer as of the last `sync`, addressed by absolute line number, so lines
    dropped from the head in between never shift what is on screen. Only visible rows are
    parsed into styles, and cached by absolute line number (completed lines never change).
    """

    ALLOW_SELECT = True
    DEFAULT_CSS = """
    TerminalOutputView {
        height: auto;
        max-height: 15;
        background: $surface-darken-1;
        color: $foreground;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 1;
        &:focus { background-tint: $foreground 5%; }
    }
    """

    def __init__(
        self,
        buffer: TerminalScreenBuffer,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._buffer = buffer
        self._base = 0  # absolute number of the first retained line, at the last sync
        self._completed = 0  # completed lines shown
        self._partial = ""  # the line being written, shown last
        self._cache: LRUCache[int, Strip] = LRUCache(512)
        self._partial_strip: Strip | None = None
        self._following = True

    @property
    def line_count(self) -> int:
        """Rows shown (completed lines plus the partial one)."""
        return self._completed + (1 if self._partial else 0)

    @property
    def following(self) -> bool:
        """Whether the view sticks to the last line (anchored, and the user has not scrolled up)."""
        return self.is_anchored and self._following

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._following = still_following(self._following, old_value, new_value, self.max_scroll_y)

    def sync(self) -> None:
        """Show what the buffer holds now."""
        buffer = self._buffer
        dropped = buffer.dropped_lines - self._base
        following = self.following
        self._base = buffer.dropped_lines
        self._completed = len(buffer.lines)
        partial = buffer.partial
        if partial != self._partial:
            self._partial = partial
            self._partial_strip = None
        width = max(buffer.max_cells, cell_len(plain_line(partial)) if partial else 0)
        self.virtual_size = Size(width, self.line_count)
        if dropped > 0 and not following:
            # The user scrolled up to read: keep the same lines in view as the head goes.
            self.scroll_to(y=max(0, self.scroll_y - dropped), animate=False, immediate=True)
        self.refresh()

    def plain_lines(self) -> list[str]:
        """The retained output without styles, one string per row (the partial line last)."""
        lines = [plain_line(line) for line in self._buffer.lines]
        partial = self._buffer.partial
        if partial:
            lines.append(plain_line(partial))
        return lines

    # ------------------------------------------------------------------------------ rendering
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()
        self._partial_strip = None

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        style = self.rich_style
        strip = self._row_strip(index, style)
        if strip is None:
            return Strip.blank(width, style)
        return strip.crop_extend(scroll_x, scroll_x + width, style).apply_offsets(scroll_x, index)

    def _row_strip(self, index: int, style: Style) -> Strip | None:
        selection = self.text_selection
        if index < self._completed:
            key = self._base + index
            cached = self._cache.get(key) if selection is None else None
            if cached is not None:
                return cached
            text = self._buffer.styled(key)
            if text is None:
                return None  # dropped since the last sync; the next sync redraws
            strip = self._make_strip(text, index, style, selection)
            if selection is None:
                self._cache[key] = strip
            return strip
        if index == self._completed and self._partial:
            if self._partial_strip is None or selection is not None:
                strip = self._make_strip(styled_line(self._partial), index, style, selection)
                if selection is not None:
                    return strip
                self._partial_strip = strip
            return self._partial_strip
        return None

    def _make_strip(
        self, text: Text, index: int, style: Style, selection: Selection | None
    ) -> Strip:
        """One row from a line's styled text (kept by the buffer: copied before a selection is
        painted on it)."""
        if selection is not None and (span := selection.get_span(index)) is not None:
            start, end = span
            if end == -1:
                end = len(text)
            text = text.copy()
            text.stylize(self.screen.get_component_rich_style("screen--selection"), start, end)
        # `Text.render` leaves the base style to the console: put the widget's style beneath.
        return Strip(text.render(self.app.console), text.cell_len).apply_style(style)

    # ------------------------------------------------------------------------------ selection
    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract("\n".join(self.plain_lines())), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self._cache.clear()
        self._partial_strip = None
        self.refresh()
