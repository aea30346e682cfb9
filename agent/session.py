"""One live session: its log, model, mode, presenter, and the ordered stream of its updates.

Everything a session shows goes through `AgentSession.emit` (session events: logged first,
then translated) or `AgentSession.notify` (session chrome such as mode and config updates),
and from there through one queue per session, so updates reach the client in exactly the order
they were produced, even when a tool reports output from a synchronous callback.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, TypeAlias

from acp.schema import (
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    ForkSessionResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PermissionOption,
    RequestPermissionResponse,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
    StopReason,
    ToolCallStart,
    ToolCallUpdate,
)
from acp.schema import BaseModel as SchemaModel
from pydantic import Field

from agent.events import Event, ToolFinished
from agent.history import History
from agent.log import LogError, SessionLog
from agent.mcp.hub import McpHub
from agent.models.base import Model
from agent.models.config import (
    UNAVAILABLE_META_KEY,
    ModelSettings,
    build_model,
    choice_id,
    model_choices,
    switch,
)
from agent.permissions import MODES, Grants, Mode
from agent.presenter import SessionPresenter
from agent.tools.procs import JobRegistry
from agent.translate import EventUpdate, translate

log = logging.getLogger(__name__)

AnyUpdate: TypeAlias = (
    EventUpdate | AvailableCommandsUpdate | CurrentModeUpdate | ConfigOptionUpdate
)
Sender: TypeAlias = Callable[[AnyUpdate], Awaitable[None]]
Asker: TypeAlias = Callable[
    [ToolCallUpdate, list[PermissionOption]], Awaitable[RequestPermissionResponse]
]

CANCEL_GRACE_S = 5.0
"""After `session/cancel`, how long the prompt waits for its turn to wind down before it
answers `cancelled` anyway (the late tool updates then follow the response)."""


class PromptInFlight(Exception):
    """A second prompt for a session whose turn is still running."""


class UpdateQueue:
    """Sends a session's updates one at a time, in order; a closed connection stops it quietly."""

    def __init__(self, send: Sender, on_gone: Callable[[], None]) -> None:
        self._send = send
        self._on_gone = on_gone
        self._queue: asyncio.Queue[AnyUpdate] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self.gone = False

    def put(self, update: AnyUpdate) -> None:
        if self.gone:
            return
        self._queue.put_nowait(update)
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._run())

    async def flush(self) -> None:
        """Wait until everything queued so far has been written to the client."""
        await self._queue.join()

    async def _run(self) -> None:
        while True:
            update = await self._queue.get()
            try:
                if not self.gone:
                    await self._send(update)
            except ConnectionError:
                log.info("the client went away; dropping further updates")
                self.gone = True
                self._on_gone()
            except Exception:
                log.exception("could not send a %s update", type(update).__name__)
            finally:
                self._queue.task_done()

    def close(self) -> None:
        if self._worker is not None:
            self._worker.cancel()


class ModelInfo(SchemaModel):
    """One model of ACP's unstable `SessionModelState` (SDK 0.12.1 does not model it)."""

    model_id: Annotated[str, Field(alias="modelId")]
    name: str
    description: str | None = None


class SessionModelState(SchemaModel):
    """ACP's unstable `models` field of the session responses, for clients that switch
    models with `session/set_model` rather than the `model` config option."""

    current_model_id: Annotated[str, Field(alias="currentModelId")]
    available_models: Annotated[list[ModelInfo], Field(alias="availableModels")]


class NewSessionWithModels(NewSessionResponse):
    """`session/new`'s response plus the unstable `models` field the SDK has no slot for."""

    models: SessionModelState | None = None


class ForkSessionWithModels(ForkSessionResponse):
    """`session/fork`'s response plus the unstable `models` field."""

    models: SessionModelState | None = None


class LoadSessionWithModels(LoadSessionResponse):
    """`session/load`'s response plus the unstable `models` field."""

    models: SessionModelState | None = None


@dataclass(frozen=True, slots=True)
class SessionSettings:
    """What every session of one agent process starts from."""

    mode: Mode
    configured: ModelSettings
    max_steps: int


