"""The transcript: maps each state entry to one widget and applies changes to that widget only."""

from __future__ import annotations

from pathlib import Path

from textual.containers import VerticalScroll
from textual.widget import Widget

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
from tui.widgets.messages import AgentMessage, Notice, ThoughtMessage, UserMessage
from tui.widgets.tool_card import ToolCard


def widget_for(entry: MessageEntry | ToolCallEntry | NoticeEntry, cwd: Path) -> Widget:
    if isinstance(entry, MessageEntry):
        if entry.role == "user":
            return UserMessage(entry.text)
        if entry.role == "thought":
            return ThoughtMessage(entry.text)
        return AgentMessage(entry.text)
    if isinstance(entry, ToolCallEntry):
        return ToolCard(entry, cwd)
    return Notice(entry.text, entry.level)


class ConversationView(VerticalScroll):
    """Keeps to the bottom while the user has not scrolled away."""

    DEFAULT_CSS = """
    ConversationView { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    """

    def __init__(self, cwd: Path, **kwargs: str) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.cwd = cwd
        self._widgets: dict[int, Widget] = {}
        self._scroll_pending = False

    def apply(self, changes: list[Change]) -> None:
        follow = self.is_vertical_scroll_end
        for change in changes:
            match change:
                case EntryAdded(entry=entry):
                    widget = widget_for(entry, self.cwd)
                    self._widgets[id(entry)] = widget
                    self.mount(widget)
                case TextAppended(entry=entry, text=text):
                    target = self._widgets.get(id(entry))
                    if isinstance(target, UserMessage | AgentMessage | ThoughtMessage):
                        target.add_text(text)
                case ToolCallChanged(entry=entry, fields=fields):
                    card = self._widgets.get(id(entry))
                    if isinstance(card, ToolCard) and card.is_mounted:
                        card.refresh_fields(fields)
                case TerminalOutput(entry=entry):
                    card = self._widgets.get(id(entry))
                    if isinstance(card, ToolCard) and card.is_mounted:
                        card.refresh_fields(frozenset({"terminal"}))
        if follow and not self._scroll_pending:
            # One scroll per refresh, however many updates arrive before it.
            self._scroll_pending = True
            self.call_after_refresh(self._follow_end)

    def _follow_end(self) -> None:
        self._scroll_pending = False
        self.scroll_end(animate=False)

    def widget_of(self, entry: object) -> Widget | None:
        return self._widgets.get(id(entry))

    def tick_spinners(self, frame: int) -> None:
        for widget in self._widgets.values():
            if isinstance(widget, ToolCard) and widget.entry.status == "in_progress":
                widget.tick(frame)

    def clear(self) -> None:
        self._widgets.clear()
        self.remove_children()
