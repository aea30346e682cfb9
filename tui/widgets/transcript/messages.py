"""Transcript blocks for user prompts, streamed agent Markdown, and thoughts."""

from __future__ import annotations

import asyncio

from textual.await_complete import AwaitComplete
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets.markdown import MarkdownStream

from tui.sanitize import clean_prose, sanitize_text

FRAME_S = 1 / 30

# Markdown re-parses and re-renders the message's last block on every append, so one long
# paragraph makes each append cost its whole length. Past this many
# characters the rest of a message is shown as plain text, in pieces of PLAIN_PIECE_CHARS of
# which only the last one is redrawn; normal replies stay far below it and render as before.
MARKDOWN_MAX_CHARS = 64_000
PLAIN_PIECE_CHARS = 16_000
# A message past this is cut on screen, with a marker, and its last TAIL_CHARS characters
# shown after the marker (the agent's last words); the state keeps all of it, and the
# palette opens it whole in a pager or saves it (tui/message_export.py).
DISPLAY_MAX_CHARS = 1_000_000
TAIL_CHARS = PLAIN_PIECE_CHARS


class PlainBlock(Static):
    """A piece of a message too long for Markdown: plain text, no markup."""

    DEFAULT_CSS = """
    PlainBlock { height: auto; }
    PlainBlock.-truncated { color: $text-muted; text-style: italic; margin: 1 0 0 0; }
    """


