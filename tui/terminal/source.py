"""Where a terminal pane's output comes from: one interface, two kinds of terminal.

A tool call shows a terminal of one of two kinds:

* a spec terminal, which this client runs for the agent (`terminal/create`,
tui/terminal/terminals.py):
  `SpecTerminal` follows it in the `TerminalManager`, whose bytes the agent reads too;
* a display terminal, which the agent ran and streams through `_meta.terminal_*`
  (`TerminalState`, filled in by tui/state.py).

Both are a `TerminalSource`: output arrives in a `TerminalFeed`, which is also the one store of
it on the client's side (chunks queued as they arrive, then parsed by whoever shows them into
one bounded `TerminalScreenBuffer`), and `facts` says what the header shows. A pane follows
either the same way (`TerminalPane(source=...)`), so a card does not branch between them.

No Textual import here.
"""

from __future__ import annotations

import contextlib
import logging
import shlex
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from tui.terminal.stream import DEFAULT_MAX_CHARS, TerminalScreenBuffer

if TYPE_CHECKING:
    from tui.terminal.terminals import ExitStatus, TerminalManager

__all__ = [
    "SpecTerminal",
    "TerminalEnd",
    "TerminalFacts",
    "TerminalFeed",
    "TerminalSource",
    "TerminalState",
]

log = logging.getLogger(__name__)

Listener = Callable[[], None]


def utf8_size(data: str) -> tuple[str, int]:
    """The text with lone surrogates replaced (they would crash the terminal writer), and its
    UTF-8 size."""
    if data.isascii():
        return data, len(data)
    try:
        return data, len(data.encode("utf-8"))
    except UnicodeEncodeError:
        encoded = data.encode("utf-8", "replace")
        return encoded.decode("utf-8"), len(encoded)


def _notify(listeners: list[Listener]) -> None:
    for listener in list(listeners):
        try:
            listener()
        except Exception:
            log.exception("terminal listener failed")


def _listen(listeners: list[Listener], listener: Listener) -> Callable[[], None]:
    listeners.append(listener)

    def stop() -> None:
        with contextlib.suppress(ValueError):
            listeners.remove(listener)

    return stop


