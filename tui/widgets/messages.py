"""Transcript blocks for user prompts, streamed agent Markdown, and thoughts."""

from __future__ import annotations

import asyncio

from textual.widgets import Collapsible, Markdown, Static

from tui.sanitize import sanitize_text

FRAME_S = 1 / 30


class StreamingMarkdown(Markdown):
    """Markdown that batches streamed chunks: one re-render per flush, never one per chunk."""

    def __init__(self, text: str = "", **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self._pending: list[str] = [text] if text else []
        self._flushing = False
        self._ready = False

    def on_mount(self) -> None:
        # `is_mounted` turns true only after this handler; a chunk arriving in between
        # must still be flushed, so readiness is tracked here.
        self._ready = True
        if self._pending:
            self._schedule()

    def add_text(self, text: str) -> None:
        self._pending.append(text)
        if self._ready:
            self._schedule()

    def _schedule(self) -> None:
        if not self._flushing:
            self._flushing = True
            self.call_later(self._flush)

    async def _flush(self) -> None:
        """Append everything pending, then wait a frame so the next batch is bigger: each
        append re-renders the last block, so fewer, larger appends keep a fast stream cheap."""
        try:
            while self._pending:
                batch = sanitize_text("".join(self._pending))
                self._pending.clear()
                await self.append(batch)
                if self._pending:
                    await asyncio.sleep(FRAME_S)
        finally:
            self._flushing = False

    @property
    def is_streaming(self) -> bool:
        return self._flushing or bool(self._pending)


class UserMessage(Static):
    DEFAULT_CSS = """
    UserMessage {
        margin: 1 0 0 0;
        padding: 0 1;
        color: $text;
        background: $boost;
        border-left: outer $primary;
    }
    """

    def __init__(self, text: str) -> None:
        super().__init__(markup=False)
        self._text = text
        self._refresh_text()

    def add_text(self, text: str) -> None:
        self._text += text
        self._refresh_text()

    def _refresh_text(self) -> None:
        self.update("› " + sanitize_text(self._text))


class AgentMessage(StreamingMarkdown):
    DEFAULT_CSS = """
    AgentMessage {
        margin: 1 0 0 0;
        padding: 0 1;
        background: transparent;
    }
    AgentMessage > MarkdownBlock:last-child { margin-bottom: 0; }
    """


class ThoughtMessage(Collapsible):
    """A thought: dim and collapsed, so reasoning is available without crowding the reply."""

    DEFAULT_CSS = """
    ThoughtMessage {
        margin: 1 0 0 0;
        padding: 0;
        border: none;
        background: transparent;
        color: $text-muted;
    }
    ThoughtMessage StreamingMarkdown { color: $text-muted; background: transparent; }
    /* Collapsed, only the title shows. Said outright: an auto height was sometimes left
       too tall after the hidden body grew while streaming, which moved the whole view. */
    ThoughtMessage.-collapsed { height: 1; }
    """

    def __init__(self, text: str) -> None:
        self._body = StreamingMarkdown(text)
        # Collapsed from the first layout: Collapsible sets its class only once mounted, and a
        # layout in between measured the hidden body.
        super().__init__(self._body, title="thought", collapsed=True, classes="-collapsed")

    def add_text(self, text: str) -> None:
        self._body.add_text(text)


class Notice(Static):
    DEFAULT_CSS = """
    Notice { margin: 1 0 0 0; padding: 0 1; color: $text-muted; }
    Notice.-warning { color: $warning; }
    Notice.-error { color: $error; }
    """

    def __init__(self, text: str, level: str) -> None:
        super().__init__(sanitize_text(text), markup=False, classes=f"-{level}")
