"""Which directory a new tab works in: one line, this tab's directory to start from."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class DirectoryScreen(ModalScreen[Path | None]):
    """Enter takes the directory (it must exist), Esc gives up."""

    BINDINGS = [Binding("escape", "dismiss_none", "Close")]
    DEFAULT_CSS = """
    DirectoryScreen { align: center middle; }
    DirectoryScreen > Vertical {
        width: 70; height: auto; border: round $accent; background: $surface; padding: 0 1;
    }
    DirectoryScreen #directory-why { color: $text-error; height: auto; }
    """

    def __init__(self, title: str, start: Path) -> None:
        super().__init__()
        self.title_text = title
        self.start = start

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = Content(self.title_text)
            yield Input(str(self.start), id="directory", select_on_focus=False)
            yield Static("", id="directory-why", markup=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        path = Path(event.value).expanduser()
        if not path.is_absolute():
            path = self.start / path
        if not path.is_dir():
            self.query_one("#directory-why", Static).update(f"{path} is not a directory")
            return
        self.dismiss(path.resolve())

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
