"""Full-screen review of an edit awaiting permission: the whole diff, then accept or reject."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Literal

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from tui.diffing import DiffItem
from tui.sanitize import strip_control
from tui.widgets.diff_panel import UNICODE_GLYPHS, DiffPanel, Glyphs

__all__ = ["DiffReviewScreen", "ReviewDecision"]

ReviewDecision = Literal["accept", "reject"]


class DiffReviewScreen(Screen[ReviewDecision | None]):
    """Dismisses with "accept", "reject", or None when closed without deciding (esc)."""

    DEFAULT_CSS = """
    DiffReviewScreen { layout: vertical; }
    DiffReviewScreen > #review-title {
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $foreground;
        text-style: bold;
    }
    DiffReviewScreen > DiffPanel { height: 1fr; }
    DiffReviewScreen > #review-keys {
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $text-muted;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "decide('accept')", "Accept"),
        Binding("r", "decide('reject')", "Reject"),
        Binding("escape", "decide(None)", "Back"),
    ]

    KEYS_HINT = (
        "a accept {dot} r reject {dot} esc back {dot} s split/unified"
        " {dot} n/p next/previous change {dot} enter/e expand"
    )

    def __init__(
        self,
        items: Sequence[DiffItem],
        cwd: Path,
        title: str,
        *,
        glyphs: Glyphs = UNICODE_GLYPHS,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.items = tuple(items)
        self.cwd = cwd
        self.review_title = strip_control(title) or "Review edit"
        self.panel = DiffPanel(self.items, cwd, glyphs=glyphs)

    def compose(self) -> ComposeResult:
        yield Static(Content(self.review_title), id="review-title")
        yield self.panel
        hint = self.KEYS_HINT.format(dot=self.panel.glyphs.dot)
        yield Static(Content(hint), id="review-keys")

    def on_mount(self) -> None:
        self.panel.focus()

    def action_decide(self, decision: ReviewDecision | None) -> None:
        self.dismiss(decision)
