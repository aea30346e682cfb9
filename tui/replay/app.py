"""`dsh-tui replay FILE`: the real client, its agent a recording (tui/replay/process.py).

`ReplayApp` is the app itself with the replay's keys: when stepping, space or n hands the
client the next message or tool call (tui/replay/steps.py), `.` one wire message, and `e`
plays the rest; the footer says so. A replay is marked as one: the prompt is closed and says
so (nothing typed would go anywhere), the keys that would talk to an agent (resume, mode,
model, cancel) are gone, and no prompt is added to the workspace's history.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.binding import Binding

from tui.agent_log import new_agent_log
from tui.app import DshApp
from tui.config import AppConfig
from tui.permissions import PendingPermission
from tui.prompt.history import PromptHistory
from tui.replay.process import ReplayProcess, recorded_resume
from tui.session.events import (
    Connected,
    PermissionAsked,
    PermissionClosed,
    SessionEvent,
    TurnEnded,
    TurnStarted,
)
from tui.session.prompts import FirstPrompts
from tui.session_pane import SessionPane
from tui.state import Change
from tui.widgets.prompt.prompt import PromptArea

DEFAULT_SPEED = 1.0
"""The recorded timing: a replay looks the way the session did, a demo runs at its pace."""


class ReplayPane(SessionPane):
    """The session pane of a replay: where the live pane opens the prompt, `leave_prompt`
    closes it again in the same handler, then once more after the refresh, when the focus
    the pane gave it has landed."""

    def __init__(self, config: AppConfig, leave_prompt: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(config, **kwargs)
        self.leave_prompt = leave_prompt

    def on_session_pane_event(self, message: SessionPane.Event) -> None:
        super().on_session_pane_event(message)
        message.prevent_default()  # the pane's own handler has run, just above
        if isinstance(message.event, Connected | TurnStarted | TurnEnded):
            self.leave_prompt()
            self.call_after_refresh(self.leave_prompt)


class ReplayApp(DshApp):
    # The footer ranks keys by this list: the step key first (it is what stepping is
    # about), then the app's own in their order, so a replay that does not step shows the
    # footer the live app does.
    BINDINGS = [
        Binding("space,n", "replay_step", "Next", key_display="space", priority=True),
        Binding(".", "replay_step_message", "One message", priority=True),
        Binding("e", "replay_to_end", "To the end", priority=True),
        *DshApp.BINDINGS,
    ]
    # What a replay cannot do: each would ask a recording for what it never recorded.
    AGENT_ACTIONS = frozenset(
        {"resume", "next_mode", "pick_model", "cancel_turn", "new_tab", "close_tab"}
    )

    def __init__(self, config: AppConfig, replay: ReplayProcess) -> None:
        super().__init__(config)
        self.replay = replay
        replay.bind(self.controller)
        self.controller.add_observer(self)  # after the pane: questions answered once shown
        self._answered: set[int] = set()  # the recorded permission questions answered

    def new_session_pane(self) -> SessionPane:
        # A replay's prompts are not the user's, nor are its sessions.
        return ReplayPane(
            self.config,
            self._leave_prompt,
            history=PromptHistory(None),
            first_prompts=FirstPrompts(None),
            id="session",
        )

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

    # The prompt is closed: nothing typed would reach an agent, and, stepping, the keys are
    # the replay's (Textual drops an app's binding for a key the focused input consumes).
    # Also each time the pane would open it (ReplayPane).
    def on_mount(self) -> None:
        self.call_after_refresh(self._leave_prompt)

    def _leave_prompt(self) -> None:
        prompt = self.query_one(PromptArea)
        prompt.disabled = True
        agent = self.replay.agent
        prompt.placeholder = (
            STEP_PLACEHOLDER if self.check_action("replay_step", ()) else PLAY_PLACEHOLDER
        )
        if self.focused is prompt or agent.stepping:
            self.screen.set_focus(None)
        self.refresh_bindings()

    # A permission question is answered as the user answered it then (the app observes the
    # controller too, after its pane).
    def conversation_changed(self, changes: list[Change]) -> None:
        """The transcript's changes are the pane's."""

    def session_event(self, event: SessionEvent) -> None:
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

    def action_replay_step_message(self) -> None:
        self.replay.agent.step_message()

    def action_replay_to_end(self) -> None:
        self.replay.agent.play_to_end()
        self._leave_prompt()  # its words no longer speak of steps

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        agent = self.replay.agent
        if action.startswith("replay_"):
            return agent.stepping and not agent.to_end and not agent.finished
        if action in self.AGENT_ACTIONS:
            return False
        return super().check_action(action, parameters)


STEP_PLACEHOLDER = "Replay, nothing is sent · space the next message or tool call · e the rest"
PLAY_PLACEHOLDER = "Replay of a recording: nothing is sent from here"


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
