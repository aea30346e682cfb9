"""One compare side: what it negotiated above its own transcript, and its own questions."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from tui.agent_log import new_agent_log
from tui.capabilities import consequences
from tui.compare.capability_set import WORDS, CapabilitySet
from tui.compare.pacing import PacedAgentProcess
from tui.compare.setup import SideSetup
from tui.launch import AgentFailed, AgentProcess, LaunchSpec
from tui.replay.process import ReplayProcess
from tui.sanitize import clean_line
from tui.session.controller import SessionController
from tui.session.events import (
    Connected,
    Failed,
    PermissionAsked,
    PermissionClosed,
    SessionEvent,
    TurnEnded,
)
from tui.state import Change
from tui.widgets.transcript.conversation import ConversationView

if TYPE_CHECKING:
    from tui.permissions import PendingPermission

MARK = "▶ "  # before the focused side's title, besides its accent border


SHORT = {
    "terminal": "term",
    "terminal_output": "out",
    "fs.read": "read",
    "fs.write": "write",
    "auth.terminal": "auth",
}
"""The capability words on a narrow side's strip (F1 says what each stands for)."""


def strip_text(capabilities: CapabilitySet, facts: list[str], width: int = 0) -> Text:
    """Each capability on or off, in full when `width` has room for it, then the first
    consequence of what was negotiated."""
    full = sum(len(word) + 4 for word in WORDS) <= width
    text = Text()
    for word in WORDS:
        on = capabilities.has(word)
        text.append(word if full else SHORT[word], style="bold" if on else "dim")
        mark = "✓" if on else "✗"
        text.append(f" {mark}  " if full else f"{mark} ", style="bold green" if on else "bold red")
    text.rstrip()
    text.append("\n")
    text.append("\n".join(facts[:1]) or "connecting…", style="italic")
    return text


def question_text(request: PendingPermission) -> Text:
    title = clean_line(request.tool_call.title or "a tool call")
    text = Text("? ", style="bold")
    text.append(title, style="bold")
    text.append("  ")
    for key, option in request.keyed_options:
        text.append(key, style="bold reverse")
        text.append(f" {clean_line(option.name)}  ")
    text.append("(this side's keys: tab here)", style="dim")
    return text


class StripsChanged(Message):
    """A side's strip or question changed: the strips are aligned again."""


