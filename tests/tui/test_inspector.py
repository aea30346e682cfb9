"""The inspector pane in a host app: the list follows the wire, Enter opens a message, the
filter narrows, a card click jumps to the messages that built it and `c` goes back."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from acp.schema import ToolCallStart
from textual.app import App, ComposeResult
from textual.events import Click
from textual.widgets import Footer, Static

from support import wait_until
from tui.demo import DemoApp
from tui.inspector.json_view import DISPLAY_BYTES
from tui.inspector.negotiation import negotiation_table
from tui.inspector.traffic import Traffic
from tui.state import Conversation
from tui.widgets.cards.tool_card import ToolCard
from tui.widgets.inspector import panel as inspector
from tui.widgets.inspector.detail import MessageView, wrap_offsets
from tui.widgets.inspector.message_list import TrafficList
from tui.widgets.inspector.panel import InspectorPane, TrafficSource
from tui.widgets.transcript.conversation import ConversationView


def line(message: Any) -> bytes:
    return (json.dumps(message, separators=(",", ":")) + "\n").encode()


def update(update_kind: str, **fields: Any) -> bytes:
    params = {"sessionId": "s1", "update": {"sessionUpdate": update_kind, **fields}}
    return line({"jsonrpc": "2.0", "method": "session/update", "params": params})


def chunk(text: str) -> bytes:
    return update("agent_message_chunk", content={"type": "text", "text": text})


class Host(App[None]):
    """A transcript, and the pane's two host hooks, as the app wires them."""

    CSS = "Screen { layout: vertical; }"

    def __init__(self) -> None:
        super().__init__()
        clock = itertools.count(0, 0.004)
        self.traffic = Traffic(clock=lambda: next(clock))
        self.view = ConversationView(Path("/project"), id="conversation")
        self.conversation = Conversation()

    def compose(self) -> ComposeResult:
        yield Static("header")
        yield self.view
        yield Footer()

    def toggle(self) -> None:
        inspector.toggle(self.screen, [TrafficSource("s", self.traffic, self.view)], self.view)

    def on_click(self, event: Click) -> None:
        inspector.follow_click(self.screen, event)

    def add_card(self, tool_call_id: str) -> None:
        start = ToolCallStart(session_update="tool_call", tool_call_id=tool_call_id, title="Read")
        self.view.apply(self.conversation.apply(start))
        self.traffic.line_in(update("tool_call", toolCallId=tool_call_id, title="Read"), True)


async def opened(app: Host, pilot: Any) -> InspectorPane:
    app.toggle()
    await pilot.pause()
    return app.query_one(InspectorPane)


async def test_the_list_follows_what_arrives_and_enter_opens_a_message() -> None:
    app = Host()
    async with app.run_test(size=(140, 30)) as pilot:
        pane = await opened(app, pilot)
        listing = pane.query_one(TrafficList)
        assert listing.row_count == 0 and listing.has_focus
        for index in range(100):
            app.traffic.line_in(chunk(f"w{index}"), True)
        pane.sync()
        await pilot.pause()
        assert listing.row_count == 100 and listing.cursor_seq == 100
        # The list scrolls to its end once its new height is laid out: a frame or a few.
        await wait_until(pilot, lambda: 0 < listing.max_scroll_y == listing.scroll_y)
        await pilot.press("up", "up")
        assert listing.cursor_seq == 98 and not listing.following
        app.traffic.line_in(chunk("more"), True)
        pane.sync()
        assert listing.cursor_seq == 98  # moved away: the cursor stays where the user put it
        await pilot.press("enter")
        detail = pane.query_one(MessageView)
        assert detail.display and detail.has_focus and detail.message is not None
        assert detail.message.seq == 98
        assert '        "text": "w97"' in detail.plain_lines()
        await pilot.press("escape")
        assert not detail.display and listing.has_focus


async def test_a_following_list_keeps_its_end_in_view_when_its_height_changes() -> None:
    app = Host()
    async with app.run_test(size=(140, 40)) as pilot:
        pane = await opened(app, pilot)
        listing = pane.query_one(TrafficList)
        for index in range(100):
            app.traffic.line_in(chunk(f"w{index}"), True)
        pane.sync()
        await wait_until(pilot, lambda: 0 < listing.max_scroll_y == listing.scroll_y)
        tall = listing.max_scroll_y
        await pilot.resize_terminal(140, 24)
        await wait_until(pilot, lambda: listing.max_scroll_y > tall)
        await wait_until(pilot, lambda: listing.scroll_y == listing.max_scroll_y)
        assert listing.following and listing.cursor_seq == 100


