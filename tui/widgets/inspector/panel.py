"""The traffic inspector (F12): every JSON-RPC message of the session beside the transcript.

The pane splits the screen's right side off when there is room for both (`MIN_BESIDE_COLUMNS`),
else it takes the transcript's place until it closes. From top to bottom: a title with counts,
a filter box, the pinned `initialize` exchange (tui/widgets/inspector/negotiation.py), and the
list (tui/widgets/inspector/message_list.py), which Enter swaps for the opened message
(tui/widgets/inspector/detail.py). A click on a tool card in the transcript filters the list to
the messages that built it; `c` on a message goes back to its card.

The pane reads the store (tui/inspector/traffic.py) on a timer, never per message: a stream of
thousands
a second costs the transcript only the store's appends, and the list a redraw every
`REFRESH_S`. Hosts (the app, the demo) call `toggle` and `follow_click`; nothing here knows
which app it is in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Input

from tui.inspector.traffic import Query, Traffic, WireMessage, format_gap, format_size
from tui.sanitize import clean_line
from tui.widgets.inspector.detail import MessageView
from tui.widgets.inspector.message_list import ARROWS, TrafficList
from tui.widgets.inspector.negotiation import NegotiationPin
from tui.widgets.transcript.conversation import ConversationView

if TYPE_CHECKING:  # imported where used: the first frame shows no card (tui/widgets/deferred.py)
    from tui.widgets.cards.tool_card import ToolCard

REFRESH_S = 0.25
"""How often an open pane takes in what arrived: live to the eye, and each redraw of the pane
while a stream runs is a frame the transcript waits for."""
MIN_BESIDE_COLUMNS = 100
"""Narrower screens show the pane over the transcript instead of beside it."""
TOOL_PREFIX = "tool:"
MARK_S = 2.0


class PaneTitle(Widget):
    """One line of counts, repainted in place: a `Static` would ask for a layout pass of the
    whole screen at each update, several times a second while a stream runs."""

    def __init__(self, **kwargs: str) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._text = Text()

    def show(self, text: Text) -> None:
        if text.plain != self._text.plain or text.spans != self._text.spans:
            self._text = text
            self.refresh()

    def render(self) -> Text:
        return self._text


@dataclass(frozen=True)
class TrafficSource:
    """One session's wire and the transcript its cards are in (the demo has two)."""

    name: str
    traffic: Traffic
    transcript: ConversationView | None = None


