"""The dsh-tui application: lifecycle of the agent connection, the transcript and the prompt.

The connection and every prompt run in one worker, never in a message handler: awaiting a
prompt in a handler would freeze key bindings (Esc could not cancel).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from pathlib import Path

from acp.schema import (
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Input
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from tui.agent_log import new_agent_log
from tui.connection import AgentFailed, AgentSession, LaunchSpec, SessionUpdate, open_session
from tui.permissions import PendingPermission
from tui.state import Change, Conversation
from tui.widgets.conversation import ConversationView
from tui.widgets.failure import AgentFailedScreen
from tui.widgets.header import SessionHeader
from tui.widgets.permission import PermissionPanel

log = logging.getLogger(__name__)

DEFAULT_AGENT = "dsh-agent"


@dataclass(frozen=True)
class AppConfig:
    agent_command: str = DEFAULT_AGENT
    cwd: Path = field(default_factory=Path.cwd)
    terminal: bool = True
    log_dir: Path | None = None
    theme: str = "textual-dark"


def workspace_label(cwd: Path) -> str:
    home = Path.home()
    try:
        return "~/" + str(cwd.relative_to(home)) if cwd != home else "~"
    except ValueError:
        return str(cwd)


class DshApp(App[None]):
    TITLE = "dsh-tui"
    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel turn"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]
    CSS = """
    Screen { layout: vertical; }
    #prompt { dock: bottom; margin: 0 0 1 0; border: round $primary; }
    #prompt:disabled { border: round $panel-lighten-2; }
    """

    def __init__(self, config: AppConfig | None = None) -> None:
        super().__init__()
        self.config = config or AppConfig()
        self.theme = self.config.theme
        self.conversation = Conversation()
        self.session: AgentSession | None = None
        self.failure: AgentFailed | None = None
        self.turn_running = False
        self.turns_completed = 0
        self._prompts: asyncio.Queue[str] = asyncio.Queue()
        self._acp_worker: Worker[None] | None = None
        self._quitting = False
        self._permissions: list[PendingPermission] = []

    def compose(self) -> ComposeResult:
        yield SessionHeader(id="header")
        yield ConversationView(self.config.cwd, id="conversation")
        yield Input(placeholder="Connecting to the agent…", id="prompt", disabled=True)
        yield Footer()

    def on_mount(self) -> None:
        self.start_agent()

    # -- connection -------------------------------------------------------------------

    def start_agent(self) -> None:
        self.failure = None
        self._acp_worker = self.run_acp()

    @work(name="acp", group="acp", exclusive=True, exit_on_error=False)
    async def run_acp(self) -> None:
        try:
            spec = LaunchSpec.from_command(
                self.config.agent_command,
                self.config.cwd,
                new_agent_log(self.config.log_dir),
                self.config.terminal,
            )
        except ValueError as error:
            self.notify(str(error), severity="error")
            return
        self.query_one(SessionHeader).show_connecting(spec.command_line)
        try:
            async with open_session(spec, self) as session:
                self.session = session
                self._on_connected(session)
                while True:
                    text = await self._prompts.get()
                    await self._run_turn(session, text)
        except AgentFailed as failure:
            self._on_failed(failure)
        except Exception as error:
            # Anything else is a client bug; still show it instead of dying in a worker.
            log.exception("connection worker failed")
            self._on_failed(AgentFailed(spec, f"dsh-tui error: {error!r}", None, ""))
        finally:
            self.session = None
            self.turn_running = False

    async def _run_turn(self, session: AgentSession, text: str) -> None:
        self.turn_running = True
        prompt = self.query_one("#prompt", Input)
        prompt.placeholder = "Working… (esc to cancel)"
        try:
            response = await session.prompt(text)
            if response.stop_reason != "end_turn":
                self._apply(self.conversation.notice(f"turn ended: {response.stop_reason}"))
        finally:
            self.turn_running = False
            self.turns_completed += 1
            prompt.placeholder = "Message the agent"

    def _on_connected(self, session: AgentSession) -> None:
        info = session.init.agent_info
        self.query_one(SessionHeader).show_session(
            info.name if info else "agent",
            info.version if info else "",
            session.init.protocol_version,
            self.config.terminal,
            workspace_label(self.config.cwd),
        )
        prompt = self.query_one("#prompt", Input)
        prompt.disabled = False
        prompt.placeholder = "Message the agent"
        prompt.focus()

    def _on_failed(self, failure: AgentFailed) -> None:
        log.error("agent failed: %s (exit %s)", failure.reason, failure.exit_code)
        self.failure = failure
        self.query_one("#prompt", Input).disabled = True
        self.cancel_permissions()
        self._apply(self.conversation.settle_unfinished())
        if self._quitting:
            return
        self._apply(
            self.conversation.notice(f"{failure.reason} (exit {failure.exit_code})", "error")
        )

        def after(choice: str | None) -> None:
            if choice == "retry":
                self.start_agent()
            else:
                self.run_worker(self.action_quit(), group="quit")

        self.push_screen(AgentFailedScreen(failure), after)

    # -- the ClientSink protocol --------------------------------------------------------

    def on_session_update(self, session_id: str, update: SessionUpdate) -> None:
        self._apply(self.conversation.apply(update))

    def on_unsupported(self, session_id: str, what: str) -> None:
        self._apply(self.conversation.notice(f"unsupported {what} (not shown)", "warning"))

    async def ask_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        """Queue the request; one panel at a time replaces the prompt until answered."""
        request = PendingPermission(session_id, tool_call, options)
        self._permissions.append(request)
        if len(self._permissions) == 1:
            self._show_permission(request)
        try:
            return await request.answer
        finally:
            self._permissions.remove(request)
            self._close_permission(request)

    def _show_permission(self, request: PendingPermission) -> None:
        panel = PermissionPanel(request, self.config.cwd)
        self.query_one("#prompt", Input).display = False
        self.mount(panel, before=self.query_one(Footer))
        panel.focus()

    def _close_permission(self, request: PendingPermission) -> None:
        for panel in self.query(PermissionPanel):
            if panel.request is request:
                panel.remove()
        if self._permissions:
            self._show_permission(self._permissions[0])
        else:
            prompt = self.query_one("#prompt", Input)
            prompt.display = True
            prompt.focus()

    def cancel_permissions(self) -> None:
        for request in list(self._permissions):
            request.cancel()

    def _apply(self, changes: list[Change]) -> None:
        self.query_one(ConversationView).apply(changes)

    # -- input and actions --------------------------------------------------------------

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text or self.session is None:
            return
        if self.turn_running:
            self.notify("A turn is running: wait for it, or press esc to cancel it.")
            return
        event.input.value = ""
        self._apply(self.conversation.add_prompt(text))
        self._prompts.put_nowait(text)

    async def action_cancel_turn(self) -> None:
        self.cancel_permissions()
        if self.session is not None and self.turn_running:
            await self.session.cancel()

    async def action_quit(self) -> None:
        """Quit only once the agent is reaped: no leftover process, no closed-loop warnings."""
        if self._quitting:
            return
        self._quitting = True
        await self.stop_agent()
        self.exit()

    async def on_unmount(self) -> None:
        # Any other way out (a test harness, an error) still reaps the agent before the loop ends.
        self._quitting = True
        await self.stop_agent()

    async def stop_agent(self) -> None:
        """Cancel the turn politely, then stop the connection worker and wait for its cleanup."""
        self.cancel_permissions()
        if self.session is not None and self.turn_running:
            await self.session.cancel()
        worker = self._acp_worker
        if worker is not None and worker.state.name != "PENDING":
            if not worker.is_cancelled and not worker.is_finished:
                worker.cancel()
            # wait() awaits the task even when it was cancelled, so its cleanup completes.
            with contextlib.suppress(WorkerCancelled, WorkerFailed, asyncio.CancelledError):
                await worker.wait()
