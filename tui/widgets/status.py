"""A quiet line under the prompt: the mode (as Toad keeps it by the prompt) and usage (context
used and cost)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

if TYPE_CHECKING:  # the SDK is imported after the first frame (tui/app.py)
    from acp.schema import UsageUpdate


def usage_text(usage: UsageUpdate) -> Text:
    text = Text(f"context {usage.used:,} / {usage.size:,} tokens", style="dim")
    if usage.size:
        text.append(f" ({usage.used * 100 // usage.size}%)", style="dim")
    if usage.cost is not None:
        text.append(f" · {usage.cost.amount:.4f} {usage.cost.currency}", style="dim")
    return text


class StatusLine(Static):
    DEFAULT_CSS = """
    StatusLine { height: 1; padding: 0 2; display: none; }
    StatusLine.-visible { display: block; }
    """

    usage: UsageUpdate | None = None
    mode: str | None = None

    def show_usage(self, usage: UsageUpdate | None) -> None:
        self.usage = usage
        self._show()

    def show_mode(self, mode: str | None) -> None:
        self.mode = mode
        self._show()

    def _show(self) -> None:
        text = Text()
        if self.mode:
            text.append("mode ", style="dim")
            text.append(self.mode, style="bold")  # made safe where it entered (tui/agent_text.py)
            text.append(" (shift+tab) · / commands · f1 keys", style="dim")
        if self.usage is not None:
            if text:
                text.append(" · ", style="dim")
            text.append_text(usage_text(self.usage))
        self.set_class(bool(text), "-visible")
        self.update(text)