async def test_the_filter_narrows_by_method_and_text() -> None:
    app = Host()
    async with app.run_test(size=(140, 30)) as pilot:
        pane = await opened(app, pilot)
        prompt = {"sessionId": "s1", "prompt": [{"type": "text", "text": "hello"}]}
        app.traffic.line_out(
            line({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": prompt})
        )
        for index in range(10):
            app.traffic.line_in(chunk(f"w{index}"), True)
        await pilot.press("slash")
        await pilot.press(*"prompt")
        listing = pane.query_one(TrafficList)
        assert listing.row_count == 1 and listing.seq_at(0) == 1
        pane.set_filter("w7")
        assert [listing.seq_at(row) for row in range(listing.row_count)] == [9]
        app.traffic.line_in(chunk("w7 again"), True)
        pane.sync()
        assert listing.row_count == 2  # what arrives later is filtered too


async def test_a_card_click_shows_its_messages_and_c_goes_back_to_it() -> None:
    app = Host()
    async with app.run_test(size=(140, 30)) as pilot:
        app.add_card("c1")
        app.traffic.line_in(chunk("between"), True)
        app.add_card("c2")
        app.traffic.line_in(update("tool_call_update", toolCallId="c1", status="completed"), True)
        await pilot.pause()
        pane = await opened(app, pilot)
        card = next(c for c in app.query(ToolCard) if c.entry.tool_call_id == "c1")
        await pilot.click(card)
        listing = pane.query_one(TrafficList)
        assert pane.filter.value == "tool:c1"
        assert [listing.seq_at(row) for row in range(listing.row_count)] == [1, 4]
        assert listing.cursor_seq == 1 and listing.has_focus
        await pilot.press("down", "c")
        await pilot.pause()
        assert card.styles.outline.top[0] == "round"  # marked where the eye lands
        other = next(c for c in app.query(ToolCard) if c.entry.tool_call_id == "c2")
        assert other.styles.outline.top[0] == ""


async def test_over_the_transcript_on_a_narrow_screen_and_back() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await opened(app, pilot)
        assert pane.has_class("-over") and not app.view.display
        assert pane.region.width == 80
        app.toggle()
        await pilot.pause()
        assert not app.query(InspectorPane) and app.view.display
    app = Host()
    async with app.run_test(size=(140, 30)) as pilot:
        pane = await opened(app, pilot)
        assert not pane.has_class("-over") and app.view.display
        assert app.view.region.right <= pane.region.x  # beside it


async def test_a_60_mb_message_opens_from_its_first_256_kb() -> None:
    app = Host()
    async with app.run_test(size=(140, 30)) as pilot:
        big = chunk("lorem ipsum " * 5_000_000)
        app.traffic.line_in(big, True)
        pane = await opened(app, pilot)
        await pilot.press("enter")
        detail = pane.query_one(MessageView)
        lines = detail.plain_lines()
        assert sum(len(text) for text in lines) < DISPLAY_BYTES + 1_000
        assert lines[-1].startswith("… 57.") and lines[-1].endswith("more, truncated for display")
        # The long string wraps at the view's width: rows, not one line 256 KB wide.
        assert detail.row_count > DISPLAY_BYTES // detail.size.width
        assert detail.virtual_size.width <= detail.size.width


def test_wrapping_counts_cells() -> None:
    assert wrap_offsets("abcdefg", 3) == [0, 3, 6]
    assert wrap_offsets("日本語です", 4) == [0, 2, 4]
    assert wrap_offsets("", 5) == [0]


async def test_the_demo_inspects_either_side(tmp_path: Path) -> None:
    """`dsh-tui demo`: F12 shows the left side's wire, `s` the right's; each negotiated its
    own terminal capability, and a click on a right-hand card switches to that side."""
    app = DemoApp(root=tmp_path / "demo", log_dir=tmp_path / "logs")
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: all(side.turn_done for side in app.sides), timeout=60)
        await pilot.press("f12")
        await pilot.pause()
        pane = app.query_one(InspectorPane)
        left, right = app.sides

        def offered_terminal() -> str | None:
            rows = negotiation_table(pane.source.traffic.negotiation).rows
            return next((row.offered for row in rows if row.path == "_meta.terminal_output"), None)

        assert pane.source.traffic is left.controller.traffic
        assert offered_terminal() == "true"
        assert pane.list.row_count == len(left.controller.traffic) > 10
        await pilot.press("s")
        assert pane.source.traffic is right.controller.traffic and offered_terminal() == "false"
        await pilot.press("s")
        card = list(right.query(ToolCard))[-1]  # the transcript followed its end
        await pilot.click(card)  # on its border: selects it without folding it
        assert pane.source.traffic is right.controller.traffic
        assert pane.filter.value == f"tool:{card.entry.tool_call_id}" and pane.list.row_count >= 1
        await app.action_quit()


async def test_a_replay_is_inspected_as_a_live_session_is(tmp_path: Path) -> None:
    """`dsh-tui replay` plays the bundled demo recording through the same connection: F12
    lists its wire, the initialize pair pinned, and the demo's tool calls under their ids."""
    from tui.replay.app import replay_app

    recording = Path(__file__).parents[2] / "tui" / "replay" / "recordings"
    app = replay_app(recording / "demo-terminal-on.jsonl", speed=0, log_dir=tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_until(pilot, lambda: app.replay.agent.finished, timeout=60)
        await pilot.press("f12")
        await pilot.pause()
        pane = app.query_one(InspectorPane)
        traffic = app.controller.traffic
        assert pane.list.row_count == len(traffic) > 10
        assert traffic.negotiation.request is not None and traffic.negotiation.response
        labels = {message.summary.label for message in traffic.since(1)}
        assert {"initialize", "session/new", "session/prompt", "session/update"} <= labels
        tool_calls = {m.summary.tool_call_id for m in traffic.since(1)} - {None}
        assert tool_calls and all(traffic.for_tool_call(call) for call in tool_calls)
        await app.action_quit()


async def test_c_over_the_transcript_closes_the_pane_on_the_card() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        app.add_card("c1")
        await pilot.pause()
        pane = await opened(app, pilot)
        assert pane.has_class("-over") and not app.view.display
        await pilot.press("c")  # the cursor is on the newest message: c1's tool_call
        await pilot.pause()
        assert not app.query(InspectorPane) and app.view.display
        card = app.query_one(ToolCard)
        assert card.styles.outline.top[0] == "round"
