"""The tool-call card: header (kind icon, title, status) and a body chosen by content type."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp.schema import (
    ContentToolCallContent,
    FileEditToolCallContent,
    TerminalToolCallContent,
)
from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from tui.diffing import DiffItem, relative_path
from tui.sanitize import sanitize_text
from tui.state import ToolCallEntry, block_text
from tui.terminals import TerminalManager
from tui.widgets.diff_panel import DiffPanel
from tui.widgets.terminal_pane import TerminalPane

DIFF_MAX_ROWS = 24
TEXT_MAX_ROWS = 24
# Where terminal panes read the time; snapshot tests freeze it so durations are stable.
PANE_CLOCK: Callable[[], float] = time.monotonic
CODE_THEME = "monokai"
KIND_ICONS = {
    "read": "⌕",
    "edit": "✎",
    "delete": "✗",
    "move": "⇄",
    "search": "⌕",
    "execute": "❯",
    "think": "…",
    "fetch": "⇣",
    "switch_mode": "⇆",
    "other": "•",
}
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
STATUS_LABELS = {
    "pending": ("◌ pending", "dim"),
    "in_progress": ("● running", "yellow"),
    "completed": ("✓ completed", "green"),
    "failed": ("✕ failed", "red"),
}


def header_text(
    entry: ToolCallEntry, cwd: Path, spinner_frame: int | None = None, collapsed: bool = False
) -> Text:
    icon = KIND_ICONS.get(entry.kind, KIND_ICONS["other"])
    label, style = STATUS_LABELS.get(entry.status, (entry.status, ""))
    if entry.status == "in_progress" and spinner_frame is not None:
        label = f"{SPINNER[spinner_frame % len(SPINNER)]} running"
    text = Text.assemble(
        (f"{icon} ", "bold"), (sanitize_text(entry.title) or entry.tool_call_id, "bold")
    )
    text.append("  ")
    text.append(label, style=style)
    if collapsed:
        text.append("  ▸ collapsed", style="dim")
    if entry.locations:
        where = ", ".join(
            relative_path(loc.path, cwd) + (f":{loc.line}" if loc.line else "")
            for loc in entry.locations
        )
        text.append(f"\n{sanitize_text(where)}", style="dim")
    return text


def hard_line_breaks(markdown: str) -> str:
    """Keep tool output's line structure: outside code fences a single newline becomes a
    Markdown hard break, so a read result or a log is not reflowed into one paragraph."""
    lines = markdown.split("\n")
    in_fence = False
    for index, line in enumerate(lines[:-1]):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        following = lines[index + 1]
        if not in_fence and line.strip() and following.strip() and not following.startswith("```"):
            lines[index] = line + "\\"
    return "\n".join(lines)


def card_markdown(markdown: str) -> RichMarkdown:
    return RichMarkdown(hard_line_breaks(sanitize_text(markdown)), code_theme=CODE_THEME)


@dataclass(frozen=True)
class Segment:
    """One part of a card body: Markdown text, the card's diffs, or one terminal."""

    key: str
    markdown: str = ""
    diffs: tuple[DiffItem, ...] = ()
    terminal_id: str | None = None


def item_markdown(item: Any) -> str:
    if isinstance(item, ContentToolCallContent):
        return block_text(item.content)
    return f"*unsupported content: {getattr(item, 'type', type(item).__name__)}*"


def body_segments(entry: ToolCallEntry) -> list[Segment]:
    """The body, in content order: text runs merge, all diffs share one panel, one pane per
    terminal. A display terminal (`_meta.terminal_info`) gets its pane even when no content
    item names it.
    """
    segments: list[Segment] = []
    text: list[str] = []
    diffs: list[DiffItem] = []

    def flush_text() -> None:
        if text:
            segments.append(Segment(f"text{len(segments)}", markdown="\n\n".join(text)))
            text.clear()

    for item in entry.content:
        if isinstance(item, FileEditToolCallContent):
            flush_text()
            if not diffs:
                segments.append(Segment("diff"))
            diffs.append(DiffItem(item.path, item.old_text, item.new_text))
        elif isinstance(item, TerminalToolCallContent):
            flush_text()
            key = f"term:{item.terminal_id}"
            if all(segment.key != key for segment in segments):
                segments.append(Segment(key, terminal_id=item.terminal_id))
        else:
            text.append(item_markdown(item))
    flush_text()
    if entry.terminal is not None:
        key = f"term:{entry.terminal.terminal_id}"
        if all(segment.key != key for segment in segments):
            segments.append(Segment(key, terminal_id=entry.terminal.terminal_id))
    if not segments:
        if entry.raw_input is not None and entry.status in ("pending", "in_progress"):
            segments.append(Segment("raw", markdown=fenced_json(entry.raw_input)))
        elif entry.raw_output is not None:
            segments.append(Segment("raw", markdown=fenced_json(entry.raw_output)))
    return [Segment("diff", diffs=tuple(diffs)) if seg.key == "diff" else seg for seg in segments]


