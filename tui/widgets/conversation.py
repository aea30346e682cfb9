"""The transcript: maps each state entry to one widget and applies changes to that widget only."""

from __future__ import annotations

from pathlib import Path

from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from tui.state import (
    Change,
    EntryAdded,
    MessageEntry,
    NoticeEntry,
    TerminalOutput,
    TextAppended,
    ToolCallChanged,
    ToolCallEntry,
)
from tui.terminals import TerminalManager
from tui.widgets.messages import AgentMessage, Notice, ThoughtMessage, UserMessage
from tui.widgets.tool_card import ToolCard

# Live widgets kept in the transcript; once PRUNE_BATCH more have arrived, all the excess leaves.
MAX_LIVE = 200
PRUNE_BATCH = 50
SPINNER_WINDOW = 30


def widget_for(
    entry: MessageEntry | ToolCallEntry | NoticeEntry,
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


class ConversationView(VerticalScroll):
    """Keeps to the bottom while the user has not scrolled away."""

    DEFAULT_CSS = """
    ConversationView {
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
        scrollbar-gutter: stable;
        layout: stream;
    }
    ConversationView > .hidden-banner { color: $text-muted; text-style: italic; padding: 0 1; }
    """

    def __init__(self, cwd: Path, **kwargs: str) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.cwd = cwd
        self._widgets: dict[int, Widget] = {}
        self._scroll_pending = False
        # The client's terminals, so cards can show `terminal/create` output live.
        self.terminals: TerminalManager | None = None
        self._pending_mounts: list[Widget] = []
        self._live: list[Widget] = []
        self.hidden_count = 0
        self._banner = Static("", classes="hidden-banner")

    def apply(self, changes: list[Change]) -> None:
        # Whether to follow is decided once per refresh: a scroll is already pending otherwise.
        follow = not self._scroll_pending and self.is_vertical_scroll_end
        for change in changes:
            match change:
                case EntryAdded(entry=entry):
                    widget = widget_for(entry, self.cwd, self.terminals)
                    self._widgets[id(entry)] = widget
                    self._queue_mount(widget)
                case TextAppended(entry=entry, text=text):
                    target = self._widgets.get(id(entry))
                    if isinstance(target, UserMessage | AgentMessage | ThoughtMessage):
                        target.add_text(text)
                case ToolCallChanged(entry=entry, fields=fields):
                    card = self._widgets.get(id(entry))
                    if isinstance(card, ToolCard):
                        card.refresh_fields(fields)
                case TerminalOutput(entry=entry, data=data):
                    card = self._widgets.get(id(entry))
                    if isinstance(card, ToolCard):
                        card.append_terminal_output(data)
        if follow:
            # One scroll per refresh, however many updates arrive before it.
            self._scroll_pending = True
            self.call_after_refresh(self._follow_end)

    def _queue_mount(self, widget: Widget) -> None:
        """Mount in batches: a burst of new entries costs one layout pass, not one each."""
        if not self._pending_mounts:
            self.call_later(self._flush_mounts)
        self._pending_mounts.append(widget)

    def _flush_mounts(self) -> None:
        batch, self._pending_mounts = self._pending_mounts, []
        if not batch:
            return
        for widget in batch:
            if isinstance(widget, ToolCard):
                widget.sync_status_classes()
        self.mount_all(batch)
        self._live.extend(batch)
        self._prune()

    def _prune(self) -> None:
        """Keep at most MAX_LIVE widgets: the cost of every update grows with widget count.

        The oldest entries leave the screen (the state keeps them); a banner counts them.
        """
        excess = len(self._live) - MAX_LIVE
        if excess < PRUNE_BATCH:
            return  # removal costs a layout pass: wait until there is a batch's worth
        old, self._live = self._live[:excess], self._live[excess:]
        self.hidden_count += len(old)
        dropped = {id(widget) for widget in old}
        self._widgets = {key: w for key, w in self._widgets.items() if id(w) not in dropped}
        self.remove_children(old)
        self._banner.update(f"{self.hidden_count} earlier entries are not shown")
        if not self._banner.is_mounted:
            self.mount(self._banner, before=0)

    def _follow_end(self) -> None:
        self._scroll_pending = False
        self.scroll_end(animate=False)

    def widget_of(self, entry: object) -> Widget | None:
        return self._widgets.get(id(entry))

    def tick_spinners(self, frame: int) -> None:
        """Running calls sit near the bottom; ticking only the newest cards keeps a frame cheap."""
        for widget in self._live[-SPINNER_WINDOW:]:
            if isinstance(widget, ToolCard) and widget.entry.status == "in_progress":
                widget.tick(frame)

    def clear(self) -> None:
        self._widgets.clear()
        self._pending_mounts.clear()
        self._live.clear()
        self.hidden_count = 0
        self.remove_children()
