"""One message opened in the inspector: pretty, highlighted JSON in a Line API view.

The lines come from tui/inspector/json_view.py, which reads at most the first 256 KB of a message,
so
a 60 MB line opens as fast as a 256 KB one. Long lines wrap at the view's width; only the rows
on screen are drawn, each cached.
"""

from __future__ import annotations

from rich.cells import cell_len, get_character_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.inspector.json_view import Line, SpanKind, display
from tui.inspector.traffic import WireMessage

# (line index, first character, end character) of each row at the current width.
Row = tuple[int, int, int]


def wrap_offsets(text: str, width: int) -> list[int]:
    """Where rows of at most `width` cells start in `text` (always 0 first)."""
    if width <= 0 or (len(text) <= width and text.isascii()):
        return [0]
    if text.isascii():
        return list(range(0, len(text), width))
    starts, used = [0], 0
    for index, char in enumerate(text):
        size = get_character_cell_size(char)
        if used + size > width and used:
            starts.append(index)
            used = 0
        used += size
    return starts


class MessageView(ScrollView, can_focus=True):
    """The opened message; Esc goes back to the list (the pane handles `Closed`)."""

    COMPONENT_CLASSES = {
        "message-view--key",
        "message-view--string",
        "message-view--number",
        "message-view--literal",
        "message-view--punct",
        "message-view--error",
        "message-view--text",
        "message-view--note",
    }
    DEFAULT_CSS = """
    MessageView { height: 1fr; overflow-x: hidden; scrollbar-size-vertical: 1; }
    MessageView > .message-view--key { color: $accent; }
    MessageView > .message-view--string { color: $success; }
    MessageView > .message-view--number { color: $warning; }
    MessageView > .message-view--literal { color: $secondary; text-style: bold; }
    MessageView > .message-view--punct { color: $text-muted; }
    MessageView > .message-view--error { color: $error; }
    MessageView > .message-view--note { color: $text-muted; text-style: italic; }
    """
    BINDINGS = [Binding("escape", "close", "Back", priority=True)]

    class Closed(Message):
        """Esc: back to the list."""

    def __init__(self, **kwargs: str) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.message: WireMessage | None = None
        self._lines: list[Line] = []
        self._texts: list[str] = []
        self._rows: list[Row] = []
        self._rows_width = -1
        self._cache: LRUCache[tuple[int, int], Strip] = LRUCache(512)

    def show(self, message: WireMessage) -> None:
        """Open `message` at its first line (a bounded prefix of it, see traffic_json)."""
        self.message = message
        self._lines = display(message).lines
        self._texts = ["".join(piece for piece, _ in spans) for spans in self._lines]
        self._rows_width = -1
        self._cache.clear()
        self.scroll_to(0, 0, animate=False, immediate=True)
        self._layout_rows()
        self.refresh()

    @property
    def row_count(self) -> int:
        return len(self._rows)

    def plain_lines(self) -> list[str]:
        """The message's lines as text, unwrapped (tests and copying)."""
        return list(self._texts)

    def _layout_rows(self) -> None:
        width = self.scrollable_content_region.width
        if width == self._rows_width:
            return
        self._rows_width = width
        self._cache.clear()
        rows: list[Row] = []
        for index, text in enumerate(self._texts):
            if width > 0 and (len(text) > width or not text.isascii()) and cell_len(text) > width:
                starts = wrap_offsets(text, width)
                ends = [*starts[1:], len(text)]
                rows += [(index, start, end) for start, end in zip(starts, ends, strict=True)]
            else:
                rows.append((index, 0, len(text)))
        self._rows = rows
        self.virtual_size = Size(width, len(rows))

    def on_resize(self) -> None:
        self._layout_rows()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def action_close(self) -> None:
        self.post_message(self.Closed())

    def render_line(self, y: int) -> Strip:
        self._layout_rows()
        width = self.scrollable_content_region.width
        row = int(self.scroll_y) + y
        base = self.rich_style
        if not 0 <= row < len(self._rows):
            return Strip.blank(width, base)
        key = (row, width)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._draw(self._rows[row], width, base)
            self._cache[key] = strip
        return strip.apply_offsets(0, row)

    def _draw(self, row: Row, width: int, base: Style) -> Strip:
        index, start, end = row
        text = Text(no_wrap=True)
        offset = 0
        for piece, kind in self._lines[index]:
            piece_end = offset + len(piece)
            if piece_end > start and offset < end:
                part = piece[max(0, start - offset) : end - offset]
                text.append(part, style=self._style(kind))
            offset = piece_end
            if offset >= end:
                break
        text.truncate(width, pad=True)
        segments = list(Segment.apply_style(text.render(self.app.console), base))
        return Strip(segments, width)

    def _style(self, kind: SpanKind) -> Style:
        return self.get_component_rich_style(f"message-view--{kind}", partial=True)
