"""The client's transport: NDJSON on the agent's pipes, hardened, with a look at each message.

`ClientSideConnection` takes any object with `send`, `receive` and `close`; this is the one
`tui.connection` hands it, built on the line guard dsh-agent uses too
(`dsh_common.jsonrpc_lines`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from dsh_common.jsonrpc_lines import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    MAX_MESSAGE_BYTES,
    LineTap,
    LineTransport,
    Oversized,
    Payload,
    Refused,
    envelope_problem,
    error_response,
    invalid_request,
    valid_id,
)
from tui.connection.wire import TURN_ONLY, param_problem, shadowing_meta

log = logging.getLogger(__name__)

SET_MODEL = "session/set_model"
_RENAMED = {"_" + SET_MODEL: SET_MODEL}
"""Unstable ACP methods SDK 0.12.1 has no call for: sent through its public `ext_method`,
which adds a leading underscore, and given their own name back here."""


class WireWatcher(Protocol):
    """What the transport tells the client about the wire (TuiClient implements it)."""

    def inspect(self, message: dict[str, Any]) -> None: ...

    def malformed(self, what: str) -> None: ...

    def session_opened(self, session_id: str) -> None: ...

    def session_answered(self, result: dict[str, Any]) -> None: ...


class InspectingTransport(LineTransport):
    """Newline-delimited JSON-RPC to the agent, with a synchronous look at each incoming message.

    The shared line guard drops a line over `max_message_bytes` whole and answers invalid JSON
    (-32700), values that are not objects (-32600) and batches (an array of -32600 errors, one
    per request in it: ACP has no batches, so none of it is run). Here, besides:

    * a request in an oversized line gets -32600, and an oversized answer to one of our
      calls fails that call instead of leaving it waiting;
    * a request whose parameters the SDK would silently default, or whose `_meta` would replace
      its parameters, gets -32602; a notification loses the shadowing `_meta` keys;
    * requests that start something new (a permission question, a write, a terminal) are
      refused while no prompt turn runs.

    Each refusal is a notice through the watcher, and the connection carries on. The look at
    good messages stands in for the SDK's stream observers, which deep-copy every message, a
    cost on every streamed chunk. It only reads.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        watcher: WireWatcher,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
        tap: LineTap | None = None,
        gate: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        super().__init__(reader, writer, max_message_bytes=max_message_bytes, tap=tap)
        self._watcher = watcher
        # Awaited before each message is read: a tab out of sight waits its turn while the
        # shown one streams (tui/tabs/priority.py).
        self._gate = gate
        self._pending: set[Any] = set()  # ids of our requests still unanswered
        self._opening: set[Any] = set()  # ... of which session/new and session/fork
        self._loading: set[Any] = set()  # ... of which session/load and session/resume
        self._prompts: set[Any] = set()  # ... of which session/prompt

    async def receive(self) -> dict[str, Any] | None:
        if self._gate is not None:
            await self._gate()
        return await super().receive()

    @property
    def in_turn(self) -> bool:
        return bool(self._prompts)

    async def send(self, message: Payload) -> None:
        if isinstance(message, dict):
            message = self._track(message)
        await super().send(message)

    def _track(self, message: dict[str, Any]) -> dict[str, Any]:
        method = message.get("method")
        if method in _RENAMED:
            method = _RENAMED[method]
            message = {**message, "method": method}
        if method is None or "id" not in message:
            return message
        request_id = message["id"]
        self._pending.add(request_id)
        params = message.get("params")
        if method in ("session/load", "session/resume") and isinstance(params, dict):
            session_id = params.get("sessionId")
            if isinstance(session_id, str):
                self._watcher.session_opened(session_id)
            self._loading.add(request_id)
        elif method in ("session/new", "session/fork"):
            self._opening.add(request_id)
        elif method == "session/prompt":
            self._prompts.add(request_id)
        return message

    # -- refusals -----------------------------------------------------------------------

    def refused(self, refusal: Refused) -> None:
        self._watcher.malformed(refusal.reason)
        super().refused(refusal)

    def oversized(self, line: Oversized) -> dict[str, Any] | None:
        """Answer a request lost in an oversized line, or fail our call it was the answer to."""
        is_request, has_id, request_id = line.envelope()
        if is_request and has_id:
            self._refuse(invalid_request(request_id, line.reason), line.reason)
            return None
        self._watcher.malformed(line.reason)
        log.warning("dropped %s", line.reason)
        if has_id and request_id in self._pending:
            # Hand the SDK an error in its place, so the call waiting for it fails, not hangs.
            return invalid_request(request_id, line.reason)
        return None

    def _refuse(self, reply: dict[str, Any], reason: str) -> None:
        self._watcher.malformed(reason)
        log.warning("refused a message from the agent: %s", reason)
        self.reply(reply)

    # -- admission ----------------------------------------------------------------------

    def admit(self, message: dict[str, Any]) -> dict[str, Any] | None:
        problem = envelope_problem(message)
        if problem is not None:
            return self._refuse_envelope(message, problem)
        method = message.get("method")
        if method is None:
            self._answered(message)
            return message
        params = message.get("params")
        shadowing = shadowing_meta(method, params)
        if "id" in message:
            if not self._request_admitted(message, method, params, shadowing):
                return None
        elif shadowing and isinstance(params, dict):
            meta = {k: v for k, v in params["_meta"].items() if k not in shadowing}
            message = {**message, "params": {**params, "_meta": meta}}
            self._watcher.malformed(
                f"{method}: _meta keys {', '.join(shadowing)} would replace parameters (dropped)"
            )
        try:
            self._watcher.inspect(message)
        except Exception:
            # The look is advisory: a surprise in it must not take the connection down.
            log.exception("inspecting an incoming message failed")
        return message

    def _request_admitted(
        self, request: dict[str, Any], method: str, params: Any, shadowing: list[str]
    ) -> bool:
        reason = param_problem(method, params)
        if reason is None and shadowing:
            reason = f"_meta would replace the parameters {', '.join(shadowing)}"
        if reason is None and method in TURN_ONLY and not self.in_turn:
            if method == "session/request_permission":
                cancelled = {"outcome": {"outcome": "cancelled"}}
                self.reply({"jsonrpc": "2.0", "id": request["id"], "result": cancelled})
                self._watcher.malformed(f"{method} after the turn ended (answered cancelled)")
                return False
            reason = "no prompt turn is running"
        if reason is None:
            return True
        reason = f"{method}: {reason}"
        self._refuse(
            error_response(request["id"], INVALID_PARAMS, "Invalid params", reason), reason
        )
        return False

    def _answered(self, response: dict[str, Any]) -> None:
        request_id = response.get("id")
        self._pending.discard(request_id)
        self._prompts.discard(request_id)
        result = response.get("result")
        if request_id in self._opening:
            self._opening.discard(request_id)
            session_id = result.get("sessionId") if isinstance(result, dict) else None
            if isinstance(session_id, str):
                self._watcher.session_opened(session_id)
        elif request_id in self._loading:
            self._loading.discard(request_id)
        else:
            return
        if isinstance(result, dict):
            self._watcher.session_answered(result)

    def _refuse_envelope(self, message: dict[str, Any], problem: str) -> dict[str, Any] | None:
        request_id = message.get("id") if valid_id(message.get("id")) else None
        if "method" in message:
            self._refuse(invalid_request(request_id, problem), problem)
            return None
        self._watcher.malformed(f"a response: {problem}")
        if request_id is not None and request_id in self._pending:
            self._answered(message)
            return error_response(request_id, INVALID_REQUEST, "Invalid Request", problem)
        return None
