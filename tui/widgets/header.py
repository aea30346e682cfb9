"""The one-line header: who we talk to, which protocol, what was negotiated, mode and model."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from tui.sanitize import sanitize_text


@dataclass(frozen=True)
class HeaderInfo:
    agent_name: str
    agent_version: str
    protocol_version: int
    terminal: bool
    fs: bool
    workspace: str
    title: str | None = None
    mode: str | None = None
    model: str | None = None


def flag(text: Text, name: str, on: bool) -> None:
    text.append(f" {name} ")
    text.append("✓" if on else "✗", style="green" if on else "red")


def header_text(info: HeaderInfo) -> Text:
    text = Text.assemble(
        ("dsh-tui", "bold"),
        " · ",
        (sanitize_text(f"{info.agent_name} {info.agent_version}".strip()), "bold"),
        f" · ACP v{info.protocol_version} ·",
    )
    flag(text, "terminal", info.terminal)
    flag(text, "fs", info.fs)
    if info.mode:
        text.append(" · mode: ")
        text.append(sanitize_text(info.mode), style="bold")
    if info.model:
        text.append(" · model: ")
        text.append(sanitize_text(info.model), style="bold")
    text.append(" · ")
    text.append(sanitize_text(info.workspace), style="dim")
    if info.title:
        text.append(" · ")
        text.append(sanitize_text(info.title).replace("\n", " "), style="italic")
    return text


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
            Text.assemble(("dsh-tui", "bold"), " · starting ", (sanitize_text(command), "dim"))
        )

    def show_info(self, info: HeaderInfo) -> None:
        self.update(header_text(info))
