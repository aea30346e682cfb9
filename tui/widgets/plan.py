"""The agent's plan, pinned above the prompt: one line per entry with status and priority."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

if TYPE_CHECKING:  # the SDK is imported after the first frame (tui/app.py)
    from acp.schema import PlanEntry

STATUS_GLYPHS = {
    "completed": ("✓", "green"),
    "in_progress": ("●", "yellow"),
    "pending": ("○", "dim"),
}
PRIORITY_MARKS = {"high": ("!", "bold red"), "medium": (" ", ""), "low": ("↓", "dim")}


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


class PlanView(Static):
    """Hidden while there is no plan; a new plan replaces the old one wholesale."""

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
    """

    def show_plan(self, entries: list[PlanEntry]) -> None:
        self.set_class(bool(entries), "-visible")
        self.update(plan_text(entries) if entries else "")
