"""The agent's plan, pinned above the prompt: one line per entry with status and priority.

On a short screen the whole plan would push the transcript away (six entries and a permission
question left one row of it at 80×24), so there it folds to one summary line: how far along
it is and the step under way. A click (or the palette's "Plan: fold or unfold") unfolds it.
A finished plan (every entry completed) folds to its summary at any size, and leaves when the
next turn starts: it has nothing more to say above later prompts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.widgets import Static

from tui.glyphs import STATUS_GLYPHS

if TYPE_CHECKING:  # the SDK is imported after the first frame (tui/app.py)
    from acp.schema import PlanEntry

PRIORITY_MARKS = {"high": ("!", "bold red"), "medium": (" ", ""), "low": ("↓", "dim")}
# The whole plan may take at most this share of the rows the transcript and plan share
# (the screen's, less an open permission panel's); beyond it the plan shows its summary.
PLAN_SHARE = 4


def plan_text(entries: list[PlanEntry]) -> Text:
    done = sum(1 for entry in entries if entry.status == "completed")
    text = Text.assemble(("plan", "bold"), (f"  {done}/{len(entries)} done", "dim"))
    for entry in entries:
        glyph, style = STATUS_GLYPHS.get(entry.status, ("?", ""))
        mark, mark_style = PRIORITY_MARKS.get(entry.priority, (" ", ""))
        line_style = "dim strike" if entry.status == "completed" else ""
        text.append("\n ")
        text.append(glyph, style=style)
        text.append(mark, style=mark_style)
        text.append(" ")
        text.append(entry.content, style=line_style)  # one safe line (tui/agent_text.py)
    return text


def current_entry(entries: list[PlanEntry]) -> PlanEntry | None:
    """The step the summary names: the one in progress, else the next pending one."""
    for status in ("in_progress", "pending"):
        for entry in entries:
            if entry.status == status:
                return entry
    return None


def summary_text(entries: list[PlanEntry]) -> Text:
    """`▸ plan 2/6 · ● current step`, on one line (cut with an ellipsis when too wide)."""
    done = sum(1 for entry in entries if entry.status == "completed")
    text = Text.assemble(("▸ ", "dim"), ("plan", "bold"), (f" {done}/{len(entries)}", "dim"))
    entry = current_entry(entries)
    if entry is None:
        text.append(" · all done", style="dim")
    else:
        glyph, style = STATUS_GLYPHS.get(entry.status, ("?", ""))
        text.append(" · ", style="dim")
        text.append(glyph, style=style)
        text.append(" " + entry.content)
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


class PlanView(Static):
    """Hidden while there is no plan; a new plan replaces the old one wholesale.

    Folded to its summary when the whole plan would take more than 1/PLAN_SHARE of the rows
    left beside an open permission panel; a click unfolds or folds it again, which holds
    until the next plan arrives.
    """

    DEFAULT_CSS = """
    PlanView {
        height: auto;
        max-height: 10;
        padding: 0 1;
        margin: 0 1;
        border-top: solid $panel-lighten-2;
        display: none;
    }
    PlanView.-visible { display: block; }
    PlanView.-folded { height: 1; border-top: none; }
    PlanView:hover { background: $boost; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[PlanEntry] = []
        # The user's click, when it overrides the fit: True unfolded, False folded.
        self.unfolded: bool | None = None
        self.folded = False

    def on_mount(self) -> None:
        # Resizes, and a permission panel coming or going, all refresh the screen's layout.
        self.screen.screen_layout_refresh_signal.subscribe(self, lambda _: self._fit())

    def show_plan(self, entries: list[PlanEntry]) -> None:
        self.entries = list(entries)
        self.unfolded = None
        self.set_class(bool(entries), "-visible")
        self._fit(force=True)

    @property
    def finished(self) -> bool:
        return bool(self.entries) and all(entry.status == "completed" for entry in self.entries)

    def unpin_finished(self) -> None:
        """Called as a turn starts: a finished plan is history, so it stops taking rows."""
        if self.finished:
            self.show_plan([])

    def toggle(self) -> None:
        """Unfold a folded plan, fold an unfolded one; the choice holds until the next plan."""
        self.unfolded = self.folded
        self._fit(force=True)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.toggle()

    def should_fold(self) -> bool:
        """True when the whole plan would take more than its share of the rows it leaves."""
        if self.unfolded is not None:
            return not self.unfolded
        if not self.entries or not self.is_attached:
            return False
        if self.finished:
            return True
        rows = self.screen.size.height
        # The panel opens beside the plan (above the prompt); only siblings are looked at,
        # since this runs on every layout of the screen, streaming included.
        parent = self.parent
        from tui.widgets.permission import PermissionPanel  # a plan came: after the first frame

        for panel in parent.children if parent is not None else ():
            if isinstance(panel, PermissionPanel):
                rows -= panel.outer_size.height
        whole = min(len(self.entries) + 2, 10)  # the rule above, the title, one row each
        return whole > rows // PLAN_SHARE

    def _fit(self, *, force: bool = False) -> None:
        folded = self.should_fold()
        if folded == self.folded and not force:
            return
        self.folded = folded
        self.set_class(folded, "-folded")
        if not self.entries:
            self.update("")
        else:
            self.update(summary_text(self.entries) if folded else plan_text(self.entries))