class CompareSide(Vertical, can_focus=True):
    """One client session with its own agent, capabilities, workspace and questions."""

    DEFAULT_CSS = """
    CompareSide { width: 1fr; height: 1fr; border: round $panel-lighten-2; }
    CompareSide.-marked { border: heavy $accent; }
    CompareSide > .strip { height: 2; padding: 0 1; background: $boost; }
    CompareSide > .question { height: auto; padding: 0 1; background: $warning 25%;
        display: none; }
    CompareSide > .question.-open { display: block; }
    """

    def __init__(
        self,
        setup: SideSetup,
        workspace: Path,
        *,
        log_dir: Path | None = None,
        first_prompt: str | None = None,
        stay_connected: bool = True,
        pace: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
        turn_ended: Callable[[], None] = lambda: None,
    ) -> None:
        """`turn_ended` is called as each turn ends, once `turn_done` says so (the demo's
        legend waits for every side's first)."""
        super().__init__()
        self.turn_ended = turn_ended
        self.setup = setup
        self.capabilities = setup.capabilities
        self.log_dir = log_dir
        self.first_prompt = first_prompt
        self.stay_connected = stay_connected
        self.pace = pace
        self.replay = (
            None
            if setup.replay is None
            else ReplayProcess.open(setup.replay, new_agent_log(log_dir))
        )
        self.workspace = workspace if self.replay is None else self.replay.spec.cwd
        # Client terminals are timed with the app's clock, as in the app itself.
        self.controller = SessionController(self, clock=clock)
        self.turns_done = 0
        self.title = setup.title
        self.border_title = setup.title
        self.facts: list[str] = []
        self.strip = Static(strip_text(self.capabilities, []), classes="strip")
        self.question = Static("", classes="question")
        self.view = ConversationView(self.workspace)
        self.view.can_focus = False  # the side takes focus; its keys scroll the view

    @property
    def terminal(self) -> bool:
        return self.capabilities.terminal

    @property
    def turn_done(self) -> bool:
        return self.turns_done > 0

    def compose(self) -> ComposeResult:
        yield self.strip
        yield self.question
        yield self.view

    def mark(self, marked: bool) -> None:
        self.set_class(marked, "-marked")
        self.border_title = f"{MARK}{self.title}" if marked else self.title

    def strip_height(self) -> int:
        """The rows the strip's text needs at its width (it wraps on a narrow side)."""
        strip = self.strip
        width = strip.content_region.width
        if width <= 0:
            return 2
        return strip.get_content_height(strip.content_region.size, self.app.size, width)

    def on_resize(self) -> None:
        self.show_strip()

    def show_strip(self) -> None:
        """The strip's words for this width (full words when they fit), then aligned."""
        width = self.strip.content_region.width
        self.strip.update(strip_text(self.capabilities, self.facts, width))
        self.call_after_refresh(self._strips_changed)

    def on_mount(self) -> None:
        if self.first_prompt is not None and self.replay is None:
            self.controller.submit_prompt(self.first_prompt)
        self.run_side()

    def send(self, text: str) -> None:
        """A prompt from the shared box: queued on this side, its view back at the end."""
        self.controller.submit_prompt(text)
        self.view.jump_to_end()

    @work(group="compare", exit_on_error=False)
    async def run_side(self) -> None:
        if self.replay is not None:
            # The recording has the client send its prompt when it did; nothing is spawned
            # or run. The connection stays until quit, as nothing waits on it.
            self.replay.bind(self.controller)
            await self.controller.run(self.replay.spec, self.replay)
            return
        setup = self.setup
        spec = LaunchSpec.from_command(
            setup.agent,
            self.workspace,
            new_agent_log(self.log_dir),
            self.terminal,
            record=setup.record,
            env=setup.env,
        )
        process: AgentProcess | AgentFailed
        try:
            process = PacedAgentProcess.start(spec)
        except AgentFailed as failure:
            process = failure
        if isinstance(process, PacedAgentProcess):
            process.pace = self.pace
        await self.controller.run(
            spec,
            process,
            stay_connected=self.stay_connected,
            capabilities=self.capabilities.client_capabilities(),
        )

    # What the controller says (tui/session/events.py).
    def conversation_changed(self, changes: list[Change]) -> None:
        self.view.apply(changes)

    def session_event(self, event: SessionEvent) -> None:
        match event:
            case Connected(session=session):
                self.view.terminals = session.client.terminals
                info = session.init.agent_info
                self.border_subtitle = clean_line(f"{info.name} {info.version}") if info else ""
                self.facts = consequences(session.capabilities, session.init)
                self.show_strip()
            case TurnEnded(stop_reason=reason) if reason is not None:
                self.turns_done += 1
                self.turn_ended()
            case Failed(failure=failure):
                self.controller.notice(f"{failure.reason}\n{failure.stderr_tail}", "error")
                self.facts = ["the agent failed: F5 starts it again"]
                self.show_strip()
            case PermissionAsked(request=request):
                self._ask(request)
            case PermissionClosed(following=following):
                self._ask(following)

    def _strips_changed(self) -> None:
        self.post_message(StripsChanged())

    def _ask(self, request: PendingPermission | None) -> None:
        self.question.set_class(request is not None, "-open")
        self.question.update(question_text(request) if request is not None else "")
        self.call_after_refresh(self._strips_changed)

    def on_key(self, event: events.Key) -> None:
        """The open question's keys, while this side has the focus."""
        if not self.controller.permissions:
            return
        request = self.controller.permissions[0]
        for key, option in request.keyed_options:
            if event.character == key:
                event.stop()
                request.choose(option.option_id)
                return
