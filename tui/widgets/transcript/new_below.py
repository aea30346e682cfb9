"""`↓ 3 new · end`: what arrived below while the transcript is held away from its end.

Reading back (PageUp, the wheel) holds the view; the agent goes on adding entries out of
sight. This line says how many, and a click on it (or End on an empty prompt, Ctrl+End) goes
there and follows again. It is gone while the view follows.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.widgets import Static


def marker_text(count: int) -> str:
    return f"↓ {count} new below · click or end to follow"


class NewBelow(Static):
    DEFAULT_CSS = """
    NewBelow {
        height: 1;
        padding: 0 2;
        display: none;
        color: $accent;
        text-style: bold;
    }
    NewBelow.-visible { display: block; }
    NewBelow:hover { background: $accent 20%; }
    """

    def __init__(self, jump: Callable[[], None], *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.jump = jump

    def show(self, count: int) -> None:
        self.set_class(count > 0, "-visible")
        self.update(marker_text(count) if count else "")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.jump()
