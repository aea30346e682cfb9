"""The tool-call card: header (kind icon, title, status) and a body chosen by content type."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp.schema import (
    ContentToolCallContent,
    FileEditToolCallContent,
    TerminalToolCallContent,
)
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tui.state import ToolCallEntry, block_text
from tui.textsafe import clean_text
from tui.widgets.messages import StreamingMarkdown

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


def display_path(path: str, cwd: Path) -> str:
    """Paths inside the workspace read relative to it; others stay absolute."""
    try:
        return str(Path(path).relative_to(cwd))
    except ValueError:
        return path


def header_text(
    entry: ToolCallEntry, cwd: Path, spinner_frame: int | None = None, collapsed: bool = False
) -> Text:
    icon = KIND_ICONS.get(entry.kind, KIND_ICONS["other"])
    label, style = STATUS_LABELS.get(entry.status, (entry.status, ""))
    if entry.status == "in_progress" and spinner_frame is not None:
        label = f"{SPINNER[spinner_frame % len(SPINNER)]} running"
    text = Text.assemble(
        (f"{icon} ", "bold"), (clean_text(entry.title) or entry.tool_call_id, "bold")
    )
    text.append("  ")
    text.append(label, style=style)
    if collapsed:
        text.append("  ▸ collapsed", style="dim")
    if entry.locations:
        where = ", ".join(
            display_path(loc.path, cwd) + (f":{loc.line}" if loc.line else "")
            for loc in entry.locations
        )
        text.append(f"\n{clean_text(where)}", style="dim")
    return text


def content_markdown(entry: ToolCallEntry) -> str:
    """A plain rendering of every content item; richer panels replace parts of it later."""
    parts: list[str] = []
    for item in entry.content:
        if isinstance(item, ContentToolCallContent):
            parts.append(block_text(item.content))
        elif isinstance(item, FileEditToolCallContent):
            old = "(new file)" if item.old_text is None else item.old_text
            parts.append(f"`{item.path}`\n```diff\n- {old}\n+ {item.new_text}\n```")
        elif isinstance(item, TerminalToolCallContent):
            parts.append(f"terminal `{item.terminal_id}`")
        else:
            parts.append(f"*unsupported content: {getattr(item, 'type', type(item).__name__)}*")
    if not parts and entry.raw_input is not None and entry.status in ("pending", "in_progress"):
        parts.append(fenced_json(entry.raw_input))
    elif not parts and entry.raw_output is not None:
        parts.append(fenced_json(entry.raw_output))
    return "\n\n".join(parts)


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
    ToolCard > StreamingMarkdown { margin: 0; padding: 0; background: transparent; }
    ToolCard > StreamingMarkdown MarkdownBlock { margin: 0; }
    ToolCard > StreamingMarkdown MarkdownFence { margin: 0; }
    ToolCard > StreamingMarkdown MarkdownFence > Label { padding: 0 1; }
    ToolCard.-collapsed > StreamingMarkdown { display: none; }
    """

    def __init__(self, entry: ToolCallEntry, cwd: Path) -> None:
        super().__init__()
        self.entry = entry
        self.cwd = cwd
        self.spinner_frame: int | None = None
        self._header = Static(header_text(entry, cwd), classes="card-header")
        # The body is mounted only once there is something to show: widget count is what
        # makes long transcripts slow, and many cards never get content.
        self._body: StreamingMarkdown | None = None
        self._body_source = ""

    def compose(self) -> ComposeResult:
        yield self._header

    def on_mount(self) -> None:
        self.refresh_fields(frozenset({"title", "status", "content"}))

    def refresh_fields(self, fields: frozenset[str]) -> None:
        self.set_class(self.entry.status == "failed", "-failed")
        self.set_class(self.entry.status == "completed", "-completed")
        if fields & {"title", "kind", "status", "locations"}:
            self._refresh_header()
        source = content_markdown(self.entry)
        if source == self._body_source:
            return
        self._body_source = source
        if self._body is None:
            if not source:
                return
            self._body = StreamingMarkdown(clean_text(source))
            self.mount(self._body)
        else:
            self._body.update(clean_text(source))
        self._body.display = bool(source)

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