class AgentSession:
    """State of one session on one connection. Built by the server for new and loaded sessions."""

    def __init__(
        self,
        *,
        session_id: str,
        cwd: str,
        log: SessionLog,
        terminal_cards: bool,
        settings: SessionSettings,
        send: Sender,
        ask: Asker,
    ) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self.log = log
        self.terminal_cards = terminal_cards
        self.max_steps = settings.max_steps
        self.mode: Mode = settings.mode
        self.configured = settings.configured
        self.model_settings = settings.configured
        self.model: Model = build_model(settings.configured)
        self.presenter = SessionPresenter(cwd, terminal_cards)
        self.history = History()
        self.grants = Grants()
        self.read_stamps: dict[str, str] = {}
        self.jobs = JobRegistry()  # bash jobs still running: killed when the session ends
        self.cards: dict[str, ToolCallStart] = {}  # call id -> its tool_call, for permission
        self.mcp = McpHub()  # the client's MCP servers (server.py connects them)
        self.updates = UpdateQueue(send, self._client_gone)
        self.ask = ask
        self.turn: asyncio.Task[StopReason] | None = None
        self.cancel_event = asyncio.Event()
        self.titled = False  # set by the first model turn, or from a loaded log
        self._log_failed = False

    # --- events and updates -----------------------------------------------------------------

    def emit(self, event: Event) -> None:
        """Log the event, then queue what it shows. Synchronous, so tool callbacks can use it."""
        try:
            self.log.append(event)
        except (OSError, LogError) as error:
            if not self._log_failed:  # keep the session usable; say so once
                log.error("cannot write the session log %s: %s", self.log.path, error)
                self._log_failed = True
        self.history.feed(event)
        if isinstance(event, ToolFinished):
            self.cards.pop(event.call_id, None)  # a diff can be large: keep only open calls
        for update in translate(event, self.presenter, include_user=False):
            if isinstance(update, ToolCallStart):
                self.cards[update.tool_call_id] = update
            self.updates.put(update)

    def notify(self, update: AnyUpdate) -> None:
        """Queue an update that is not a session event (mode, config, commands)."""
        self.updates.put(update)

    async def flush(self) -> None:
        await self.updates.flush()

    def _client_gone(self) -> None:
        self.cancel_event.set()

    # --- prompts and cancel -----------------------------------------------------------------

    async def run_exclusive(self, turn: Callable[[], Awaitable[StopReason]]) -> StopReason:
        """Run one prompt's turn; one at a time per session, and cancel-aware.

        A prompt that arrives while a cancelled turn is still winding down waits for it; one
        that arrives while a turn runs normally is refused.
        """
        previous = self.turn
        if previous is not None and not previous.done():
            if not self.cancel_event.is_set():
                raise PromptInFlight("a prompt is already running in this session")
            await asyncio.wait({previous})
        self.cancel_event = asyncio.Event()
        cancel = self.cancel_event

        async def body() -> StopReason:
            stop = await turn()
            await self.flush()  # every update of the turn is out before the response
            return stop

        task = asyncio.get_running_loop().create_task(body())
        self.turn = task
        waiter = asyncio.ensure_future(cancel.wait())
        try:
            await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
            if not task.done():
                await asyncio.wait({task}, timeout=CANCEL_GRACE_S)
            if not task.done():
                log.warning("the cancelled turn is still winding down; answering cancelled")
                return "cancelled"
            if task.cancelled():  # the session closed under it: the prompt still answers
                return "cancelled"
            return task.result()
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            waiter.cancel()

    def cancel(self) -> None:
        """`session/cancel`: the running turn stops at its next await; tools are aborted."""
        if self.turn is not None and not self.turn.done():
            self.cancel_event.set()

    @property
    def busy(self) -> bool:
        return self.turn is not None and not self.turn.done()

    async def close(self) -> None:
        """Stop the turn (if any), kill the session's bash jobs (background ones included,
        whose log files go too), stop its MCP servers and release the log."""
        if self.turn is not None and not self.turn.done():
            self.cancel_event.set()
            self.turn.cancel()
            with contextlib.suppress(BaseException):
                await self.turn
        await self.jobs.close()
        await self.mcp.close()
        self.updates.close()
        self.log.close()

    # --- mode and model ---------------------------------------------------------------------

    def mode_state(self) -> SessionModeState:
        return SessionModeState(
            current_mode_id=self.mode,
            available_modes=[
                SessionMode(id=info.id, name=info.name, description=info.description)
                for info in MODES
            ],
        )

    def model_state(self) -> SessionModelState:
        """The unstable `models` field: the same choices as the `model` config option."""
        return SessionModelState(
            current_model_id=choice_id(self.model_settings),
            available_models=[
                ModelInfo(model_id=c.id, name=c.name, description=c.description)
                for c in model_choices(self.configured)
            ],
        )

    def config_options(self) -> list[SessionConfigOptionSelect]:
        """The `mode` and `model` selects, with their current values."""
        mode = SessionConfigOptionSelect(
            id="mode",
            name="Mode",
            description="When dsh-agent asks before editing files or running commands",
            category="mode",
            type="select",
            current_value=self.mode,
            options=[
                SessionConfigSelectOption(
                    value=info.id, name=info.name, description=info.description
                )
                for info in MODES
            ],
        )
        model = SessionConfigOptionSelect(
            id="model",
            name="Model",
            description="The model that answers prompts",
            category="model",
            type="select",
            current_value=choice_id(self.model_settings),
            options=[
                SessionConfigSelectOption(
                    value=c.id,
                    name=c.name,
                    description=c.description,
                    # Why the model cannot answer yet, for a picker to mark it (docs/client.md).
                    field_meta={UNAVAILABLE_META_KEY: c.unavailable} if c.unavailable else None,
                )
                for c in model_choices(self.configured)
            ],
        )
        return [mode, model]

    def set_mode(self, mode: Mode) -> None:
        """Switch mode and tell the client through both the mode and the config channels."""
        self.mode = mode
        self.notify(CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode))
        self.notify_config()

    def set_model(self, choice: str) -> None:
        """Switch to model select value `choice` from the next turn; ConfigError if unknown."""
        settings = switch(self.configured, choice)
        self.model = build_model(settings)
        self.model_settings = settings

    def notify_config(self) -> None:
        self.notify(
            ConfigOptionUpdate(
                session_update="config_option_update", config_options=list(self.config_options())
            )
        )


__all__ = [
    "CANCEL_GRACE_S",
    "AgentSession",
    "AnyUpdate",
    "Asker",
    "LoadSessionWithModels",
    "ModelInfo",
    "NewSessionWithModels",
    "PromptInFlight",
    "Sender",
    "SessionModelState",
    "SessionSettings",
    "StopReason",
    "UpdateQueue",
]
