"""Full-screen review of an edit awaiting permission: the whole diff, then the agent's options."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from tui.diff.diffing import DiffContent
from tui.diff.line_numbers import Anchoring
from tui.widgets.diff.panel import UNICODE_GLYPHS, DiffPanel, Glyphs
from tui.widgets.permission import SHORT_LABELS

if TYPE_CHECKING:
    from acp.schema import PermissionOption

__all__ = ["DiffReviewScreen"]


class ReviewKeys(Static):
    """The key line, on one row: the agent's option names when they fit, else a word each
    (`a allow · A always · r reject`), cut with an ellipsis only as a last resort."""

    def __init__(self, screen: DiffReviewScreen) -> None:
        super().__init__(id="review-keys")
        self.review = screen

    def render(self) -> Content:
        full = self.review.keys_hint()
        if full.cell_length <= self.size.width - 2:  # the row's padding
            return full
        return self.review.keys_hint(short=True)


class DiffReviewScreen(Screen[str | None]):
    """Dismisses with the option id the user picked, or None when closed without one (esc).

    Every option the agent offered is on a key, allow-always included: reviewing the whole
    diff is the moment to decide that, and the screen must not narrow the agent's choice to
    accept or reject. `options` are the request's `(key, option)` pairs (`keyed_options`).
    """

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
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "decide(None)", "Back"),
    ]

    SPLIT_KEY = "s split/unified"
    KEYS = ("esc back", SPLIT_KEY, "n/p change", "e expand")

    def __init__(
        self,
        items: Sequence[DiffContent],
        cwd: Path,
        title: str,
        *,
        options: Sequence[tuple[str, PermissionOption]] = (),
        anchoring: Anchoring | None = None,
        glyphs: Glyphs = UNICODE_GLYPHS,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.items = tuple(items)
        self.cwd = cwd
        self.options = tuple(options)
        self.review_title = title or "Review edit"  # the agent's title, one safe line already
        self.panel = DiffPanel(self.items, cwd, anchoring=anchoring, glyphs=glyphs)

    def compose(self) -> ComposeResult:
        yield Static(Content(self.review_title), id="review-title")
        yield self.panel
        yield ReviewKeys(self)

    def keys_hint(self, *, short: bool = False) -> Content:
        """The agent's options, coloured by kind, then the panel's own keys; `short`, each
        option in a word by its kind (a kind the spec does not name keeps its name)."""
        dot = self.panel.glyphs.dot
        parts: list[tuple[str, str] | str] = []
        for key, option in self.options:
            colour = "$text-success" if option.kind.startswith("allow") else "$text-error"
            name = option.name
            if short:
                name = SHORT_LABELS.get(option.kind, name)
            parts += [(key, f"bold {colour}"), f" {name}  "]
        # `s` only where it changes the view: a new file is never split.
        keys = [k for k in self.KEYS if k != self.SPLIT_KEY or self.panel.can_split]
        parts.append(f" {dot} ".join(keys))
        return Content.assemble(*parts)

    def on_mount(self) -> None:
        self.panel.focus()

    def on_key(self, event: events.Key) -> None:
        key = event.character if event.character and event.character.isprintable() else None
        for option_key, option in self.options:
            if key == option_key:
                event.stop()
                event.prevent_default()
                self.dismiss(option.option_id)
                return

    def action_decide(self, option_id: str | None) -> None:
        self.dismiss(option_id)
