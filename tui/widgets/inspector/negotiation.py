"""The `initialize` exchange pinned at the top of the inspector, and its capability table.

Folded, it is the two messages' rows and a count of what each side sent; unfolded (`i`, or a
click), the table of tui/inspector/negotiation.py: every capability path, what the client offered
and what the agent answered, side by side.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Static

from tui.inspector.negotiation import NegotiationTable, negotiation_table
from tui.inspector.traffic import Negotiation, WireMessage
from tui.sanitize import clean_line
from tui.widgets.inspector.message_list import row_text


def pinned_row(message: WireMessage | None, width: int, placeholder: str) -> Text:
    if message is None:
        return Text(placeholder, style="dim italic", no_wrap=True, overflow="ellipsis")
    left, right = row_text(message)
    left.truncate(max(0, width - right.cell_len - 1), overflow="ellipsis", pad=True)
    return Text.assemble(left, " ", right)


def table_renderable(table: NegotiationTable, differs: Style) -> RenderableType:
    grid = Table(box=None, expand=True, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
    grid.add_column("capability", ratio=3, no_wrap=True, overflow="ellipsis")
    grid.add_column("client offered", ratio=2, no_wrap=True, overflow="ellipsis")
    grid.add_column("agent answered", ratio=2, no_wrap=True, overflow="ellipsis")
    for row in table.rows:
        style = differs if row.differs else ""
        grid.add_row(
            Text(clean_line(row.path)),
            Text(clean_line(row.offered) if row.offered is not None else "—", style=style),
            Text(clean_line(row.answered) if row.answered is not None else "—", style=style),
        )
    if not table.note:
        return grid
    return Group(grid, Text(clean_line(table.note), style="italic"))


class NegotiationPin(Static):
    """The pinned initialize request and answer; a click on either opens it."""

    COMPONENT_CLASSES = {"negotiation-pin--differs"}

    DEFAULT_CSS = """
    NegotiationPin { height: auto; max-height: 60%; border-bottom: solid $panel-lighten-2; }
    NegotiationPin > .negotiation-pin--differs { color: $warning; text-style: bold; }
    """

    class Opened(Message):
        def __init__(self, message: WireMessage) -> None:
            super().__init__()
            self.message = message

    def __init__(self, **kwargs: str) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.negotiation = Negotiation()
        self.unfolded = False

    def show(self, negotiation: Negotiation) -> None:
        self.negotiation = negotiation
        self._redraw()

    def toggle(self) -> None:
        self.unfolded = not self.unfolded
        self._redraw()

    def on_resize(self, event: events.Resize) -> None:
        self._redraw()

    def _redraw(self) -> None:
        width = max(10, self.content_region.width)
        negotiation = self.negotiation
        rows = [
            pinned_row(negotiation.request, width, "→ initialize: not sent yet"),
            pinned_row(negotiation.response, width, "← its answer: not yet"),
        ]
        table = negotiation_table(negotiation)
        if self.unfolded:
            heading = Text("capabilities (i folds)", style="bold")
            self.update(
                Group(
                    *rows,
                    heading,
                    table_renderable(
                        table, self.get_component_rich_style("negotiation-pin--differs")
                    ),
                )
            )
            return
        client = sum(1 for row in table.rows[2:] if row.offered is not None)
        agent = sum(1 for row in table.rows[2:] if row.answered is not None)
        versions = table.rows[0] if table.rows else None
        summary = Text(style="dim", no_wrap=True, overflow="ellipsis")
        if versions is not None:
            summary.append(f"protocol {versions.offered or '—'} ↔ {versions.answered or '—'} · ")
        summary.append(f"capabilities: client {client}, agent {agent} · i unfolds")
        self.update(Group(*rows, summary))

    def on_click(self, event: events.Click) -> None:
        if event.y == 0 and self.negotiation.request is not None:
            self.post_message(self.Opened(self.negotiation.request))
        elif event.y == 1 and self.negotiation.response is not None:
            self.post_message(self.Opened(self.negotiation.response))
        else:
            self.toggle()
