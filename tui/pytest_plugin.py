"""pytest plugin: snapshot tests of any ACP agent's cards, as dsh-tui draws them.

Installed with dsh-tui (the `pytest11` entry point), it offers one fixture, `dsh_tui_cards`.
It builds the real client at a fixed size against a recording (`replay`) or a live agent
command with a list of prompts (`live`), and hands `pytest-textual-snapshot`'s `snap_compare`
an app and a `run_before` that plays the session to its end and waits until every card is
drawn. What would make two runs differ is pinned: the theme, the size, the clock panes time
commands with (and no agent-measured durations), no cursor blink, no animations, no TEXTUAL_*
or NO_COLOR from the environment, and for a live agent a fixed workspace path instead of a
temporary one.

    def test_my_agent_cards(snap_compare, dsh_tui_cards):
        cards = dsh_tui_cards.replay("tests/recordings/session.jsonl")
        assert snap_compare(cards.app, terminal_size=cards.size, run_before=cards.run_before)

Nothing here imports Textual or the client until the fixture is used, and the fixture is not
autouse: a project with the plugin installed runs its own tests as before.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

import pytest

if TYPE_CHECKING:
    from textual.pilot import Pilot
    from textual.widget import Widget

    from tui.app import DshApp
    from tui.widgets.diff.panel import DiffPanel

DEFAULT_SIZE = (100, 60)
LIVE_WORKSPACE = Path("/tmp/dsh-tui-cards-workspace")
"""A live agent's workspace: a fixed path, so no temporary directory name reaches a card."""
SETTLE_TIMEOUT_S = 120.0
"""How long a session may take to play before the test fails rather than waits on."""
FIXED_CLOCK = 0.0


class PinnedTime(TypedDict):
    """The configuration (tui/config.py) that keeps time off the screen: a fixed clock for
    panes and terminals, and no duration as the agent measured it (that varies too)."""

    clock: Callable[[], float]
    agent_durations: bool


PINNED_TIME: PinnedTime = {"clock": lambda: FIXED_CLOCK, "agent_durations": False}


