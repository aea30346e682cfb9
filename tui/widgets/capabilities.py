"""The negotiation view: what the client advertised beside what the agent answered."""

from __future__ import annotations

import shlex
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.capabilities import CapabilityRow, agent_rows, client_rows, consequences
from tui.sanitize import clean_line, sanitize_text
from tui.terminal.labels import format_duration
from tui.terminal.terminals import TerminalManager

if TYPE_CHECKING:  # the SDK is imported after the first frame (tui/app.py)
    from acp.schema import (
        ClientCapabilities,
        InitializeResponse,
        LoadSessionResponse,
        NewSessionResponse,
    )


def row_text(row: CapabilityRow) -> Text:
    # Sanitised here although initialize passed tui/agent_text.py: that leaves `_meta` as sent,
    # and the agent's capabilities `_meta` is shown row by row.
    text = Text("  " * row.depth)
    text.append(sanitize_text(row.name), style="bold" if row.depth == 0 else "")
    if isinstance(row.value, bool):
        text.append(" ")
        text.append("✓" if row.value else "✗", style="green" if row.value else "red")
    elif row.value:
        text.append("  ")
        text.append(sanitize_text(row.value), style="cyan")
    return text


def capabilities_table(
    caps: ClientCapabilities,
    init: InitializeResponse,
    session: NewSessionResponse | LoadSessionResponse | None,
) -> Table:
    table = Table(expand=True, show_edge=False, pad_edge=False, box=None)
    table.add_column("Client advertised", ratio=1, header_style="bold")
    table.add_column("Agent answered", ratio=1, header_style="bold")
    left = [row_text(row) for row in client_rows(caps)]
    right = [row_text(row) for row in agent_rows(init, session)]
    for index in range(max(len(left), len(right))):
        table.add_row(
            left[index] if index < len(left) else "",
            right[index] if index < len(right) else "",
        )
    return table


def consequences_text(
    caps: ClientCapabilities, init: InitializeResponse, mcp_passed: Sequence[str] = ()
) -> Text:
    text = Text()
    for line in consequences(caps, init, mcp_passed):
        text.append("→ ", style="bold")
        text.append(line + "\n")
    text.rstrip()
    return text


def terminals_text(terminals: TerminalManager, now: float | None = None) -> Text | None:
    """The client terminals the agent has not released (None when there are none): a command
    an agent started and never released, with no card showing it, is still seen here."""
    ids = terminals.terminal_ids(agent_only=True)
    if not ids:
        return None
    now = time.monotonic() if now is None else now
    text = Text("Client terminals not released by the agent", style="bold")
    for terminal_id in ids:
        info = terminals.info(terminal_id)
        command = shlex.join([info.command, *info.args]) if info.args else info.command
        status = info.exit_status
        if status is None:
            state, style = f"running {format_duration(now - info.started_at)}", "yellow"
        elif status.signal is not None:
            state, style = f"killed by {status.signal}", "red"
        else:
            state, style = f"exit {status.exit_code}", "green" if status.exit_code == 0 else "red"
        text.append(f"\n  {terminal_id}  ")  # the client's own id
        text.append(state, style=style)
        text.append(f"  pid {info.pid}  ", style="dim")
        text.append(clean_line(command)[:200], style="cyan")
    return text


class CapabilitiesView(VerticalScroll):
    """Both columns and what follows from them; used full-screen and in the demo."""

    DEFAULT_CSS = """
    CapabilitiesView { height: auto; padding: 0 1; }
    CapabilitiesView > .consequences { margin-top: 1; color: $text-muted; }
    CapabilitiesView > .terminals { margin-top: 1; }
    """

    def __init__(
        self,
        caps: ClientCapabilities,
        init: InitializeResponse,
        session: NewSessionResponse | LoadSessionResponse | None,
        terminals: TerminalManager | None = None,
        mcp_passed: Sequence[str] = (),
        **kwargs: str,
    ) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.mcp_passed = tuple(mcp_passed)
        self.caps = caps
        self.init = init
        self.session_response = session
        self.terminals = terminals

    def compose(self) -> ComposeResult:
        yield Static(capabilities_table(self.caps, self.init, self.session_response))
        yield Static(
            consequences_text(self.caps, self.init, self.mcp_passed), classes="consequences"
        )
        listed = terminals_text(self.terminals) if self.terminals is not None else None
        if listed is not None:
            yield Static(listed, classes="terminals")


class CapabilitiesScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,ctrl+k,q", "dismiss", "Close")]
    DEFAULT_CSS = """
    CapabilitiesScreen { align: center middle; }
    CapabilitiesScreen > CapabilitiesView {
        width: 90%;
        max-width: 110;
        max-height: 90%;
        border: round $accent;
        border-title-style: bold;
        background: $surface;
        padding: 1 2;
    }
    """

    def __init__(
        self,
        caps: ClientCapabilities,
        init: InitializeResponse,
        session: NewSessionResponse | LoadSessionResponse | None,
        terminals: TerminalManager | None = None,
        mcp_passed: Sequence[str] = (),
    ) -> None:
        super().__init__()
        self.view = CapabilitiesView(caps, init, session, terminals, mcp_passed)
        self.view.border_title = "ACP capability negotiation"
        self.view.border_subtitle = "esc close"

    def compose(self) -> ComposeResult:
        yield self.view
