"""A tool card's terminal panes: the source each follows, and its clock following the card.

A card names a terminal of either kind (tui/terminal/source.py): its display terminal
(`_meta.terminal_info`, kept by the state) or a spec terminal of the client's manager. Which
one is decided here, once, when the pane is made; the pane then follows either alike.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tui.terminal.source import SpecTerminal, TerminalSource, TerminalState
from tui.terminal.status import card_status
from tui.widgets.terminal.pane import TerminalPane

if TYPE_CHECKING:
    from textual.app import App

    from tui.state import ToolCallEntry
    from tui.terminal.terminals import TerminalManager

__all__ = ["make_pane", "pane_agent_durations", "pane_clock", "sync_pane", "terminal_source"]


def pane_clock(app: App[object]) -> Callable[[], float]:
    """The clock panes time commands with: the app configuration's (tui/config.py), which a
    snapshot test builds with a fixed one; `time.monotonic` in an app without one."""
    config = getattr(app, "config", None)
    clock = getattr(config, "clock", None)
    return clock if callable(clock) else time.monotonic


def pane_agent_durations(app: App[object]) -> bool:
    """Whether panes show the agent's measured durations: the app configuration's switch
    (tui/config.py), on in an app without one."""
    return bool(getattr(getattr(app, "config", None), "agent_durations", True))


def shows_terminal(entry: ToolCallEntry, terminal_id: str, manager: TerminalManager) -> bool:
    """Whether the card may follow the manager's terminal: the user's own card its `!`
    terminal, an agent's card only a terminal the agent created."""
    return manager.knows(terminal_id) if entry.by_user else manager.agent_owns(terminal_id)


def terminal_source(
    entry: ToolCallEntry, terminal_id: str, manager: TerminalManager | None
) -> TerminalSource | None:
    """The card's display terminal if it is the one named, else the manager's terminal; None
    for an id neither knows (the card shows a note instead of such a pane)."""
    display = entry.terminal
    if display is not None and display.terminal_id == terminal_id:
        return display
    if manager is not None and shows_terminal(entry, terminal_id, manager):
        return SpecTerminal(manager, terminal_id)
    return None


def make_pane(
    entry: ToolCallEntry,
    terminal_id: str,
    session_cwd: Path,
    manager: TerminalManager | None,
    *,
    clock: Callable[[], float],
    agent_durations: bool,
) -> TerminalPane:
    """A pane following the terminal, its prompt line the card's title until the source says.
    A terminal neither side knows gets an empty stand-in: the card's note says why."""
    source = terminal_source(entry, terminal_id, manager) or TerminalState(terminal_id)
    pane = TerminalPane(
        source,
        command=entry.title or None,
        session_cwd=session_cwd,
        clock=clock,
        agent_durations=agent_durations,
    )
    sync_pane(entry, pane)
    return pane


def sync_pane(entry: ToolCallEntry, pane: TerminalPane) -> None:
    """A pane's status follows the card: not running while a permission question is open,
    stopped the moment the card ends (a later exit status still replaces that)."""
    pane.set_status(card_status(pane.status, entry, had_output=pane.received_bytes > 0))
