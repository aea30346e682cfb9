"""`dsh-tui demo`: one scenario, two capability negotiations, side by side.

Each side spawns its own dsh-agent (offline, full-access, in its own scratch workspace) and
plays the bundled demo. The left side advertises the terminal capability, the right does not,
so the same commands arrive as live terminal panes on one side and as the agent's console
fallback on the other.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Static
from textual.worker import WorkerCancelled, WorkerFailed

from tui.agent_log import new_agent_log
from tui.capabilities import consequences
from tui.config import AppConfig
from tui.launch import LaunchSpec
from tui.replay.process import ReplayProcess
from tui.session.controller import SessionController
from tui.session.events import Connected, Failed, PermissionAsked, SessionEvent, TurnEnded
from tui.state import Change
from tui.widgets.inspector import panel as inspector
from tui.widgets.transcript.conversation import ConversationView

RECORDINGS = Path(__file__).parent / "replay" / "recordings"  # what `demo --replay` plays
# Found on PATH, else beside the running interpreter, as dsh-tui finds its default agent.
DEMO_AGENT = "dsh-agent --mode full-access"
LEGEND = (
    "dsh-tui demo · the same scenario twice: the left client advertises the terminal "
    "capability, the right one does not"
)
# The demo has no prompt: once both sides are done, the legend says where there is one.
FINISHED = "dsh-tui demo · done · q quits · run `dsh-tui` to type `demo` or `help` yourself"


def strip_text(terminal: bool, agent: str, facts: list[str]) -> Text:
    text = Text()
    text.append("terminal ", style="bold")
    text.append("✓" if terminal else "✗", style="bold green" if terminal else "bold red")
    text.append(f"  · {agent}\n", style="dim")
    text.append("\n".join(facts[:1]), style="italic")
    return text


class DemoSide(Vertical):
    """One client session: its negotiated capabilities above its transcript."""

    DEFAULT_CSS = """
    DemoSide { width: 1fr; height: 1fr; border: round $panel-lighten-2; }
    DemoSide > .strip { height: 2; padding: 0 1; background: $boost; }
    """

    def __init__(
        self,
        terminal: bool,
        workspace: Path,
        log_dir: Path | None,
        replay: ReplayProcess | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.terminal = terminal
        self.replay = replay  # `demo --replay`: a bundled recording in place of the agent
        self.workspace = workspace
        self.log_dir = log_dir
        # Client terminals are timed with the app's clock, as in the app itself.
        self.controller = SessionController(self, clock=clock)
        self.turn_done = False
        self.border_title = "terminal on" if terminal else "terminal off → console fallback"
        self.strip = Static(strip_text(terminal, "connecting…", []), classes="strip")
        self._view = ConversationView(workspace)

    def compose(self) -> ComposeResult:
        yield self.strip
        yield self._view

    def strip_height(self) -> int:
        """The rows the strip's text needs at its width (it wraps on a narrow side)."""
        strip = self.strip
        width = strip.content_region.width
        if width <= 0:
            return 2
        return strip.get_content_height(strip.content_region.size, self.app.size, width)

    def on_resize(self) -> None:
        if isinstance(self.app, DemoApp):
            self.app.align_strips()

    def on_mount(self) -> None:
        self.run_demo()

    @work(group="demo", exit_on_error=False)
    async def run_demo(self) -> None:
        if self.replay is not None:
            # The recording has the client send its prompt when it did; nothing is spawned
            # or run. The connection stays until quit, as nothing waits on it.
            self.replay.bind(self.controller)
            await self.controller.run(self.replay.spec, self.replay)
            return
        spec = LaunchSpec.from_command(
            DEMO_AGENT, self.workspace, new_agent_log(self.log_dir), self.terminal
        )
        self.controller.submit_prompt("demo")
        # One turn, then the connection closes and the agent is reaped.
        await self.controller.run(spec, stay_connected=False)

    # What the controller says (tui/session/events.py).
    def conversation_changed(self, changes: list[Change]) -> None:
        self._view.apply(changes)

    def session_event(self, event: SessionEvent) -> None:
        match event:
            case Connected(session=session):
                self._view.terminals = session.client.terminals
                info = session.init.agent_info
                agent = f"{info.name} {info.version}" if info else "agent"
                facts = consequences(session.capabilities, session.init)
                self.strip.update(strip_text(self.terminal, agent, facts))
                if isinstance(self.app, DemoApp):
                    self.call_after_refresh(self.app.align_strips)
            case TurnEnded(stop_reason=reason) if reason is not None:
                self.turn_done = True
                if isinstance(self.app, DemoApp):
                    self.app.side_done()
            case Failed(failure=failure):
                self.controller.notice(f"{failure.reason}\n{failure.stderr_tail}", "error")
            case PermissionAsked(request=request):
                request.cancel()  # the demo agent runs in full-access mode and never asks


