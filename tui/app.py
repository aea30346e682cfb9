"""The dsh-tui application: lifecycle of the agent connection, the transcript and the prompt.

The connection and every prompt run in one worker, never in a message handler: awaiting a
prompt in a handler would freeze key bindings (Esc could not cancel).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from tui.agent_log import new_agent_log
from tui.capabilities import can_list, can_load
from tui.config import AppConfig as AppConfig  # re-exported: built by callers of DshApp
from tui.heap import freeze_startup_heap
from tui.history import PromptHistory
from tui.keys import register_alt_enter
from tui.launch import AgentFailed, AgentProcess, LaunchSpec
from tui.permissions import PendingPermission
from tui.sanitize import sanitize_text, strip_control
from tui.state import Change, Conversation, SessionChanged
from tui.widgets.capabilities import CapabilitiesScreen
from tui.widgets.choice import ChoiceScreen
from tui.widgets.command_menu import CommandMenu
from tui.widgets.conversation import ConversationView
from tui.widgets.diff_review import DiffReviewScreen
from tui.widgets.failure import AgentFailedScreen, exit_text
from tui.widgets.header import HeaderInfo, SessionHeader
from tui.widgets.help import HelpScreen
from tui.widgets.permission import TYPING_PAUSE_S, PermissionPanel
from tui.widgets.plan import PlanView
from tui.widgets.prompt import KEYS_HINT, PromptArea
from tui.widgets.queued import QueuedPrompts
from tui.widgets.status import StatusLine
from tui.widgets.welcome import Welcome

# The ACP SDK (its pydantic schema takes 0.3–0.7 s to import) and tui.connection, which needs it,
# are imported by run_acp once the agent is starting: the first frame needs only Textual. The
# modules above import the SDK only for annotations, or inside the functions that use it.
if TYPE_CHECKING:
    from acp.schema import PermissionOption, RequestPermissionResponse, SessionInfo, ToolCallUpdate
    from textual.notifications import SeverityLevel

    from tui.connection import AgentSession, SessionUpdate
    from tui.terminals import TerminalManager

log = logging.getLogger(__name__)

CONNECTING_PLACEHOLDER = "Connecting to the agent… type ahead: enter queues the prompt"
READY_PLACEHOLDER = f"Message the agent · {KEYS_HINT}"
WORKING_PLACEHOLDER = "Working… esc cancels · enter queues the next prompt"


async def import_connection() -> None:
    """Import tui.connection, and with it the SDK, in a thread: the loop keeps drawing the
    first frame and reading keys meanwhile. Quick once imported (tests, a retry)."""
    if "tui.connection" not in sys.modules:
        await asyncio.to_thread(importlib.import_module, "tui.connection")


def session_label(info: SessionInfo) -> str:
    title = info.title or "(untitled)"
    when = (info.updated_at or "")[:16].replace("T", " ")
    return f"{title}  ·  {when}" if when else title


def workspace_label(cwd: Path) -> str:
    home = Path.home()
    try:
        return "~/" + str(cwd.relative_to(home)) if cwd != home else "~"
    except ValueError:
        return str(cwd)


class DshApp(App[None]):
    TITLE = "dsh-tui"
    BINDINGS = [
        # Footer order, the same on every screen: what this moment needs first (cancel), the
        # session's settings, the views, then quit.
        Binding("escape", "cancel_turn", "Cancel turn"),
        Binding("shift+tab", "next_mode", "Mode", priority=True),
        Binding("ctrl+l", "pick_model", "Model"),
        Binding("ctrl+r", "resume", "Resume"),
        Binding("ctrl+k", "capabilities", "Capabilities", priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("tab", "complete_command", "Complete", show=False, priority=True),
        Binding("pageup", "page_transcript(-1)", "Scroll up", show=False),
        Binding("pagedown", "page_transcript(1)", "Scroll down", show=False),
        Binding("ctrl+end", "transcript_end", "End", show=False, priority=True),
        Binding("f1", "help", "Keys", show=False),
    ]
    CSS = """
    Screen { layout: vertical; }
    #bottom { dock: bottom; height: auto; margin-bottom: 1; }
    """

    def __init__(self, config: AppConfig | None = None) -> None:
        super().__init__()
        self.config = config or AppConfig()
        self.theme = self.config.theme
        self.conversation = Conversation()
        # Held, not queried: every streamed update goes to it.
        self.transcript = ConversationView(self.config.cwd, id="conversation")
        self.session: AgentSession | None = None
        self.failure: AgentFailed | None = None
        self.turn_running = False
        self.turns_completed = 0
        # Prompts sent with Enter wait here until the session is ready and no turn runs.
        self.queued: list[str] = []
        self._queue_changed = asyncio.Event()
        self.history = PromptHistory.for_workspace(self.config.cwd)
        register_alt_enter()
        self._acp_worker: Worker[None] | None = None
        self._quitting = False
        self._permissions: list[PendingPermission] = []
        self._resume: str | None = None
        self._last_session_id: str | None = None
        self._agent_can_load = False

    def compose(self) -> ComposeResult:
        yield SessionHeader(id="header")
        yield Welcome(id="welcome")
        yield self.transcript
        with Vertical(id="bottom"):
            yield PlanView(id="plan")
            yield (menu := CommandMenu(id="commands"))
            yield QueuedPrompts(id="queued")
            yield PromptArea(
                self.history,
                self.take_back_queued,
                placeholder=CONNECTING_PLACEHOLDER,
                menu=menu,
                id="prompt",
            )
            yield StatusLine(id="status")
        yield Footer()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A toast of plain, sanitised text: notifications carry agent text (an error from
        session/set_mode, say), and Textual's default, markup, would make `[@click=app.quit]`
        a live action, while an escape sequence would reach the terminal."""
        if not markup:
            message, title = sanitize_text(message), strip_control(title)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def action_help_quit(self) -> None:
        """Textual's Ctrl+C hint, said in plain text: its own wording is markup (`[b]`), which
        `notify` here would show as written."""
        for key, active in self.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                self.notify(f"Press {key} to quit the app", title="Do you want to quit?")
                return

    def on_mount(self) -> None:
        self._prestarted = self.config.started
        self._heap_frozen = not self.config.freeze_heap
        self._first_frame_drawn = False
        # The prompt has focus from the first frame: what is typed before the agent answers
        # is kept. (Not App.AUTO_FOCUS: pushed screens would look for a prompt too.)
        self.screen.set_focus(self.query_one(PromptArea))
        self.start_agent(self.config.resume)
        if self.animation_level != "none":
            self._spinner_frame = 0
            self.set_interval(0.1, self._tick_spinners)

    def _tick_spinners(self) -> None:
        self._spinner_frame += 1
        self.transcript.tick_spinners(self._spinner_frame)

    # -- connection -------------------------------------------------------------------

    def start_agent(self, resume: str | None = None) -> None:
        self.failure = None
        self._resume = resume
        self._acp_worker = self.run_acp()

    def reset_conversation(self) -> None:
        """Start from an empty transcript, e.g. before a load replays a session's history."""
        self.conversation = Conversation()
        self.transcript.clear()
        self.query_one(PlanView).show_plan([])
        self.query_one(StatusLine).show_usage(None)

    async def choose_session(self, sessions: list[SessionInfo]) -> str | None:
        """Let the user pick a session to resume (--resume without an id); None starts a new
        one."""
        if not sessions:
            self.notify("No earlier sessions in this workspace: starting a new one.")
            return None
        return await self.pick_session(sessions)

    async def pick_session(self, sessions: list[SessionInfo]) -> str | None:
        """The session picker: the chosen session's id, or None on Esc."""
        choices = [(info.session_id, session_label(info)) for info in sessions]
        answer: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self.push_screen(ChoiceScreen("Resume a session", choices, None), answer.set_result)
        return await answer

    async def action_resume(self) -> None:
        """Pick an earlier session, then reconnect and load it. The list comes from the live
        connection (session/list), so Esc in the picker leaves the current session untouched;
        nothing is restarted before a choice. Not with an agent that cannot load sessions:
        restarting it would only throw the current conversation away."""
        if isinstance(self.screen, ChoiceScreen):
            return  # a picker is already open
        session = self.session
        if session is None:
            # Not connected (still starting, or failed): there is nothing to keep.
            await self.stop_agent()
            self.reset_conversation()
            self.start_agent(resume="")
            return
        if not self._agent_can_load:
            self.notify("This agent cannot resume sessions (it does not offer session/load).")
            return
        if not can_list(session.init):
            self.notify(
                "This agent cannot list its sessions (no session/list): "
                "start dsh-tui with --resume ID to load one."
            )
            return
        self.resume_from_list(session)

    @work(name="resume", group="resume", exclusive=True, exit_on_error=False)
    async def resume_from_list(self, session: AgentSession) -> None:
        """Ctrl+R on a live session: in a worker, since the picker waits for the user's keys."""
        from acp import RequestError

        from tui.agent_text import clean, clean_error

        try:
            listed = await session.conn.list_sessions(cwd=str(session.spec.cwd))
        except (RequestError, ConnectionError) as error:
            self.notify(f"Could not list sessions: {clean_error(error)}", severity="error")
            return
        others = [info for info in clean(listed.sessions) if info.session_id != session.session_id]
        if not others:
            self.notify("No earlier sessions in this workspace.")
            return
        choice = await self.pick_session(others)
        if choice is None or self.session is not session:
            return  # Esc, or the connection changed while the picker was open
        await self.stop_agent()
        self.reset_conversation()
        self.start_agent(resume=choice)

    @work(name="acp", group="acp", exclusive=True, exit_on_error=False)
    async def run_acp(self) -> None:
        started, self._prestarted = self._prestarted, None
        try:
            spec = started.spec if started is not None else self.launch_spec()
        except ValueError as error:
            self.notify(str(error), severity="error")
            return
        self.query_one(SessionHeader).show_connecting(spec.command_line)
        process: AgentProcess | None = None
        try:
            if isinstance(started, AgentFailed):
                raise started
            # Start the agent first: its own start-up overlaps the SDK import below.
            process = started or AgentProcess.start(spec)
            await self.first_frame()
            await import_connection()
            from tui.connection import open_session

            async with open_session(
                spec, self, self._resume, self.choose_session, process
            ) as session:
                self.session = session
                self._on_connected(session)
                if not self._heap_frozen:
                    self._heap_frozen = True
                    self.call_after_refresh(freeze_startup_heap)
                while True:
                    text = await self._next_queued()
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
            if process is not None:
                process.discard()  # only if open_session never took it (cancelled before)

    async def first_frame(self) -> None:
        """Wait until the screen has been drawn once: a thread importing the SDK would otherwise
        hold the interpreter while the first frame waits."""
        if not self._first_frame_drawn:
            drawn = asyncio.Event()
            self.call_after_refresh(drawn.set)
            await drawn.wait()
            self._first_frame_drawn = True

    def launch_spec(self) -> LaunchSpec:
        """How to start the configured agent, with a fresh stderr log. Raises ValueError."""
        return LaunchSpec.from_command(
            self.config.agent_command,
            self.config.cwd,
            new_agent_log(self.config.log_dir),
            self.config.terminal,
            self.config.allow_dirs,
        )

    async def _next_queued(self) -> str:
        """The oldest queued prompt, once there is one."""
        while not self.queued:
            self._queue_changed.clear()
            await self._queue_changed.wait()
        text = self.queued.pop(0)
        self._show_queue()
        return text

    async def _run_turn(self, session: AgentSession, text: str) -> None:
        self.turn_running = True
        self.refresh_bindings()
        prompt = self.query_one(PromptArea)
        prompt.placeholder = WORKING_PLACEHOLDER
        self._apply(self.conversation.add_prompt(text))
        terminals = session.client.terminals
        before = set(terminals.terminal_ids(include_released=True))
        try:
            response = await session.prompt(text)
            if response.stop_reason == "cancelled":
                # The agent has sent its last updates for the turn: what is still pending or
                # running will never finish, so it stops spinning.
                self._apply(self.conversation.settle_unfinished("cancelled"))
            if response.stop_reason != "end_turn":
                self._apply(self.conversation.notice(f"turn ended: {response.stop_reason}"))
            if response.stop_reason == "cancelled":
                await self._kill_turn_terminals(terminals, before)
        finally:
            self.conversation.end_turn()
            self.turn_running = False
            self.turns_completed += 1
            prompt.placeholder = READY_PLACEHOLDER
            self._show_queue()

    async def _kill_turn_terminals(self, terminals: TerminalManager, before: set[str]) -> None:
        """A cancelled turn's client terminals that the agent did not release are killed: an
        agent that never calls terminal/kill or terminal/release would leave their commands
        running, unseen, until dsh-tui quits."""
        created = [tid for tid in terminals.terminal_ids() if tid not in before]
        killed = await terminals.kill_unreleased(created)
        if killed:
            count = f"{len(killed)} client terminal{'s' if len(killed) > 1 else ''}"
            self._apply(self.conversation.notice(f"stopped {count} the cancelled turn left open"))

    def _on_connected(self, session: AgentSession) -> None:
        self.transcript.terminals = session.client.terminals
        self._last_session_id = session.session_id
        self._agent_can_load = can_load(session.init)
        self.conversation.start_session(
            session.session.modes,
            session.session.config_options or [],
            session.client.offered_models,
        )
        if self.conversation.entries:
            self.hide_welcome()
        if session.resumed:
            # The replay is over: a call it left unfinished belongs to a turn long gone.
            self._apply(self.conversation.settle_unfinished("unknown"))
        self.refresh_header()
        prompt = self.query_one(PromptArea)
        prompt.disabled = False
        prompt.placeholder = READY_PLACEHOLDER
        prompt.focus()
        self._show_queue()

    def hide_welcome(self) -> None:
        for welcome in self.query(Welcome):
            welcome.remove()

    def refresh_header(self) -> None:
        session = self.session
        if session is None:
            return
        agent = session.init.agent_info
        for welcome in self.query(Welcome):
            welcome.show(
                f"{agent.name} {agent.version}" if agent else "the agent",
                self.conversation.mode_name,
                self.conversation.model_name,
            )
        fs = session.capabilities.fs
        self.query_one(StatusLine).show_mode(self.conversation.mode_name)
        self.query_one(SessionHeader).show_info(
            HeaderInfo(
                agent_name=agent.name if agent else "agent",
                agent_version=agent.version if agent else "",
                protocol_version=session.init.protocol_version,
                terminal=bool(session.capabilities.terminal),
                fs=bool(fs and fs.read_text_file),
                workspace=workspace_label(self.config.cwd),
                title=self.conversation.title,
                mode=self.conversation.mode_name,
                model=self.conversation.model_name,
            )
        )

    def _on_session_changed(self, what: str) -> None:
        if what == "plan":
            self.query_one(PlanView).show_plan(self.conversation.plan)
        elif what in ("title", "mode", "config"):
            self.refresh_header()
        elif what == "usage":
            self.query_one(StatusLine).show_usage(self.conversation.usage)
        elif what == "commands":
            self.query_one(CommandMenu).commands = self.conversation.commands

    def _on_failed(self, failure: AgentFailed) -> None:
        log.error(
            "agent failed: %s\n  command: %s\n  executable: %s\n  exit: %s\n  agent log: %s"
            "\n  stderr (last lines):\n%s",
            failure.reason,
            failure.spec.command_line,
            failure.spec.program or "(none found)",
            exit_text(failure),
            failure.spec.log_path,
            failure.stderr_tail or "(empty)",
        )
        self.failure = failure
        self.query_one(PromptArea).disabled = True
        self.take_back_all_queued()
        self.cancel_permissions()
        self._apply(self.conversation.settle_unfinished())
        if self._quitting:
            return
        self._apply(
            self.conversation.notice(f"{failure.reason} (exit: {exit_text(failure)})", "error")
        )

        last_session = self._last_session_id

        def after(choice: str | None) -> None:
            if choice == "retry":
                # Resume where we were when the agent can replay it; else start afresh.
                if last_session is not None and self._agent_can_load:
                    self.reset_conversation()
                    self.start_agent(resume=last_session)
                else:
                    self.start_agent()
            else:
                self.run_worker(self.action_quit(), group="quit")

        self.push_screen(AgentFailedScreen(failure), after)

    # -- the ClientSink protocol --------------------------------------------------------

    def on_session_update(self, session_id: str, update: SessionUpdate) -> None:
        self._apply(self.conversation.apply(update))

    def on_unsupported(self, session_id: str, what: str) -> None:
        self._apply(self.conversation.unsupported(what))

    async def ask_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        """Queue the request; one panel at a time replaces the prompt until answered."""
        self._apply(self.conversation.asked_call(tool_call))
        request = PendingPermission(session_id, tool_call, options)
        self._permissions.append(request)
        if len(self._permissions) == 1:
            self._show_permission(request)
        try:
            response = await request.answer
            self._apply(
                self.conversation.permission_answered(tool_call.tool_call_id, options, response)
            )
            return response
        finally:
            self._permissions.remove(request)
            self._close_permission(request)

    def _show_permission(self, request: PendingPermission) -> None:
        """Show the request's panel. One that cannot be shown (a panel that fails to build)
        is answered cancelled, which is fail-closed, and its `ask_permission` then shows the
        next: raising here instead would leave it first in the queue for ever, unanswered,
        and no later panel would appear."""
        try:
            card = self.conversation.tool_calls.get(request.tool_call.tool_call_id)
            prompt = self.query_one(PromptArea)
            panel = PermissionPanel(
                request,
                self.config.cwd,
                card.content if card else None,
                typing_until=prompt.last_typed + TYPING_PAUSE_S,
                type_ahead=self._type_ahead,
            )
            prompt.display = False
            self.query_one("#bottom").mount(panel, before=self.query_one("#prompt"))
            panel.focus()
        except Exception:
            log.exception("could not show a permission request")
            self.notify(
                "A permission request could not be shown; it was answered cancelled.",
                severity="error",
            )
            request.cancel()

    def _type_ahead(self, event: events.Key) -> None:
        """Keys typed into the prompt just as a question appeared: they stay the prompt's."""
        prompt = self.query_one(PromptArea)
        if event.key == "enter":
            self.on_prompt_area_submitted(PromptArea.Submitted(prompt, prompt.text))
        elif event.character:
            prompt.insert(event.character)

    def _close_permission(self, request: PendingPermission) -> None:
        # Drop focus before the panel leaves: Textual would hand it to the last focusable
        # widget before the panel, inside the transcript, and scroll the transcript to it.
        self.screen.set_focus(None)
        for panel in self.query(PermissionPanel):
            if panel.request is request:
                panel.remove()
        if self._permissions:
            self._show_permission(self._permissions[0])
        else:
            prompt = self.query_one(PromptArea)
            prompt.display = True
            prompt.focus()

    def on_permission_panel_review_requested(self, event: PermissionPanel.ReviewRequested) -> None:
        """Open the full-screen diff review; picking any of the agent's options there (allow
        always included) answers the request, with the lines numbered as in the preview."""
        panel = event.control
        request = event.request
        title = request.tool_call.title or request.tool_call.tool_call_id

        def answered(option_id: str | None) -> None:
            if option_id is not None:
                request.choose(option_id)

        screen = DiffReviewScreen(
            panel.review_items(),
            self.config.cwd,
            title,
            options=request.keyed_options,
            anchoring=panel.anchoring,
        )
        self.push_screen(screen, answered)

    def cancel_permissions(self) -> None:
        for request in list(self._permissions):
            request.cancel()

    def _apply(self, changes: list[Change]) -> None:
        self.transcript.apply(changes)
        for change in changes:
            if isinstance(change, SessionChanged):
                self._on_session_changed(change.what)

    # -- input and actions --------------------------------------------------------------

    def on_prompt_area_submitted(self, event: PromptArea.Submitted) -> None:
        """Queue the prompt: it is sent once the session is ready and no turn runs, so what
        is typed before the agent answers, or during a turn, is never lost."""
        text = event.text.strip()
        if not text:
            return
        event.prompt.clear()
        self.history.add(text)
        self.submit_prompt(text)

    def submit_prompt(self, text: str) -> None:
        """Queue a prompt, to be sent in order once the session is ready and no turn runs."""
        self.hide_welcome()
        self.queued.append(text)
        self._queue_changed.set()
        self._show_queue()

    def on_prompt_area_end_requested(self, event: PromptArea.EndRequested) -> None:
        self.action_transcript_end()

    def on_text_area_changed(self, event: PromptArea.Changed) -> None:
        if isinstance(event.text_area, PromptArea):
            self.query_one(CommandMenu).typed = event.text_area.text

    def _show_queue(self) -> None:
        """Show the prompts that wait; one about to be sent to an idle session is not shown."""
        waiting = self.session is None or self.turn_running
        self.query_one(QueuedPrompts).show(self.queued if waiting else [])
        self.refresh_bindings()

    def take_back_queued(self) -> str | None:
        """The newest queued prompt, out of the queue and back to the prompt for editing."""
        if not self.queued:
            return None
        text = self.queued.pop()
        self._show_queue()
        return text

    def take_back_all_queued(self) -> None:
        """Return every queued prompt to the prompt box, unsent, before what is typed there."""
        if not self.queued:
            return
        prompt = self.query_one(PromptArea)
        prompt.load("\n".join([*self.queued, prompt.text]).rstrip("\n"))
        self.queued.clear()
        self._show_queue()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that would do nothing are left out of the footer: Esc with no turn to cancel,
        and on the failure screen everything but its own keys and quit."""
        if action == "quit" or action == "help":
            return True
        if isinstance(self.screen, AgentFailedScreen):
            return False
        if action == "complete_command":
            return self.query_one(CommandMenu).completion() is not None
        if action == "cancel_turn":
            return self.turn_running or bool(self.queued) or bool(self._permissions)
        return True

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The palette: Textual's own commands, then the app's (tui/palette.py)."""
        from tui.palette import app_commands

        yield from super().get_system_commands(screen)
        yield from app_commands(self)

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
            return
        self.push_screen(HelpScreen(list(self.BINDINGS)))

    def action_transcript_end(self) -> None:
        """Ctrl+End, or End on an empty prompt: the end of the transcript, followed again."""
        self.transcript.jump_to_end()

    def action_page_transcript(self, direction: int) -> None:
        """Page through the transcript from the prompt. Paging up past the top brings back
        entries that long sessions take off the screen."""
        view = self.transcript
        if direction > 0:
            view.scroll_page_down(animate=False)
        elif view.scroll_y <= 0 and view.hidden_count:
            view.show_earlier()
        else:
            view.scroll_page_up(animate=False)

    def action_complete_command(self) -> None:
        completion = self.query_one(CommandMenu).completion()
        if completion is not None:
            self.query_one(PromptArea).load(completion)

    def action_capabilities(self) -> None:
        if isinstance(self.screen, CapabilitiesScreen):
            self.screen.dismiss()
            return
        session = self.session
        if session is None:
            self.notify("Not connected to an agent yet.")
            return
        self.push_screen(
            CapabilitiesScreen(
                session.capabilities, session.init, session.session, session.client.terminals
            )
        )

    def action_next_mode(self) -> None:
        modes = self.conversation.modes
        if self.session is None or not modes:
            self.notify("This agent offers no modes.")
            return
        ids = [mode.id for mode in modes]
        current = ids.index(self.conversation.mode_id) if self.conversation.mode_id in ids else -1
        self.set_mode(ids[(current + 1) % len(ids)])

    @work(group="settings")
    async def set_mode(self, mode_id: str) -> None:
        from acp import RequestError
        from acp.schema import CurrentModeUpdate

        session = self.session
        if session is None:
            return
        from tui.agent_text import clean_error

        try:
            await session.set_mode(mode_id)
        except (RequestError, ConnectionError) as error:
            self.notify(f"Could not switch mode: {clean_error(error)}", severity="error")
            return
        self._apply(
            self.conversation.apply(
                CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode_id)
            )
        )
        self.notify(f"Mode: {self.conversation.mode_name or mode_id}", timeout=2)

    def action_pick_model(self) -> None:
        """The model config option when the agent has one; else the models it offers in the
        unstable `models` field, switched with session/set_model."""
        option = self.conversation.model_option()
        offered = self.conversation.offered_models
        if self.session is not None and (option is None or option.type != "select") and offered:

            def picked(model_id: str | None) -> None:
                if model_id is not None:
                    self.set_model(model_id)

            screen = ChoiceScreen("Model", list(offered.choices), offered.current)
            self.push_screen(screen, picked)
            return
        if self.session is None or option is None or option.type != "select":
            self.notify("This agent offers no model choice.")
            return
        choices = [
            (item.value, item.name)
            for choice in option.options
            for item in getattr(choice, "options", [choice])
        ]

        def chosen(value: str | None) -> None:
            if value is not None:
                self.set_config(option.id, value)

        self.push_screen(ChoiceScreen("Model", choices, option.current_value), chosen)

    @work(group="settings")
    async def set_model(self, model_id: str) -> None:
        from acp import RequestError

        from tui.agent_text import clean_error

        session = self.session
        if session is None:
            return
        try:
            await session.set_model(model_id)
        except (RequestError, ConnectionError) as error:
            self.notify(f"Could not switch model: {clean_error(error)}", severity="error")
            return
        self._apply(self.conversation.model_chosen(model_id))

    @work(group="settings")
    async def set_config(self, config_id: str, value: str) -> None:
        from acp import RequestError
        from acp.schema import ConfigOptionUpdate

        session = self.session
        if session is None:
            return
        from tui.agent_text import clean_error

        try:
            options = await session.set_config(config_id, value)
        except (RequestError, ConnectionError) as error:
            self.notify(f"Could not change {config_id}: {clean_error(error)}", severity="error")
            return
        if options is not None:
            update = ConfigOptionUpdate(
                session_update="config_option_update", config_options=options
            )
            self._apply(self.conversation.apply(update))

    async def action_cancel_turn(self) -> None:
        """Cancel the turn; prompts queued behind it come back to the prompt, unsent."""
        self.cancel_permissions()
        self.take_back_all_queued()
        if self.session is not None and self.turn_running:
            await self.session.cancel()

    async def action_quit(self) -> None:
        """Quit only once the agent is reaped: no leftover process, no closed-loop warnings."""
        if self._quitting:
            return
        self._quitting = True
        # Quitting from the failure screen is a failed run: the status says so to a script.
        failed = self.failure is not None
        await self.stop_agent()
        self.exit(return_code=1 if failed else 0)

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