class StreamingMarkdown(Markdown):
    """Markdown fed through Textual's `MarkdownStream`, which joins the chunks that arrive while
    an append is drawn, so a fast stream costs one re-render per batch, not one per chunk.

    Each append re-parses the message's last block, so one long paragraph would cost its whole
    length per batch. The stream's appends therefore land in `append`
    below, which hands only the first MARKDOWN_MAX_CHARS characters to the Markdown parser,
    shows the rest as plain pieces and cuts the display at DISPLAY_MAX_CHARS: the cost of a
    batch is bounded by the batch, and a 60 MB chunk or 100,000 small ones keep the event
    loop (and quit) responsive.
    """

    def __init__(self, text: str = "", **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self._stream: MarkdownStream | None = None
        self._unsent: list[str] = [text] if text else []
        self._feeding = False
        self._written = 0  # characters handed to the stream
        self._taken = 0  # characters the stream handed back to `append` (shown, plain or cut)
        self._drawn = 0  # characters whose append has finished
        self._closed = False
        self._plain: list[str] = []  # the text of each plain piece, in order
        self._plain_block: PlainBlock | None = None
        self._marker: PlainBlock | None = None
        self._beyond = 0  # characters past DISPLAY_MAX_CHARS
        self._tail = ""  # the last TAIL_CHARS of them, shown after the marker
        self._tail_block: PlainBlock | None = None

    def on_mount(self) -> None:
        # Markdown's own mount handler has drawn the empty document by now; a chunk that
        # arrived before this handler waits in `_unsent` until here.
        self._stream = self.get_stream(self)
        if self._unsent:
            self._schedule()

    async def on_unmount(self) -> None:
        # The stream's task holds this widget: end it with the widget (a pruned message).
        self._closed = True
        if self._stream is not None:
            await self._stream.stop()

    def add_text(self, text: str) -> None:
        self._unsent.append(text)
        if self._stream is not None:
            self._schedule()

    def _schedule(self) -> None:
        if not self._feeding:
            self._feeding = True
            self.call_later(self._feed)

    async def _feed(self) -> None:
        """Hand everything added since the last feed to the stream in one write."""
        self._feeding = False
        text = "".join(self._unsent)
        self._unsent.clear()
        if text and self._stream is not None and not self._closed:
            self._written += len(text)
            await self._stream.write(text)

    def append(self, markdown: str) -> AwaitComplete:
        """Take one batch from the stream: Markdown, plain pieces or the cut."""
        return AwaitComplete(self._show(markdown))

    async def _show(self, batch: str) -> None:
        """Split a batch between Markdown, plain pieces and the cut; the text was made safe where
        it entered (tui/agent_text.py)."""
        if self._closed:
            return
        start = self._taken
        self._taken += len(batch)
        size = len(batch)
        markdown_max = min(MARKDOWN_MAX_CHARS, DISPLAY_MAX_CHARS)
        if start < markdown_max:
            head = batch[: markdown_max - start]
            await super().append(head)
            batch, start = batch[len(head) :], start + len(head)
        if batch and start < DISPLAY_MAX_CHARS:
            shown = batch[: DISPLAY_MAX_CHARS - start]
            await self._add_plain(shown)
            batch = batch[len(shown) :]
        if batch:
            await self._add_tail(batch)
        self._drawn += size
        if self._drawn < self._written:
            # More is waiting: a frame's pause lets the stream's next batch grow, and each
            # append re-renders the last block, so fewer, larger appends keep a fast stream cheap.
            await asyncio.sleep(FRAME_S)

    async def _add_plain(self, text: str) -> None:
        """Fill the last plain piece, then start new ones: a redraw costs one piece at most."""
        while text:
            if not self.is_attached:
                return  # removed while streaming (a quit, a new session): nothing to show on
            if not self._plain or len(self._plain[-1]) >= PLAIN_PIECE_CHARS:
                self._plain.append("")
                self._plain_block = PlainBlock(markup=False)
                await self.mount(self._plain_block)
            room = PLAIN_PIECE_CHARS - len(self._plain[-1])
            self._plain[-1] += text[:room]
            text = text[room:]
            assert self._plain_block is not None
            self._plain_block.update(self._plain[-1])

    async def _add_tail(self, text: str) -> None:
        """Past the cut: the end of the message, after a marker counting what is between.
        A redraw costs the tail's length at most, however long the message grows."""
        if not self.is_attached:
            return
        self._beyond += len(text)
        self._tail = (self._tail + text[-TAIL_CHARS:])[-TAIL_CHARS:]
        hidden = self._beyond - len(self._tail)
        if self._tail_block is None:
            self._tail_block = PlainBlock(self._tail, markup=False)
            await self.mount(self._tail_block)
        else:
            self._tail_block.update(self._tail)
        if hidden > 0:
            await self._mark_truncated(hidden)

    async def _mark_truncated(self, hidden: int) -> None:
        note = (
            f"[message cut here on screen: {hidden:,} characters are not shown; its end "
            'follows. Ctrl+P "Open message in pager" shows it whole]'
        )
        if self._marker is None and self.is_attached:
            self._marker = PlainBlock(note, markup=False, classes="-truncated")
            await self.mount(self._marker, before=self._tail_block)
        elif self._marker is not None:
            self._marker.update(note)

    @property
    def truncated(self) -> bool:
        """Whether part of the message is not shown (the marker says how much)."""
        return self._marker is not None

    @property
    def is_streaming(self) -> bool:
        """Whether text was added that is not drawn yet."""
        return bool(self._unsent) or self._drawn < self._written


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
        self._chunks = [text]
        self._dirty = False
        self._refresh_text()

    def add_text(self, text: str) -> None:
        """Redrawn once per batch of chunks, not once per chunk: a replayed prompt can come in
        thousands of chunks, and each redraw sanitises the whole text."""
        self._chunks.append(text)
        if not self._dirty:
            self._dirty = True
            self.call_later(self._refresh_text)

    def _refresh_text(self) -> None:
        self._dirty = False
        text = "".join(self._chunks)
        self._chunks = [text]
        shown = clean_prose(text[:DISPLAY_MAX_CHARS])
        hidden = len(text) - DISPLAY_MAX_CHARS - TAIL_CHARS
        if hidden > 0:
            shown += f"\n[cut here on screen: {hidden:,} characters; its end follows]\n"
        if len(text) > DISPLAY_MAX_CHARS:
            shown += clean_prose(text[max(DISPLAY_MAX_CHARS, len(text) - TAIL_CHARS) :])
        self.update("› " + shown)


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
