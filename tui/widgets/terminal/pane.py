"""The terminal pane: one command's output inside its tool-call card, live, between a header
(prompt line, cwd, status, duration) and an info line (tui/widgets/terminal/header.py).

Design choices, each for a 10 MB burst that must not freeze the app:

* Output arrives in the `TerminalFeed` of the source it follows (tui/terminal/source.py), a spec
  or a display terminal alike. It goes through `TerminalScreenBuffer`
  (SGR kept, CR overwrites, every other escape dropped), so nothing raw reaches the user's
  terminal; the buffer keeps about `max_chars` of text and drops from the head.
* The body is a Line API view over the buffer's lines (tui/widgets/terminal/view.py).
* A big append is parsed by a worker in slices of a few milliseconds, yielding to the event loop
  in between, so key presses are handled during a 10 MB burst. A burst bigger than `max_chars`
  is only parsed from where its retained tail starts. Small appends are parsed at once.
* Tail-follow uses Textual's anchor: the view sticks to the bottom until the user scrolls up,
  and sticks again once they scroll back down.
* The pane has no timer: the spinner advances on the transcript's one tick (`tick`), which runs
  only while the app animates; durations come from an injectable clock, so snapshots are
  deterministic.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from tui.glyphs import ASCII_GLYPHS, UNICODE_GLYPHS
from tui.terminal.labels import display_cwd, format_bytes, format_duration, signal_name
from tui.terminal.source import TerminalEnd, TerminalSource
from tui.terminal.status import RUNNING, PaneStatus, exited
from tui.widgets.terminal.header import command_content, info_text, status_content
from tui.widgets.terminal.view import TerminalOutputView

__all__ = [
    "TerminalOutputView",
    "TerminalPane",
    "display_cwd",
    "format_bytes",
    "format_duration",
    "signal_name",
]

# Appends up to this size, with nothing queued, are parsed at once; bigger ones go to the worker.
_SYNC_CHARS = 64 * 1024
# The worker parses slices of about this size (cut after an LF when one is near)...
_SLICE_CHARS = 64 * 1024
# ...and yields to the event loop once this much time has passed, so keys are still handled.
_SLICE_BUDGET_S = 0.008
# A key press travels through a few message pumps (driver, app, screen, bindings), one event
# loop iteration each: yielding for several iterations lets it through in one pause.
_YIELDS = 4
# While a burst is parsed, show progress at most this often (each one is a layout and a paint).
_PUBLISH_INTERVAL_S = 0.25
# Streamed deltas are shown at most this often.
_STREAM_INTERVAL_S = 1 / 30


class TerminalPane(Vertical):
    """A command's output with its prompt line, cwd, duration and exit badge.

    It follows its `source` (tui/terminal/source.py), a spec or a display terminal alike: its
    output, command line, cwd, timing and exit; `command` is the prompt line until the source
    names one. Its one `status` (tui/terminal/status.py) says what the header shows;
    `set_status` gives it the card's.
    The clock (seconds, `time.monotonic` by default) times the command from construction, or
    from `started_at`, to its exit; `agent_durations` lets a source's own measure of the run
    (`TerminalEnd.duration_s`) stand instead. `max_rows` caps the output's height (it scrolls
    inside); the source's feed bounds the text kept. `busy` says whether output is still on
    its way to the screen. CSS hooks: `-exited` and `-failed` classes on the pane.
    """

    DEFAULT_CSS = """
    TerminalPane {
        height: auto;
        width: 1fr;
        layout: vertical;
    }
    TerminalPane > .terminal-pane--header {
        height: 1;
        width: 1fr;
    }
    TerminalPane .terminal-pane--command {
        width: 1fr;
        height: 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    TerminalPane .terminal-pane--status {
        width: auto;
        height: 1;
        padding-left: 2;
    }
    TerminalPane > .terminal-pane--info {
        height: 1;
        width: 1fr;
        color: $text-muted;
    }
    """

    def __init__(
        self,
        source: TerminalSource,
        *,
        command: str | None = None,
        session_cwd: Path | str,
        clock: Callable[[], float] = time.monotonic,
        started_at: float | None = None,
        max_rows: int = 15,
        ascii_glyphs: bool = False,
        agent_durations: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.terminal_id = source.terminal_id
        self._command = command
        self._cwd: str | None = None
        self.session_cwd = Path(session_cwd)
        self._clock = clock
        self.started_at = clock() if started_at is None else started_at
        self.finished_at: float | None = None
        self.max_rows = max_rows
        self.glyphs = ASCII_GLYPHS if ascii_glyphs else UNICODE_GLYPHS
        self.spinner_frame = 0
        self.status = RUNNING  # tui/terminal/status.py: the header's words come from it
        self.agent_kept: tuple[int, str] | None = None  # bytes the agent kept, of what
        self.source = source
        self.agent_durations = agent_durations
        self._feed = source.output
        self._buffer = self._feed.buffer
        self._stop_listening = self._feed.listen(self._on_output)
        self._draining = False
        self._publish_scheduled = False
        self._last_publish = 0.0
        self._live = False  # mounted (`is_mounted` only turns true after `on_mount`)
        self._command_label = Static(classes="terminal-pane--command", markup=False)
        self._status_label = Static(classes="terminal-pane--status", markup=False)
        self._view = TerminalOutputView(self._buffer)
        self._view.styles.max_height = max_rows
        self._info_label = Static(classes="terminal-pane--info", markup=False)
        self._unwatch: Callable[[], None] | None = source.watch(self._source_changed)
        self._source_changed()
        if self.output_queued:
            self._on_output()  # what came before the pane: a little is parsed at once

    # ------------------------------------------------------------------------------ public API
    @property
    def command(self) -> str | None:
        return self._command

    @property
    def cwd(self) -> str | None:
        return self._cwd

    @property
    def view(self) -> TerminalOutputView:
        """The scrolling output rows."""
        return self._view

    @property
    def line_count(self) -> int:
        """Lines of output so far, including those dropped from the head."""
        return self._buffer.dropped_lines + self._view.line_count

    @property
    def dropped_lines(self) -> int:
        """Lines dropped from the head to stay within `max_chars`."""
        return self._buffer.dropped_lines

    @property
    def truncated(self) -> bool:
        """Whether lines were dropped from the head to stay within `max_chars`."""
        return self._buffer.truncated

    @property
    def received_bytes(self) -> int:
        """The UTF-8 size of all output received."""
        return self._feed.received_bytes

    @property
    def duration(self) -> float:
        """Seconds from start to exit (or to now while running), from the clock."""
        end = self.finished_at if self.finished_at is not None else self._clock()
        return max(0.0, end - self.started_at)

    @property
    def exited(self) -> bool:
        """Whether the command exited with a status (`status.exited`)."""
        return self.status.exited

    @property
    def running(self) -> bool:
        """Whether the clock runs: neither exited, settled nor waiting for approval."""
        return self.status.running

    @property
    def output_queued(self) -> bool:
        """Whether output arrived that is not parsed yet."""
        return self._feed.queued_chars > 0

    @property
    def busy(self) -> bool:
        """Whether output that arrived is still waiting to be parsed or shown."""
        return self.output_queued or self._draining or self._publish_scheduled

    def tick(self, frame: int) -> None:
        """Advance the running spinner: called on the transcript's one tick, never a timer of
        the pane's own."""
        if self.running and frame != self.spinner_frame:
            self.spinner_frame = frame
            if self._live:
                self._status_label.update(status_content(self))

    def set_status(self, status: PaneStatus) -> None:
        """Show `status` (tui/terminal/status.py), e.g. the card's: waiting is not running, so
        the clock starts when a question is answered, and stops when the command ends."""
        previous = self.status
        if status == previous:
            return
        self.status = status
        if previous.phase == "awaiting" and status.running:
            self.started_at = self._clock()
        if status.ended and not previous.ended:
            self.finished_at = self._clock()
        if self._live:
            self._refresh_header()

    def _set_agent_kept(self, kept: tuple[int, str] | None) -> None:
        """The agent sent the model only the last `kept[0]` bytes of `kept[1]` (`stdout`)."""
        if kept != self.agent_kept:
            self.agent_kept = kept
            if self._live:
                self._refresh_info()

    def _set_exit(
        self,
        exit_code: int | None,
        signal: str | None = None,
        timed_out_after_s: float | None = None,
        *,
        finished_at: float | None = None,
    ) -> None:
        """End the command: `✓ exit 0`, `✕ exit N`, `✕ killed by SIGNAL` or `✕ timed out
        after N s` (which wins, since a timeout ends with a kill). `finished_at` defaults to
        the clock's now."""
        self.status = exited(TerminalEnd(exit_code, signal, timed_out_after_s))
        if self.finished_at is None or finished_at is not None:
            self.finished_at = self._clock() if finished_at is None else finished_at
        self.set_class(True, "-exited")
        self.set_class(self.status.failed, "-failed")
        if self._live:
            self._refresh_header()
            self._refresh_info()

    def _set_command(self, command: str | None, cwd: str | None = None) -> None:
        """Set the prompt line (and the cwd, unless None)."""
        self._command = command
        if cwd is not None:
            self._cwd = cwd
        if self._live:
            self._refresh_header()

    # ------------------------------------------------------------------------------ the source
    def _source_changed(self) -> None:
        """Take what the source says now: command line, cwd, start, agent note and exit."""
        facts = self.source.facts()
        if facts.command is not None or facts.cwd is not None:
            self._set_command(facts.command or self._command, facts.cwd)
        if facts.started_at is not None:
            self.started_at = facts.started_at
        self._set_agent_kept(facts.agent_kept)
        end = facts.end
        if end is None or self.exited:
            return
        finished = end.finished_at
        if self.agent_durations and end.duration_s is not None:
            finished = self.started_at + end.duration_s
        self._set_exit(end.exit_code, end.signal, end.timed_out_after_s, finished_at=finished)

    # ------------------------------------------------------------------------------ lifecycle
    def compose(self) -> ComposeResult:
        with Horizontal(classes="terminal-pane--header"):
            yield self._command_label
            yield self._status_label
        yield self._view
        yield self._info_label

    def on_mount(self) -> None:
        self._live = True
        self._view.anchor()
        self._refresh_header()
        self._publish()
        if self.output_queued:
            self._start_drain()

    def on_unmount(self) -> None:
        self._live = False
        self._draining = False
        self._stop_listening()
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None

    # ------------------------------------------------------------------------------ parsing
    def _on_output(self) -> None:
        """Output arrived in the feed: parse a little at once, a lot in the worker."""
        if self._draining:
            return
        if self._feed.queued_chars <= _SYNC_CHARS:
            self._buffer.feed(self._feed.take())
            self._schedule_publish()
        elif self._live:
            self._start_drain()

    def _start_drain(self) -> None:
        """Parse the queue in a worker. Started through the message queue, because output may
        arrive from outside the app's context (a `TerminalManager` listener, say), where
        Textual cannot create workers or timers."""
        if not self._draining:
            self._draining = True
            self.call_later(self._launch_drain)

    def _launch_drain(self) -> None:
        self.run_worker(self._drain(), name="terminal-pane-drain", group="terminal-pane")

    async def _drain(self) -> None:
        """Parse the queue in slices, yielding to the event loop every few milliseconds."""
        clock = time.perf_counter
        buffer, feed = self._buffer, self._feed
        try:
            deadline = clock() + _SLICE_BUDGET_S
            while feed.queued_chars:
                data = buffer.skip_head(feed.take())  # only the retainable tail of a huge burst
                pos, size = 0, len(data)
                while pos < size:
                    if clock() >= deadline:
                        if clock() - self._last_publish >= _PUBLISH_INTERVAL_S:
                            self._publish()
                        for _ in range(_YIELDS):
                            await asyncio.sleep(0)
                        deadline = clock() + _SLICE_BUDGET_S
                    end = pos + _SLICE_CHARS
                    if end < size:
                        newline = data.find("\n", end, end + _SLICE_CHARS)
                        end = newline + 1 if newline >= 0 else end
                    buffer.feed(data[pos:end])
                    pos = end
        finally:
            self._draining = False
            self._publish()

    # ------------------------------------------------------------------------------ display
    def _schedule_publish(self) -> None:
        """Show new output soon: at once after a quiet spell, else at the streaming frame rate,
        so a fast stream of small deltas costs one layout per frame, not one per delta."""
        if self._live and not self._publish_scheduled:
            self._publish_scheduled = True
            self.call_later(self._publish_soon)  # see `_start_drain` for why not a timer here

    def _publish_soon(self) -> None:
        wait = self._last_publish + _STREAM_INTERVAL_S - time.perf_counter()
        if wait <= 0:
            self._publish()
        else:
            self.set_timer(wait, self._publish, name="terminal-pane-publish")

    def _publish(self) -> None:
        self._publish_scheduled = False
        self._last_publish = time.perf_counter()
        if self._live:
            self._view.sync()
            self._view.display = self._view.line_count > 0
            self._refresh_info()

    def _refresh_header(self) -> None:
        self._command_label.update(command_content(self))
        self._status_label.update(status_content(self))

    def _refresh_info(self) -> None:
        info = self._info_label
        said = info_text(self, self._view.line_count)
        if said is None:
            info.display = False
            return
        text, tooltip = said
        info.update(text)
        info.tooltip = tooltip
        info.display = True
