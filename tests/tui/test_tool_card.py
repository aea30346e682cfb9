"""The tool card: short text shares the header's widget, long text and panels get their own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp.schema import (
    ContentToolCallContent,
    FileEditToolCallContent,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
)
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.state import Conversation
from tui.widgets.cards.text import CardText
from tui.widgets.cards.tool_card import TEXT_MAX_ROWS, ToolCard
from tui.widgets.diff.panel import DiffPanel
from tui.widgets.transcript.conversation import ConversationView


class Host(App[None]):
    """A transcript fed one tool call, `t1`, through the conversation state."""

    def __init__(self) -> None:
        super().__init__()
        self.conversation = Conversation()

    def compose(self) -> ComposeResult:
        yield ConversationView(Path("/project"))

    def start(self, **fields: Any) -> None:
        self._apply(ToolCallStart(session_update="tool_call", tool_call_id="t1", **fields))

    def update(self, **fields: Any) -> None:
        self._apply(
            ToolCallProgress(session_update="tool_call_update", tool_call_id="t1", **fields)
        )

    def _apply(self, update: ToolCallStart | ToolCallProgress) -> None:
        self.query_one(ConversationView).apply(self.conversation.apply(update))


def text(value: str) -> ContentToolCallContent:
    return ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=value))


def diff() -> FileEditToolCallContent:
    return FileEditToolCallContent(
        type="diff", path="/project/a.py", old_text="a\n", new_text="b\n"
    )


def face_text(card: ToolCard) -> str:
    """What the face shows: the card itself, or its face widget once it holds other parts."""
    faces = card.query(".card-face")
    face = faces.first() if faces else card
    return "\n".join(strip.text for strip in face.render_lines(face.region.reset_offset))


async def test_short_text_is_part_of_the_face_and_long_text_scrolls() -> None:
    app = Host()
    async with app.run_test(size=(80, 40)) as pilot:
        app.start(title="Read a.py", status="completed", content=[text("two short\nlines")])
        await pilot.pause()
        card = app.query_one(ToolCard)
        assert len(card.children) == 0
        shown = face_text(card)
        assert "Read a.py" in shown and "two short" in shown and "lines" in shown

        long = "\n".join(f"line {n}" for n in range(TEXT_MAX_ROWS + 5))
        app.update(content=[text(long)])
        await pilot.pause()
        assert len(card.children) == 2
        assert "line 0" not in face_text(card)
        assert card.query_one(".card-text").has_class("card-body")


async def test_text_stays_before_a_diff_in_content_order() -> None:
    app = Host()
    async with app.run_test(size=(80, 40)) as pilot:
        app.start(
            title="Edit a.py",
            kind="edit",
            content=[text("Renaming."), diff()],
        )
        await pilot.pause()
        card = app.query_one(ToolCard)
        assert [type(child) for child in card.children] == [Static, DiffPanel]
        assert "Renaming." in face_text(card)


async def test_clicking_the_header_collapses_the_body() -> None:
    app = Host()
    async with app.run_test(size=(80, 40)) as pilot:
        app.start(title="Read a.py", status="completed", content=[text("first\nsecond")])
        await pilot.pause()
        card = app.query_one(ToolCard)
        # Offsets count from the card's corner: its border, then one column of padding.
        # A click in the text leaves the card as it is.
        await pilot.click(card, offset=(2, 2))
        assert not card.collapsed
        await pilot.click(card, offset=(2, 1))
        await pilot.pause()
        assert card.collapsed
        shown = face_text(card)
        assert "collapsed" in shown and "first" not in shown
        await pilot.click(card, offset=(2, 1))
        await pilot.pause()
        assert not card.collapsed and "first" in face_text(card)


async def test_a_simple_card_becomes_a_container_when_a_diff_arrives() -> None:
    app = Host()
    async with app.run_test(size=(80, 40)) as pilot:
        app.start(title="Edit a.py", kind="edit", status="pending", raw_input={"path": "a.py"})
        await pilot.pause()
        card = app.query_one(ToolCard)
        assert len(card.children) == 0 and '"path"' in face_text(card)
        app.update(status="completed", content=[text("Renamed."), diff()])
        await pilot.pause()
        assert [type(child) for child in card.children] == [Static, DiffPanel]
        shown = face_text(card)
        assert "completed" in shown and "Renamed." in shown and '"path"' not in shown
        # Collapsing hides the panel and the face's text; the header stays.
        await pilot.click(card, offset=(2, 1))
        await pilot.pause()
        assert card.collapsed and not card.query_one(DiffPanel).display
        assert "Renamed." not in face_text(card)
        # Content that shrinks back to text keeps the face widget and drops the panel.
        app.update(content=[text("Undone.")])
        await pilot.pause()
        assert [type(child) for child in card.children] == [Static]


async def test_a_read_result_shows_its_lines_not_the_path_and_type_envelope() -> None:
    """The read tool's `<path>/abs/a.py</path>`, `<type>file</type>` and its note to the
    model on paging are not shown; the lines are, exactly as read (`__name__` not bold)."""
    result = (
        "<path>/project/a.py</path>\n<type>file</type>\n<content>\n"
        '1: if __name__ == "__main__":\n2:     main()\n\n'
        "(Showing lines 1-2 of 9. Use offset=3 to continue.)\n</content>"
    )
    app = Host()
    async with app.run_test(size=(80, 40)) as pilot:
        app.start(
            title="Read a.py (1 - 2)", kind="read", status="completed", content=[text(result)]
        )
        await pilot.pause()
        shown = face_text(app.query_one(ToolCard))
        assert "/project/a.py" not in shown and "file" not in shown.split("\n")
        assert '1: if __name__ == "__main__":' in shown
        assert "(Showing lines 1-2 of 9.)" in shown and "offset" not in shown


async def test_long_command_output_opens_at_its_end_and_the_start_is_a_click_away() -> None:
    """A console fallback longer than the card shows its last lines (the exit code) first,
    as a terminal pane does; a click on the line under it goes to the start and back."""
    output = "\n".join(str(n) for n in range(1, 201)) + "\n[exit code: 3]"
    app = Host()
    async with app.run_test(size=(80, 50)) as pilot:
        app.start(title="seq 1 200", kind="execute", status="completed", content=[text(output)])
        await pilot.pause()
        await pilot.pause()
        part = app.query_one(CardText)
        scroll = part.query_one(VerticalScroll)
        assert scroll.scroll_y == scroll.max_scroll_y > 0
        where = part.query_one(".card-text--where", Static)
        assert "showing the end" in str(where.render())
        await pilot.click(where)
        await pilot.pause()
        assert scroll.scroll_y == 0 and "showing the start" in str(where.render())
        await pilot.click(where)
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y


async def test_long_text_that_is_not_command_output_opens_at_its_start() -> None:
    app = Host()
    async with app.run_test(size=(80, 50)) as pilot:
        long = "\n".join(f"line {n}" for n in range(60))
        app.start(title="Fetch notes", kind="fetch", status="completed", content=[text(long)])
        await pilot.pause()
        await pilot.pause()
        scroll = app.query_one(CardText).query_one(VerticalScroll)
        assert scroll.scroll_y == 0 and scroll.max_scroll_y > 0
