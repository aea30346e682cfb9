"""One agent session's state and its rules, apart from any widget.

The app and each side of the side-by-side demo drive a `SessionController`: it is the
connection's `ClientSink`, owns the `Conversation`, the connection state, the permission queue
and the prompt queue, and knows how a retry or a resume continues. It tells its observers what
changed (tui/session/events.py); what that looks like on screen is theirs to decide. No Textual
here, only asyncio.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import logging
import re
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from dsh_common.quick_schema import import_acp_schema
from tui.capabilities import can_load, can_resume
from tui.inspector.traffic import Traffic
from tui.launch import AgentFailed, AgentProcess, LaunchSpec
from tui.permissions import PendingPermission
from tui.prompt.shell_command import UserShells
from tui.session.events import (
    Connected,
    Connecting,
    Failed,
    Notify,
    PermissionAsked,
    PermissionClosed,
    QueueChanged,
    SessionEvent,
    SessionObserver,
    Severity,
    TurnEnded,
    TurnStarted,
)
from tui.state import (
    Change,
    CommandsChanged,
    Conversation,
    ModeChanged,
    PlanChanged,
    SettingsChanged,
    TitleChanged,
    UsageChanged,
)

# The SDK is imported once the agent is starting (`import_connection`), not with this module:
# the first frame needs only the UI.
if TYPE_CHECKING:
    from acp.schema import (
        AuthMethodEnvVar,
        ClientCapabilities,
        PermissionOption,
        RequestPermissionResponse,
        ToolCallUpdate,
    )

    from tui.connection import AgentConnection, SessionChooser, SessionUpdate
    from tui.connection.login import LoginMethod
    from tui.prompt.mentions.blocks import PreparedPrompt
    from tui.terminal.terminals import TerminalManager

log = logging.getLogger(__name__)


def after_login(record: Path | None) -> Path | None:
    """Where `--record` goes on once a login restarts the agent: beside the first recording,
    named for it (wire.jsonl, then wire.after-login.jsonl, wire.after-login-2.jsonl...), so
    the first one is kept."""
    if record is None:
        return None
    earlier = re.fullmatch(r"(.+)\.after-login(?:-(\d+))?", record.stem)
    if earlier is None:
        stem, n = record.stem, 1
    else:
        stem, n = earlier.group(1), int(earlier.group(2) or 1) + 1
    tail = ".after-login" if n == 1 else f".after-login-{n}"
    return record.with_name(f"{stem}{tail}{record.suffix}")


LoginChooser = Callable[[list["LoginMethod"], str | None], Awaitable[str | None]]
EnvAsker = Callable[["AuthMethodEnvVar"], Awaitable[dict[str, str] | None]]
# Runs a terminal login (the agent's program with extra args and env): its exit status, or
# None when it could not run at all.
TerminalRunner = Callable[[LaunchSpec, tuple[str, ...], dict[str, str]], Awaitable[int | None]]
Level = Literal["info", "warning", "error"]
CHROME = (PlanChanged, TitleChanged, UsageChanged, ModeChanged, CommandsChanged, SettingsChanged)


async def import_connection() -> None:
    """Import tui.connection, and with it the SDK, in a thread: the loop keeps drawing the
    first frame and reading keys meanwhile. Quick once imported (tests, a retry)."""
    if "tui.connection" not in sys.modules:
        await asyncio.to_thread(_import_connection)


def _import_connection() -> None:
    import_acp_schema()  # the SDK's schema, the bulk of the import, at its quickest
    importlib.import_module("tui.connection")


async def prepare_prompt(session: AgentConnection, text: str) -> PreparedPrompt:
    """The prompt's content blocks, its `@` mentions read through the session's confined fs
    in a thread (files up to 256 KB each), embedded only when the agent takes them."""
    from tui.prompt.mentions.blocks import build_prompt, embeds_context

    embedded = embeds_context(session.init)
    fs, cwd = session.client.fs, session.spec.cwd
    return await asyncio.to_thread(build_prompt, text, cwd, fs, embedded=embedded)


class SessionController:
    """The session one client shows. Every method runs on the event loop."""

    def __init__(
        self, *observers: SessionObserver, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.observers: list[SessionObserver] = list(observers)
        # What client terminals are timed with (the app configuration's clock).
        self.clock = clock
        self.conversation = Conversation()
        # Every line on the wire, for the traffic inspector (tui/widgets/inspector/panel.py).
        self.traffic = Traffic()
        # Awaited before each message from the agent is read (a tab's turn, tui/tabs/priority.py).
        self.receive_gate: Callable[[], Awaitable[None]] | None = None
        self.session: AgentConnection | None = None
        self.failure: AgentFailed | None = None
        self.turn_running = False
        # Prompts wait here until the session is ready and no turn runs.
        self.queued: list[str] = []
        # A prompt put back in the queue by a login that restarts the agent: already shown.
        self._retry_shown: str | None = None
        self._queue_changed = asyncio.Event()
        self.permissions: list[PendingPermission] = []
        # `!` commands the user runs in the session's client terminals
        # (tui/prompt/shell_command.py).
        self.shells = UserShells(self)
        # What a retry after a failure may load again.
        self.last_session_id: str | None = None
        self.agent_can_load = False
        self._recorded = False  # the agent is a recording (a replay)

    def add_observer(self, observer: SessionObserver) -> None:
        self.observers.append(observer)

    def _emit(self, event: SessionEvent) -> None:
        for observer in self.observers:
            observer.session_event(event)

    def apply(self, changes: list[Change]) -> None:
        """Hand state's changes on: the transcript's in order, the chrome's as events."""
        if not changes:
            return
        for observer in self.observers:
            observer.conversation_changed(changes)
        for change in changes:
            if isinstance(change, CHROME):
                self._emit(change)

    def notice(self, text: str, level: Level = "info") -> None:
        self.apply(self.conversation.notice(text, level))

    def notify(
        self, message: str, severity: Severity = "information", timeout: float | None = None
    ) -> None:
        self._emit(Notify(message, severity, timeout))

    def reset(self) -> None:
        """An empty conversation, e.g. before a load replays a session's history."""
        wire_only = self.conversation.wire_only
        self.conversation = Conversation()
        self.conversation.wire_only = wire_only

    # -- the prompt queue -------------------------------------------------------------

    @property
    def waiting(self) -> tuple[str, ...]:
        """The queued prompts to show; one about to be sent to an idle session is not."""
        return tuple(self.queued) if self.session is None or self.turn_running else ()

    def _queue_shown(self) -> None:
        self._emit(QueueChanged(self.waiting))

    def submit_prompt(self, text: str) -> None:
        """Queue a prompt, to be sent in order once the session is ready and no turn runs."""
        self.queued.append(text)
        self._queue_changed.set()
        self._queue_shown()

    def take_back_queued(self) -> str | None:
        """The newest queued prompt, out of the queue (back to the prompt for editing)."""
        if not self.queued:
            return None
        text = self.queued.pop()
        self._queue_shown()
        return text

    def take_back_all(self) -> list[str]:
        """Every queued prompt, oldest first, out of the queue and unsent."""
        taken, self.queued = self.queued, []
        if taken:
            self._queue_shown()
        return taken

    async def next_prompt(self) -> str:
        """The oldest queued prompt, once there is one."""
        while not self.queued:
            self._queue_changed.clear()
            await self._queue_changed.wait()
        text = self.queued.pop(0)
        self._queue_shown()
        return text

    # -- the connection ---------------------------------------------------------------

    async def run(
        self,
        spec: LaunchSpec,
        process: AgentProcess | AgentFailed | None = None,
        resume: str | None = None,
        choose: SessionChooser | None = None,
        *,
        before_connect: Callable[[], Awaitable[None]] | None = None,
        stay_connected: bool = True,
        defaults: tuple[str | None, str | None] = (None, None),
        login: LoginChooser | None = None,
        ask_env: EnvAsker | None = None,
        run_login: TerminalRunner | None = None,
        capabilities: ClientCapabilities | None = None,
    ) -> None:
        """Connect, then send queued prompts one turn at a time until cancelled (or, without
        `stay_connected`, until the queue is empty after a turn). Raises nothing: a failure
        of the agent, or a client bug, becomes a `Failed` event. `capabilities` replaces the
        ones `spec.terminal` implies (a `dsh-tui compare` side)."""
        self.failure = None
        self._emit(Connecting(spec))
        try:
            if isinstance(process, AgentFailed):
                raise process
            # Start the agent first: its own start-up overlaps the SDK import below.
            process = process or AgentProcess.start(spec)
            # Until the session is open, what comes is a loaded session's history; a replay
            # is history throughout. Either way today's files are not the ones it saw.
            self._recorded = process.recorded
            self.conversation.wire_only = True
            if before_connect is not None:
                await before_connect()
            await import_connection()
            from tui.connection import open_session
            from tui.connection.login import Relaunch, TerminalLogin

            while True:
                try:
                    async with open_session(
                        spec,
                        self,
                        resume,
                        choose,
                        process,
                        tap=self.traffic,
                        clock=self.clock,
                        login=login,
                        ask_env=ask_env,
                        capabilities=capabilities,
                        login_failed=self.login_failed,
                        gate=self.receive_gate,
                    ) as session:
                        self._connected(session)
                        await self.apply_defaults(session, *defaults)
                        while stay_connected or self.queued:
                            text = await self.next_prompt()
                            resume = None  # a login from here on restarts in a new session
                            await self.turn_with_login(session, text, login, ask_env)
                    break
                except Relaunch as relaunch:  # an env_var login: the agent starts again
                    spec = dataclasses.replace(
                        spec,
                        env=(*spec.env, *relaunch.env.items()),
                        record=after_login(spec.record),
                    )
                    self.notice("restarting the agent with the login's variables")
                    process = AgentProcess.start(spec)
                except TerminalLogin as login_run:
                    status = None
                    if run_login is not None:
                        status = await run_login(spec, login_run.args, login_run.env)
                    if status == 0:
                        self.notice("logged in in the terminal; reconnecting to the agent")
                    else:
                        why = "could not run" if status is None else f"exit status {status}"
                        self.notice(f"the terminal login failed ({why})", "error")
                    spec = dataclasses.replace(spec, record=after_login(spec.record))
                    process = AgentProcess.start(spec)
        except AgentFailed as failure:
            self.fail(failure)
        except Exception as error:
            # Anything else is a client bug; still show it instead of dying in a worker.
            log.exception("connection worker failed")
            self.fail(AgentFailed(spec, f"dsh-tui error: {error!r}", None, ""))
        finally:
            self.session = None
            self.turn_running = False
            if isinstance(process, AgentProcess):
                process.discard()  # only if open_session never took it (cancelled before)

    def _connected(self, session: AgentConnection) -> None:
        self.session = session
        self.last_session_id = session.session_id
        self.agent_can_load = can_load(session.init) or can_resume(session.init)
        self.conversation.wire_only = self._recorded
        self.conversation.start_session(
            session.response.modes,
            session.response.config_options or [],
            session.client.offered_models,
        )
        self._emit(Connected(session))
        for notice in session.notices:  # MCP servers left out; a resume without the history
            self.notice(notice, "warning")
        if session.resumed:
            # The replay is over: a call it left unfinished belongs to a turn long gone.
            self.apply(self.conversation.settle_unfinished("unknown"))
            self.conversation.end_turn()  # and the replayed calls are history
        self._queue_shown()

    def login_failed(self, why: str) -> None:
        """The agent refused a login: said in the transcript, then its methods come again
        (the picker says it too, since it covers the transcript)."""
        self.notice(why, "error")

    def fail(self, failure: AgentFailed) -> None:
        """The agent is gone: its open questions are answered cancelled and its running calls
        stop spinning; the observer decides what to say and whether to retry."""
        self.failure = failure
        self.cancel_permissions()
        self.apply(self.conversation.settle_unfinished())
        self._emit(Failed(failure))

    def retry_resume(self) -> str | None:
        """The session a retry should load, when the agent can replay it; else None (a new
        session)."""
        return self.last_session_id if self.agent_can_load else None

    async def turn_with_login(
        self,
        session: AgentConnection,
        text: str,
        login: LoginChooser | None,
        ask_env: EnvAsker | None,
    ) -> None:
        """A turn; an `auth_required` answer to the prompt opens the login, as at session/new.
        A login that restarts the agent sends the prompt again once it is back."""
        from acp.exceptions import RequestError

        from tui.connection.login import AUTH_REQUIRED, Relaunch, TerminalLogin, with_login

        # The prompt is in the transcript once: a retry after a login does not add it again,
        # nor does the send after a login that restarted the agent.
        shown = self._retry_shown == text
        self._retry_shown = None
        attempts = 0

        async def attempt() -> None:
            nonlocal attempts
            attempts += 1
            await self.run_turn(session, text, show=attempts == 1 and not shown)

        try:
            await with_login(attempt, session.conn, session.init, login, ask_env, self.login_failed)
        except (Relaunch, TerminalLogin):
            self.queued.insert(0, text)
            self._retry_shown = text
            raise
        except RequestError as error:
            if error.code != AUTH_REQUIRED:
                raise
            self.notice(f"prompt not sent: {error}", "error")

    async def run_turn(self, session: AgentConnection, text: str, show: bool = True) -> None:
        from acp.exceptions import RequestError

        from tui.agent_text import clean_error
        from tui.connection.login import AUTH_REQUIRED

        self.turn_running = True
        self._emit(TurnStarted(text))
        terminals = session.client.terminals
        before = set(terminals.terminal_ids(include_released=True))
        stop_reason: str | None = None
        try:
            prepared = await prepare_prompt(session, text)
            if show:
                self.apply(self.conversation.add_prompt(prepared.shown))
            for notice in prepared.notices:
                self.notice(notice, "warning")
            try:
                response = await session.prompt_blocks(prepared.blocks)
            except RequestError as error:
                if error.code == AUTH_REQUIRED:
                    raise  # the login opens (turn_with_login), then the prompt goes again
                # An error for this prompt, not the end of the session: the next one may work.
                self.apply(self.conversation.settle_unfinished("unfinished"))
                self.notice(f"the agent refused this prompt: {clean_error(error)}", "error")
                return
            stop_reason = response.stop_reason
            # The agent has sent its last updates for the turn: what is still pending or
            # running will never finish, so it stops spinning, and says the agent left it.
            settled: Literal["cancelled", "unfinished"] = (
                "cancelled" if stop_reason == "cancelled" else "unfinished"
            )
            self.apply(self.conversation.settle_unfinished(settled))
            if stop_reason != "end_turn":
                self.notice(f"turn ended: {stop_reason}")
            if stop_reason == "cancelled":
                await self._kill_turn_terminals(terminals, before)
        finally:
            self.conversation.end_turn()
            self.turn_running = False
            self._emit(TurnEnded(stop_reason))
            self._queue_shown()

    async def _kill_turn_terminals(self, terminals: TerminalManager, before: set[str]) -> None:
        """A cancelled turn's client terminals that the agent did not release are killed: an
        agent that never calls terminal/kill or terminal/release would leave their commands
        running, unseen, until dsh-tui quits."""
        created = [tid for tid in terminals.terminal_ids(agent_only=True) if tid not in before]
        killed = await terminals.kill_unreleased(created)
        if killed:
            count = f"{len(killed)} client terminal{'s' if len(killed) > 1 else ''}"
            self.notice(f"stopped {count} the cancelled turn left open")

    async def cancel_turn(self) -> None:
        """Every open question answered cancelled, and session/cancel if a turn runs."""
        self.cancel_permissions()
        await self.shells.stop_all()
        if self.session is not None and self.turn_running:
            await self.session.cancel()

    # -- the ClientSink protocol ------------------------------------------------------

    def on_session_update(self, session_id: str, update: SessionUpdate) -> None:
        self.apply(self.conversation.apply(update))

    def on_unsupported(self, session_id: str, what: str) -> None:
        if not session_id:
            # The connection's own note about a refused message: a whole sentence already.
            self.notice(what, "warning")
            return
        self.apply(self.conversation.unsupported(what))

    async def ask_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        """Queue the request; the observer shows one at a time, the first, until answered."""
        self.apply(self.conversation.asked_call(tool_call))
        request = PendingPermission(session_id, tool_call, options)
        self.permissions.append(request)
        if len(self.permissions) == 1:
            self._emit(PermissionAsked(request))
        try:
            response = await request.answer
            self.apply(
                self.conversation.permission_answered(tool_call.tool_call_id, options, response)
            )
            return response
        finally:
            self.permissions.remove(request)
            following = self.permissions[0] if self.permissions else None
            self._emit(PermissionClosed(request, following))

    def cancel_permissions(self) -> None:
        for request in list(self.permissions):
            request.cancel()

    # -- the session's settings -------------------------------------------------------

    async def apply_defaults(
        self, session: AgentConnection, mode: str | None, model: str | None
    ) -> None:
        """A named agent's first mode and model (the settings file), when the session offers
        them and is not already there; one notice when it does not offer them."""
        modes = session.response.modes
        if mode is not None:
            offered = [m.id for m in modes.available_modes] if modes is not None else []
            if mode not in offered:
                self.notice(f"the settings' mode {mode} is not offered by this agent", "warning")
            elif modes is not None and modes.current_mode_id != mode:
                await self.set_mode(mode)
        if model is None:
            return
        for option in session.response.config_options or []:
            root = getattr(option, "root", option)
            values = [getattr(choice, "value", None) for choice in getattr(root, "options", [])]
            if getattr(root, "category", None) == "model" and model in values:
                if root.current_value != model:
                    await self.set_config(root.id, model)
                return
        offered_models = session.client.offered_models
        if offered_models is not None and model in dict(offered_models.choices):
            if offered_models.current != model:
                await self.set_model(model)
            return
        self.notice(f"the settings' model {model} is not offered by this agent", "warning")

    def fork_refusal(self) -> str | None:
        """Why the session cannot be forked into a new tab now, or None when it can."""
        from tui.capabilities import can_fork

        session = self.session
        if session is None:
            return "Not connected: there is no session to fork yet."
        if not can_fork(session.init):
            return "This agent does not offer session/fork (with session/load or /resume)."
        if self.turn_running:
            return "A turn is running: fork once it ends."
        return None

    async def fork(self) -> str | None:
        """session/fork: the new session's id, or None (the reason is a `Notify`). The fork
        opens in another process of the agent, so where the agent offers session/close this
        one lets go of it first."""
        from acp.exceptions import RequestError

        from tui.agent_text import clean_error
        from tui.capabilities import can_close
        from tui.connection.session import HandshakeTimeout

        refusal = self.fork_refusal()
        session = self.session
        if refusal is not None or session is None:
            self.notify(refusal or "Not connected.", "warning")
            return None
        try:
            forked = await session.fork()
        except (RequestError, ConnectionError, HandshakeTimeout) as error:
            self.notify(f"Could not fork: {clean_error(error)}", "error")
            return None
        if can_close(session.init):
            try:
                await session.close_other(forked)
            except (RequestError, ConnectionError, HandshakeTimeout) as error:
                log.info("session/close of the fork %s: %r", forked, error)
        return forked

    async def set_mode(self, mode_id: str) -> bool:
        """session/set_mode; True once the agent took it (a refusal is a `Notify`)."""
        from acp.exceptions import RequestError
        from acp.schema import CurrentModeUpdate

        from tui.agent_text import clean_error

        session = self.session
        if session is None:
            return False
        try:
            await session.set_mode(mode_id)
        except (RequestError, ConnectionError) as error:
            self.notify(f"Could not switch mode: {clean_error(error)}", "error")
            return False
        update = CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode_id)
        self.apply(self.conversation.apply(update))
        return True

    async def set_model(self, model_id: str) -> None:
        """session/set_model, for agents that offer models outside their config options."""
        from acp.exceptions import RequestError

        from tui.agent_text import clean_error

        session = self.session
        if session is None:
            return
        try:
            await session.set_model(model_id)
        except (RequestError, ConnectionError) as error:
            self.notify(f"Could not switch model: {clean_error(error)}", "error")
            return
        self.apply(self.conversation.model_chosen(model_id))

    async def set_config(self, config_id: str, value: str) -> None:
        from acp.exceptions import RequestError
        from acp.schema import ConfigOptionUpdate

        from tui.agent_text import clean_error

        session = self.session
        if session is None:
            return
        try:
            options = await session.set_config(config_id, value)
        except (RequestError, ConnectionError) as error:
            self.notify(f"Could not change {config_id}: {clean_error(error)}", "error")
            return
        if options is not None:
            update = ConfigOptionUpdate(
                session_update="config_option_update", config_options=options
            )
            self.apply(self.conversation.apply(update))
