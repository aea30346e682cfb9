"""The ACP client object: updates go to the app's sink; fs, terminals and permission are served.

It is also the one place where agent text enters: every update, permission request and
response goes through `tui.agent_text.clean` on its way in, so nothing the app keeps or shows
carries an escape sequence or a hidden bidi control, whichever widget shows it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from acp import Client, RequestError
from acp.schema import (
    CreateElicitationResponse,
    CreateTerminalResponse,
    ElicitationMode,
    EnvVariable,
    KillTerminalResponse,
    PermissionOption,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from tui.agent_text import clean
from tui.connection.sdk_log import quiet_noted_updates
from tui.connection.wire import SessionUpdate, unsupported_parts
from tui.fs import ConfinedFs, FsError, FsFileNotFoundError
from tui.sanitize import clean_line
from tui.state import OfferedModels
from tui.terminal.terminals import TerminalError, TerminalManager, UnknownTerminalError

log = logging.getLogger(__name__)

MAX_NOTES = 5
"""Notices about refused messages shown before the rest only go to the log."""


class ClientSink(Protocol):
    """What the app provides: a synchronous update recorder and a permission prompt."""

    def on_session_update(self, session_id: str, update: SessionUpdate) -> None: ...

    def on_unsupported(self, session_id: str, what: str) -> None: ...

    async def ask_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse: ...


def offered_models(raw: object) -> OfferedModels | None:
    """The unstable `SessionModelState` ({currentModelId, availableModels: [{modelId, name}]}),
    or None when absent or unusable. Models without a string id are left out."""
    if not isinstance(raw, dict) or not isinstance(raw.get("availableModels"), list):
        return None
    choices: list[tuple[str, str]] = []
    for item in raw["availableModels"]:
        model_id = item.get("modelId") if isinstance(item, dict) else None
        if isinstance(model_id, str) and model_id:
            name = item.get("name")
            shown = clean_line(name if isinstance(name, str) and name.strip() else model_id)
            choices.append((model_id, shown or "(unnamed)"))
    if not choices:
        return None
    current = raw.get("currentModelId")
    return OfferedModels(current if isinstance(current, str) else None, tuple(choices))


def fs_error(error: FsError, path: str) -> RequestError:
    if isinstance(error, FsFileNotFoundError):
        return RequestError.resource_not_found(path)
    return RequestError.invalid_params({"path": path, "reason": str(error)})


@contextmanager
def terminal_errors(terminals: TerminalManager, terminal_id: str) -> Iterator[None]:
    """An unknown terminal id, as the agent should hear it: -32602 naming the id. An id the
    agent did not create (the user's `!` commands) is unknown to it, whoever else knows it."""
    try:
        if not terminals.agent_owns(terminal_id):
            log.warning("refused a terminal request for %r, not the agent's", terminal_id)
            raise UnknownTerminalError(terminal_id)
        yield
    except UnknownTerminalError as error:
        data = {"reason": str(error), "terminalId": terminal_id}
        raise RequestError.invalid_params(data) from error


class TuiClient(Client):
    """The ACP client: updates go to the sink; fs and terminals are served here.

    Updates reach the sink in wire order: the SDK runs each incoming message as a task, and
    asyncio starts tasks in the order they are created, each update's handler running to the
    sink before it awaits anything. Notes about what the transport saw while reading a
    message are put on that same queue (`call_soon` at the point of reading), so a note about
    a message lands after the update that came before it, never ahead of it.
    """

    def __init__(self, sink: ClientSink, fs: ConfinedFs, terminals: TerminalManager) -> None:
        quiet_noted_updates()
        self._sink = sink
        self.fs = fs
        self.terminals = terminals
        # The sessions this connection opened (learned from the wire by the transport):
        # requests and updates naming any other session are refused.
        self.sessions: set[str] = set()
        self.offered_models: OfferedModels | None = None
        self._notes = 0

    # -- what the transport reports (WireWatcher) ---------------------------------------

    def session_opened(self, session_id: str) -> None:
        self.sessions.add(session_id)

    def session_answered(self, result: dict[str, Any]) -> None:
        """The raw answer to session/new or load: the unstable `models` field, which the
        SDK's schema does not have, is read here."""
        self.offered_models = offered_models(result.get("models"))

    def malformed(self, what: str) -> None:
        """A message refused at the transport: say so, a few times, then only log."""
        self._count_note(f"malformed message from the agent (not shown): {what}", in_order=True)

    def inspect(self, message: dict[str, Any]) -> None:
        """Sees each raw incoming message as it is read, before the SDK validates it."""
        if message.get("method") != "session/update":
            return
        params = message.get("params")
        if isinstance(params, dict) and params.get("sessionId") not in self.sessions:
            return  # session_update says why it is not shown
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        for problem in unsupported_parts(message):
            log.warning("unsupported %s", problem)
            self._in_order(str(session_id), problem)

    def _in_order(self, session_id: str, text: str) -> None:
        asyncio.get_running_loop().call_soon(self._sink.on_unsupported, session_id, text)

    def _count_note(self, text: str, *, in_order: bool = False) -> None:
        self._notes += 1
        if self._notes > MAX_NOTES + 1:
            return
        if self._notes == MAX_NOTES + 1:
            text = "more malformed or misdirected messages from the agent (see dsh-tui.log)"
        if in_order:
            self._in_order("", text)
        else:
            self._sink.on_unsupported("", text)

    def _check_session(self, session_id: str) -> None:
        if session_id not in self.sessions:
            log.warning("refused a request for unknown session %r", session_id)
            raise RequestError.invalid_params(
                {"sessionId": session_id, "reason": "no such session on this connection"}
            )

    # -- the ACP client methods -----------------------------------------------------------

    async def session_update(self, session_id: str, update: SessionUpdate, **kwargs: Any) -> None:
        if session_id not in self.sessions:
            log.warning("not showing an update for unknown session %r", session_id)
            self._count_note("an update for another session (not shown)")
            return
        self._sink.on_session_update(session_id, clean(update))

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        self._check_session(session_id)
        return await self._sink.ask_permission(session_id, clean(tool_call), clean(options))

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse | None:
        self._check_session(session_id)
        try:
            await asyncio.to_thread(self.fs.write_text, path, content)
        except FsError as error:
            raise fs_error(error, path) from error
        return WriteTextFileResponse()

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:
        self._check_session(session_id)
        try:
            content = await asyncio.to_thread(self.fs.read_text, path, line, limit)
        except FsError as error:
            raise fs_error(error, path) from error
        return ReadTextFileResponse(content=content)

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: list[EnvVariable] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> CreateTerminalResponse:
        self._check_session(session_id)
        try:
            terminal_id = await self.terminals.create(
                command,
                args,
                {variable.name: variable.value for variable in env or []},
                cwd,
                output_byte_limit,
            )
        except (TerminalError, ValueError) as error:
            raise RequestError.invalid_params({"command": command, "reason": str(error)}) from error
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> TerminalOutputResponse:
        self._check_session(session_id)
        with terminal_errors(self.terminals, terminal_id):
            output = self.terminals.output(terminal_id)
        status = output.exit_status
        return TerminalOutputResponse(
            output=output.output,
            truncated=output.truncated,
            exit_status=None
            if status is None
            else TerminalExitStatus(exit_code=status.exit_code, signal=status.signal),
        )

    async def release_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> ReleaseTerminalResponse | None:
        self._check_session(session_id)
        with terminal_errors(self.terminals, terminal_id):
            await self.terminals.release(terminal_id)
        return ReleaseTerminalResponse()

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        self._check_session(session_id)
        with terminal_errors(self.terminals, terminal_id):
            status = await self.terminals.wait_for_exit(terminal_id)
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> KillTerminalResponse | None:
        self._check_session(session_id)
        with terminal_errors(self.terminals, terminal_id):
            await self.terminals.kill(terminal_id)
        return KillTerminalResponse()

    async def create_elicitation(
        self, message: str, mode: ElicitationMode, **kwargs: Any
    ) -> CreateElicitationResponse:
        raise RequestError.method_not_found("elicitation/create")

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        return None

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        log.info("ignoring extension notification %s", method)

    def on_connect(self, conn: Any) -> None:
        return None
