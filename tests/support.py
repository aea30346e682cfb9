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


async def diff_drawn(pilot: Any, panel: Any) -> None:
    """Until a diff panel is built and every row it has drawn is in its syntax colours.

    The panel diffs and lexes in its workers, so Textual's worker API says when it is done; a
    row drawn before its block was lexed starts another worker, so a frame must end with none
    of the panel's workers running.
    """
    await panel.wait_ready()
    while True:
        await pilot.pause()
        running = [w for w in pilot.app.workers if w.node is panel and w.is_running]
        if not running:
            return
        await pilot.app.workers.wait_for_complete(running)


class TurnCount:
    """How many prompt turns an app's session controller has ended: an observer of its
    `TurnEnded` events, as the app itself observes them."""

    def __init__(self) -> None:
        self.ended = 0

    def conversation_changed(self, changes: Any) -> None:
        pass

    def session_event(self, event: Any) -> None:
        from tui.session.events import TurnEnded

        if isinstance(event, TurnEnded):
            self.ended += 1


_TURNS: weakref.WeakKeyDictionary[Any, TurnCount] = weakref.WeakKeyDictionary()


def watch_turns(app: T) -> T:
    """Count the app's turns from now on (before it runs); `turns_ended` reads the count."""
    count = _TURNS[app] = TurnCount()
    app.controller.add_observer(count)  # type: ignore[attr-defined]
    return app


def turns_ended(app: Any) -> int:
    return _TURNS[app].ended


async def settle_cards(pilot: Any, conversation: Any, view: Any) -> None:
    """Wait until every tool call has a mounted card and its diffs and panes are drawn, and
    every streamed message has rendered all its text.

    Cards mount in batches after the updates arrive, so a turn can be over before its last
    cards exist; waiting on the panels found too early would let a snapshot race them.
    Messages render their chunks a frame at a time, so a reply can still be empty then.
    """
    from tui.widgets.cards.tool_card import ToolCard
    from tui.widgets.diff.panel import DiffPanel
    from tui.widgets.terminal.pane import TerminalPane
    from tui.widgets.transcript.messages import StreamingMarkdown

    def mounted() -> bool:
        shown = {id(card.entry) for card in view.query(ToolCard) if card.is_mounted}
        return all(id(entry) in shown for entry in conversation.tool_calls.values())

    await wait_until(pilot, mounted)
    await wait_until(
        pilot, lambda: not any(text.is_streaming for text in view.query(StreamingMarkdown))
    )
    await pilot.pause()
    for pane in view.query(TerminalPane):
        await pane.flush()
    for panel in view.query(DiffPanel):
        await diff_drawn(pilot, panel)
    await pilot.pause()


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