class TerminalFeed:
    """A terminal's output on its way to the screen, and the one place the client keeps it.

    `append` queues a decoded chunk and tells the listeners; whoever shows the output parses the
    queue (`take`) into `buffer`, in slices as it likes, so a 10 MB burst never blocks. If
    nothing parses (no pane shows the terminal right now), the queue is cut back to what the
    buffer could retain anyway, so it stays bounded too.
    """

    def __init__(self, max_chars: int = DEFAULT_MAX_CHARS) -> None:
        self.buffer = TerminalScreenBuffer(max_chars=max_chars)
        self._queue: deque[str] = deque()
        self.queued_chars = 0
        self.chars = 0  # characters received in all
        self.received_bytes = 0  # their UTF-8 size
        self._listeners: list[Listener] = []

    def append(self, data: str) -> None:
        """Queue a chunk of output (any size, any time) and tell the listeners."""
        if not data:
            return
        data, size = utf8_size(data)
        self.received_bytes += size
        self.chars += len(data)
        self._queue.append(data)
        self.queued_chars += len(data)
        if self.queued_chars > 2 * self.buffer.max_chars and not self._listeners:
            # Nobody parses (no pane shows it now): keep only the tail the buffer would retain.
            tail = self.buffer.skip_head(self.take())
            self._queue.append(tail)
            self.queued_chars = len(tail)
        _notify(self._listeners)

    def take(self) -> str:
        """Everything queued, removed from the queue, to be fed to `buffer`."""
        data = "".join(self._queue)
        self._queue.clear()
        self.queued_chars = 0
        return data

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` after each `append`; returns the function that stops it."""
        return _listen(self._listeners, listener)


@dataclass(frozen=True)
class TerminalEnd:
    """How the command ended, as its source knows it."""

    exit_code: int | None
    signal: str | None = None
    timed_out_after_s: float | None = None
    finished_at: float | None = None  # on the manager's clock, when the source has one
    duration_s: float | None = None  # how long it ran, as measured where it ran


@dataclass(frozen=True)
class TerminalFacts:
    """What the pane's header and info line show, beyond the output."""

    command: str | None = None  # None: the pane keeps the card's title
    cwd: str | None = None
    started_at: float | None = None  # None: when the pane was made, on its clock
    end: TerminalEnd | None = None
    agent_kept: tuple[int, str] | None = None  # the agent gave the model only the last N bytes


class TerminalSource(Protocol):
    """What a `TerminalPane` follows: output, facts, and a call when the facts change."""

    @property
    def terminal_id(self) -> str: ...

    @property
    def output(self) -> TerminalFeed: ...

    def facts(self) -> TerminalFacts: ...

    def watch(self, on_change: Listener) -> Callable[[], None]:
        """Call `on_change` when `facts` may have changed; returns the function that stops."""
        ...


class SpecTerminal:
    """A `TerminalManager` terminal as a source: its output (replayed from the manager's bytes,
    then live) and its exit. The manager is subscribed while something watches."""

    def __init__(self, manager: TerminalManager, terminal_id: str) -> None:
        self._manager = manager
        self._terminal_id = terminal_id
        self._output = TerminalFeed()
        self._watchers: list[Listener] = []
        self._unsubscribe: Callable[[], None] | None = None

    @property
    def terminal_id(self) -> str:
        return self._terminal_id

    @property
    def output(self) -> TerminalFeed:
        return self._output

    def facts(self) -> TerminalFacts:
        info = self._manager.info(self._terminal_id)
        command = shlex.join([info.command, *info.args]) if info.args else info.command
        status = info.exit_status
        end = None
        if status is not None:
            end = TerminalEnd(status.exit_code, status.signal, finished_at=info.finished_at)
        return TerminalFacts(command, info.cwd, info.started_at, end)

    def watch(self, on_change: Listener) -> Callable[[], None]:
        stop = _listen(self._watchers, on_change)
        if self._unsubscribe is None:
            self._unsubscribe = self._manager.subscribe(
                self._terminal_id, self._output.append, self._on_exit
            )

        def unwatch() -> None:
            stop()
            if not self._watchers and self._unsubscribe is not None:
                self._unsubscribe()
                self._unsubscribe = None

        return unwatch

    def _on_exit(self, _status: ExitStatus) -> None:
        _notify(self._watchers)


@dataclass(eq=False)
class TerminalState:
    """A display terminal (the `_meta.terminal_*` convention) inside one tool call.

    tui/state.py fills it in from the agent's updates: output chunks go to `output` (which tells
    a pane following it), the exit and the closing markers to the fields; `changed` tells the
    watchers once those were set. Its output keeps what a pane shows, at most the buffer's
    `max_chars`, not everything the agent ever streamed.
    """

    terminal_id: str
    cwd: str | None = None
    output: TerminalFeed = field(default_factory=TerminalFeed)
    exit_code: int | None = None
    signal: str | None = None
    exited: bool = False
    # Read off the agent's closing marker lines (which are then not shown as output):
    timed_out_after_s: float | None = None
    agent_kept: tuple[int, str] | None = None  # bytes the agent kept for the model, of what
    duration_s: float | None = None  # how long the command ran, by the agent (`dsh.duration_ms`)
    _watchers: list[Listener] = field(default_factory=list, repr=False)

    def facts(self) -> TerminalFacts:
        end = None
        if self.exited:
            end = TerminalEnd(
                self.exit_code, self.signal, self.timed_out_after_s, duration_s=self.duration_s
            )
        return TerminalFacts(cwd=self.cwd, end=end, agent_kept=self.agent_kept)

    def watch(self, on_change: Listener) -> Callable[[], None]:
        return _listen(self._watchers, on_change)

    def changed(self) -> None:
        """The exit or the markers were set: tell the watchers."""
        _notify(self._watchers)
