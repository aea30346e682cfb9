"""A small picker: one choice from a list, dismissed with its value (or None on Esc)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

KEYS = "↑↓ move · enter choose · esc close"


class ChoiceScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "dismiss_none", "Close")]
    DEFAULT_CSS = """
    ChoiceScreen { align: center middle; }
    ChoiceScreen > OptionList { text-wrap: nowrap; text-overflow: ellipsis; }
    ChoiceScreen > #keys { width: 60; height: 1; padding: 0 1; color: $text-muted; }
    ChoiceScreen > OptionList {
        width: 60;
        max-height: 20;
        border: round $accent;
        border-title-style: bold;
        background: $surface;
    }
    """

    def __init__(self, title: str, choices: list[tuple[str, str]], current: str | None) -> None:
        super().__init__()
        self.choices = choices
        self.current = current
        self.title_text = title

    def compose(self) -> ComposeResult:
        options = [
            Option(("● " if value == self.current else "  ") + label, id=value)
            for value, label in self.choices
        ]
        # Labels are agent text (model names, session titles), cleaned where they came in
        # (tui/agent_text.py); shown as plain text, since markup would run `[@click=...]`.
        menu = OptionList(*options, markup=False)
        menu.border_title = self.title_text
        values = [value for value, _ in self.choices]
        if self.current in values:
            menu.highlighted = values.index(self.current)
        yield menu
        # The picker's keys, on one row under it (the footer lists the app's).
        yield Static(KEYS, id="keys")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
