"""The first screen's few lines: who answers, in which mode, with which model, and where to
start. It leaves with the first prompt (or a resumed session's history). The agent's name,
mode and model arrive cleaned (tui/agent_text.py)."""

from __future__ import annotations

from collections.abc import Collection

from rich.text import Text
from textual.widgets import Static

AGENT_HINTS = [
    ("help", "type it as a prompt: what the agent can do"),
    ("demo", "a scripted tour of every kind of card"),
]
"""dsh-agent's own commands: offered only to an agent that is dsh-agent or advertises them."""

OWN_AGENT = "dsh-agent"

HINTS = [
    ("/", "the agent's slash commands (Tab completes)"),
    ("shift+tab", "the next mode"),
    ("ctrl+k", "what client and agent negotiated (terminal, files)"),
    ("f1", "every key; ctrl+p the command palette"),
]


def model_line(model: str | None) -> Text:
    if model is None:
        return Text("The agent names no model.", style="dim")
    text = Text("model ")
    text.append(model, style="bold")
    if "offline" in model.lower():
        text.append(" · no real model configured: ctrl+l picks one", style="dim")
    return text


def hints(agent_name: str | None, commands: Collection[str]) -> list[tuple[str, str]]:
    """The lines to offer: the agent's own `help` and `demo` only where they exist."""
    offered = [
        (key, what) for key, what in AGENT_HINTS if agent_name == OWN_AGENT or key in commands
    ]
    return offered + HINTS


def welcome_text(
    agent: str | None,
    mode: str | None,
    model: str | None,
    agent_name: str | None = None,
    commands: Collection[str] = (),
) -> Text:
    text = Text()
    if agent is None:
        text.append("Starting the agent…", style="dim")
        return text
    text.append("Talking to ")
    text.append(agent, style="bold")
    if mode:
        text.append(" in mode ")
        text.append(mode, style="bold")
    text.append("\n")
    text.append_text(model_line(model))
    text.append("\n\n")
    lines = hints(agent_name, commands)
    width = max(len(key) for key, _ in lines)
    for key, what in lines:
        text.append(f"  {key:<{width}}  ", style="bold")
        text.append(what + "\n", style="dim")
    text.rstrip()
    return text


class Welcome(Static):
    DEFAULT_CSS = """
    Welcome {
        height: auto;
        margin: 1 2;
        padding: 0 1;
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
    }
    """

    def on_mount(self) -> None:
        self.border_title = "dsh-tui"
        self.show(None, None, None)

    def show(
        self,
        agent: str | None,
        mode: str | None,
        model: str | None,
        agent_name: str | None = None,
        commands: Collection[str] = (),
    ) -> None:
        self.update(welcome_text(agent, mode, model, agent_name, commands))
