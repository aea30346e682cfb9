"""A tool card's body as parts: which text, diff and terminal parts a card shows, in order.

Pure functions of the state's `ToolCallEntry` (no widgets): tui/widgets/cards/tool_card.py makes one
widget per part, and updates only the parts whose source changed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tui.diff import line_numbers
from tui.diff.diffing import DiffContent
from tui.state import ToolCallEntry, block_text
from tui.widgets.cards.markdown import read_markdown

__all__ = [
    "TEXT_MAX_ROWS",
    "Segment",
    "body_segments",
    "fenced_json",
    "is_inline",
    "item_markdown",
    "raw_json",
    "unknown_terminal_note",
]

# Text of more lines than this scrolls in its own part; shorter text joins the card's face.
TEXT_MAX_ROWS = 24


@dataclass(frozen=True)
class Segment:
    """One part of a card body: Markdown text, the card's diffs, or one terminal."""

    key: str
    markdown: str = ""
    diffs: tuple[DiffContent, ...] = ()
    terminal_id: str | None = None


def item_markdown(item: Any) -> str:
    # The SDK is imported where it is needed at run time: the first frame must not wait for it.
    from acp.schema import ContentToolCallContent

    if isinstance(item, ContentToolCallContent):
        text = block_text(item.content)
        return read_markdown(text) or text
    return f"*unsupported content: {getattr(item, 'type', type(item).__name__)}*"


def body_segments(
    entry: ToolCallEntry, known_terminal: Callable[[str], bool] | None = None
) -> list[Segment]:
    """The body, in content order: text runs merge, all diffs share one panel, one pane per
    terminal. A display terminal (`_meta.terminal_info`) gets its pane even when no content
    item names it. A terminal item naming neither the display terminal nor one that
    `known_terminal` knows gets a note instead: its pane would wait for output for ever.
    """
    from acp.schema import FileEditToolCallContent, TerminalToolCallContent

    segments: list[Segment] = []
    text: list[str] = []
    diffs: list[DiffContent] = []

    def flush_text() -> None:
        if text:
            segments.append(Segment(f"text{len(segments)}", markdown="\n\n".join(text)))
            text.clear()

    for item in entry.content:
        if isinstance(item, FileEditToolCallContent):
            flush_text()
            if not diffs:
                segments.append(Segment("diff"))
            diffs += line_numbers.diff_items([item])
        elif isinstance(item, TerminalToolCallContent):
            display = entry.terminal is not None and entry.terminal.terminal_id == item.terminal_id
            if not display and known_terminal is not None and not known_terminal(item.terminal_id):
                text.append(unknown_terminal_note(item.terminal_id))
                continue
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


def raw_json(value: Any) -> str:
    """Raw input or output as JSON, the form it came in: a Python repr would show other quotes
    and escapes than the agent sent. Not sanitised here: its strings were made safe where they
    entered (tui/agent_text.py)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def unknown_terminal_note(terminal_id: str) -> str:
    """The note for a terminal id this client never created, Markdown-escaped."""
    shown = re.sub(r"([\\`*_\[\]<>#!|~&])", r"\\\1", terminal_id)
    return f"*unsupported terminal content: no terminal {shown} (not shown)*"


def fenced_json(value: Any) -> str:
    return "```json\n" + raw_json(value) + "\n```"


def is_inline(segment: Segment) -> bool:
    """Short text joins the header in the card's face; long text gets its own scroller."""
    return (
        segment.terminal_id is None
        and segment.key != "diff"
        and segment.markdown.count("\n") < TEXT_MAX_ROWS
    )
