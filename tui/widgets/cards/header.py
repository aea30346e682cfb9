"""A tool card's header: kind icon, title, status (with the running spinner) and locations.

Pure functions of the state's `ToolCallEntry`; tui/widgets/cards/tool_card.py draws them.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from tui.diff.text import relative_path
from tui.glyphs import SPINNER
from tui.state import ToolCallEntry
from tui.terminal.status import failure_words

__all__ = [
    "KIND_ICONS",
    "STATUS_LABELS",
    "exit_failure",
    "header_text",
    "shown_status",
]

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
STATUS_LABELS = {
    "pending": ("◌ pending", "dim"),
    "in_progress": ("● running", "yellow"),
    "completed": ("✓ completed", "green"),
    "failed": ("✕ failed", "red"),
    # Client-side ends (Conversation.settle_unfinished): the agent never said how these ended.
    "cancelled": ("⊘ cancelled", "yellow"),
    "unknown": ("? unknown", "dim"),
    "unfinished": ("◌ left unfinished by the agent", "yellow"),
    "rejected": ("✕ rejected", "red"),
}


def exit_failure(entry: ToolCallEntry) -> str | None:
    """`✕ exit 1`, `✕ killed by SIGTERM`: a failed exit of the card's display terminal, which
    is a stronger signal than the agent's `completed`."""
    terminal = entry.terminal
    if terminal is None or not terminal.exited:
        return None
    failure = failure_words(terminal.exit_code, terminal.signal)
    return None if failure is None else f"✕ {failure}"


def shown_status(entry: ToolCallEntry) -> str:
    """The status the border follows: a completed call whose command failed shows failed."""
    if entry.status == "completed" and exit_failure(entry) is not None:
        return "failed"
    return entry.status


def header_text(
    entry: ToolCallEntry, cwd: Path, spinner_frame: int | None = None, collapsed: bool = False
) -> Text:
    icon = KIND_ICONS.get(entry.kind, KIND_ICONS["other"])
    label, style = STATUS_LABELS.get(entry.status, (entry.status, ""))
    agent_word: str | None = None
    if entry.status in ("pending", "in_progress") and entry.permission == "asked":
        label, style = "◌ awaiting approval", "yellow"
    elif entry.status == "in_progress" and spinner_frame is not None:
        label = f"{SPINNER[spinner_frame % len(SPINNER)]} running"
    elif entry.status == "completed" and (failure := exit_failure(entry)) is not None:
        label, style, agent_word = failure, "red", entry.status
    # Title and paths are safe single lines already: tui/agent_text.py cleaned them where they
    # came in. Without a title the kind stands in: the call id is the agent's handle, no name.
    untitled = entry.kind if entry.kind in KIND_ICONS and entry.kind != "other" else "tool call"
    text = Text.assemble((f"{icon} ", "bold"), (entry.title or untitled, "bold"))
    text.append("  ")
    text.append(label, style=style)
    if agent_word is not None:
        text.append(f" · agent: {agent_word}", style="dim")
    if entry.by_user:
        text.append(" · run by you", style="bold")  # `!` in the prompt: no agent asked
    if collapsed:
        text.append("  ▸ collapsed", style="dim")
    if entry.locations:
        where = ", ".join(
            relative_path(loc.path, cwd) + (f":{loc.line}" if loc.line else "")
            for loc in entry.locations
        )
        text.append(f"\n{where}", style="dim")
    return text
