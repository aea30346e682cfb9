"""The inspector's list: one row per message on the wire, drawn through Textual's Line API.

Only the rows on screen are drawn (and summarised, tui/inspector/traffic.py), each cached by message
number, width and cursor, so 50,000 kept messages cost what the visible ones do. The list
reads the store when told (`sync`, from the pane's timer), never per message, so a stream of
thousands a second is drawn a few times a second.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.inspector.traffic import Query, Traffic, WireMessage, format_gap, format_size
from tui.sanitize import clean_line

ARROWS = {"out": "→", "in": "←"}
ID_WIDTH = 6
SIZE_WIDTH = 8
GAP_WIDTH = 8


def is_problem(message: WireMessage) -> bool:
    """An error answer, or a line the transport refused or dropped."""
    return message.cut or not message.valid_json or message.summary.label == "error"


def row_text(message: WireMessage) -> tuple[Text, Text]:
    """A row's two parts: what the message is (left), and id, size, time since the one before
    (right, fixed columns)."""
    summary = message.summary
    left = Text(no_wrap=True, overflow="ellipsis")
    left.append(ARROWS[message.direction] + " ", style="bold")
    left.append(clean_line(summary.label), style="bold" if message.direction == "out" else "")
    if summary.update:
        left.append(" " + clean_line(summary.update), style="italic")
    if summary.tool_call_id:
        left.append(" " + clean_line(summary.tool_call_id), style="dim")
    ident = "" if summary.id is None else "#" + clean_line(summary.id.strip('"'))
    if len(ident) > ID_WIDTH:
        ident = ident[: ID_WIDTH - 1] + "…"
    right = Text(no_wrap=True)
    right.append(ident.rjust(ID_WIDTH), style="dim")
    right.append(format_size(message.size).rjust(SIZE_WIDTH))
    right.append(format_gap(message.gap).rjust(GAP_WIDTH), style="dim")
    return left, right


class TrafficList(ScrollView, can_focus=True):
    """Every kept message, or those the filter matches; a cursor row; Enter opens it."""

    COMPONENT_CLASSES = {
        "traffic-list--cursor",
        "traffic-list--out",
        "traffic-list--in",
        "traffic-list--problem",
    }
    DEFAULT_CSS = """
    TrafficList { height: 1fr; overflow-x: hidden; scrollbar-size-vertical: 1; }
    TrafficList > .traffic-list--cursor { background: $boost; }
    TrafficList:focus > .traffic-list--cursor { background: $accent 40%; }
    TrafficList > .traffic-list--out { color: $accent; }
    TrafficList > .traffic-list--in { color: $success; }
    TrafficList > .traffic-list--problem { color: $error; }
    """
    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "to_start", "First", show=False),
        Binding("end", "to_end", "Last", show=False),
        Binding("enter", "open", "Open", priority=True),
    ]

    class Opened(Message):
        """Enter (or a click on the cursor row) on a message."""

        def __init__(self, seq: int) -> None:
            super().__init__()
            self.seq = seq

    def __init__(self, traffic: Traffic, **kwargs: str) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.traffic = traffic
        self._matches: Callable[[WireMessage], bool] | None = None
        self._rows: list[int] = []  # matching seqs, while a filter is set
        self._tested = 0  # messages up to this seq were tested against the filter
        self.cursor_seq: int | None = None
        self.following = True
        """The cursor stays on the newest row as messages arrive, until the user moves it."""
        self._cache: LRUCache[tuple[int, int, bool, bool], Strip] = LRUCache(1024)
        self._seen_total = -1

    # -- rows ---------------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        if self._matches is None:
            return len(self.traffic)
        return len(self._rows)

    def seq_at(self, row: int) -> int | None:
        if not 0 <= row < self.row_count:
            return None
        if self._matches is None:
            return self.traffic.first_seq + row
        return self._rows[row]

    def row_of(self, seq: int) -> int | None:
        if self._matches is None:
            row = seq - self.traffic.first_seq
            return row if 0 <= row < len(self.traffic) else None
        row = bisect.bisect_left(self._rows, seq)
        return row if row < len(self._rows) and self._rows[row] == seq else None

    def set_query(self, query: Query) -> None:
        """Show only what `query` matches (all of it for an empty one); the cursor stays on
        its message when that still shows."""
        self._matches = None if not query.text.strip() else query.matcher()
        self._rows, self._tested = [], 0
        self._seen_total = -1
        self.sync()

    def sync(self) -> None:
        """Take in what arrived (and forget what the store dropped) since the last call."""
        traffic = self.traffic
        if traffic.total == self._seen_total:
            return
        self._seen_total = traffic.total
        if self._matches is not None:
            first = traffic.first_seq
            if self._rows and self._rows[0] < first:
                del self._rows[: bisect.bisect_left(self._rows, first)]
            matches = self._matches
            self._rows += [m.seq for m in traffic.since(self._tested + 1) if matches(m)]
            self._tested = traffic.total
        self._fit()

    def on_resize(self, event: events.Resize) -> None:
        # A list that follows stays on its end when its height changes (a pane laid out
        # after the rows arrived, a terminal made smaller): max_scroll_y moved, scroll_y did not.
        self._fit()

    def _fit(self) -> None:
        """Size the scroll area to the rows, and keep the newest row in view while following."""
        size = Size(self.size.width, self.row_count)
        if size != self.virtual_size:
            # The scrollbars follow without a layout pass: the pane's size does not change,
            # and a layout of the screen per tick cost the transcript (bench_inspector.py).
            self.set_reactive(TrafficList.virtual_size, size)
            self._scroll_update(size)
        if self.following:
            last = self.seq_at(self.row_count - 1)
            if last is not None:
                self.cursor_seq = last
            self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)
        self.refresh()

    @property
    def cursor_row(self) -> int | None:
        return None if self.cursor_seq is None else self.row_of(self.cursor_seq)

    def select(self, seq: int) -> None:
        """Put the cursor on `seq`'s row (if it shows) and scroll it into view."""
        row = self.row_of(seq)
        if row is None:
            return
        self.cursor_seq = seq
        self.following = row == self.row_count - 1
        self._scroll_to_row(row)
        self.refresh()

    def _scroll_to_row(self, row: int) -> None:
        top = int(self.scroll_y)
        height = max(1, self.scrollable_content_region.height)
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True, force=True)
        elif row >= top + height:
            self.scroll_to(y=row - height + 1, animate=False, immediate=True, force=True)

    # -- keys -----------------------------------------------------------------------------------

    def _move_to_row(self, row: int) -> None:
        count = self.row_count
        if not count:
            return
        row = max(0, min(count - 1, row))
        seq = self.seq_at(row)
        if seq is not None:
            self.select(seq)

    def action_move(self, delta: int) -> None:
        row = self.cursor_row
        self._move_to_row((self.row_count - 1 if row is None else row) + delta)

    def action_page(self, direction: int) -> None:
        height = max(1, self.scrollable_content_region.height)
        self.action_move(direction * height)

    def action_to_start(self) -> None:
        self._move_to_row(0)

    def action_to_end(self) -> None:
        self._move_to_row(self.row_count - 1)

    def action_open(self) -> None:
        if self.cursor_seq is not None and self.traffic.get(self.cursor_seq) is not None:
            self.post_message(self.Opened(self.cursor_seq))

    def on_click(self, event: events.Click) -> None:
        seq = self.seq_at(int(self.scroll_y) + event.y)
        if seq is None:
            return
        if seq == self.cursor_seq:
            self.post_message(self.Opened(seq))
        else:
            self.select(seq)

    # -- drawing --------------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        row = int(self.scroll_y) + y
        seq = self.seq_at(row)
        message = None if seq is None else self.traffic.get(seq)
        base = self.rich_style
        if message is None:
            return Strip.blank(width, base)
        key = (message.seq, width, message.seq == self.cursor_seq, self.has_focus)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._draw(message, width, key[2], base)
            self._cache[key] = strip
        return strip.apply_offsets(0, row)

    def _draw(self, message: WireMessage, width: int, cursor: bool, base: Style) -> Strip:
        left, right = row_text(message)
        arrow = self.get_component_rich_style(f"traffic-list--{message.direction}", partial=True)
        left.stylize(arrow, 0, 1)
        if is_problem(message):
            problem = self.get_component_rich_style("traffic-list--problem", partial=True)
            left.stylize(problem, 2)
        room = max(0, width - right.cell_len - 1)
        left.truncate(room, overflow="ellipsis", pad=True)
        line = Text.assemble(left, " ", right)
        line.truncate(width, pad=True)
        style = base + self.get_component_rich_style("traffic-list--cursor") if cursor else base
        segments = list(Segment.apply_style(line.render(self.app.console), style))
        return Strip(segments, width)
