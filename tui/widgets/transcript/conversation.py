"""The transcript: maps each state entry to one widget and applies changes to that widget only."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual import events
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.layout import Layout
from textual.widget import Widget
from textual.widgets import Static

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
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.transcript.keys import CURSOR_BINDINGS, CURSOR_CSS, TranscriptCursor
from tui.widgets.transcript.messages import AgentMessage, Notice, ThoughtMessage, UserMessage

# Live widgets kept in the transcript; once PRUNE_BATCH more have arrived, all the excess leaves.
# A click on the banner brings earlier entries back, PRUNE_BATCH at a time.
MAX_LIVE = 200
PRUNE_BATCH = 50
SPINNER_WINDOW = 30
SPINNER_INTERVAL_S = 0.1


class HiddenBanner(Static):
    """Counts the entries that left the screen; a click brings the latest of them back."""

    def on_click(self, event: events.Click) -> None:
        if isinstance(self.parent, ConversationView):
            self.parent.show_earlier()


def widget_for(
    entry: Entry,
    cwd: Path,
    terminals: TerminalManager | None = None,
) -> Widget:
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

    Only the newest MAX_LIVE entries are widgets while the view follows the end: every widget
    adds to the cost of each layout pass. Earlier ones leave the screen, not the state; the
    banner that counts them brings them back on a click, and nothing is pruned while the
    user reads back. A burst bigger than MAX_LIVE mounts only the entries it keeps: mounting
    (style, compose, layout) is the per-entry cost, so entries pruned in the same flush skip it.
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
    ConversationView > .hidden-banner { color: $text-muted; text-style: italic; padding: 0 1; }
    ConversationView > .hidden-banner:hover { color: $text; }
    """
    )

    def __init__(self, cwd: Path, **kwargs: str) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.cwd = cwd
        self._widgets: dict[int, Widget] = {}
        self._entry_of: dict[int, Entry] = {}  # by id of the widget: what the cursor acts on
        # The client's terminals, so cards can show `terminal/create` output live.
        self.terminals: TerminalManager | None = None
        self._pending_mounts: list[Widget] = []
        self._live: list[Widget] = []
        # Every entry in order, so pruned ones can come back; the first hidden_count are hidden.
        self._entries: list[Entry] = []
        self.hidden_count = 0
        self._banner = HiddenBanner("", classes="hidden-banner")
        self._following = True
        self._spinner_frame = 0
        # Entries added while the view is held away from the end: the "↓ N new" marker
        # (tui/widgets/transcript/new_below.py) shows the count through `on_new_below`.
        self.new_below = 0
        self.on_new_below: Callable[[int], None] | None = None

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

    def apply(self, changes: list[Change]) -> None:
        for change in changes:
            match change:
                case EntryAdded(entry=entry):
                    self._entries.append(entry)
                    if not self._following:
                        self._count_new_below(self.new_below + 1)
                    self._queue_mount(self._make_widget(entry))
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

    def _queue_mount(self, widget: Widget) -> None:
        """Mount in batches: a burst of new entries costs one layout pass, not one each."""
        if not self._pending_mounts:
            self.call_later(self._flush_mounts)
        self._pending_mounts.append(widget)

    def _flush_mounts(self) -> None:
        batch, self._pending_mounts = self._pending_mounts, []
        if not batch:
            return
        # Not while the user reads back: pruning would pull the page away.
        skipped = self._skip_pruned(batch) if self.following else []
        batch = batch[len(skipped) :]
        for widget in batch:
            if isinstance(widget, ToolCard):
                widget.sync_status_classes()
        if batch:
            self.mount_all(batch)
            self._live.extend(batch)
        self.call_after_refresh(self._sync_anchor)
        if self.following:
            self._prune(len(skipped))

    def _skip_pruned(self, batch: list[Widget]) -> list[Widget]:
        """The head of `batch` that the prune after this mount would remove at once (a burst
        bigger than MAX_LIVE): those are never mounted, only counted as hidden. The outcome is
        the one mounting and pruning them would give, without their mount, style and layout."""
        excess = len(self._live) + len(batch) - MAX_LIVE
        if excess < PRUNE_BATCH:
            return []
        skipped = batch[: max(0, excess - len(self._live))]
        self.hidden_count += len(skipped)
        self._forget(skipped)
        return skipped

    def _prune(self, skipped: int = 0) -> None:
        """Keep at most MAX_LIVE widgets: the cost of every update grows with widget count.

        The oldest entries leave the screen (the state keeps them); a banner counts them.
        `skipped` entries of this flush were already counted as hidden, never mounted.
        """
        excess = len(self._live) - MAX_LIVE
        if excess + skipped < PRUNE_BATCH:
            return  # removal costs a layout pass: wait until there is a batch's worth
        if excess > 0:
            old, self._live = self._live[:excess], self._live[excess:]
            self.hidden_count += len(old)
            self._forget(old)
            self.remove_children(old)
        self._show_banner()

    def _forget(self, widgets: list[Widget]) -> None:
        dropped = {id(widget) for widget in widgets}
        self._widgets = {key: w for key, w in self._widgets.items() if id(w) not in dropped}
        for key in dropped:
            self._entry_of.pop(key, None)

    def show_earlier(self) -> None:
        """Bring back the latest PRUNE_BATCH hidden entries, above the ones on screen."""
        count = min(PRUNE_BATCH, self.hidden_count)
        if not count:
            return
        self.hidden_count -= count
        entries = self._entries[self.hidden_count : self.hidden_count + count]
        widgets = [self._make_widget(entry) for entry in entries]
        self.mount_all(widgets, before=self._live[0] if self._live else None)
        self._live[:0] = widgets
        self._show_banner()

    def _make_widget(self, entry: Entry) -> Widget:
        widget = widget_for(entry, self.cwd, self.terminals)
        self._widgets[id(entry)] = widget
        self._entry_of[id(widget)] = entry
        return widget

    def cursor_widgets(self) -> list[Widget]:
        return [widget for widget in self._live if widget.parent is self]

    def entry_of(self, widget: Widget) -> Entry | None:
        return self._entry_of.get(id(widget))

    def widget_of(self, entry: Entry) -> Widget | None:
        return self._widgets.get(id(entry))

    def reveal(self, entry: Entry) -> Widget | None:
        """The entry's widget, bringing hidden entries back until it is among them (search)."""
        while id(entry) not in self._widgets and self.hidden_count:
            self.show_earlier()
        return self._widgets.get(id(entry))

    def show_entry(self, widget: Widget) -> None:
        """Scroll an entry into view: its top, when it is taller than the view."""
        if widget.parent is self:
            # Held where the user looks: the anchor would take the view back to the end.
            self._following = False
            self._sync_anchor()
            tall = widget.outer_size.height > self.size.height
            self.scroll_to_widget(widget, animate=False, top=tall)

    def _show_banner(self) -> None:
        if not self.hidden_count:
            self._drop_banner()
            return
        self._banner.update(
            f"{self.hidden_count} earlier entries are not shown · click to show "
            f"{min(PRUNE_BATCH, self.hidden_count)} more"
        )
        if self._banner.parent is None:
            self.mount(self._banner, before=0)

    def _drop_banner(self) -> None:
        """Remove the banner. Removal completes later, so the next prune gets a fresh one
        rather than a widget still on its way out."""
        if self._banner.parent is not None:
            self._banner.remove()
        self._banner = HiddenBanner("", classes="hidden-banner")

    @property
    def following(self) -> bool:
        """Whether the view sticks to the end: the user has not scrolled away from it."""
        return self._following

    def _count_new_below(self, count: int) -> None:
        if count != self.new_below:
            self.new_below = count
            if self.on_new_below is not None:
                self.on_new_below(count)

    def jump_to_end(self) -> None:
        """Go to the end and follow it again (End, Ctrl+End, sending a prompt)."""
        self._following = True
        self._count_new_below(0)
        self.scroll_end(animate=False, immediate=True)
        self._sync_anchor()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        # Only scrolling calls this: the anchor moves the view without calling watchers.
        if new_value >= self.max_scroll_y:
            self._following = True
            self._count_new_below(0)
        elif new_value < old_value:
            self._following = False
        self._sync_anchor()

    def watch_virtual_size(self, old_size: Size, new_size: Size) -> None:
        """Content grew or shrank (a streamed reply, a new card): the anchor may need engaging.
        Checked after the layout pass, when the container's own size is final too."""
        self.call_after_refresh(self._sync_anchor)

    def on_resize(self, event: events.Resize) -> None:
        """The screen was resized: the anchor may need engaging or releasing."""
        self._sync_anchor()

    def _sync_anchor(self) -> None:
        """Engage Textual's anchor while following and overflowing; release it otherwise."""
        wanted = self._following and self.max_scroll_y > 0
        if wanted and not self.is_anchored:
            self.anchor()
        elif not wanted and self.is_anchored:
            self.anchor(False)

    def tick_spinners(self, frame: int) -> None:
        """The transcript's one spinner tick, for cards and their terminal panes alike.
        Running calls sit near the bottom; ticking only the newest cards keeps a frame cheap."""
        for widget in self._live[-SPINNER_WINDOW:]:
            if isinstance(widget, ToolCard):
                widget.tick(frame)

    def shown_widgets(self) -> dict[int, Widget]:
        """The widget on screen for each entry, by `id(entry)`."""
        return dict(self._widgets)

    def clear(self) -> None:
        self.anchor(False)
        self._following = True
        self._count_new_below(0)
        self._widgets.clear()
        self._entry_of.clear()
        self._cursor = None
        self._entries.clear()
        self._pending_mounts.clear()
        self._live.clear()
        self.hidden_count = 0
        self.remove_children()
        self._banner = HiddenBanner("", classes="hidden-banner")  # the old one went with them
