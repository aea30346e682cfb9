"""The one-line header: who we talk to, which protocol, what was negotiated, mode and model.

Every field arrives safe to show: agent text is cleaned where it enters the client
(tui/agent_text.py), and the app cleans the local workspace path and command line it passes.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static


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


def header_text(
    info: HeaderInfo,
    protocol: bool = True,
    version: bool = True,
    workspace: bool = True,
    title: bool = True,
) -> Text:
    """The header, with the parts a narrow terminal drops (protocol details first) switchable;
    the agent, mode and model always stay."""
    name = f"{info.agent_name} {info.agent_version}" if version else info.agent_name
    text = Text.assemble(("dsh-tui", "bold"), " · ", (name.strip(), "bold"))
    if info.mode:
        text.append(" · mode: ")
        text.append(info.mode, style="bold")
    if info.model:
        text.append(" · model: ")
        text.append(info.model, style="bold")
    if protocol:
        text.append(f" · ACP v{info.protocol_version} ·")
        flag(text, "terminal", info.terminal)
        flag(text, "fs", info.fs)
    if workspace:
        text.append(" · ")
        text.append(info.workspace, style="dim")
    if title and info.title:
        text.append(" · ")
        text.append(info.title, style="italic")
    return text


def fitted_header(info: HeaderInfo, width: int) -> Text:
    """The fullest header that fits `width` cells: the protocol details go first, then the
    workspace, the title and the agent's version. A long title is cut with an ellipsis to the
    room left, so it never pushes the other fields out."""
    steps: list[dict[str, bool]] = [
        {},
        {"protocol": False},
        {"protocol": False, "workspace": False},
        {"protocol": False, "workspace": False, "version": False},
    ]
    if width <= 0:
        return header_text(info)
    if info.title:
        title = Text(info.title, style="italic")
        for step in steps:
            text = header_text(info, title=False, **step)
            room = width - text.cell_len - len(" · ")
            if room >= min(title.cell_len, MIN_TITLE):
                title.truncate(room, overflow="ellipsis")
                text.append(" · ")
                text.append_text(title)
                return text
    for step in steps:
        text = header_text(info, title=False, **step)
        if text.cell_len <= width:
            return text
    return text


MIN_TITLE = 12
"""A title cut to fewer cells than this says too little to be worth another field."""


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
        self.info = None
        self.update(Text.assemble(("dsh-tui", "bold"), " · starting ", (command, "dim")))

    info: HeaderInfo | None = None

    def show_info(self, info: HeaderInfo) -> None:
        self.info = info
        self.update(fitted_header(info, self.content_size.width))

    def on_resize(self) -> None:
        if self.info is not None:
            self.update(fitted_header(self.info, self.content_size.width))