async def _wait_until(pilot: Pilot[Any], done: Callable[[], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SETTLE_TIMEOUT_S
    while not done():
        if loop.time() > deadline:
            raise AssertionError(f"dsh_tui_cards: {what} within {SETTLE_TIMEOUT_S:.0f} s")
        await pilot.pause(0.02)


async def settle(pilot: Pilot[Any], app: DshApp) -> None:
    """Until every card of the app's session is drawn (`settle_cards`); then the transcript
    from its top."""
    view = app.transcript
    await settle_cards(pilot, app.controller.conversation, view)
    # Immediate: a deferred scroll lands after a refresh, which a loaded machine can put
    # after the snapshot; then the window mounts and measures near the top.
    view.scroll_home(animate=False, immediate=True)
    await pilot.pause()
    await _wait_until(pilot, lambda: view.window_settled, "the transcript did not settle")
    await pilot.pause()


async def settle_cards(pilot: Pilot[Any], conversation: Any, view: Widget) -> None:
    """Until every tool call of `conversation` has its card in `view`, every message its
    text, every terminal pane its output and every diff its colours.

    Cards mount in batches after the updates arrive, so a turn can be over before its last
    cards exist; waiting on the panels found too early would let a snapshot race them.
    """
    from tui.widgets.cards.tool_card import ToolCard
    from tui.widgets.diff.panel import DiffPanel
    from tui.widgets.terminal.pane import TerminalPane
    from tui.widgets.transcript.messages import StreamingMarkdown

    def mounted() -> bool:
        shown = {id(card.entry) for card in view.query(ToolCard) if card.is_mounted}
        return all(id(entry) in shown for entry in conversation.tool_calls.values())

    await _wait_until(pilot, mounted, "the cards were not all mounted")
    await _wait_until(
        pilot,
        lambda: not any(text.is_streaming for text in view.query(StreamingMarkdown)),
        "the messages did not finish streaming",
    )
    await pilot.pause()
    await _wait_until(
        pilot,
        lambda: not any(pane.busy for pane in view.query(TerminalPane)),
        "the panes did not show all their output",
    )
    for panel in view.query(DiffPanel):
        await diff_drawn(pilot, panel)
    await pilot.pause()


async def diff_drawn(pilot: Pilot[Any], panel: DiffPanel) -> None:
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


@dataclass
class Cards:
    """One session to snapshot: `app`, its `size`, and `run_before` for `snap_compare`."""

    app: DshApp
    size: tuple[int, int]
    _played: Callable[[], bool] = field(repr=False)

    async def run_before(self, pilot: Pilot[Any]) -> None:
        await _wait_until(pilot, self._played, "the session did not play to its end")
        await settle(pilot, self.app)


class TurnCount:
    """How many prompt turns a session controller has ended: an observer of its `TurnEnded`
    events, as the app itself observes them."""

    def __init__(self) -> None:
        self.ended = 0

    def conversation_changed(self, changes: object) -> None:
        pass

    def session_event(self, event: object) -> None:
        from tui.session.events import TurnEnded

        if isinstance(event, TurnEnded):
            self.ended += 1


class CardsFactory:
    """What the `dsh_tui_cards` fixture gives a test."""

    def __init__(self, logs: Path, size: tuple[int, int] = DEFAULT_SIZE) -> None:
        self.logs = logs
        self.size = size

    def replay(self, recording: str | os.PathLike[str], *, theme: str = "textual-dark") -> Cards:
        """The client against a recording (`dsh-tui --record FILE`), played as fast as it
        goes; no agent runs, and the recording's files and commands are not touched or run."""
        from tui.replay.app import replay_app

        app = replay_app(Path(recording), speed=0, log_dir=self.logs, theme=theme, **PINNED_TIME)
        agent = app.replay.agent

        def played() -> bool:
            return agent.finished and not app.controller.turn_running

        return Cards(app, self.size, played)

    def live(
        self,
        command: str,
        prompts: Sequence[str],
        *,
        cwd: str | os.PathLike[str] = LIVE_WORKSPACE,
        terminal: bool = True,
        theme: str = "textual-dark",
    ) -> Cards:
        """The client against a live agent `command` (one shell-quoted string), sending
        `prompts` one turn each, in `cwd` (a fixed path, emptied first when it is the
        default)."""
        from tui.app import AppConfig, DshApp

        workspace = Path(cwd)
        if workspace == LIVE_WORKSPACE:
            shutil.rmtree(workspace, ignore_errors=True)
        workspace.mkdir(parents=True, exist_ok=True)
        config = AppConfig(command, workspace, terminal, self.logs, theme=theme, **PINNED_TIME)
        app = DshApp(config)
        turns = TurnCount()
        app.controller.add_observer(turns)
        for prompt in prompts:
            app.controller.submit_prompt(prompt)

        def played() -> bool:
            return turns.ended >= len(prompts) and not app.controller.turn_running

        return Cards(app, self.size, played)


def pin_rendering(monkeypatch: pytest.MonkeyPatch) -> None:
    """What would make two renderings of one session differ, pinned for one test."""
    import textual.constants
    from textual.widgets import Input, TextArea

    for key in list(os.environ):
        if key == "NO_COLOR" or (
            key.startswith("TEXTUAL_") and not key.startswith("TEXTUAL_SNAPSHOT")
        ):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setattr(textual.constants, "TEXTUAL_ANIMATIONS", "none")
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)


@pytest.fixture
def dsh_tui_cards(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CardsFactory:
    """dsh-tui at a fixed size, for `snap_compare`: `.replay(FILE)` or
    `.live(COMMAND, prompts)`; each gives `.app`, `.size` and `.run_before`."""
    pin_rendering(monkeypatch)
    return CardsFactory(tmp_path / "logs")


__all__ = [
    "PINNED_TIME",
    "Cards",
    "CardsFactory",
    "PinnedTime",
    "TurnCount",
    "diff_drawn",
    "dsh_tui_cards",
    "pin_rendering",
    "settle",
    "settle_cards",
]
