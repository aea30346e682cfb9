"""Streamed messages: chunks reach Textual's MarkdownStream in batches, text sent before the
widget is mounted is shown once it is, and a removed message ends its stream."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from support import shown_text, wait_until
from tui.widgets.transcript.messages import AgentMessage, StreamingMarkdown, ThoughtMessage


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield VerticalScroll()


def stream_tasks() -> list[asyncio.Task[object]]:
    """The running tasks of Textual's MarkdownStream (one per streamed message)."""
    return [
        task
        for task in asyncio.all_tasks()
        if not task.done() and "MarkdownStream._run" in repr(task.get_coro())
    ]


async def test_a_burst_of_chunks_is_drawn_in_a_few_appends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A thousand chunks added at once cost one Markdown append or so, not a thousand."""
    appended: list[str] = []
    draw = Markdown.append

    def counting(widget: Markdown, markdown: str) -> object:
        appended.append(markdown)
        return draw(widget, markdown)

    app = Host()
    async with app.run_test() as pilot:
        message = AgentMessage("start ")
        await app.query_one(VerticalScroll).mount(message)
        await wait_until(pilot, lambda: not message.is_streaming)
        monkeypatch.setattr(Markdown, "append", counting)
        for index in range(1000):
            message.add_text(f"w{index} ")
        assert message.is_streaming
        await wait_until(pilot, lambda: not message.is_streaming)
        expected = "start " + "".join(f"w{index} " for index in range(1000))
        assert message.source == expected == shown_text(message)
        assert 1 <= len(appended) <= 3


async def test_text_added_before_mounting_is_shown_and_thoughts_stay_collapsed() -> None:
    app = Host()
    async with app.run_test() as pilot:
        thought = ThoughtMessage("thinking ")
        thought.add_text("**hard**")
        await app.query_one(VerticalScroll).mount(thought)
        body = thought.query_one(StreamingMarkdown)
        await wait_until(pilot, lambda: body.source == "thinking **hard**")
        await pilot.pause()
        assert thought.collapsed and thought.size.height == 1


async def test_a_removed_message_ends_its_stream() -> None:
    app = Host()
    async with app.run_test() as pilot:
        before = len(stream_tasks())
        message = AgentMessage("some text")
        await app.query_one(VerticalScroll).mount(message)
        await wait_until(pilot, lambda: not message.is_streaming)
        assert len(stream_tasks()) == before + 1
        message.add_text(" and more, removed before it is drawn")
        await message.remove()
        await wait_until(pilot, lambda: len(stream_tasks()) == before)


async def test_a_huge_prompt_shows_its_head_and_its_end(monkeypatch: pytest.MonkeyPatch) -> None:
    from tui.widgets.transcript import messages

    monkeypatch.setattr(messages, "DISPLAY_MAX_CHARS", 100)
    monkeypatch.setattr(messages, "TAIL_CHARS", 10)
    app = Host()
    async with app.run_test() as pilot:
        prompt = messages.UserMessage("h" * 100 + "m" * 50 + "the end!")
        await app.query_one(VerticalScroll).mount(prompt)
        await pilot.pause()
        shown = str(prompt.render())
        assert shown.startswith("› " + "h" * 100)
        assert "[cut here on screen: 48 characters; its end follows]" in shown
        assert shown.endswith("mmthe end!")
