"""The dsh-tui application: its keys, the agent's start and stop, and the screens that are
the app's own (help, capabilities, the failure screen).

The session itself (the connection, the transcript's state, the permission and prompt queues)
is a `SessionController` (tui/session/controller.py), shown by the `SessionPane` that owns it
(tui/session_pane.py); the app holds one pane per tab (tui/tabbed_app.py), `pane` the shown one.
Each pane's connection and every prompt of it run in one worker of that pane, never in a
message handler: awaiting a prompt in a handler would freeze key bindings (Esc could not
cancel).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual import events
from textual._dispatch_key import dispatch_key
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import WorkerCancelled, WorkerFailed

from tui import chrome, conversation_tools, kept_settings, key_routing, switcher, terminal_login
from tui.agent_log import new_agent_log
from tui.config import AppConfig as AppConfig  # re-exported: built by callers of DshApp
from tui.heap import freeze_startup_heap
from tui.keys import add_browser_alternatives, alt_digit, register_alt_enter
from tui.launch import LaunchSpec
from tui.main_screen import MainScreen
from tui.prompt_input import ClientCommand
from tui.sanitize import sanitize_text, strip_control
from tui.session.events import Connected, Failed
from tui.session_pane import SessionPane
from tui.tab_host import TabHost
from tui.tabbed_app import TabbedApp
from tui.tabs.priority import ShownFirst
from tui.widgets import deferred, paging
from tui.widgets.capabilities import CapabilitiesScreen
from tui.widgets.choice import ChoiceScreen
from tui.widgets.failure import AgentFailedScreen
from tui.widgets.help import HelpScreen
from tui.widgets.inspector import panel as inspector
from tui.widgets.tab_bar import TabBar

# The ACP SDK (its pydantic schema takes 0.3–0.7 s to import) and tui.connection, which needs it,
# are imported by the controller once the agent is starting: the first frame needs only Textual.
# The modules above import the SDK only for annotations, or inside the functions that use it.
if TYPE_CHECKING:
    from acp.schema import AuthMethodEnvVar, SessionInfo
    from textual.notifications import SeverityLevel

    from tui.connection.login import LoginMethod
    from tui.widgets.diff.panel import DiffPanel

log = logging.getLogger(__name__)


class DshApp(TabbedApp):
    TITLE = "dsh-tui"
    BINDINGS = [
        # Footer order, whatever has focus (tui/main_screen.py): what this moment needs first
        # (cancel), the session's settings, quit, then the capabilities view, which an 80-column
        # footer may cut. `check_action` leaves out what would do nothing now.
        Binding("escape", "cancel_turn", "Cancel turn"),
        # The same key when only a `!` command runs: no turn to cancel, so it says what it does.
        Binding("escape", "stop_commands", "Stop command"),
        Binding("tab", "complete_command", "Complete", show=False, priority=True),
        # An open question's keys are the prompt's until Tab gives them to it (the footer
        # says which way Tab goes now): typing never answers.
        Binding("tab", "permission_keys(1)", "Answer", priority=True),
        Binding("tab", "permission_keys(0)", "Prompt", priority=True),
        Binding("shift+tab", "next_mode", "Mode", priority=True),
        Binding("ctrl+l", "pick_model", "Model"),
        Binding("ctrl+r", "resume", "Resume"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("ctrl+k", "capabilities", "Capabilities", priority=True),
        Binding("pageup", "page_transcript(-1)", "Scroll up", show=False),
        Binding("pagedown", "page_transcript(1)", "Scroll down", show=False),
        Binding("ctrl+end", "transcript_end", "End", show=False, priority=True),
        Binding("f1", "help", "Keys", show=False),
        Binding("f12", "inspector", "Traffic", show=False),
        # The conversation tools (tui/widgets/transcript/keys.py).
        # Described on F1 with the transcript's own keys, so no description here.
        Binding("alt+up,ctrl+up", "transcript_keys", "", show=False),
        Binding("ctrl+f", "search", "", show=False, priority=True),
        # Tabs (tui/tabbed_app.py): several sessions in one window.
        Binding("ctrl+t", "new_tab", "New tab", show=False, priority=True),
        Binding("ctrl+w", "close_tab", "Close tab", show=False, priority=True),
        Binding("ctrl+pagedown", "step_tab(1)", "Next tab", show=False, priority=True),
        Binding("ctrl+pageup", "step_tab(-1)", "Previous tab", show=False, priority=True),
        *[
            Binding(
                alt_digit(n),
                f"goto_tab({n})",
                f"Tab {n}",
                key_display=f"alt+{n}",
                show=False,
                priority=True,
            )
            for n in range(1, 10)
        ],
        # Shown only while a question waits in a tab out of sight (`check_action`).
        Binding("ctrl+g", "jump_waiting", "Question", priority=True),
    ]
    CSS = """
    Screen { layout: vertical; }
    #bottom { dock: bottom; height: auto; margin-bottom: 1; }
    /* Toasts at the top right, under the header: at the bottom they covered the prompt's
       border, the mode line and what the question asks. */
    ToastRack { dock: top; align: right top; margin-bottom: 0; margin-top: 1; }
    """

    def __init__(self, config: AppConfig | None = None) -> None:
        super().__init__()
        self._config = config or AppConfig()
        self.theme = self._config.theme
        kept_settings.restore(self)  # the theme and diff view of the last run
        self.tab_host = TabHost()
        self.shown_first = ShownFirst(
            after_refresh=self.call_after_refresh,
            working=lambda pane: isinstance(pane, SessionPane) and pane.controller.turn_running,
        )
        self.pane = self.new_session_pane()
        self.tab_host.add(self.pane)
        self.shown_first.shown = self.pane
        register_alt_enter()
        if self._config.web:
            add_browser_alternatives(self._bindings, self.BINDINGS)
        self._quitting = False
        self._tabs_made = 1

    # The shown tab's settings: its agent and directory (each tab has its own).
    @property
    def config(self) -> AppConfig:
        pane = self.__dict__.get("pane")
        return pane.config if isinstance(pane, SessionPane) else self._config

    @config.setter
    def config(self, value: AppConfig) -> None:
        pane = self.__dict__.get("pane")
        if isinstance(pane, SessionPane):
            pane.config = value
        else:
            self._config = value

    def new_session_pane(self) -> SessionPane:
        """The pane of the app's first session."""
        return self.gated(SessionPane(self._config, id="session"))

    def new_tab_pane(self, config: AppConfig) -> SessionPane:
        self._tabs_made += 1
        return self.gated(SessionPane(config, id=f"session-{self._tabs_made}"))

    def gated(self, pane: SessionPane) -> SessionPane:
        """The pane's agent is read in its turn: the shown tab first (tui/tabs/priority.py)."""
        pane.controller.receive_gate = self.shown_first.gate(pane)
        return pane

    def get_default_screen(self) -> Screen[None]:
        return MainScreen(id="_default")

    def compose(self) -> ComposeResult:
        yield TabBar(self.show_tab, id="tabs")
        yield self.pane

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
        self._warmed_up = False
        self._first_frame_drawn = False
        kept_settings.start_keeping(self)
        self.start_agent(self.config.resume)
        for tab in self.config.tabs:  # `--tab`: the others, started at once, out of sight
            config = self.config_for(tab.choice, tab.cwd, tab.resume)
            self.run_worker(self.open_tab(config, show=False))

    # -- the connection -----------------------------------------------------------------

    def start_agent(self, resume: str | None = None) -> None:
        self.start_pane(self.pane, resume)

    def start_pane(self, pane: SessionPane, resume: str | None) -> None:
        pane.acp_worker = self.run_worker(
            self.run_acp(pane, resume),
            name="acp",
            group=f"acp-{pane.id}",
            exclusive=True,
            exit_on_error=False,
        )

    async def run_acp(self, pane: SessionPane, resume: str | None) -> None:
        # The agent the CLI started belongs to the first tab's first connection only.
        started = self._prestarted if pane.id == "session" else None
        if started is not None:
            self._prestarted = None
        try:
            spec = started.spec if started is not None else self.launch_spec(pane.config)
        except ValueError as error:
            self.notify(str(error), severity="error")
            return

        # Each question that takes the whole screen waits until its tab is shown.
        async def choose(sessions: list[SessionInfo], missing: str | None) -> str | None:
            await self.in_sight(pane, "which session to resume")
            return await switcher.choose_session(self, sessions, missing)

        async def login(methods: list[LoginMethod], refusal: str | None) -> str | None:
            await self.in_sight(pane, "a login")
            return await switcher.choose_login(self, methods, refusal)

        async def ask_env(method: AuthMethodEnvVar) -> dict[str, str] | None:
            await self.in_sight(pane, "a login")
            return await switcher.ask_env(self, method)

        async def run_login(
            spec: LaunchSpec, args: tuple[str, ...], env: dict[str, str]
        ) -> int | None:
            await self.in_sight(pane, "a login in the terminal")
            return await terminal_login.run(self, spec, args, env)

        await pane.controller.run(
            spec,
            started,
            resume,
            choose,
            before_connect=self.first_frame,
            defaults=(pane.config.agent_mode, pane.config.agent_model),
            login=login,
            ask_env=ask_env,
            run_login=run_login,
        )

    async def first_frame(self) -> None:
        """Wait until the screen has been drawn once: a thread importing the SDK would otherwise
        hold the interpreter while the first frame waits."""
        if not self._first_frame_drawn:
            drawn = asyncio.Event()
            self.call_after_refresh(drawn.set)
            await drawn.wait()
            self._first_frame_drawn = True

    def launch_spec(self, config: AppConfig | None = None) -> LaunchSpec:
        """How to start a tab's agent (the shown tab's by default), with a fresh stderr log.
        Raises ValueError."""
        config = config or self.config
        return LaunchSpec.from_command(
            config.agent_command,
            config.cwd,
            new_agent_log(config.log_dir),
            config.terminal,
            config.allow_dirs,
            config.record,
            config.agent_env,
            config.mcp_servers,
            config.handshake_timeout,
        )

    # -- what the session pane passes on ------------------------------------------------

    def on_session_pane_event(self, message: SessionPane.Event) -> None:
        event = message.event
        self.follow_tab_event(message.pane, event)
        if isinstance(event, Connected) and not self._warmed_up:
            self._warmed_up = True
            # What the header's frame did not need, then the heap as it will stay.
            self.call_after_refresh(deferred.warm_up, self, self.freeze_heap_once)
        elif isinstance(event, Failed) and not self._quitting and message.pane is self.pane:
            self.show_failure()

    def freeze_heap_once(self) -> None:
        if not self._heap_frozen:
            self._heap_frozen = True
            freeze_startup_heap()

    def show_failure(self) -> None:
        """The shown tab's failure screen (a background tab's shows once it is shown)."""
        failure = self.controller.failure
        if failure is not None and not isinstance(self.screen, AgentFailedScreen):
            chrome.show_failure(
                self, self.controller, failure, retry=self.retry_agent, quit=self.quit_later
            )

    def show_tab(self, index: int) -> None:
        super().show_tab(index)
        if self.controller.failure is not None and not self._quitting:
            self.show_failure()

    def retry_agent(self, resume: str | None) -> None:
        """Start the agent again, loading `resume` into an emptied transcript when given."""
        if resume is not None:
            self.reset_conversation()
        self.start_agent(resume)

    def quit_later(self) -> None:
        self.run_worker(self.action_quit(), group="quit")

    def on_client_command(self, message: ClientCommand) -> None:
        conversation_tools.run_client_command(self, message.name, message.argument)

    # -- input and actions --------------------------------------------------------------

    def on_diff_panel_view_chosen(self, event: DiffPanel.ViewChosen) -> None:
        kept_settings.keep(self, diff_view=event.view)  # for the panels to come, and next run

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that would do nothing are left out of the footer (and do nothing): Esc with no
        turn to cancel (it stops a `!` command when only that runs), Shift+Tab and Ctrl+L when
        the agent offers no modes or models, Ctrl+R with an agent that cannot load sessions,
        and on the failure screen everything but its own keys and quit."""
        if action == "quit" or action == "help":
            return True
        tab_action = self.check_tab_action(action)
        if tab_action is not None:
            # Reachable from a failed tab's screen too: the other tabs still work.
            return tab_action
        if isinstance(self.screen, AgentFailedScreen):
            return False
        controller = self.controller
        if action == "complete_command":
            panel = self.pane.permission_flow.open_panel()
            return self.pane.prompt_input.can_complete() and not (panel and panel.has_focus)
        if action == "permission_keys":
            panel = self.pane.permission_flow.open_panel()
            return panel is not None and panel.has_focus != bool(parameters and parameters[0])
        if action == "cancel_turn":
            return controller.turn_running or bool(controller.queued or controller.permissions)
        if action == "stop_commands":
            return bool(controller.shells.running) and not self.check_action("cancel_turn", ())
        if action == "next_mode":
            return switcher.offers_modes(self)
        if action == "pick_model":
            return switcher.offers_models(self)
        if action == "resume":
            return controller.session is None or controller.agent_can_load
        if action == "capabilities":
            return controller.session is not None
        return True

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The palette: Textual's own commands, then the app's (tui/palette.py)."""
        from tui.palette import app_commands

        for command in super().get_system_commands(screen):
            if command.title != "Keys":  # Textual's keys panel: the app's "Keys" is F1
                yield command
        yield from app_commands(self)
        yield from self.tab_commands()

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
            return
        self.push_screen(HelpScreen(list(self.BINDINGS), web=self.config.web))

    def action_inspector(self) -> None:
        """F12: every message on the wire, beside the transcript
        (tui/widgets/inspector/panel.py)."""
        source = inspector.TrafficSource("session", self.controller.traffic, self.transcript)
        inspector.toggle(self.screen, [source], self.transcript)

    def on_click(self, event: events.Click) -> None:
        inspector.follow_click(self.screen, event)  # a tool card's messages, while inspecting

    def action_transcript_end(self) -> None:
        """Ctrl+End, or End on an empty prompt: the end of the transcript, followed again."""
        self.transcript.jump_to_end()

    def action_transcript_keys(self) -> None:
        """Alt+Up: the keyboard into the transcript, on its last entry."""
        if not self.transcript.enter_transcript():
            self.notify("Nothing in the transcript yet.")

    async def action_search(self) -> None:
        await conversation_tools.open_search(self)

    def action_search_step(self, direction: int) -> None:
        conversation_tools.step_search(self, direction)

    def action_search_close(self) -> None:
        conversation_tools.close_search(self)

    def action_page_transcript(self, direction: int) -> None:
        """Page through the transcript from the prompt. Paging up past the top brings back
        entries that long sessions take off the screen."""
        view = self.transcript
        if direction < 0 and view.scroll_y <= 0 and view.hidden_count:
            view.show_earlier()
            return
        paging.page(view, direction)

    def action_complete_command(self) -> None:
        self.pane.prompt_input.complete()  # a slash command (the prompt takes Tab for `@` paths)

    def action_permission_keys(self, to_panel: int) -> None:
        self.pane.permission_flow.toggle_focus()

    async def _on_key(self, event: events.Key) -> None:
        """App's own key handling (bindings from the focused widget up, then `key_` methods),
        then a printable key nothing took goes to the prompt (tui/key_routing.py)."""
        event.prevent_default()  # replaces App._on_key, which would run the bindings again
        if await self._check_bindings(event.key):
            return
        if await dispatch_key(self, event):
            return
        key_routing.to_prompt(self, event)

    def action_capabilities(self) -> None:
        if isinstance(self.screen, CapabilitiesScreen):
            self.screen.dismiss()
            return
        session = self.controller.session
        if session is None:
            self.notify("Not connected to an agent yet.")
            return
        self.push_screen(
            CapabilitiesScreen(
                session.capabilities,
                session.init,
                session.response,
                session.client.terminals,
                session.mcp_passed,
            )
        )

    def action_next_mode(self) -> None:
        switcher.next_mode(self)

    def action_pick_model(self) -> None:
        switcher.pick_model(self)

    async def action_resume(self) -> None:
        await switcher.resume(self)

    async def action_cancel_turn(self) -> None:
        """Cancel the turn; prompts queued behind it come back to the prompt, unsent."""
        self.pane.take_back_all_queued()
        await self.controller.cancel_turn()

    async def action_stop_commands(self) -> None:
        """Stop the `!` commands that run (their cards say how they ended)."""
        await self.controller.shells.stop_all()

    async def action_quit(self) -> None:
        """Quit only once every agent is reaped: no leftover process, no closed-loop warnings.
        Turns running in other tabs are named first, once."""
        if self._quitting:
            return
        elsewhere = self.tab_host.running_elsewhere()
        if elsewhere:
            names = ", ".join(
                f"{self.tab_host.tabs.index(tab) + 1} ({tab.title})" for tab in elsewhere
            )

            def answered(value: str | None) -> None:
                if value == "quit":
                    self.run_worker(self._quit_now(), group="quit")

            options = [("quit", "Stop them and quit"), ("stay", "Keep going")]
            title = f"Turns run in tab{'s' if len(elsewhere) > 1 else ''} {names}"
            self.push_screen(ChoiceScreen(title, options, None, wide=True), answered)
            return
        await self._quit_now()

    async def _quit_now(self) -> None:
        if self._quitting:
            return
        self._quitting = True
        # Quitting from the failure screen is a failed run: the status says so to a script.
        failed = self.controller.failure is not None
        self.keep_window()
        await self.stop_all()
        self.exit(return_code=1 if failed else 0)

    async def on_unmount(self) -> None:
        # Any other way out (a test harness, an error) still reaps the agents before the loop
        # ends.
        self._quitting = True
        await self.stop_all()

    async def stop_all(self) -> None:
        for tab in list(self.tab_host.tabs):
            await self.stop_pane(tab.pane)

    async def stop_agent(self) -> None:
        """The shown tab's agent stopped (a switch of agent, a new session)."""
        await self.stop_pane(self.pane)

    async def stop_pane(self, pane: SessionPane) -> None:
        """Cancel the turn politely, then stop the connection worker and wait for its cleanup."""
        await pane.controller.cancel_turn()
        worker = pane.acp_worker
        if worker is not None and worker.state.name != "PENDING":
            if not worker.is_cancelled and not worker.is_finished:
                worker.cancel()
            # wait() awaits the task even when it was cancelled, so its cleanup completes.
            with contextlib.suppress(WorkerCancelled, WorkerFailed, asyncio.CancelledError):
                await worker.wait()
