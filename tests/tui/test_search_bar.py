"""The search bar's query, as keys reach it: refining after stepping keeps what was typed."""

from __future__ import annotations

from pathlib import Path

from acp.schema import AgentMessageChunk, TextContentBlock
from textual.app import App, ComposeResult
from textual.widgets import Input

from tui.state import Conversation
from tui.widgets.transcript.conversation import ConversationView
from tui.widgets.transcript.search_bar import SearchBar


def reply(text: str) -> AgentMessageChunk:
    return AgentMessageChunk(
        session_update="agent_message_chunk", content=TextContentBlock(type="text", text=text)
    )


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.conversation = Conversation()

    def compose(self) -> ComposeResult:
        view = ConversationView(Path("/project"))
        yield view
        yield SearchBar(view, lambda: self.conversation.entries)


async def test_a_letter_after_stepping_refines_the_query_without_replacing_it() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        view, bar = app.query_one(ConversationView), app.query_one(SearchBar)
        view.apply(app.conversation.apply(reply("COPIED-OUTPUT once\n\nCOPIED-OUTPUT twice")))
        bar.focus_query()
        await pilot.press(*"COPIED", "enter")
        assert app.focused is bar and len(bar.results.matches) == 2
        await pilot.press(*"-OUT")
        query = bar.query_one(Input)
        assert app.focused is query
        assert query.value == "COPIED-OUT"
        assert query.selection.is_empty and query.cursor_position == len(query.value)

        bar.focus_query(select=True)  # Ctrl+F again: typing starts a new query
        await pilot.pause()
        await pilot.press("x")
        assert query.value == "x"
