"""The compare screen's keys, as the footer and F1 show them (docs/client.md, "Compare")."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

COMPARE_KEYS: list[tuple[str, str]] = [
    ("tab / shift+tab", "focus the next / previous side (then the prompt box); ▶ marks it"),
    ("pageup / pagedown", "scroll the marked side; at its end it follows new output again"),
    ("ctrl+end", "the marked side's end, following it again"),
    ("a / A / r / R / 1-9", "on a focused side with a question open: answer it, on that side"),
    ("enter", "in the prompt box: send the prompt to every side"),
    ("f2", "stack the sides one above the other, or back side by side"),
    ("f5", "start again from the start: fresh workspace copies, the agents restarted"),
    ("f12", "the traffic inspector: every side's wire (s switches side)"),
    ("f1", "this list"),
    (
        "the strip",
        "what the side advertised (term terminal, out _meta.terminal_output, read / write "
        "fs, auth auth.terminal), then what that means; the agent is on the bottom border",
    ),
    ("ctrl+q (q off the prompt box)", "quit; every agent is stopped"),
]


class CompareHelp(ModalScreen[None]):
    """F1: the compare screen's keys."""

    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("f1", "dismiss", "Close", show=False),
        Binding("q", "dismiss", "Close", show=False),
    ]
    DEFAULT_CSS = """
    CompareHelp { align: center middle; }
    CompareHelp > VerticalScroll { width: 90%; max-width: 100; height: auto; max-height: 90%;
        border: round $accent; background: $surface; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for key, what in COMPARE_KEYS:
            table.add_row(key, what)
        with VerticalScroll() as scroll:
            scroll.border_title = "compare keys · esc closes"
            yield Static(table)
