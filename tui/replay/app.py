"""`dsh-tui replay FILE`: the real client, its agent a recording (tui/replay/process.py).

`ReplayApp` is the app itself with the replay's one key: when stepping, space or n hands the
client the next recorded message, and the footer says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from textual.binding import Binding

from tui import session_messages as messages
from tui.agent_log import new_agent_log
from tui.app import DshApp
from tui.config import AppConfig
from tui.permissions import PendingPermission
from tui.replay.process import ReplayProcess, recorded_resume
from tui.session_events import PermissionAsked, PermissionClosed, SessionEvent
from tui.widgets.prompt import PromptArea

DEFAULT_SPEED = 1.0
"""The recorded timing: a replay looks the way the session did, a demo runs at its pace."""


class ReplayApp(DshApp):
    # The footer ranks keys by this list: the step key first (it is what stepping is
    # about), then the app's own in their order, so a replay that does not step shows the
    # footer the live app does.
    BINDINGS = [
        Binding(
            "space,n",
            "replay_step",
            "for the next message",
            key_display="step: press space/n",
            priority=True,
        ),
        *DshApp.BINDINGS,
    ]

    def __init__(self, config: AppConfig, replay: ReplayProcess) -> None:
        super().__init__(config)
        self.replay = replay
        replay.bind(self.controller)
        self._answered: set[int] = set()  # the recorded permission questions answered

    def start_agent(self, resume: str | None = None) -> None:
        if self.replay.claimed:
            # A retry after a failure plays the recording again, never a real agent.
            agent = self.replay.agent
            self.replay = ReplayProcess(
                self.replay.spec, self.replay.recording, speed=agent.speed, step=agent.stepping
            )
            self.replay.bind(self.controller)
            self._answered.clear()
            self._prestarted = self.replay
        super().start_agent(resume)

    # Stepping, the keys are the replay's: the prompt, which would take space and n as text
    # (Textual drops an app's binding for a key the focused input consumes), is left.
    def on_mount(self) -> None:
        if self.replay.agent.stepping:
            self.call_after_refresh(self._leave_prompt)

    def on_session_connected(self, message: messages.Connected) -> None:
        if self.replay.agent.stepping:
            self.call_after_refresh(self._leave_prompt)

    def _leave_prompt(self) -> None:
        self.query_one(PromptArea).disabled = True
        self.screen.set_focus(None)
        self.refresh_bindings()

    # A permission question is answered as the user answered it then.
    def session_event(self, event: SessionEvent) -> None:
        super().session_event(event)
        shown = None
        if isinstance(event, PermissionAsked):
            shown = event.request
        elif isinstance(event, PermissionClosed):
            shown = event.following
        if shown is not None:
            self.call_after_refresh(self._answer_as_recorded, shown)

    def _answer_as_recorded(self, request: PendingPermission) -> None:
        outcome = self.replay.recording.permission_outcome(
            request.tool_call.tool_call_id, self._answered
        )
        if outcome is None:
            return  # the recording ends before the answer: it is the user's to give
        option = outcome.get("optionId")
        if outcome.get("outcome") == "selected" and isinstance(option, str):
            request.choose(option)
        else:
            request.cancel()

    def action_replay_step(self) -> None:
        self.replay.agent.step()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "replay_step":
            return self.replay.agent.stepping and not self.replay.agent.finished
        return super().check_action(action, parameters)


def replay_app(
    path: Path,
    *,
    speed: float = DEFAULT_SPEED,
    step: bool = False,
    log_dir: Path | None = None,
    theme: str = "textual-dark",
    clock: Callable[[], float] = time.monotonic,
    agent_durations: bool = True,
) -> ReplayApp:
    """The client set up as the recording's session was. Raises OSError for an unreadable
    file."""
    replay = ReplayProcess.open(path, new_agent_log(log_dir), speed=speed, step=step)
    spec = replay.spec
    config = AppConfig(
        spec.command_line,
        spec.cwd,
        spec.terminal,
        log_dir,
        theme=theme,
        resume=recorded_resume(replay.recording),
        clock=clock,
        agent_durations=agent_durations,
        started=replay,
    )
    return ReplayApp(config, replay)
