"""Helpers shared by the test modules (importable because pytest puts tests/ on sys.path)."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import shlex
import sys
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from tui.diff.rows import Row, RowLayout
from tui.pytest_plugin import TurnCount
from tui.terminal.source import TerminalState

T = TypeVar("T")

AGENT_COMMAND = shlex.join([sys.executable, "-m", "agent.cli"])
# A fixed workspace path keeps snapshots free of temporary directory names.
SNAPSHOT_WORKSPACE = Path("/tmp/dsh-snapshot-workspace")


@contextlib.contextmanager
def holding(path: Path) -> Iterator[Path]:
    """Hold a fixed path (one that is on screen, so it cannot be per run) alone: test
    processes running at once (xdist workers, two sessions) take turns through a lock file
    beside it instead of writing each other's files."""
    with path.with_name(path.name + ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield path


async def wait_until(pilot: Any, predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    """Poll app state between pauses; fixed sleeps are slow and flaky."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached before the timeout")
        await pilot.pause(0.02)


async def layout_still(pilot: Any, widget: Any, pauses: int = 3, timeout: float = 20.0) -> None:
    """Until `widget`'s virtual size and scroll position stay the same over `pauses` pauses:
    on a loaded machine a last height change (a Markdown block, a pane) can land after every
    other condition holds, and a snapshot taken then shows the scrollbar of the layout before."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    last, same = None, 0
    while same < pauses:
        if loop.time() > deadline:
            raise AssertionError("the layout did not hold still before the timeout")
        await pilot.pause(0.02)
        now = (widget.virtual_size, widget.scroll_y, widget.max_scroll_y)
        same = same + 1 if now == last else 0
        last = now


async def cancel_once_written(pid_file: Path, cancel: asyncio.Event) -> None:
    """Set `cancel` once a command has written its pid to `pid_file`: it is running then."""
    while not pid_file.exists() or not pid_file.read_text().strip():
        await asyncio.sleep(0.01)
    cancel.set()


async def diff_on_screen(pilot: Any, panel: Any) -> None:
    """Until a diff panel is built and laid out at its size on screen.

    Being built is not being sized: under load the screen's layout pass can come after a pause,
    and a key handled before it (Enter takes the first fold on screen) sees an unsized panel.
    """
    await panel.wait_ready()
    await wait_until(pilot, lambda: panel.size.height > 0)
    await pilot.pause()  # the resize the size came with is handled: the scroll limits are set


_TURNS: weakref.WeakKeyDictionary[Any, TurnCount] = weakref.WeakKeyDictionary()


def watch_turns(app: T) -> T:
    """Count the app's turns from now on (before it runs); `turns_ended` reads the count."""
    count = _TURNS[app] = TurnCount()
    app.controller.add_observer(count)  # type: ignore[attr-defined]
    return app


def turns_ended(app: Any) -> int:
    return _TURNS[app].ended


async def grow_deep_inside(pilot: Any, view: Any) -> tuple[Any, Any]:
    """Mount an entry with a Static two levels down and a later Static into `view`, then change
    both in one layout pass (Textual 8.2.8's bug 2 in tui/widgets/layout_fix.py): returns the
    entry, which should now be 4 rows high, and the later widget."""
    from textual.containers import Vertical
    from textual.widgets import Static

    inner = Static("one line")
    middle = Vertical(inner)
    entry = Vertical(middle)
    later = Static("later")
    for container in (entry, middle):
        container.styles.height = "auto"
    await view.mount_all([entry, later])
    await pilot.pause()
    assert entry.region.height == 1
    with pilot.app.batch_update():  # both changes reach the same layout pass
        inner.update("1\n2\n3\n4")
        later.update("later\nand more")
        await pilot.pause()
    await pilot.pause()
    return entry, later


def end_display(
    pane: Any,
    exit_code: int | None,
    signal: str | None = None,
    timed_out_after_s: float | None = None,
    *,
    duration_s: float | None = None,
) -> None:
    """End the display terminal a pane follows, as the agent's `_meta.terminal_exit` does
    (with its `dsh.duration_ms` as `duration_s`)."""
    state = pane.source
    assert isinstance(state, TerminalState), "the pane follows no display terminal"
    state.exit_code, state.signal = exit_code, signal
    state.timed_out_after_s, state.duration_s = timed_out_after_s, duration_s
    state.exited = True
    state.changed()


def diff_rows(panel: Any) -> list[Row]:
    """The rows a diff panel lays out with its folds closed, from its public model."""
    if panel.model is None:
        return []
    return RowLayout(panel.model, split=panel.is_split, expanded=frozenset()).rows()


def screen_lines(widget: Any) -> list[str]:
    """The widget's rows as they are drawn, in plain text."""
    return [
        "".join(segment.text for segment in widget.render_line(y))
        for y in range(widget.size.height)
    ]


def shown_text(message: Any) -> str:
    """What a streamed message shows, from its widgets: the Markdown's source, then its plain
    blocks (the pieces past the Markdown limit and, after the cut, its end; the marker that
    says so left out)."""
    from tui.widgets.transcript.messages import PlainBlock

    blocks = [block for block in message.query(PlainBlock) if not block.has_class("-truncated")]
    return message.source + "".join(str(block.content) for block in blocks)
