"""The screen shown when the agent cannot start or dies: what ran, how it ended, its last words."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from tui.agent_log import client_log_path
from tui.launch import AgentFailed
from tui.sanitize import sanitize_text


def exit_text(failure: AgentFailed) -> str:
    if not failure.started:
        return "did not start"
    if failure.exit_code is None:
        return "still running"
    if failure.exit_code < 0:
        return f"killed by signal {-failure.exit_code}"
    return str(failure.exit_code)


def failure_text(failure: AgentFailed) -> Text:
    text = Text()
    text.append("The agent failed\n\n", style="bold red")
    text.append(sanitize_text(failure.reason) + "\n\n")
    text.append("command  ", style="bold")
    text.append(sanitize_text(failure.spec.command_line) + "\n")
    text.append("exit     ", style="bold")
    text.append(exit_text(failure) + "\n")
    text.append("log      ", style="bold")
    text.append(str(failure.spec.log_path) + "\n")
    client_log = client_log_path()
    if client_log is not None:
        text.append(f"         {client_log}\n")
    text.append("\n")
    text.append("stderr (last lines)\n", style="bold")
    text.append(sanitize_text(failure.stderr_tail) or "(empty)", style="dim")
    return text


class AgentFailedScreen(Screen[str]):
    """Dismisses with "retry" or "quit"."""

    BINDINGS = [
        Binding("r", "retry", "Retry"),
        # Ctrl+Q is the app's own quit, shown once in the footer; q does the same.
        Binding("q", "quit_app", "Quit", show=False),
    ]
    DEFAULT_CSS = """
    AgentFailedScreen > VerticalScroll { padding: 1 2; }
    AgentFailedScreen #failure { width: 1fr; }
    """

    def __init__(self, failure: AgentFailed) -> None:
        super().__init__()
        self.failure = failure

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(failure_text(self.failure), id="failure")
        yield Footer()

    def action_retry(self) -> None:
        self.dismiss("retry")

    def action_quit_app(self) -> None:
        self.dismiss("quit")
