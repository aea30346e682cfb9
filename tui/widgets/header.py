"""The one-line header: who we talk to, which protocol, and what was negotiated."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from tui.textsafe import clean_text


class SessionHeader(Static):
    DEFAULT_CSS = """
    SessionHeader {
        dock: top;
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $text;
    }
    """

    def show_connecting(self, command: str) -> None:
        self.update(
            Text.assemble(("dsh-tui", "bold"), " · starting ", (clean_text(command), "dim"))
        )

    def show_session(
        self,
        agent_name: str,
        agent_version: str,
        protocol_version: int,
        terminal: bool,
        workspace: str,
        title: str | None = None,
    ) -> None:
        text = Text.assemble(
            ("dsh-tui", "bold"),
            " · ",
            (clean_text(f"{agent_name} {agent_version}".strip()), "bold"),
            f" · ACP v{protocol_version}",
            " · terminal ",
            ("✓", "green") if terminal else ("✗", "red"),
            " · ",
            (clean_text(workspace), "dim"),
        )
        if title:
            text.append(" · ")
            text.append(clean_text(title), style="italic")
        self.update(text)
