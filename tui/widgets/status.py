"""A quiet line under the transcript for usage (context used and cost)."""

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

    def show_usage(self, usage: UsageUpdate | None) -> None:
        self.set_class(usage is not None, "-visible")
        self.update(usage_text(usage) if usage is not None else "")