class DemoApp(App[None]):
    TITLE = "dsh-tui demo"
    BINDINGS = [
        # q is not a priority binding: it types in the traffic inspector's filter box.
        Binding("q", "quit", "Quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        Binding("f12", "inspector", "Traffic", show=False),
    ]
    CSS = """
    #legend { height: 1; padding: 0 1; background: $panel; text-style: bold; }
    #sides { height: 1fr; }
    """

    def __init__(
        self,
        root: Path | None = None,
        log_dir: Path | None = None,
        theme: str = "textual-dark",
        clock: Callable[[], float] = time.monotonic,
        replay: bool = False,
        agent_durations: bool = True,
    ) -> None:
        super().__init__()
        self.theme = theme
        self.replay = replay
        self._own_root = root is None
        self.root = root or Path(tempfile.mkdtemp(prefix="dsh-demo-"))
        self.log_dir = log_dir
        # The switches panes read (their clock, whose durations they show), as the app's own
        # configuration carries them.
        self.config = AppConfig(
            cwd=self.root,
            log_dir=log_dir,
            theme=theme,
            clock=clock,
            agent_durations=agent_durations,
        )

    def compose(self) -> ComposeResult:
        yield Static(LEGEND, id="legend")
        with Horizontal(id="sides"):
            for terminal, name in ((True, "terminal-on"), (False, "terminal-off")):
                if self.replay:
                    recording = RECORDINGS / f"demo-{name}.jsonl"
                    replay = ReplayProcess.open(recording, new_agent_log(self.log_dir))
                    yield DemoSide(
                        terminal, replay.spec.cwd, self.log_dir, replay, self.config.clock
                    )
                    continue
                workspace = self.root / name
                workspace.mkdir(parents=True, exist_ok=True)
                yield DemoSide(terminal, workspace, self.log_dir, clock=self.config.clock)
        yield Footer()

    @property
    def sides(self) -> list[DemoSide]:
        return list(self.query(DemoSide))

    def align_strips(self) -> None:
        """Both strips as tall as the taller one needs: their text fits, and the two
        transcripts still start on the same row."""
        sides = self.sides
        height = max((side.strip_height() for side in sides), default=2)
        for side in sides:
            if side.strip.styles.height is None or side.strip.outer_size.height != height:
                side.strip.styles.height = height

    def side_done(self) -> None:
        if all(side.turn_done for side in self.sides):
            self.query_one("#legend", Static).update(FINISHED)

    def action_inspector(self) -> None:
        """F12: both sides' wire in one pane (`s` switches), beside the sides."""
        sources = [
            inspector.TrafficSource(side.border_title or "", side.controller.traffic, side._view)
            for side in self.sides
        ]
        inspector.toggle(self.screen, sources, self.query_one("#sides"))

    def on_click(self, event: events.Click) -> None:
        inspector.follow_click(self.screen, event)

    async def action_quit(self) -> None:
        await self.stop_sides()
        self.exit()

    async def on_unmount(self) -> None:
        await self.stop_sides()
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)

    async def stop_sides(self) -> None:
        """Let each side close its connection and reap its agent before the loop ends."""
        for worker in [w for w in self.workers if w.group == "demo"]:
            if not worker.is_finished and not worker.is_cancelled:
                worker.cancel()
            # Cancelled or failed, it has ended either way; wait() lets its cleanup finish.
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()
