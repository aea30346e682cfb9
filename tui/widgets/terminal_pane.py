"""The terminal pane: one command's output inside its tool-call card, live.

    ❯ pytest -q                                   tests · ✕ exit 1 · 2.4 s    header
    ....F.....                                                                 output, capped
    FAILED tests/test_x.py::test_y - assert 1 == 2                            at `max_rows`,
    ▮ 1,204 lines · 54 KB                                                     info line

Design choices, measured in `bench/bench_terminal.py`:

* Output goes through `TerminalScreenBuffer` (SGR kept, CR overwrites, every other escape
  dropped), so nothing raw reaches the user's terminal. The buffer keeps about `max_chars` of
  text and drops from the head.
* The body is a Line API `ScrollView` over the buffer's lines: only the visible rows are turned
  into styled `Strip`s (`Text.from_ansi`), cached. `Log` is as fast but renders no styles;
  `RichLog` renders every line up front (14-40 s for 10 MB).
* A big append is parsed by a worker in slices of a few milliseconds, yielding to the event loop
  in between, so key presses are handled during a 10 MB burst. A burst bigger than `max_chars`
  is only parsed from where its retained tail starts. Small appends are parsed at once.
* Tail-follow uses Textual's anchor: the view sticks to the bottom until the user scrolls up,
  and sticks again once they scroll back down.
* Durations come from an injectable clock, and the spinner can be frozen (`animate=False`, or
  `TerminalPane.ANIMATE = False`), so snapshots are deterministic.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import signal as signal_module
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.cache import LRUCache
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip
from textual.timer import Timer
from textual.widgets import Static

from tui.sanitize import strip_control
from tui.sgr import plain_line, styled_line
from tui.terminal_stream import DEFAULT_MAX_CHARS, TerminalScreenBuffer

if TYPE_CHECKING:
    from tui.terminals import ExitStatus, TerminalManager

__all__ = ["ASCII_GLYPHS", "UNICODE_GLYPHS", "TerminalOutputView", "TerminalPane"]

UNICODE_GLYPHS: dict[str, str] = {
    "prompt": "❯",
    "ok": "✓",
    "fail": "✕",
    "done": "■",
    "info": "▮",
    "sep": "·",
    "spinner": "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏",
}
ASCII_GLYPHS: dict[str, str] = {
    "prompt": ">",
    "ok": "ok",
    "fail": "x",
    "done": "#",
    "info": "#",
    "sep": "-",
    "spinner": "|/-\\",
}

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
_SPINNER_INTERVAL_S = 0.1
_MAX_CWD_CELLS = 32


def format_duration(seconds: float) -> str:
    """`0.4 s`, `12 s`, `3 m 05 s`, `2 h 03 m`: short, and stable for snapshots."""
    seconds = max(seconds, 0.0)
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 60:
        return f"{int(seconds)} s"
    if seconds < 3600:
        minutes, secs = divmod(int(seconds), 60)
        return f"{minutes} m {secs:02d} s"
    hours, rest = divmod(int(seconds), 3600)
    return f"{hours} h {rest // 60:02d} m"


def format_bytes(count: int) -> str:
    """`812 B`, `54 KB`, `10.5 MB` (1024-based, like the 5 MB retention)."""
    if count < 1024:
        return f"{count} B"
    if count < 1024 * 1024:
        return f"{count / 1024:.0f} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def signal_name(value: str) -> str:
    """`SIGTERM` for `SIGTERM`, `TERM`, `15` or `-15`; anything else is shown cleaned up."""
    text = strip_control(value)[:32]
    number = text.lstrip("-")
    if number.isdigit():
        try:
            return signal_module.Signals(int(number)).name
        except ValueError:
            return f"signal {number}"
    names = signal_module.Signals.__members__
    for candidate in (text.upper(), "SIG" + text.upper()):
        if candidate in names:
            return candidate
    return text


def display_cwd(cwd: str | None, session_cwd: Path) -> str:
    """Inside the session: relative (`src/app`); elsewhere: `~`-abbreviated. The session
    directory itself is not shown (""): the header names it already, and a long path there
    would take the room of the command.

    Purely textual (no filesystem access), so snapshots need no real directories.
    """
    if not cwd:
        return ""
    root = Path(os.path.normpath(session_cwd))
    path = Path(os.path.normpath(root / cwd))  # an absolute cwd replaces the root
    if path == root:
        return ""
    if path.is_relative_to(root):
        return strip_control(str(path.relative_to(root)))
    home = Path.home()
    if path == home:
        return "~"
    if home != Path(home.anchor) and path.is_relative_to(home):
        return strip_control("~/" + str(path.relative_to(home)))
    return strip_control(str(path))


def _utf8_size(data: str) -> tuple[str, int]:
    """The text with lone surrogates replaced (they would crash the terminal writer), and its
    UTF-8 size."""
    if data.isascii():
        return data, len(data)
    try:
        return data, len(data.encode("utf-8"))
    except UnicodeEncodeError:
        encoded = data.encode("utf-8", "replace")
        return encoded.decode("utf-8"), len(encoded)


class TerminalOutputView(ScrollView, can_focus=True):
    """The output rows: a Line API view of a `TerminalScreenBuffer`.

    It shows the buffer as of the last `sync`, addressed by absolute line number, so lines
    dropped from the head in between never shift what is on screen. Only visible rows are
    parsed into styles, and cached by absolute line number (completed lines never change).
    """

    ALLOW_SELECT = True
    DEFAULT_CSS = """
    TerminalOutputView {
        height: auto;
        max-height: 15;
        background: $surface-darken-1;
        color: $foreground;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 1;
        &:focus { background-tint: $foreground 5%; }
    }
    """

    def __init__(
        self,
        buffer: TerminalScreenBuffer,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._buffer = buffer
        self._base = 0  # absolute number of the first retained line, at the last sync
        self._completed = 0  # completed lines shown
        self._partial = ""  # the line being written, shown last
        self._cache: LRUCache[int, Strip] = LRUCache(512)
        self._partial_strip: Strip | None = None

    @property
    def line_count(self) -> int:
        """Rows shown (completed lines plus the partial one)."""
        return self._completed + (1 if self._partial else 0)

    @property
    def following(self) -> bool:
        """Whether the view sticks to the last line (anchored, and the user has not scrolled up).

        Reads Textual's anchor state (`textual` is pinned exactly): `is_anchored` alone stays
        true after the user scrolls away."""
        return self.is_anchored and not self._anchor_released

    def sync(self) -> None:
        """Show what the buffer holds now."""
        buffer = self._buffer
        dropped = buffer.dropped_lines - self._base
        following = self.following
        self._base = buffer.dropped_lines
        self._completed = len(buffer.lines)
        partial = buffer.partial
        if partial != self._partial:
            self._partial = partial
            self._partial_strip = None
        width = max(buffer.max_cells, cell_len(plain_line(partial)) if partial else 0)
        self.virtual_size = Size(width, self.line_count)
        if dropped > 0 and not following:
            # The user scrolled up to read: keep the same lines in view as the head goes.
            self.scroll_to(y=max(0, self.scroll_y - dropped), animate=False, immediate=True)
        self.refresh()

    def plain_lines(self) -> list[str]:
        """The retained output without styles, one string per row (the partial line last)."""
        lines = [plain_line(line) for line in self._buffer.lines]
        partial = self._buffer.partial
        if partial:
            lines.append(plain_line(partial))
        return lines

    # ------------------------------------------------------------------------------ rendering
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()
        self._partial_strip = None

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        style = self.rich_style
        strip = self._row_strip(index, style)
        if strip is None:
            return Strip.blank(width, style)
        return strip.crop_extend(scroll_x, scroll_x + width, style).apply_offsets(scroll_x, index)

    def _row_strip(self, index: int, style: Style) -> Strip | None:
        selection = self.text_selection
        if index < self._completed:
            key = self._base + index
            cached = self._cache.get(key) if selection is None else None
            if cached is not None:
                return cached
            text = self._buffer.styled(key)
            if text is None:
                return None  # dropped since the last sync; the next sync redraws
            strip = self._make_strip(text, index, style, selection)
            if selection is None:
                self._cache[key] = strip
            return strip
        if index == self._completed and self._partial:
            if self._partial_strip is None or selection is not None:
                strip = self._make_strip(styled_line(self._partial), index, style, selection)
                if selection is not None:
                    return strip
                self._partial_strip = strip
            return self._partial_strip
        return None

    def _make_strip(
        self, text: Text, index: int, style: Style, selection: Selection | None
    ) -> Strip:
        """One row from a line's styled text (kept by the buffer: copied before a selection is
        painted on it)."""
        if selection is not None and (span := selection.get_span(index)) is not None:
            start, end = span
            if end == -1:
                end = len(text)
            text = text.copy()
            text.stylize(self.screen.get_component_rich_style("screen--selection"), start, end)
        # `Text.render` leaves the base style to the console: put the widget's style beneath.
        return Strip(text.render(self.app.console), text.cell_len).apply_style(style)

    # ------------------------------------------------------------------------------ selection
    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract("\n".join(self.plain_lines())), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self._cache.clear()
        self._partial_strip = None
        self.refresh()


class TerminalPane(Vertical):
    """A command's output with its prompt line, cwd, duration and exit badge.

    Feed it with `append` (streamed deltas or whole chunks, any number of times, also before it
    is mounted) and end it with `set_exit`; `set_command` fills in the prompt line later.
    `connect_terminal` follows a client-side terminal of a `TerminalManager` instead. The clock
    (seconds, `time.monotonic` by default) times the command from construction, or from
    `started_at`, to `set_exit`. `max_rows` caps the output's height (it scrolls inside) and
    `max_chars` the text kept (the head is dropped). `flush` waits until all output is shown.
    CSS hooks: `-exited` and `-failed` classes on the pane.
    """

    ANIMATE: ClassVar[bool] = True
    """Default for `animate`: turn off to freeze every spinner (snapshots)."""

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
        terminal_id: str,
        *,
        command: str | None = None,
        cwd: str | None = None,
        session_cwd: Path | str,
        clock: Callable[[], float] = time.monotonic,
        started_at: float | None = None,
        max_rows: int = 15,
        max_chars: int = DEFAULT_MAX_CHARS,
        animate: bool | None = None,
        ascii_glyphs: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.terminal_id = terminal_id
        self._command = command
        self._cwd = cwd
        self.session_cwd = Path(session_cwd)
        self._clock = clock
        self.started_at = clock() if started_at is None else started_at
        self.finished_at: float | None = None
        self.max_rows = max_rows
        self.animate_spinner = self.ANIMATE if animate is None else animate
        self.glyphs = ASCII_GLYPHS if ascii_glyphs else UNICODE_GLYPHS
        self.exited = False
        self.exit_code: int | None = None
        self.signal: str | None = None
        self.timed_out_after_s: float | None = None
        self.received_bytes = 0
        self.awaiting = False  # a permission question about the command is open
        self.settled: str | None = None  # how the card ended without an exit status
        self.not_run = False  # settled, and the command never started
        self.agent_kept: tuple[int, str] | None = None  # bytes the agent kept, of what
        self._buffer = TerminalScreenBuffer(max_chars=max_chars)
        self._queue: deque[str] = deque()
        self._queued_chars = 0
        self._draining = False
        self._drained = asyncio.Event()
        self._drained.set()
        self._publish_scheduled = False
        self._last_publish = 0.0
        self._frame = 0
        self._ticker: Timer | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._live = False  # mounted (`is_mounted` only turns true after `on_mount`)
        self._command_label = Static(classes="terminal-pane--command", markup=False)
        self._status_label = Static(classes="terminal-pane--status", markup=False)
        self._view = TerminalOutputView(self._buffer)
        self._view.styles.max_height = max_rows
        self._info_label = Static(classes="terminal-pane--info", markup=False)

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
    def truncated(self) -> bool:
        """Whether lines were dropped from the head to stay within `max_chars`."""
        return self._buffer.truncated

    @property
    def duration(self) -> float:
        """Seconds from start to exit (or to now while running), from the clock."""
        end = self.finished_at if self.finished_at is not None else self._clock()
        return max(0.0, end - self.started_at)

    @property
    def running(self) -> bool:
        """Whether the clock runs: neither exited, settled nor waiting for approval."""
        return not (self.exited or self.settled is not None or self.awaiting)

    @property
    def busy(self) -> bool:
        """Whether appended output is still waiting to be parsed or shown."""
        return bool(self._queue) or self._draining or self._publish_scheduled

    def plain_lines(self) -> list[str]:
        """The output shown, without styles (after `flush`, everything appended)."""
        return self._view.plain_lines()

    def status_text(self) -> str:
        """The right side of the header as plain text, e.g. `src · ✕ exit 3 · 0.1 s`."""
        return self._status_content().plain

    def append(self, data: str) -> None:
        """Add output: a streamed delta or a whole chunk, in order. Never blocks for long.

        Works before the pane is mounted (the output waits) and from outside the app's context,
        such as a `TerminalManager` listener."""
        if not data:
            return
        data, size = _utf8_size(data)
        self.received_bytes += size
        self._queue.append(data)
        self._queued_chars += len(data)
        if self._draining:
            return
        if self._queued_chars <= _SYNC_CHARS:
            self._parse_queue()
            self._schedule_publish()
        elif self._live:
            self._start_drain()

    def set_awaiting(self, awaiting: bool) -> None:
        """A permission question about the command opened (`True`) or was answered: waiting is
        not running, so the clock starts from the answer."""
        if awaiting == self.awaiting or self.exited or self.settled is not None:
            return
        self.awaiting = awaiting
        if not awaiting:
            self.started_at = self._clock()
        if self._live:
            self._refresh_header()

    def settle(self, outcome: str, *, ran: bool = True) -> None:
        """The card ended (`failed`, `cancelled`, ...) with no exit status for this terminal:
        stop the clock now. `ran=False` (or still waiting for approval): the command never
        started, so the pane says "not run" and shows no duration. A later `set_exit` wins."""
        if self.exited or self.settled is not None:
            return
        self.not_run = self.awaiting or (not ran and self.received_bytes == 0)
        self.awaiting = False
        self.settled = outcome
        self.finished_at = self._clock()
        self._stop_ticker()
        if self._live:
            self._refresh_header()

    def set_agent_kept(self, kept: tuple[int, str] | None) -> None:
        """The agent sent the model only the last `kept[0]` bytes of `kept[1]` (`stdout`)."""
        if kept != self.agent_kept:
            self.agent_kept = kept
            if self._live:
                self._refresh_info()

    def _stop_ticker(self) -> None:
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def set_exit(
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
        self.exited = True
        self.exit_code = exit_code
        self.signal = signal_name(signal) if signal else None
        self.timed_out_after_s = timed_out_after_s
        if self.finished_at is None or finished_at is not None:
            self.finished_at = self._clock() if finished_at is None else finished_at
        self.awaiting = False
        self.settled = None
        self.not_run = False
        self._stop_ticker()
        self.set_class(True, "-exited")
        self.set_class(self._failed, "-failed")
        if self._live:
            self._refresh_header()
            self._refresh_info()

    def set_command(self, command: str | None, cwd: str | None = None) -> None:
        """Set the prompt line (and the cwd, unless None), e.g. once the tool title is known."""
        self._command = command
        if cwd is not None:
            self._cwd = cwd
        if self._live:
            self._refresh_header()

    async def flush(self) -> None:
        """Wait until everything appended so far is parsed and shown (tests, benchmarks)."""
        while True:
            if self._draining:
                await self._drained.wait()
            elif self._queue and self._live:
                self._start_drain()
            else:
                break
        if self._publish_scheduled:
            self._publish()

    def connect_terminal(self, manager: TerminalManager) -> Callable[[], None]:
        """Follow a client-side terminal: its command line, cwd, timing, output and exit.

        Uses the manager's clock (`time.monotonic`), so the pane's clock should be the same.
        Returns the unsubscribe function; it is also called when the pane is removed.
        """
        info = manager.info(self.terminal_id)
        command = shlex.join([info.command, *info.args]) if info.args else info.command
        self.set_command(command, info.cwd)
        self.started_at = info.started_at

        def on_exit(status: ExitStatus) -> None:
            finished = manager.info(self.terminal_id).finished_at
            self.set_exit(status.exit_code, status.signal, finished_at=finished)

        self._unsubscribe = manager.subscribe(self.terminal_id, self.append, on_exit)
        return self._unsubscribe

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
        if self._queue:
            self._start_drain()
        if not self.exited and self.settled is None and self.animate_spinner:
            self._ticker = self.set_interval(_SPINNER_INTERVAL_S, self._tick)

    def on_unmount(self) -> None:
        self._live = False
        self._draining = False
        self._drained.set()  # nothing more will be parsed: release `flush`
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    # ------------------------------------------------------------------------------ parsing
    def _parse_queue(self) -> None:
        data = "".join(self._queue)
        self._queue.clear()
        self._queued_chars = 0
        self._buffer.feed(data)

    def _start_drain(self) -> None:
        """Parse the queue in a worker. Started through the message queue, because `append`
        may be called from outside the app's context (a `TerminalManager` listener, say), where
        Textual cannot create workers or timers."""
        if not self._draining:
            self._draining = True
            self._drained.clear()
            self.call_later(self._launch_drain)

    def _launch_drain(self) -> None:
        self.run_worker(self._drain(), name="terminal-pane-drain", group="terminal-pane")

    async def _drain(self) -> None:
        """Parse the queue in slices, yielding to the event loop every few milliseconds."""
        clock = time.perf_counter
        buffer = self._buffer
        try:
            deadline = clock() + _SLICE_BUDGET_S
            while self._queue:
                data = "".join(self._queue)
                self._queue.clear()
                self._queued_chars = 0
                data = buffer.skip_head(data)  # only the retainable tail of a huge burst
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
            self._drained.set()
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

    def _tick(self) -> None:
        if not self.running:
            return
        self._frame += 1
        self._refresh_header()

    @property
    def _failed(self) -> bool:
        return self.exited and (
            self.timed_out_after_s is not None
            or self.signal is not None
            or (self.exit_code is not None and self.exit_code != 0)
        )

    def _refresh_header(self) -> None:
        glyphs = self.glyphs
        command = strip_control(self._command or "")
        if command:
            prompt = Content.assemble((f"{glyphs['prompt']} ", "$text-accent bold"), command)
        else:
            prompt = Content.assemble(
                (f"{glyphs['prompt']} ", "$text-accent bold"),
                (f"terminal {strip_control(self.terminal_id)}", "$text-muted"),
            )
        self._command_label.update(prompt)
        self._status_label.update(self._status_content())

    def _status_content(self) -> Content:
        glyphs = self.glyphs
        sep = f" {glyphs['sep']} "
        parts: list[str | tuple[str, str]] = []
        where = display_cwd(self._cwd, self.session_cwd)
        if len(where) > _MAX_CWD_CELLS:  # keep room for the command: show the deep end
            where = "…" + where[-(_MAX_CWD_CELLS - 1) :]
        if where:
            parts += [(where, "$text-muted"), sep]
        if self.awaiting:
            parts.append(("awaiting approval", "$text-warning"))
            return Content.assemble(*parts)
        if self.not_run:
            parts.append(("not run", "$text-muted"))
            return Content.assemble(*parts)
        if self.settled is not None:
            parts.append((f"⊘ {self.settled}", "$text-warning"))
        elif not self.exited:
            spinner = glyphs["spinner"]
            frame = spinner[self._frame % len(spinner)] if self.animate_spinner else spinner[0]
            parts.append((f"{frame} running", "$text-warning"))
        elif self.timed_out_after_s is not None:
            limit = self.timed_out_after_s
            shown = f"{limit:g}" if limit < 10 else f"{round(limit)}"
            parts.append((f"{glyphs['fail']} timed out after {shown} s", "$text-error bold"))
        elif self.signal is not None:
            parts.append((f"{glyphs['fail']} killed by {self.signal}", "$text-error bold"))
        elif self.exit_code == 0:
            parts.append((f"{glyphs['ok']} exit 0", "$text-success bold"))
        elif self.exit_code is not None:
            parts.append((f"{glyphs['fail']} exit {self.exit_code}", "$text-error bold"))
        else:
            parts.append((f"{glyphs['done']} exited", "$text-muted"))
        parts += [sep, (format_duration(self.duration), "$text-muted")]
        return Content.assemble(*parts)

    def _refresh_info(self) -> None:
        info = self._info_label
        shown = self._view.line_count
        if self.exited and shown == 0 and not self._queue:
            info.update("(no output)")
            info.tooltip = None
            info.display = True
            return
        if shown <= self.max_rows and not self.truncated and self.agent_kept is None:
            info.display = False
            return
        sep = f" {self.glyphs['sep']} "
        size = format_bytes(self.received_bytes)
        text = f"{self.glyphs['info']} {self.line_count:,} lines{sep}{size}"
        if self.agent_kept is not None:
            kept, what = self.agent_kept
            text += f"{sep}the agent gave the model only the last {format_bytes(kept)} of {what}"
        if self.truncated:
            text += f"{sep}truncated"
            info.tooltip = (
                f"Only the last {shown:,} lines are kept; "
                f"{self._buffer.dropped_lines:,} earlier lines were dropped."
            )
        else:
            info.tooltip = None
        info.update(text)
        info.display = True