def fenced_json(value: Any) -> str:
    return "```json\n" + json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n```"


class ToolCard(Vertical):
    """One card per tool call id. Updates touch only the part whose field changed."""

    DEFAULT_CSS = """
    ToolCard {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        border: round $panel-lighten-2;
    }
    ToolCard.-failed { border: round $error; }
    ToolCard.-completed { border: round $success-darken-2; }
    ToolCard > .card-header { height: auto; }
    ToolCard > .card-text { height: auto; max-height: 24; }
    ToolCard > Static.card-text { max-height: 100%; }
    ToolCard > DiffPanel, ToolCard > TerminalPane { margin-top: 1; }
    ToolCard.-collapsed > .card-body { display: none; }
    """

    def __init__(
        self, entry: ToolCallEntry, cwd: Path, terminals: TerminalManager | None = None
    ) -> None:
        super().__init__()
        self.entry = entry
        self.cwd = cwd
        self.terminals = terminals
        self.spinner_frame: int | None = None
        self._header = Static(header_text(entry, cwd), classes="card-header")
        # Body widgets by segment key, mounted only once there is something to show: widget
        # count is what makes long transcripts slow, and many cards never get content.
        self._parts: dict[str, Widget] = {}
        self._sources: dict[str, object] = {}
        self._composed = False
        self._ready = False

    def compose(self) -> ComposeResult:
        self._composed = True
        yield self._header
        for segment in body_segments(self.entry):
            yield self._make_part(segment)

    def on_mount(self) -> None:
        # `is_mounted` only turns true after this handler; track readiness ourselves.
        self._ready = True
        self.refresh_fields(frozenset({"title", "status", "content", "terminal"}))

    def refresh_fields(self, fields: frozenset[str]) -> None:
        if not self._ready:
            return  # on_mount refreshes everything from the entry
        self.set_class(self.entry.status == "failed", "-failed")
        self.set_class(self.entry.status == "completed", "-completed")
        if fields & {"title", "kind", "status", "locations"}:
            self._refresh_header()
        if fields & {"content", "raw_input", "raw_output", "status", "terminal"}:
            self._refresh_body()
        if "terminal" in fields:
            self._refresh_terminal_exit()

    def append_terminal_output(self, data: str) -> None:
        """Display-terminal output (`_meta.terminal_output`): appended to the live pane."""
        terminal = self.entry.terminal
        if terminal is None or not self._composed:
            return  # compose builds the pane with all output so far
        pane = self._parts.get(f"term:{terminal.terminal_id}")
        if isinstance(pane, TerminalPane):
            pane.append(data)
        else:
            self._refresh_body()  # the pane is created with all output so far

    def _refresh_body(self) -> None:
        segments = body_segments(self.entry)
        keys = [segment.key for segment in segments]
        for key in [key for key in self._parts if key not in keys]:
            self._parts.pop(key).remove()
            self._sources.pop(key, None)
        previous: Widget = self._header
        for segment in segments:
            part = self._parts.get(segment.key)
            if part is None:
                part = self._make_part(segment)
                self.mount(part, after=previous)
            else:
                self._update_part(segment, part)
            previous = part

    def _make_part(self, segment: Segment) -> Widget:
        part: Widget
        if segment.terminal_id is not None:
            part = self._make_pane(segment.terminal_id)
        elif segment.key == "diff":
            part = DiffPanel(segment.diffs, self.cwd, max_height=DIFF_MAX_ROWS)
            self._sources[segment.key] = segment.diffs
        else:
            text = Static(card_markdown(segment.markdown))
            if segment.markdown.count("\n") >= TEXT_MAX_ROWS:
                # Long text (a console fallback of a noisy command) scrolls inside the card;
                # short text stays one widget, since widget count is what slows long sessions.
                part = VerticalScroll(text, classes="card-text")
            else:
                part = text.add_class("card-text")
            self._sources[segment.key] = segment.markdown
        part.add_class("card-body")
        self._parts[segment.key] = part
        return part

    def _update_part(self, segment: Segment, part: Widget) -> None:
        if self._sources.get(segment.key) == (segment.diffs or segment.markdown):
            return
        if isinstance(part, DiffPanel):
            part.set_items(segment.diffs)
            self._sources[segment.key] = segment.diffs
        elif isinstance(part, VerticalScroll):
            part.query_one(Static).update(card_markdown(segment.markdown))
        elif isinstance(part, Static):
            part.update(card_markdown(segment.markdown))
            self._sources[segment.key] = segment.markdown

    def _make_pane(self, terminal_id: str) -> TerminalPane:
        """A spec terminal follows the client's terminal manager; a display terminal is fed
        from the `_meta` updates the state collected (output may precede the pane)."""
        display = self.entry.terminal
        is_display = display is not None and display.terminal_id == terminal_id
        pane = TerminalPane(
            terminal_id,
            command=self.entry.title or None,
            cwd=display.cwd if is_display and display is not None else None,
            session_cwd=self.cwd,
            clock=PANE_CLOCK,
        )
        if is_display and display is not None:
            for chunk in display.output:
                pane.append(chunk)
            if display.exited:
                pane.set_exit(display.exit_code, display.signal)
        elif self.terminals is not None and terminal_id in self.terminals.terminal_ids(
            include_released=True
        ):
            pane.connect_terminal(self.terminals)
        return pane

    def _refresh_terminal_exit(self) -> None:
        terminal = self.entry.terminal
        if terminal is None or not terminal.exited:
            return
        pane = self._parts.get(f"term:{terminal.terminal_id}")
        if isinstance(pane, TerminalPane) and not pane.exited:
            pane.set_exit(terminal.exit_code, terminal.signal)

    def _refresh_header(self) -> None:
        collapsed = self.has_class("-collapsed")
        self._header.update(header_text(self.entry, self.cwd, self.spinner_frame, collapsed))

    def tick(self, frame: int) -> None:
        """Advance the running spinner; called by one app-wide timer, never a timer per card."""
        if self.entry.status == "in_progress":
            self.spinner_frame = frame
            self._refresh_header()

    def toggle_collapsed(self) -> None:
        self.toggle_class("-collapsed")
        self._refresh_header()

    def on_click(self, event: events.Click) -> None:
        if event.widget is self._header:
            self.toggle_collapsed()