class InspectorPane(Vertical):
    DEFAULT_CSS = """
    InspectorPane {
        split: right;
        width: 45%;
        min-width: 46;
        height: 1fr;
        border-left: tall $panel-lighten-2;
        background: $surface;
        padding-left: 1;
    }
    InspectorPane.-over { split: none; width: 1fr; border-left: none; }
    InspectorPane > #inspector-title { height: 1; background: $panel; }
    InspectorPane > Input { height: 1; border: none; padding: 0; margin: 0; }
    InspectorPane > Input:focus { border: none; background-tint: $foreground 5%; }
    InspectorPane > MessageView { display: none; }
    InspectorPane.-opened > MessageView { display: block; }
    InspectorPane.-opened > TrafficList { display: none; }
    InspectorPane.-opened > NegotiationPin { display: none; }
    """
    BINDINGS = [
        Binding("slash", "filter", "Filter"),
        Binding("i", "negotiation", "initialize"),
        Binding("c", "card", "Card"),
        Binding("s", "next_source", "Side", show=False),
    ]

    def __init__(self, sources: Sequence[TrafficSource], cover: Widget, **kwargs: str) -> None:
        super().__init__(id="inspector", **kwargs)  # type: ignore[arg-type]
        self.sources = list(sources)
        self.source_index = 0
        self.cover = cover
        """What the pane takes the place of on a narrow screen (the transcript)."""
        self.title = PaneTitle(id="inspector-title")
        self.filter = Input(placeholder="filter: method or text · tool:ID", id="inspector-filter")
        self.pin = NegotiationPin()
        self.list = TrafficList(self.source.traffic)
        self.detail = MessageView()
        self._focused_before: Widget | None = None
        self._synced: tuple[Traffic, int] | None = None

    @property
    def source(self) -> TrafficSource:
        return self.sources[self.source_index]

    def compose(self) -> ComposeResult:
        yield self.title
        yield self.filter
        yield self.pin
        yield self.list
        yield self.detail

    def on_mount(self) -> None:
        self._focused_before = self.screen.focused
        self._fit(self.app.size.width)
        self.set_interval(REFRESH_S, self.sync)
        self.sync()
        self.list.focus()

    def on_unmount(self) -> None:
        self.cover.display = True
        before = self._focused_before
        if before is not None and before.is_attached:
            self.app.call_after_refresh(before.focus)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(self.app.size.width)

    def _fit(self, columns: int) -> None:
        over = columns < MIN_BESIDE_COLUMNS
        self.set_class(over, "-over")
        self.cover.display = not over

    # -- what the store holds -----------------------------------------------------------------

    def sync(self) -> None:
        """Take in what arrived since the last tick (the timer's, or a test's); an idle tick
        touches nothing, so an open pane costs an idle app no redraw."""
        traffic = self.source.traffic
        if (traffic, traffic.total) == self._synced:
            return
        self._synced = (traffic, traffic.total)
        self.list.sync()
        negotiation = traffic.negotiation
        if (negotiation.request, negotiation.response) != (
            self.pin.negotiation.request,
            self.pin.negotiation.response,
        ):
            self.pin.show(negotiation)
        self._show_title()

    def _show_title(self) -> None:
        traffic = self.source.traffic
        title = Text(no_wrap=True, overflow="ellipsis")
        message = self.detail.message if self.has_class("-opened") else None
        if message is not None:
            title.append(f"{ARROWS[message.direction]} #{message.seq} ", style="bold")
            title.append(clean_line(message.summary.label))
            for detail in (message.summary.update, message.summary.tool_call_id):
                if detail:
                    title.append(" " + clean_line(detail))
            title.append(f" · {format_size(message.size)} · {format_gap(message.gap)}")
        else:
            title.append("Traffic", style="bold")
            if len(self.sources) > 1:
                title.append(f" · {self.source.name} (s switches)")
            title.append(f" · {traffic.total:,} messages")
            if self.filter.value.strip():
                title.append(f" · {self.list.row_count:,} shown")
            if traffic.dropped:
                title.append(f" · oldest {traffic.dropped:,} dropped", style="dim")
        self.title.show(title)

    # -- the filter -----------------------------------------------------------------------------

    @on(Input.Changed, "#inspector-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.list.set_query(Query(event.value))
        self._show_title()

    @on(Input.Submitted, "#inspector-filter")
    def _filter_submitted(self) -> None:
        self.list.focus()

    def action_filter(self) -> None:
        self.close_message()
        self.filter.focus()

    def set_filter(self, text: str) -> None:
        self.filter.value = text  # Input.Changed filters the list
        self.list.set_query(Query(text))
        self._show_title()

    # -- one message ----------------------------------------------------------------------------

    @on(TrafficList.Opened)
    def _list_opened(self, event: TrafficList.Opened) -> None:
        message = self.source.traffic.get(event.seq)
        if message is not None:
            self.open_message(message)

    @on(NegotiationPin.Opened)
    def _pin_opened(self, event: NegotiationPin.Opened) -> None:
        self.open_message(event.message)

    def open_message(self, message: WireMessage) -> None:
        self.add_class("-opened")
        self.detail.show(message)
        self.detail.focus()
        self._show_title()

    @on(MessageView.Closed)
    def close_message(self) -> None:
        if self.has_class("-opened"):
            self.remove_class("-opened")
            self.list.focus()
            self._show_title()

    def action_negotiation(self) -> None:
        self.close_message()
        self.pin.toggle()

    def action_next_source(self) -> None:
        if len(self.sources) < 2:
            return
        self.show_source((self.source_index + 1) % len(self.sources))

    def show_source(self, index: int) -> None:
        if index == self.source_index:
            return
        self.source_index = index
        self.close_message()
        self.list.traffic = self.source.traffic
        self.list.following = True
        self.list.set_query(Query(self.filter.value))
        self.pin.show(self.source.traffic.negotiation)
        self._show_title()

    # -- cards ------------------------------------------------------------------------------------

    def show_tool_call(self, tool_call_id: str, source: TrafficSource | None = None) -> None:
        """The messages that built one tool call: the list filtered to them, the first one
        under the cursor."""
        if source is not None and source in self.sources:
            self.show_source(self.sources.index(source))
        self.close_message()
        self.set_filter(TOOL_PREFIX + tool_call_id)
        seqs = self.source.traffic.for_tool_call(tool_call_id)
        if seqs:
            self.list.select(seqs[0])
        self.list.focus()

    def _selected(self) -> WireMessage | None:
        if self.has_class("-opened"):
            return self.detail.message
        seq = self.list.cursor_seq
        return None if seq is None else self.source.traffic.get(seq)

    def action_card(self) -> None:
        """From a message back to the card it built, scrolled into view and marked."""
        message = self._selected()
        tool_call_id = None if message is None else message.summary.tool_call_id
        transcript = self.source.transcript
        if tool_call_id is None or transcript is None:
            self.app.notify("This message builds no tool card.")
            return
        card = card_for(transcript, tool_call_id)
        if card is None:
            self.app.notify("Its card is not on screen (earlier entries come back with Page Up).")
            return
        if self.has_class("-over"):
            self.remove()  # the transcript comes back in its place
        mark_card(card)
        transcript.call_after_refresh(transcript.scroll_to_widget, card, animate=False, top=True)

    def source_of(self, widget: DOMNode) -> TrafficSource | None:
        for source in self.sources:
            transcript = source.transcript
            if transcript is not None and (
                widget is transcript or transcript in widget.ancestors_with_self
            ):
                return source
        return None


def mark_card(card: ToolCard) -> None:
    """Outline the card for MARK_S, so the eye finds it after the jump."""
    card.styles.outline = ("round", card.app.theme_variables.get("accent", "yellow"))
    card.set_timer(MARK_S, lambda: card.styles.clear_rule("outline"))


def card_for(transcript: ConversationView, tool_call_id: str) -> ToolCard | None:
    from tui.widgets.cards.tool_card import ToolCard

    for card in transcript.query(ToolCard):
        if card.entry.tool_call_id == tool_call_id:
            return card
    return None


def pane_of(screen: Screen[object]) -> InspectorPane | None:
    found = screen.query(InspectorPane)
    return found.first() if found else None


def toggle(screen: Screen[object], sources: Sequence[TrafficSource], cover: Widget) -> None:
    """F12: open the pane on `screen` (beside `cover`, or in its place when narrow), or close
    it. Not over a modal screen (help, the capabilities view): it would open behind it."""
    if isinstance(screen, ModalScreen):
        return
    pane = pane_of(screen)
    if pane is not None:
        pane.remove()  # focus goes back where it was
        return
    parent = cover.parent
    if isinstance(parent, Widget):
        parent.mount(InspectorPane(sources, cover), after=cover)


def follow_click(screen: Screen[object], event: events.Click) -> None:
    """A click on a tool card while the pane is open shows the messages that built it."""
    pane = pane_of(screen)
    widget = event.widget
    if pane is None or widget is None or pane in widget.ancestors_with_self:
        return
    from tui.widgets.cards.tool_card import ToolCard

    card = next((node for node in widget.ancestors_with_self if isinstance(node, ToolCard)), None)
    if card is not None:
        pane.show_tool_call(card.entry.tool_call_id, pane.source_of(card))
