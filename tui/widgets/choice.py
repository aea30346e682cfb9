"""A small picker: one choice from a list, dismissed with its value (or None on Esc).

A row is one line, never wrapped: its label, then a dim note (a model's description), or,
for a choice that cannot work yet, the row dimmed and `⚠ why` (a model whose key is missing,
which the agent says in the option's `_meta["dsh.unavailable"]`). The picker's keys are in
its own footer, in place of the app's, whose keys act on the screen behind it. Choosing a
choice that cannot work yet does not switch to it: the picker stays open and says how to fix
it, rather than let the error wait for the next prompt. A choice with a `detail` has it on a
second dim line, never wrapped either (the resume picker's first prompts, in a wider picker),
unless it `wraps` (a login method's instruction, which must be read whole).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from rich.console import Group
from rich.padding import Padding
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from tui.sanitize import clean_line

UNAVAILABLE_META_KEY = "dsh.unavailable"
_NEEDS_VARIABLE = re.compile(r"needs ([A-Z][A-Z0-9_]*)")
DETAIL_INDENT = 2


@dataclass(frozen=True)
class Choice:
    value: str
    label: str
    note: str | None = None  # shown dim after the label
    warning: str | None = None  # why it cannot work yet: the row is dimmed and says so
    detail: str | None = None  # a second, dim line (a session's first prompt)
    wraps: bool = False  # the detail is wrapped, not cut (a login method's instruction)


def select_option_choices(option: Any) -> list[Choice]:
    """A select config option's values, its groups flattened in order, each with its
    description as the note and the agent's reason it cannot work yet, if any, as the
    warning. The description was made safe where it entered (tui/agent_text.py); `_meta` is
    passed through there as sent, so the reason is made one safe line here."""
    choices = []
    for group in option.options:
        for item in getattr(group, "options", [group]):
            description = getattr(item, "description", None)
            meta = getattr(item, "field_meta", None) or {}
            reason = meta.get(UNAVAILABLE_META_KEY) if isinstance(meta, dict) else None
            choices.append(
                Choice(
                    str(item.value),
                    str(item.name),
                    description if isinstance(description, str) else None,
                    clean_line(reason) if isinstance(reason, str) and reason else None,
                )
            )
    return choices


def unavailable_message(choice: Choice) -> str:
    """Why a choice cannot be taken, and what to do: a missing environment variable is set
    before starting again, since the agent reads it when it starts."""
    warning = choice.warning or ""
    needs = _NEEDS_VARIABLE.fullmatch(warning)
    if needs:
        return f"{choice.label} needs {needs.group(1)}: set it and restart dsh-tui."
    return f"{choice.label} cannot work yet: {warning}."


def row_prompt(choice: Choice, current: bool) -> Text | Group:
    """The row: `row_text`, or for a wrapped detail the name line over the detail indented
    as a block, so its wrapped lines stay under it."""
    if not (choice.wraps and choice.detail):
        return row_text(choice, current)
    head = row_text(replace(choice, detail=None), current)
    detail = Text(choice.detail, style="dim")
    return Group(head, Padding(detail, (0, 0, 0, DETAIL_INDENT)))


def row_text(choice: Choice, current: bool) -> Text:
    """`● name  note`, or `  name  ⚠ why` dimmed; plain text, since agent text as markup
    would run `[@click=...]`."""
    text = Text("● " if current else "  ")
    text.append(choice.label, style="dim" if choice.warning else "")
    if choice.warning:
        text.append(f"  ⚠ {choice.warning}", style="yellow")
    elif choice.note:
        text.append(f"  {choice.note}", style="dim")
    if choice.detail:
        text.append(f"\n{' ' * DETAIL_INDENT}{choice.detail}", style="dim")
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


class ChoiceScreen(ModalScreen[str | None]):
    BINDINGS = [
        # Priority, so the footer shows them over the list's own (hidden) bindings of the
        # same keys; they do what the list would.
        Binding("down", "move(1)", "Move", key_display="↑↓", priority=True),
        Binding("enter", "choose", "Choose", priority=True),
        Binding("up", "move(-1)", "Move", show=False, priority=True),
        Binding("escape", "dismiss_none", "Close"),
    ]
    DEFAULT_CSS = """
    ChoiceScreen { align: center middle; }
    ChoiceScreen.-wide > OptionList { width: 90%; max-width: 120; }
    ChoiceScreen > #choice-message {
        width: 60;
        padding: 0 1;
        background: $surface;
        color: $text-error;
        border: round $error;
    }
    ChoiceScreen.-wide > #choice-message { width: 90%; max-width: 120; }
    ChoiceScreen > OptionList {
        width: 60;
        max-height: 20;
        border: round $accent;
        border-title-style: bold;
        background: $surface;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(
        self,
        title: str,
        choices: Sequence[tuple[str, str] | Choice],
        current: str | None,
        *,
        wide: bool = False,
        message: str | None = None,
    ) -> None:
        """`message`, when given, is said above the list (why the choice is asked again)."""
        super().__init__(classes="-wide" if wide else None)
        self.choices = [
            choice if isinstance(choice, Choice) else Choice(*choice) for choice in choices
        ]
        self.current = current
        self.title_text = title
        self.message = message

    def compose(self) -> ComposeResult:
        options = [
            Option(row_prompt(choice, choice.value == self.current), id=choice.value)
            for choice in self.choices
        ]
        menu = OptionList(*options, markup=False)
        menu.border_title = Content(self.title_text)  # may carry an id the user typed: never markup
        values = [choice.value for choice in self.choices]
        if self.current in values:
            menu.highlighted = values.index(self.current)
        if self.message:
            yield Static(Content(self.message), id="choice-message")  # agent text: never markup
        yield menu
        yield Footer(show_command_palette=False)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self._choose(event.option.id)

    def _choose(self, value: str | None) -> None:
        choice = next((choice for choice in self.choices if choice.value == value), None)
        if choice is not None and choice.warning:
            # Plain text: the label and the reason are the agent's.
            self.app.notify(unavailable_message(choice), severity="warning", markup=False)
            return
        self.dismiss(value)

    def action_move(self, step: int) -> None:
        menu = self.query_one(OptionList)
        if step > 0:
            menu.action_cursor_down()
        else:
            menu.action_cursor_up()

    def action_choose(self) -> None:
        menu = self.query_one(OptionList)
        if menu.highlighted is not None:
            self._choose(menu.get_option_at_index(menu.highlighted).id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
