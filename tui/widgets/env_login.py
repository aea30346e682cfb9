"""The login form for an agent's `env_var` auth method: one input per variable, masked when
the variable is a secret, with the method's link shown so the user knows where to get them.

All of it is the agent's text, so it is made one safe line and shown as plain text, never as
markup. The values go back to the caller only; nothing here logs or keeps them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static

from tui.sanitize import clean_line

if TYPE_CHECKING:
    from acp.schema import AuthMethodEnvVar


def var_label(name: str, label: str | None, optional: bool) -> Text:
    text = Text(clean_line(label or name), style="bold")
    if label:
        text.append(f"  {clean_line(name)}", style="dim")
    if optional:
        text.append("  (optional)", style="dim")
    return text


class EnvLoginScreen(ModalScreen[dict[str, str] | None]):
    BINDINGS = [Binding("escape", "dismiss_none", "Cancel")]
    DEFAULT_CSS = """
    EnvLoginScreen { align: center middle; }
    EnvLoginScreen > Vertical {
        width: 64;
        height: auto;
        max-height: 22;
        border: round $accent;
        border-title-style: bold;
        background: $surface;
        padding: 0 1;
    }
    EnvLoginScreen .missing { color: $error; }
    """

    def __init__(self, method: AuthMethodEnvVar) -> None:
        super().__init__()
        self.method = method

    def compose(self) -> ComposeResult:
        with Vertical() as form:
            form.border_title = f"Log in: {clean_line(self.method.name)}"
            if self.method.description:
                yield Static(Text(clean_line(self.method.description)), classes="about")
            if self.method.link:
                yield Static(Text(f"Get them at: {clean_line(self.method.link)}"), classes="link")
            for var in self.method.vars:
                yield Static(var_label(var.name, var.label, bool(var.optional)))
                yield Input(password=var.secret is not False)
            yield Static("", classes="missing")
        yield Footer(show_command_palette=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        inputs = list(self.query(Input))
        index = inputs.index(event.input)
        if index + 1 < len(inputs):
            inputs[index + 1].focus()
            return
        self.submit(inputs)

    def submit(self, inputs: list[Input]) -> None:
        values: dict[str, str] = {}
        for var, field in zip(self.method.vars, inputs, strict=True):
            if field.value:
                values[var.name] = field.value
            elif not var.optional:
                self.query_one(".missing", Static).update(
                    Text(f"{clean_line(var.label or var.name)} is needed")
                )
                field.focus()
                return
        self.dismiss(values)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
