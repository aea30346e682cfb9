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


def shared_prefix(names: list[str]) -> str:
    """The longest start all `names` have."""
    first = min(names, default="")
    last = max(names, default="")
    length = 0
    while length < len(first) and first[length] == last[length]:
        length += 1
    return first[:length]


class CommandMenu(Static):
    """Shown above the prompt while there are matches. Up and Down move the highlight (the
    prompt routes them here while the menu is open); Tab or Enter take the highlighted one."""

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

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.highlighted = 0  # an index into matches(); back to the first on every change

    def matches(self) -> list[AvailableCommand]:
        return matching(self.commands, self.typed)

    @property
    def is_open(self) -> bool:
        return bool(self.matches())

    def watch_commands(self) -> None:
        self.highlighted = 0
        self._refresh_menu()

    def watch_typed(self) -> None:
        self.highlighted = 0
        self._refresh_menu()

    def move(self, delta: int) -> None:
        """Move the highlight, wrapping round at either end."""
        found = self.matches()
        if found:
            self.highlighted = (self.highlighted + delta) % len(found)
            self._refresh_menu()

    def _refresh_menu(self) -> None:
        found = self.matches()
        self.set_class(bool(found), "-visible")
        self.highlighted = min(self.highlighted, max(len(found) - 1, 0))
        # A window of MAX_SHOWN that keeps the highlight in view.
        first = max(0, min(self.highlighted - MAX_SHOWN + 1, len(found) - MAX_SHOWN))
        text = Text()
        if first:
            text.append(f"… {first} more\n", style="dim")
        for index, command in enumerate(found[first : first + MAX_SHOWN], start=first):
            if index > first:
                text.append("\n")
            chosen = index == self.highlighted
            text.append(f"/{command.name}", style="bold reverse" if chosen else "bold")
            text.append("  " + command.description, style="dim")  # safe: tui/agent_text.py
        below = len(found) - first - MAX_SHOWN
        if below > 0:
            text.append(f"\n… {below} more", style="dim")
        self.update(text)

    def tab_completion(self) -> str | None:
        """Tab: with several matches and the highlight not moved, only as far as they agree
        (`/mo` with /mode and /model: `/mode`, no space, the menu still showing both), so a
        command is never picked quietly; once that far, or after Up/Down, the highlighted."""
        found = self.matches()
        if len(found) > 1 and self.highlighted == 0:
            shared = shared_prefix([command.name for command in found])
            if len(shared) + 1 > len(self.typed):
                return "/" + shared
        return self.completion()

    def completion(self) -> str | None:
        """The highlighted command, as the prompt text that takes it."""
        found = self.matches()
        return f"/{found[self.highlighted].name} " if found else None
