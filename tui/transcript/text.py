"""The transcript's entries as plain text: what `c` copies, what search looks through and what
an export writes. Pure Python over the state, no widgets, so all three read the same text.

A card's command output is not in the state for client terminals (the terminal manager keeps
it), so callers pass `RunLookup`, which finds a terminal's output and exit by id.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tui.diff.diffing import DiffContent
from tui.sanitize import sanitize_text
from tui.state import Entry, MessageEntry, NoticeEntry, ToolCallEntry, block_text
from tui.terminal.stream import TerminalScreenBuffer

if TYPE_CHECKING:
    from tui.terminal.terminals import TerminalManager


@dataclass(frozen=True)
class CommandRun:
    """A command's output as the screen shows it (no escapes) and how it ended."""

    output: str
    exit_code: int | None = None
    signal: str | None = None
    exited: bool = False

    @property
    def ending(self) -> str:
        if self.signal:
            return f"killed by {self.signal}"
        if self.exit_code is not None:
            return f"exit {self.exit_code}"
        return "exited" if self.exited else "still running"


RunLookup = Callable[[str], CommandRun | None]


def no_runs(_terminal_id: str) -> CommandRun | None:
    return None


def runs_of(manager: TerminalManager | None) -> RunLookup:
    """A lookup over the client's terminals (released ones too, while their output is kept)."""

    def lookup(terminal_id: str) -> CommandRun | None:
        found = None if manager is None else manager.retained(terminal_id)
        if found is None:
            return None
        raw, status = found
        if status is None:
            return CommandRun(screen_text(raw))
        return CommandRun(screen_text(raw), status.exit_code, status.signal, exited=True)

    return lookup


def screen_text(raw: str) -> str:
    """Raw terminal output as its lines read on screen: carriage-return redraws applied,
    escapes and controls gone."""
    buffer = TerminalScreenBuffer()
    buffer.feed(raw)
    return sanitize_text(buffer.text())


@dataclass(frozen=True)
class CardParts:
    """A tool call's card as text: its title line, text content, diffs and commands."""

    title: str
    kind: str
    status: str
    text: list[str]
    diffs: list[DiffContent]
    runs: list[tuple[str, CommandRun | None]]  # (terminal id, its run when known)


def card_parts(entry: ToolCallEntry, runs: RunLookup = no_runs) -> CardParts:
    from acp.schema import (
        ContentToolCallContent,
        FileEditToolCallContent,
        TerminalToolCallContent,
    )

    text: list[str] = []
    diffs: list[DiffContent] = []
    terminals: list[str] = []
    for item in entry.content:
        if isinstance(item, ContentToolCallContent):
            text.append(sanitize_text(block_text(item.content)))
        elif isinstance(item, FileEditToolCallContent):
            diffs.append(
                DiffContent(
                    sanitize_text(item.path),
                    None if item.old_text is None else sanitize_text(item.old_text),
                    sanitize_text(item.new_text),
                )
            )
        elif isinstance(item, TerminalToolCallContent) and item.terminal_id not in terminals:
            terminals.append(item.terminal_id)
    display = entry.terminal
    if display is not None and display.terminal_id not in terminals:
        terminals.append(display.terminal_id)
    found: list[tuple[str, CommandRun | None]] = []
    for terminal_id in terminals:
        if display is not None and terminal_id == display.terminal_id:
            run: CommandRun | None = CommandRun(
                sanitize_text(display.output.buffer.text()),
                display.exit_code,
                display.signal,
                display.exited,
            )
        else:
            run = runs(terminal_id)
        found.append((terminal_id, run))
    if not text and not diffs and not found:
        raw = entry.raw_output if entry.raw_output is not None else entry.raw_input
        if raw is not None:
            text.append(raw_text(raw))
    return CardParts(
        sanitize_text(entry.title) or entry.tool_call_id,
        entry.kind,
        entry.status,
        text,
        diffs,
        found,
    )


def raw_text(value: Any) -> str:
    import json

    return sanitize_text(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def unified_diff(diff: DiffContent) -> str:
    """One diff item as unified-diff text (`--- a/path`, `+++ b/path`, hunks)."""
    old = [] if diff.old_text is None else diff.old_text.splitlines()
    new = diff.new_text.splitlines()
    before = "/dev/null" if diff.old_text is None else f"a/{diff.path}"
    lines = difflib.unified_diff(old, new, before, f"b/{diff.path}", lineterm="", n=3)
    return "\n".join(lines)


def message_label(entry: MessageEntry) -> str:
    return {"user": "You", "agent": "Agent", "thought": "Thought"}[entry.role]


def entry_text(entry: Entry, runs: RunLookup = no_runs) -> str:
    """Everything an entry says, as plain text: what search finds in it."""
    if isinstance(entry, MessageEntry):
        return sanitize_text(entry.text)
    if isinstance(entry, NoticeEntry):
        return sanitize_text(entry.text)
    parts = card_parts(entry, runs)
    pieces = [parts.title, *parts.text]
    pieces += [unified_diff(diff) for diff in parts.diffs]
    for _terminal_id, run in parts.runs:
        if run is not None:
            pieces += [run.output, run.ending]
    return "\n".join(piece for piece in pieces if piece)


def copy_text(entry: Entry, runs: RunLookup = no_runs) -> str:
    """What `c` copies from an entry: a message's text; from a card, the command's output, else
    its diffs as unified text, else its text content (a code block: the code alone)."""
    if not isinstance(entry, ToolCallEntry):
        return entry_text(entry, runs)
    parts = card_parts(entry, runs)
    outputs = [run.output for _id, run in parts.runs if run is not None]
    if outputs:
        return "\n".join(outputs)
    if parts.diffs:
        return "\n".join(unified_diff(diff) for diff in parts.diffs)
    if parts.text:
        return "\n\n".join(only_code(text) for text in parts.text)
    return parts.title


def only_code(text: str) -> str:
    """Text that is one fenced code block, as the code inside it; other text as it is."""
    lines = text.strip("\n").split("\n")
    if len(lines) >= 2 and lines[0].startswith("```") and lines[-1].strip() == "```":
        return "\n".join(lines[1:-1])
    return text
