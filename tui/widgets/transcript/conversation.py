"""The transcript: maps each state entry to one widget and applies changes to that widget only.

Only the entries near the viewport are widgets (a window of a few screens); the rest are the
rows of a spacer above and below them (tui/widgets/transcript/window.py), so a long session
costs what is on screen: every widget adds to the cost of each layout pass, and mounting one
(style, compose, layout) is the per-entry cost.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.console import RenderableType
from textual import events
from textual.containers import VerticalScroll
from textual.geometry import Region, Size
from textual.layout import Layout
from textual.timer import Timer
from textual.widget import Widget

from tui import heap
from tui.state import (
    Change,
    Entry,
    EntryAdded,
    MessageEntry,
    TerminalOutput,
    TextAppended,
    ToolCallChanged,
    ToolCallEntry,
)
from tui.terminal.terminals import TerminalManager
from tui.widgets import layout_fix
from tui.widgets.transcript.keys import CURSOR_BINDINGS, CURSOR_CSS, TranscriptCursor
from tui.widgets.transcript.window import Heights, count_filling, count_filling_forward

# The window of widgets, in screens (the viewport's height): at least KEEP_SCREENS of entries
# are mounted above and below what is shown; once more than TRIM_SCREENS are, the excess goes.
KEEP_SCREENS = 2
TRIM_SCREENS = 4
# Never fewer widgets than this: a short transcript is all widgets, as it always was.
MIN_MOUNTED = 60
# Refreshes a window change waits for its widgets to be laid out before it holds the view.
SETTLE_TRIES = 10
SPINNER_INTERVAL_S = 0.1
# After this long with no change to the transcript (no update, no scroll), the heap gets its
# full collection (tui/heap.py), so that pause never lands in a frame anyone waits for.
QUIET_S = 1.0

# The entry the view is held by while the window changes, and its row then (None: none).
Hold = tuple[Widget | None, int | None]


class Spacer(Widget):
    """Blank rows standing for the entries above or below the window."""

    DEFAULT_CSS = "Spacer { height: auto; }"

    def __init__(self) -> None:
        super().__init__()
        self.rows = 0
        self.display = False

    def set_rows(self, rows: int) -> None:
        rows = max(0, rows)
        if rows != self.rows:
            self.rows = rows
            self.display = rows > 0
            self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.rows

    def render(self) -> RenderableType:
        return ""


def widget_for(
    entry: Entry,
    cwd: Path,
    terminals: TerminalManager | None = None,
) -> Widget:
    # Here, not at the top: the first frame shows no entry (tui/widgets/deferred.py).
    from tui.widgets.cards.tool_card import ToolCard
    from tui.widgets.transcript.messages import AgentMessage, Notice, ThoughtMessage, UserMessage

    if isinstance(entry, MessageEntry):
        if entry.role == "user":
            return UserMessage(entry.text)
        if entry.role == "thought":
            return ThoughtMessage(entry.text)
        return AgentMessage(entry.text)
    if isinstance(entry, ToolCallEntry):
        return ToolCard(entry, cwd, terminals)
    return Notice(entry.text, entry.level)


class ConversationView(TranscriptCursor, VerticalScroll):
    """Follows the end until the user scrolls away, and again once the user comes back.

    Following is one explicit policy, decided only by what the user did: moving the view up
    (a page, the wheel, the scrollbar) stops it; reaching the end again, or `jump_to_end`,
    resumes it. Content growing never changes it. While following, Textual's anchor keeps the
    view at the end within each layout pass; it is engaged only once the content overflows,
    since an anchored short transcript would sit at the bottom of the screen.

    The entries are widgets only within a window around the viewport, bounded both ways:
    scrolling up mounts entries above and unmounts those far below, and the other way round.
    A burst of new entries while following mounts only the newest that fill the window. When
    the window moves, the first entry on screen is held in place: a remounted entry whose
    height differs from its spacer rows shifts the scroll position, not the view.
    """

    BINDINGS = CURSOR_BINDINGS  # keyboard access to the entries (tui/widgets/transcript/keys.py)
    DEFAULT_CSS = (
        CURSOR_CSS
        + """
    ConversationView {
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
        scrollbar-gutter: stable;
        layout: stream;
    }
    """
    )

    def __init__(self, cwd: Path, **kwargs: str) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.cwd = cwd
        self._widgets: dict[int, Widget] = {}  # by id of the entry: the mounted ones
        self._entry_of: dict[int, Entry] = {}  # by id of the widget: what the cursor acts on
        # The client's terminals, so cards can show `terminal/create` output live.
        self.terminals: TerminalManager | None = None
        # Every entry in order; entries[_first : _first + len(_mounted)] are widgets.
        self._entries: list[Entry] = []
        self._first = 0
        self._mounted: list[Widget] = []
        self._flush_queued = False
        self._settling = False  # a window change waits for its layout pass
        self._quiet_timer: Timer | None = None
        self.heights = Heights()
        self._width = 0
        self._above = Spacer()
        self._below = Spacer()
        self._following = True
        self._shifting = False  # the scroll position moves to hold the view, not by the user
        self._spinner_frame = 0
        # Entries added while the view is held away from the end: the "↓ N new" marker
        # (tui/widgets/transcript/new_below.py) shows the count through `on_new_below`.
        self.new_below = 0
        self.on_new_below: Callable[[int], None] | None = None
        # Called with each entry widget the window mounts (search marks its hits on it).
        self.on_entry_mounted: Callable[[Widget], None] | None = None

    def compose(self) -> list[Widget]:
        return [self._above, self._below]

    def pre_layout(self, layout: Layout) -> None:
        """Re-measure entries whose contents changed deep inside (`layout_fix`, bug 2)."""
        layout_fix.mark_deep_changes(self)

    def on_mount(self) -> None:
        # One spinner tick for the whole transcript, wherever it is shown (the app, each side
        # of the demo); none when animations are off, so snapshots are still pictures.
        if self.app.animation_level != "none":
            self.set_interval(SPINNER_INTERVAL_S, self._tick)

    def _tick(self) -> None:
        self._spinner_frame += 1
        self.tick_spinners(self._spinner_frame)

    # -- changes from the state -------------------------------------------------------------
    def apply(self, changes: list[Change]) -> None:
        from tui.widgets.cards.tool_card import ToolCard
        from tui.widgets.transcript.messages import AgentMessage, ThoughtMessage, UserMessage

        self._busy()
        for change in changes:
            match change:
                case EntryAdded(entry=entry):
                    self._entries.append(entry)
                    if not self._following:
                        self._count_new_below(self.new_below + 1)
                    if not self._flush_queued:
                        self._flush_queued = True
                        self.call_later(self._flush_new)
                case TextAppended(entry=entry, text=text):
                    target = self._widgets.get(id(entry))
                    if isinstance(target, UserMessage | AgentMessage | ThoughtMessage):
                        target.add_text(text)
                case ToolCallChanged(entry=entry, fields=fields):
                    card = self._widgets.get(id(entry))
                    if isinstance(card, ToolCard):
                        card.refresh_fields(fields)
                case TerminalOutput(entry=entry):
                    # The pane follows the terminal's own feed; the card may need a pane.
                    card = self._widgets.get(id(entry))
                    if isinstance(card, ToolCard):
                        card.show_terminal_output()

    @property
    def _end(self) -> int:
        """The index after the last mounted entry."""
        return self._first + len(self._mounted)

    def _screen_rows(self) -> int:
        return self.scrollable_content_region.height or self.app.size.height

    def _flush_new(self) -> None:
        """Entries added since the last flush, in one batch: one layout pass for a burst.
        While following, the window ends at the end: a burst mounts only the newest entries
        that fill it. Otherwise they are spacer rows until the user scrolls down to them."""
        self._flush_queued = False
        hold = self._hold_point()
        if self._following and self._end < len(self._entries):
            keep = (KEEP_SCREENS + 1) * self._screen_rows()
            fill = count_filling(self._entries, self.heights, keep, MIN_MOUNTED)
            start = len(self._entries) - fill
            if start > self._end:
                self._unmount(0, len(self._mounted))
                self._first = start
            self._mount(self._end, len(self._entries))
        self._update_spacers()
        self._settle(hold)
        self.call_after_refresh(self._sync_anchor)

    def _busy(self) -> None:
        """Something changed: the heap's full collection waits for QUIET_S without changes."""
        if self._quiet_timer is None:
            self._quiet_timer = self.set_timer(QUIET_S, self._quiet)
        else:
            self._quiet_timer.reset()

    def _quiet(self) -> None:
        self._quiet_timer = None
        heap.collect_when_quiet()

    # -- the window ---------------------------------------------------------------------------
    def _make_widget(self, entry: Entry) -> Widget:
        from tui.widgets.cards.tool_card import ToolCard

        widget = widget_for(entry, self.cwd, self.terminals)
        self._widgets[id(entry)] = widget
        self._entry_of[id(widget)] = entry
        if isinstance(widget, ToolCard):
            widget.sync_status_classes()
        return widget

    def _mount(self, start: int, end: int) -> list[Widget]:
        """Mount entries[start:end], which sit just above or just below the window."""
        if start >= end:
            return []
        widgets = [self._make_widget(entry) for entry in self._entries[start:end]]
        if start < self._first or not self._mounted:
            before: Widget = self._mounted[0] if self._mounted else self._below
            self.mount_all(widgets, before=before)
            self._mounted[:0] = widgets
            self._first = start
        else:
            self.mount_all(widgets, before=self._below)
            self._mounted.extend(widgets)
        if self.on_entry_mounted is not None:
            for widget in widgets:
                self.on_entry_mounted(widget)
        return widgets

    def _unmount(self, start: int, end: int) -> None:
        """Unmount the window's widgets [start:end) (positions in `_mounted`), at one end."""
        if start >= end:
            return
        self._measure()
        gone = self._mounted[start:end]
        del self._mounted[start:end]
        if start == 0:
            self._first += len(gone)
        for widget in gone:
            entry = self._entry_of.pop(id(widget), None)
            if entry is not None:
                self._widgets.pop(id(entry), None)
        self.remove_children(gone)

    def _measure(self) -> None:
        """Record the rows each laid-out entry takes, margins between them included."""
        regions = [widget.virtual_region for widget in self._mounted]
        for index, widget in enumerate(self._mounted):
            region = regions[index]
            if region == Region() or not widget.is_attached:
                continue
            following = regions[index + 1] if index + 1 < len(regions) else None
            if following is not None and following != Region():
                rows = following.y - region.y
            else:
                rows = widget.virtual_region_with_margin.height
            entry = self._entry_of.get(id(widget))
            if entry is not None and rows >= 0:
                self.heights.record(entry, rows)

    def _update_spacers(self) -> None:
        self._above.set_rows(self.heights.total(self._entries[: self._first]))
        self._below.set_rows(self.heights.total(self._entries[self._end :]))

    def _hold_point(self) -> Hold:
        """The first entry on screen and its row, to hold the view by. Read it before the
        window changes: read after a mount, Textual's map can already count the rows of the
        entries mounted above while the spacer still has its old rows, and the hold would
        then move the view by their height (PageUp skipped a few cards)."""
        held = None if self._following else self._first_shown()
        return held, None if held is None else held.virtual_region.y

    def _settle(self, hold: Hold | None = None) -> None:
        """After the next layout pass: hold the view (by `hold`, read before the change),
        then move the window again if needed."""
        if self._settling:
            return
        self._settling = True
        held, where = self._hold_point() if hold is None else hold
        self.call_after_refresh(self._settled, held, where)

    def _settled(self, held: Widget | None, where: int | None, tries: int = 0) -> None:
        if tries < SETTLE_TRIES and self._layout_pending():
            self.call_after_refresh(self._settled, held, where, tries + 1)
            return
        self._settling = False
        if held is not None and where is not None and held.parent is self:
            shift = held.virtual_region.y - where
            if shift and not self._following:
                self._shifting = True
                try:
                    self.scroll_to(y=self.scroll_y + shift, animate=False, immediate=True)
                finally:
                    self._shifting = False
        self._measure()
        if self._following:
            self._update_spacers()  # measures replace estimates; the anchor keeps the end
        elif self._end == len(self._entries) and 0 < self.max_scroll_y <= self.scroll_y:
            self._following = True  # the window caught up with a scroll to the end
            self._count_new_below(0)
            self._sync_anchor()
        self._update_window()

    def _layout_pending(self) -> bool:
        """Whether a widget of the window still waits for the layout pass that places it. On
        a loaded machine the after-refresh callback can run before that pass: measuring then
        would hold the view by a stale position, and the mount would push it down later."""
        return any(
            not widget.is_mounted or widget.virtual_region == Region() for widget in self._mounted
        )

    def _first_shown(self) -> Widget | None:
        top = self.scroll_y
        for widget in self._mounted:
            region = widget.virtual_region
            if region != Region() and region.bottom > top:
                return widget
        return None

    def _update_window(self) -> None:
        """Mount what comes within KEEP_SCREENS of the viewport; unmount what is more than
        TRIM_SCREENS away (above only, while following: below is the end)."""
        if self._settling or not self.is_attached or not self.size.height:
            return
        if self.size.width != self._width:
            if self._width:
                self.heights.clear()  # rewrapped: what was measured is stale
            self._width = self.size.width
        screen = self._screen_rows()
        keep, trim = KEEP_SCREENS * screen, TRIM_SCREENS * screen
        # While following, the view is at the end (the anchor moves it there in layout).
        end = max(0, self.virtual_size.height - screen)
        top = end if self._following else round(self.scroll_y)
        bottom = top + screen
        mounted_top = self._above.rows
        mounted_bottom = self.virtual_size.height - self._below.rows
        hold = self._hold_point()
        if not self._mounted or bottom < mounted_top - keep or top > mounted_bottom + keep:
            # Far from the window (the scrollbar dragged): a new window where the view is.
            if self._entries and not self._following:
                self._rewindow(self._index_at(top))
                self._update_spacers()
                self._settle()
            return
        changed = False
        if self._first and top - mounted_top < keep:
            missing = keep - (top - mounted_top)
            above = self._entries[: self._first]
            count = len(above) - count_filling(above, self.heights, missing, 1)
            changed |= bool(self._mount(count, self._first))
        if self._end < len(self._entries) and mounted_bottom - bottom < keep:
            missing = keep - (mounted_bottom - bottom)
            below = self._entries[self._end :]
            changed |= bool(
                self._mount(
                    self._end, self._end + count_filling_forward(below, self.heights, missing, 1)
                )
            )
        if len(self._mounted) > MIN_MOUNTED and top - mounted_top > trim:
            drop = self._count_beyond(top - keep, above=True)
            self._unmount(0, min(drop, len(self._mounted) - MIN_MOUNTED))
            changed |= drop > 0
        if (
            not self._following
            and len(self._mounted) > MIN_MOUNTED
            and mounted_bottom - bottom > trim
        ):
            drop = self._count_beyond(bottom + keep, above=False)
            drop = min(drop, len(self._mounted) - MIN_MOUNTED)
            self._unmount(len(self._mounted) - drop, len(self._mounted))
            changed |= drop > 0
        if changed:
            self._update_spacers()
            self._settle(hold)

    def _count_beyond(self, limit: int, *, above: bool) -> int:
        """How many widgets at one end of the window lie wholly beyond `limit`."""
        count = 0
        widgets = self._mounted if above else list(reversed(self._mounted))
        for widget in widgets:
            region = widget.virtual_region
            if region == Region():
                break
            if (region.bottom <= limit) if above else (region.y >= limit):
                count += 1
            else:
                break
        return count

    def show_earlier(self) -> None:
        """Extend the window up by a screen of entries (PageUp at the top of the window)."""
        if self._first:
            hold = self._hold_point()
            above = self._entries[: self._first]
            count = count_filling(above, self.heights, self._screen_rows(), 1)
            self._mount(self._first - count, self._first)
            self._update_spacers()
            self._settle(hold)

    @property
    def window_settled(self) -> bool:
        """No change of the window waits for its layout pass (what a snapshot waits for)."""
        return not self._settling

    @property
    def hidden_count(self) -> int:
        """Entries above the window: spacer rows, not widgets."""
        return self._first

    def cursor_widgets(self) -> list[Widget]:
        return [widget for widget in self._mounted if widget.parent is self]

    def entry_of(self, widget: Widget) -> Entry | None:
        return self._entry_of.get(id(widget))

    def widget_of(self, entry: Entry) -> Widget | None:
        return self._widgets.get(id(entry))

    def reveal(self, entry: Entry) -> Widget | None:
        """The entry's widget, moving the window to it when it is not mounted (search)."""
        widget = self._widgets.get(id(entry))
        index = next((i for i, known in enumerate(self._entries) if known is entry), None)
        if widget is not None or index is None:
            return widget
        self._following = False
        self._sync_anchor()
        self._rewindow(index)
        self._update_spacers()
        # Where the entry will be, near enough for the window to stay until it is shown.
        self._shifting = True
        try:
            self.scroll_to(
                y=self.heights.total(self._entries[:index]), animate=False, immediate=True
            )
        finally:
            self._shifting = False
        self._settle()
        return self._widgets.get(id(entry))

    def _rewindow(self, index: int) -> None:
        """Replace the window by one around entries[index]."""
        self._unmount(0, len(self._mounted))
        rows = KEEP_SCREENS * self._screen_rows()
        before = count_filling(self._entries[:index], self.heights, rows, 1) if index else 0
        after = count_filling_forward(self._entries[index:], self.heights, rows, 1)
        self._first = index - before
        self._mount(index - before, index + after)

    def _index_at(self, rows: int) -> int:
        """The entry at `rows` from the top, by the rows measured or estimated."""
        total = 0
        for index, entry in enumerate(self._entries):
            total += self.heights.of(entry)
            if total > rows:
                return index
        return max(0, len(self._entries) - 1)

    def show_entry(self, widget: Widget) -> None:
        """Scroll an entry into view: its top, when it is taller than the view."""
        if widget.parent is self:
            # Held where the user looks: the anchor would take the view back to the end.
            self._following = False
            self._sync_anchor()
            tall = widget.outer_size.height > self.size.height
            self.scroll_to_widget(widget, animate=False, top=tall)

    # -- following the end --------------------------------------------------------------------
    @property
    def following(self) -> bool:
        """Whether the view sticks to the end: the user has not scrolled away from it."""
        return self._following

    def _count_new_below(self, count: int) -> None:
        if count != self.new_below:
            self.new_below = count
            if self.on_new_below is not None:
                self.on_new_below(count)

    def before_shown(self, rows: int, width: int) -> None:
        """About to be shown again (a tab switch): while following, when what came meanwhile
        overflows `rows`, the anchor is engaged now, so the first frame already shows the
        end. Engaged after that frame (by the size watcher), it would show the top for one.
        Rows are judged from what is known: measures, or a message's text at `width`."""
        if not self._following or (self.is_anchored and not self._anchor_released):
            return
        filled = 0
        for entry in reversed(self._entries):
            known = self.heights.of(entry)
            if isinstance(entry, MessageEntry):
                wrapped = entry.text.count("\n") + len(entry.text) // max(1, width)
                known = max(known, wrapped)
            filled += known
            if filled > rows:
                self.anchor()
                return

    def jump_to_end(self) -> None:
        """Go to the end and follow it again (End, Ctrl+End, sending a prompt)."""
        self._following = True
        self._count_new_below(0)
        if self._end < len(self._entries):
            # The window moves to the end at once, as a burst would put it there.
            self._unmount(0, len(self._mounted))
            self._first = 0
            self._flush_queued = True
            self._flush_new()
        self.scroll_end(animate=False, immediate=True)
        self._sync_anchor()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._shifting:
            return
        # Only scrolling calls this: the anchor moves the view without calling watchers. At
        # the end, a lower position is content that shrank pulling the view back, not the
        # user: following holds, even while new entries still wait for their widgets.
        at_end = new_value >= self.max_scroll_y
        if at_end and (self._following or self._end == len(self._entries)):
            self._following = True
            self._count_new_below(0)
        elif new_value < old_value and not at_end:
            self._following = False
        self._sync_anchor()
        self._busy()
        self._update_window()

    def watch_virtual_size(self, old_size: Size, new_size: Size) -> None:
        """Content grew or shrank (a streamed reply, a new card): the anchor may need engaging.
        Checked after the layout pass, when the container's own size is final too."""
        self.call_after_refresh(self._after_resize)

    def _after_resize(self) -> None:
        self._sync_anchor()
        # The anchor moves the view inside the layout pass and sets the scrollbar's position
        # without repainting it (Textual 8.2.8, _compositor.py): unless something else redraws
        # the scrollbar, its thumb stays where the view was before the content grew.
        if self.show_vertical_scrollbar:
            self.vertical_scrollbar.refresh()

    def on_resize(self, event: events.Resize) -> None:
        """The screen was resized: the anchor may need engaging or releasing."""
        self._sync_anchor()
        self.call_after_refresh(self._update_window)

    def _sync_anchor(self) -> None:
        """Engage Textual's anchor while following and overflowing; release it otherwise."""
        wanted = self._following and self.max_scroll_y > 0
        # Any scroll_to releases Textual's anchor (a drag of the scrollbar to the end, a page
        # down onto it) without a change of position to tell: engaged means not released.
        if wanted and (not self.is_anchored or self._anchor_released):
            self.anchor()
        elif not wanted and self.is_anchored:
            self.anchor(False)

    def tick_spinners(self, frame: int) -> None:
        """The transcript's one spinner tick, for cards and their terminal panes alike: only
        the window's cards are widgets, so a frame stays cheap however long the session."""
        from tui.widgets.cards.tool_card import ToolCard

        for widget in self._mounted:
            if isinstance(widget, ToolCard):
                widget.tick(frame)

    def shown_widgets(self) -> dict[int, Widget]:
        """The widget on screen for each entry, by `id(entry)`."""
        return dict(self._widgets)

    def clear(self) -> None:
        """Empty the transcript. The old widgets are hidden at once: their removal completes
        a frame later, and meanwhile, with the spacers gone, they would show from the top."""
        for widget in self._mounted:
            widget.display = False
        self.anchor(False)
        self._following = True
        self._count_new_below(0)
        self._widgets.clear()
        self._entry_of.clear()
        self._cursor = None
        self._entries.clear()
        self.remove_children(self._mounted)
        self._mounted = []
        self._first = 0
        self.heights.clear()
        self._update_spacers()
