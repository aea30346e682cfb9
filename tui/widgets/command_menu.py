"""Slash-command completion: the agent's commands, filtered as the user types after `/`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

if TYPE_CHECKING:  # the SDK is imported after the first frame (tui/app.py)
    from acp.schema import AvailableCommand

MAX_SHOWN = 6


def matching(commands: list[AvailableCommand], typed: str) -> list[AvailableCommand]:
    """Commands for a prompt that is a bare `/prefix`; none once an argument is being typed."""
    if not typed.startswith("/") or " " in typed:
        return []
    prefix = typed[1:].lower()
    return [command for command in commands if command.name.lower().startswith(prefix)]


class CommandMenu(Static):
    """Shown above the prompt while there are matches; Tab completes the first."""

    DEFAULT_CSS = """
    CommandMenu {
        height: auto;
        margin: 0 2;
        padding: 0 1;
        background: $boost;
        display: none;
    }
    CommandMenu.-visible { display: block; }
    """

    commands: reactive[list[AvailableCommand]] = reactive(list, always_update=True)
    typed: reactive[str] = reactive("")

    def matches(self) -> list[AvailableCommand]:
        return matching(self.commands, self.typed)

    def watch_commands(self) -> None:
        self._refresh_menu()

    def watch_typed(self) -> None:
        self._refresh_menu()

    def _refresh_menu(self) -> None:
        found = self.matches()
        self.set_class(bool(found), "-visible")
        text = Text()
        for index, command in enumerate(found[:MAX_SHOWN]):
            if index:
                text.append("\n")
            text.append(f"/{command.name}", style="bold" if index else "bold reverse")
            text.append("  " + command.description, style="dim")  # safe: tui/agent_text.py
        if len(found) > MAX_SHOWN:
            text.append(f"\n… {len(found) - MAX_SHOWN} more", style="dim")
        self.update(text)

    def completion(self) -> str | None:
        found = self.matches()
        return f"/{found[0].name} " if found else None
