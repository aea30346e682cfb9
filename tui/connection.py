"""The client side of ACP: spawn the agent, negotiate, and hand every update to the app.

This module holds no widgets. Updates are passed to a sink synchronously, in wire order,
before anything awaits, so the conversation can never be applied out of order.

It is also the one place where agent text enters: every update, permission request and
response goes through `tui.agent_text.clean` on its way in, so nothing the app keeps or shows
carries an escape sequence or a hidden bidi control, whichever widget shows it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from acp import (
    PROTOCOL_VERSION,
    Client,
    RequestError,
    text_block,
)
from acp.core import ClientSideConnection
from acp.schema import (
    AgentMessageChunk,
    AgentPlanContentUpdate,
    AgentPlanRemovedUpdate,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AvailableCommandsUpdate,
    ClientCapabilities,
    CompleteElicitationNotification,
    ConfigOptionUpdate,
    CreateElicitationResponse,
    CreateTerminalRequest,
    CreateTerminalResponse,
    CurrentModeUpdate,
    ElicitationMode,
    EnvVariable,
    FileSystemCapabilities,
    Implementation,
    InitializeResponse,
    KillTerminalRequest,
    KillTerminalResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    ReadTextFileRequest,
    ReadTextFileResponse,
    ReleaseTerminalRequest,
    ReleaseTerminalResponse,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SessionInfo,
    SessionInfoUpdate,
    SessionNotification,
    TerminalExitStatus,
    TerminalOutputRequest,
    TerminalOutputResponse,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
    UsageUpdate,
    UserMessageChunk,
    WaitForTerminalExitRequest,
    WaitForTerminalExitResponse,
    WriteTextFileRequest,
    WriteTextFileResponse,
)
from pydantic import BaseModel

from tui import __version__
from tui.agent_log import read_tail
from tui.agent_text import clean, clean_error
from tui.capabilities import can_list, can_load
from tui.fs import ConfinedFs, FsError, FsFileNotFoundError
from tui.launch import AgentFailed as AgentFailed
from tui.launch import AgentProcess
from tui.launch import LaunchSpec as LaunchSpec
from tui.sanitize import clean_line
from tui.state import OfferedModels
from tui.terminals import TerminalError, TerminalManager, UnknownTerminalError

log = logging.getLogger(__name__)

SessionUpdate = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | AgentPlanContentUpdate
    | AgentPlanRemovedUpdate
    | AvailableCommandsUpdate
    | CurrentModeUpdate
    | ConfigOptionUpdate
    | SessionInfoUpdate
    | UsageUpdate
)

# The stream reader's own limit. InspectingTransport reads longer lines in pieces, so this
# only bounds the reader's buffer (it holds up to twice this), not the size of a message.
STREAM_LIMIT_BYTES = 1024 * 1024
# The largest JSON-RPC message taken in (a big diff, a flood of output fit). A longer line is
# dropped whole, with a notice, and the connection carries on.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
SHUTDOWN_TIMEOUT_S = 1.0
# Notices about refused messages shown before the rest only go to the log.
MAX_NOTES = 5


SessionChooser = Callable[[list[SessionInfo]], Awaitable[str | None]]


class ClientSink(Protocol):
    """What the app provides: a synchronous update recorder and a permission prompt."""

    def on_session_update(self, session_id: str, update: SessionUpdate) -> None: ...

    def on_unsupported(self, session_id: str, what: str) -> None: ...

    async def ask_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse: ...


def client_capabilities(terminal: bool) -> ClientCapabilities:
    """The spec's terminal flag and the `_meta.terminal_output` display convention go together."""
    return ClientCapabilities(
        fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
        terminal=terminal,
        field_meta={"terminal_output": terminal},
    )


KNOWN_UPDATES = frozenset(
    {
        "user_message_chunk",
        "agent_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "plan",
        "available_commands_update",
        "current_mode_update",
        "config_option_update",
        "session_info_update",
        "usage_update",
    }
)
KNOWN_TOOL_CONTENT = frozenset({"content", "diff", "terminal"})
KNOWN_BLOCKS = frozenset({"text", "image", "audio", "resource_link", "resource"})
PLAN_PRIORITIES = frozenset({"high", "medium", "low"})
PLAN_STATUSES = frozenset({"pending", "in_progress", "completed"})


def unsupported_parts(message: dict[str, Any]) -> list[str]:
    """What in a raw `session/update` the SDK would drop silently: unknown kinds and types.

    The SDK validates before our handler runs and discards what it cannot parse, so this
    looks at the raw message to tell the user something was not shown.
    """
    params = message.get("params")
    update = params.get("update") if isinstance(params, dict) else None
    if not isinstance(update, dict):
        return ["malformed session/update"]
    kind = update.get("sessionUpdate")
    if kind not in KNOWN_UPDATES:
        return [f"update kind {kind!r}"]
    found: list[str] = []
    content = update.get("content")
    if kind in ("tool_call", "tool_call_update") and isinstance(content, list):
        for item in content:
            item_type = item.get("type") if isinstance(item, dict) else None
            if item_type not in KNOWN_TOOL_CONTENT:
                found.append(f"tool call content type {item_type!r}")
            elif item_type == "content":
                block = item.get("content")
                block_type = block.get("type") if isinstance(block, dict) else None
                if block_type not in KNOWN_BLOCKS:
                    found.append(f"content block type {block_type!r}")
    elif (
        kind.endswith("_chunk")
        and isinstance(content, dict)
        and content.get("type") not in KNOWN_BLOCKS
    ):
        found.append(f"content block type {content.get('type')!r}")
    elif kind == "plan" and isinstance(update.get("entries"), list):
        found += plan_problems(update["entries"])
    return found


def plan_problems(entries: list[Any]) -> list[str]:
    """Plan entries the SDK drops one by one, keeping the rest of the plan: a priority or a
    status outside the schema's, or no text."""
    found: list[str] = []
    for entry in entries:
        if not isinstance(entry, dict):
            found.append("plan entry that is not an object")
            continue
        priority, status = entry.get("priority"), entry.get("status")
        if priority not in PLAN_PRIORITIES:
            found.append(f"plan entry priority {priority!r}")
        elif status not in PLAN_STATUSES:
            found.append(f"plan entry status {status!r}")
        elif not isinstance(entry.get("content"), str):
            found.append("plan entry without text")
    return found


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


def terminal_error(error: TerminalError, terminal_id: str | None = None) -> RequestError:
    data: dict[str, Any] = {"reason": str(error)}
    if terminal_id is not None:
        data["terminalId"] = terminal_id
    return RequestError.invalid_params(data)


class WireWatcher(Protocol):
    """What the transport tells the client about the wire (TuiClient implements it)."""

    def inspect(self, message: dict[str, Any]) -> None: ...

    def malformed(self, what: str) -> None: ...

    def session_opened(self, session_id: str) -> None: ...

    def session_answered(self, result: dict[str, Any]) -> None: ...


# JSON-RPC 2.0 error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
# How many replies to refused messages may wait to be written before more are dropped: an
# agent that floods junk without reading its stdin must not grow this without bound.
MAX_PENDING_REPLIES = 64
# How much of an oversized line is kept to find its id (the SDK writes "id" before "params").
_HEAD_BYTES = 256
_HEAD_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*"|null)')
_HEAD_BODY = re.compile(rb'"(?:params|result|error)"\s*:')

# Parameter names of the requests and notifications the client serves. The SDK's router
# spreads the keys of `_meta` into the handler's keyword arguments *after* validation, so a
# `_meta` key with one of these names would replace a validated parameter with a raw value.
_SHADOW_MODELS: dict[str, type[BaseModel]] = {
    "session/update": SessionNotification,
    "session/request_permission": RequestPermissionRequest,
    "fs/read_text_file": ReadTextFileRequest,
    "fs/write_text_file": WriteTextFileRequest,
    "terminal/create": CreateTerminalRequest,
    "terminal/output": TerminalOutputRequest,
    "terminal/wait_for_exit": WaitForTerminalExitRequest,
    "terminal/kill": KillTerminalRequest,
    "terminal/release": ReleaseTerminalRequest,
    "elicitation/complete": CompleteElicitationNotification,
}
_SHADOWABLE: dict[str, frozenset[str]] = {
    method: frozenset(model.model_fields) - {"field_meta"}
    for method, model in _SHADOW_MODELS.items()
}
# Requests that start something new: refused when no prompt turn is running (README).
_TURN_ONLY = frozenset({"session/request_permission", "fs/write_text_file", "terminal/create"})


def _valid_id(value: object) -> bool:
    return value is None or isinstance(value, str) or _is_int(value)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def envelope_problem(message: dict[str, Any]) -> str | None:
    """What in a decoded JSON object would break the SDK's dispatch, which assumes JSON-RPC."""
    if "id" in message and not _valid_id(message["id"]):
        return "its id is not a string, an integer or null"
    if "method" in message:
        if not isinstance(message["method"], str):
            return "its method is not a string"
        params = message.get("params")
        if params is not None and not isinstance(params, dict | list):
            return "its params are neither an object nor an array"
        return None
    if "id" not in message:
        return "it is neither a request, a notification nor a response"
    if "error" in message and not isinstance(message["error"], dict):
        return "the error of a response is not an object"
    return None


def _optional_int(params: dict[str, Any], key: str, minimum: int) -> str | None:
    value = params.get(key)
    if value is None:
        return None
    if not _is_int(value):
        return f"{key} must be an integer, got {json.dumps(value)[:40]}"
    if value < minimum:
        return f"{key} must be {minimum} or more, got {value}"
    return None


def param_problem(method: str, params: Any) -> str | None:
    """Invalid parameters that the SDK would quietly replace with defaults.

    The schema marks `line`, `limit`, `outputByteLimit` and `cwd` "default on error" and drops
    invalid `args` items, so `line=-5` would read from the start and `outputByteLimit=-1` would
    mean no limit. JSON-RPC asks for -32602 instead.
    """
    if not isinstance(params, dict):
        return None  # the SDK's own validation answers -32602
    if method == "fs/read_text_file":
        return _optional_int(params, "line", 1) or _optional_int(params, "limit", 0)
    if method == "terminal/create":
        problem = _optional_int(params, "outputByteLimit", 0)
        if problem:
            return problem
        cwd = params.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            return "cwd must be a string"
        args = params.get("args")
        if args is not None and not (
            isinstance(args, list) and all(isinstance(a, str) for a in args)
        ):
            return "args must be a list of strings"
        env = params.get("env")
        if env is not None and not (
            isinstance(env, list)
            and all(
                isinstance(v, dict)
                and isinstance(v.get("name"), str)
                and isinstance(v.get("value"), str)
                for v in env
            )
        ):
            return "env must be a list of {name, value} strings"
    return None


def shadowing_meta(method: str, params: Any) -> list[str]:
    """`_meta` keys that the SDK would spread over the validated parameters of `method`."""
    if not isinstance(params, dict):
        return []
    meta = params.get("_meta")
    if not isinstance(meta, dict):
        return []
    names = _SHADOWABLE.get(method, frozenset())
    return sorted(key for key in meta if key in names)


@dataclass(frozen=True)
class _Oversized:
    size: int
    head: bytes


def _error(request_id: Any, code: int, message: str, reason: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": code, "message": message, "data": {"reason": reason}},
    }


class InspectingTransport:
    """The SDK's stdio transport, hardened, with a synchronous look at each incoming message.

    It reads the agent's lines itself, because the SDK's reader buffers a line of any length
    and its dispatch assumes every message is a JSON-RPC object: `42`, `null` or a batch array
    ended its receive loop, and with it the connection. Here:

    * a line longer than `max_message_bytes` is dropped whole (a request in it gets -32600);
    * invalid JSON gets -32700, a value that is not an object -32600, and a batch gets an array
      of -32600 errors, one per request in it: ACP has no batches, so none of it is run;
    * a request whose parameters the SDK would silently default, or whose `_meta` would replace
      its parameters, gets -32602; a notification loses the shadowing `_meta` keys;
    * requests that start something new (a permission question, a write, a terminal) are
      refused while no prompt turn runs.

    Each refusal is a notice through the watcher, and the connection carries on. The look at
    good messages stands in for the SDK's stream observers, which deep-copy every message:
    about 0.1 s of CPU per 2,000 streamed chunks (bench/bench_client.py). It only reads.
    """

    def __init__(
        self,
        inner: Any,
        watcher: WireWatcher,
        *,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
    ) -> None:
        self._inner = inner
        self._watcher = watcher
        self._reader: asyncio.StreamReader | None = getattr(inner, "_reader", None)
        self._timeout: float | None = getattr(inner, "_receive_timeout", None)
        self.max_message_bytes = max_message_bytes
        self._pending: set[Any] = set()  # ids of our requests still unanswered
        self._opening: set[Any] = set()  # ... of which session/new and session/fork
        self._loading: set[Any] = set()  # ... of which session/load and session/resume
        self._prompts: set[Any] = set()  # ... of which session/prompt
        self._replies: set[asyncio.Task[None]] = set()

    @property
    def in_turn(self) -> bool:
        return bool(self._prompts)

    async def send(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method is not None and "id" in message:
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
        await self._inner.send(message)

    async def receive(self) -> dict[str, Any] | None:
        while True:
            if self._reader is None:
                decoded = await self._inner.receive()
                if decoded is None:
                    return None
            else:
                line = await self._read_line()
                if line is None:
                    return None
                if isinstance(line, _Oversized):
                    message = self._oversized(line)
                    if message is not None:
                        return message
                    continue
                line = line.strip()
                if not line:
                    continue
                try:
                    decoded = json.loads(line)
                except (ValueError, RecursionError):
                    self._refuse(None, PARSE_ERROR, "Parse error", "the line is not valid JSON")
                    continue
            message = self._admit(decoded)
            if message is not None:
                return message

    async def close(self) -> None:
        await self._inner.close()

    # -- framing ------------------------------------------------------------------------

    async def _read_line(self) -> bytes | _Oversized | None:
        """One line, newline included; an _Oversized past the cap; None at end of stream."""
        assert self._reader is not None
        chunks: list[bytes] = []
        size = 0
        head = b""
        while True:
            last = True
            try:
                piece = await self._wait(self._reader.readuntil(b"\n"))
            except asyncio.LimitOverrunError as exc:
                piece = await self._wait(self._reader.readexactly(exc.consumed))
                last = False
            except asyncio.IncompleteReadError as exc:
                piece = exc.partial
            size += len(piece)
            if len(head) < _HEAD_BYTES:
                head += piece[: _HEAD_BYTES - len(head)]
            if size <= self.max_message_bytes:
                chunks.append(piece)
            else:
                chunks.clear()
            if last:
                if size > self.max_message_bytes:
                    return _Oversized(size, head)
                return b"".join(chunks) if size else None

    async def _wait(self, awaitable: Awaitable[bytes]) -> bytes:
        if self._timeout is None:
            return await awaitable
        return await asyncio.wait_for(awaitable, timeout=self._timeout)

    def _oversized(self, line: _Oversized) -> dict[str, Any] | None:
        """Answer a request lost in an oversized line, or fail our call it was the answer to."""
        reason = f"a message of {line.size} bytes is over the limit of {self.max_message_bytes}"
        body = _HEAD_BODY.search(line.head)
        envelope = line.head[: body.start()] if body else line.head
        found = _HEAD_ID.search(envelope)
        if found is not None and b'"method"' in envelope:
            self._refuse(json.loads(found.group(1)), INVALID_REQUEST, "Invalid Request", reason)
            return None
        self._watcher.malformed(reason)
        log.warning("dropped %s", reason)
        if found is None:
            return None
        request_id = json.loads(found.group(1))
        if request_id in self._pending:
            # Hand the SDK an error in its place, so the call waiting for it fails, not hangs.
            return _error(request_id, INVALID_REQUEST, "Invalid Request", reason)
        return None

    # -- admission ----------------------------------------------------------------------

    def _admit(self, decoded: Any) -> dict[str, Any] | None:
        """The message to dispatch, or None once it has been answered and noted."""
        if isinstance(decoded, list):
            self._refuse_batch(decoded)
            return None
        if not isinstance(decoded, dict):
            kind = "null" if decoded is None else type(decoded).__name__
            self._refuse(None, INVALID_REQUEST, "Invalid Request", f"a JSON {kind}, not an object")
            return None
        problem = envelope_problem(decoded)
        if problem is not None:
            return self._refuse_envelope(decoded, problem)
        method = decoded.get("method")
        if method is None:
            self._answered(decoded)
            return decoded
        params = decoded.get("params")
        is_request = "id" in decoded
        shadowing = shadowing_meta(method, params)
        if is_request:
            reason = param_problem(method, params)
            if reason is None and shadowing:
                reason = f"_meta would replace the parameters {', '.join(shadowing)}"
            if reason is None and method in _TURN_ONLY and not self.in_turn:
                reason = "no prompt turn is running"
                if method == "session/request_permission":
                    self._reply(
                        {
                            "jsonrpc": "2.0",
                            "id": decoded["id"],
                            "result": {"outcome": {"outcome": "cancelled"}},
                        }
                    )
                    self._watcher.malformed(f"{method} after the turn ended (answered cancelled)")
                    return None
            if reason is not None:
                self._refuse(decoded["id"], INVALID_PARAMS, "Invalid params", f"{method}: {reason}")
                return None
        elif shadowing and isinstance(params, dict):
            meta = {k: v for k, v in params["_meta"].items() if k not in shadowing}
            decoded = {**decoded, "params": {**params, "_meta": meta}}
            self._watcher.malformed(
                f"{method}: _meta keys {', '.join(shadowing)} would replace parameters (dropped)"
            )
        try:
            self._watcher.inspect(decoded)
        except Exception:
            # The look is advisory: a surprise in it must not take the connection down.
            log.exception("inspecting an incoming message failed")
        admitted: dict[str, Any] = decoded
        return admitted

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
        request_id = message.get("id") if _valid_id(message.get("id")) else None
        if "method" in message:
            self._refuse(request_id, INVALID_REQUEST, "Invalid Request", problem)
            return None
        self._watcher.malformed(f"a response: {problem}")
        if request_id is not None and request_id in self._pending:
            self._answered(message)
            return _error(request_id, INVALID_REQUEST, "Invalid Request", problem)
        return None

    def _refuse_batch(self, batch: list[Any]) -> None:
        """JSON-RPC batch rules, with every member refused: ACP does not use batches."""
        reason = "batches are not supported"
        if not batch:
            self._refuse(None, INVALID_REQUEST, "Invalid Request", "an empty batch")
            return
        replies: list[dict[str, Any]] = []
        for member in batch:
            if not isinstance(member, dict):
                replies.append(_error(None, INVALID_REQUEST, "Invalid Request", reason))
            elif "method" in member and "id" in member:
                member_id = member["id"] if _valid_id(member["id"]) else None
                replies.append(_error(member_id, INVALID_REQUEST, "Invalid Request", reason))
            elif "method" not in member and "id" not in member:
                replies.append(_error(None, INVALID_REQUEST, "Invalid Request", reason))
            # A notification or a response in a batch gets no reply, as the rules say.
        self._watcher.malformed(f"a batch of {len(batch)} messages (refused)")
        if replies:
            self._send_later(replies)

    def _refuse(self, request_id: Any, code: int, message: str, reason: str) -> None:
        self._watcher.malformed(reason)
        log.warning("refused a message from the agent: %s", reason)
        self._reply(_error(request_id, code, message, reason))

    def _reply(self, payload: dict[str, Any]) -> None:
        self._send_later(payload)

    def _send_later(self, payload: dict[str, Any] | list[dict[str, Any]]) -> None:
        """Write a reply without holding up the receive loop."""
        if len(self._replies) >= MAX_PENDING_REPLIES:
            log.warning(
                "not answering a refused message: %d replies are still unsent", len(self._replies)
            )
            return
        task = asyncio.get_running_loop().create_task(self._send_quietly(payload))
        self._replies.add(task)
        task.add_done_callback(self._replies.discard)

    async def _send_quietly(self, payload: dict[str, Any] | list[dict[str, Any]]) -> None:
        try:
            await self._inner.send(payload)
        except (ConnectionError, OSError, RuntimeError) as error:
            log.info("could not answer a refused message: %s", error)


def inspect_incoming(conn: ClientSideConnection, watcher: WireWatcher) -> InspectingTransport:
    """Wrap the connection's transport before its receive loop first runs: that loop is a task
    created with the connection, and nothing has awaited since. The SDK offers no public hook
    that does not copy; it is pinned exactly in pyproject.toml, and the e2e test of unknown
    update kinds fails if these attributes move."""
    connection = conn._conn
    transport = InspectingTransport(connection._transport, watcher)
    connection._transport = transport
    return transport


class TuiClient(Client):
    """The ACP client object: updates go to the sink; fs and terminals are served here."""

    def __init__(self, sink: ClientSink, fs: ConfinedFs, terminals: TerminalManager) -> None:
        self._sink = sink
        self.fs = fs
        self.terminals = terminals
        # The sessions this connection opened (learned from the wire by InspectingTransport):
        # requests and updates naming any other session are refused.
        self.sessions: set[str] = set()
        self.offered_models: OfferedModels | None = None
        self._notes = 0

    def session_opened(self, session_id: str) -> None:
        self.sessions.add(session_id)

    def session_answered(self, result: dict[str, Any]) -> None:
        """The raw answer to session/new or load: the unstable `models` field, which the
        SDK's schema does not have, is read here."""
        self.offered_models = offered_models(result.get("models"))

    def malformed(self, what: str) -> None:
        """A message refused at the transport: say so, a few times, then only log."""
        self._note(f"malformed message from the agent (not shown): {what}")

    def _note(self, text: str) -> None:
        self._notes += 1
        if self._notes <= MAX_NOTES:
            self._sink.on_unsupported("", text)
        elif self._notes == MAX_NOTES + 1:
            self._sink.on_unsupported(
                "", "more malformed or misdirected messages from the agent (see dsh-tui.log)"
            )

    def _check_session(self, session_id: str) -> None:
        if session_id not in self.sessions:
            log.warning("refused a request for unknown session %r", session_id)
            raise RequestError.invalid_params(
                {"sessionId": session_id, "reason": "no such session on this connection"}
            )

    def inspect(self, message: dict[str, Any]) -> None:
        """Sees each raw incoming message before dispatch, so a note lands in order with the
        updates."""
        if message.get("method") != "session/update":
            return
        params = message.get("params")
        if isinstance(params, dict) and params.get("sessionId") not in self.sessions:
            return  # session_update says why it is not shown
        problems = unsupported_parts(message)
        if problems:
            params = message.get("params")
            session_id = params.get("sessionId") if isinstance(params, dict) else None
            for problem in problems:
                log.warning("unsupported %s", problem)
                self._sink.on_unsupported(str(session_id), problem)

    async def session_update(self, session_id: str, update: SessionUpdate, **kwargs: Any) -> None:
        if session_id not in self.sessions:
            log.warning("not showing an update for unknown session %r", session_id)
            self._note("an update for another session (not shown)")
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
        try:
            output = self.terminals.output(terminal_id)
        except UnknownTerminalError as error:
            raise terminal_error(error, terminal_id) from error
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
        try:
            await self.terminals.release(terminal_id)
        except UnknownTerminalError as error:
            raise terminal_error(error, terminal_id) from error
        return ReleaseTerminalResponse()

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        self._check_session(session_id)
        try:
            status = await self.terminals.wait_for_exit(terminal_id)
        except UnknownTerminalError as error:
            raise terminal_error(error, terminal_id) from error
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> KillTerminalResponse | None:
        self._check_session(session_id)
        try:
            await self.terminals.kill(terminal_id)
        except UnknownTerminalError as error:
            raise terminal_error(error, terminal_id) from error
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


@dataclass
class AgentSession:
    """A live, negotiated connection with one session open."""

    spec: LaunchSpec
    conn: ClientSideConnection
    process: AgentProcess
    init: InitializeResponse
    session: NewSessionResponse | LoadSessionResponse
    capabilities: ClientCapabilities
    client: TuiClient
    session_id: str
    resumed: bool = False

    async def prompt(self, text: str) -> PromptResponse:
        try:
            return await self.conn.prompt(session_id=self.session_id, prompt=[text_block(text)])
        except ConnectionError as error:
            raise await self.failure("the agent exited during the turn") from error

    async def cancel(self) -> None:
        with contextlib.suppress(ConnectionError):
            await self.conn.cancel(session_id=self.session_id)

    async def set_mode(self, mode_id: str) -> None:
        """session/set_mode. Raises RequestError or ConnectionError (show it with
        `clean_error`)."""
        await self.conn.set_session_mode(session_id=self.session_id, mode_id=mode_id)

    async def set_model(self, model_id: str) -> None:
        """session/set_model (unstable ACP, for agents that offer `models` rather than a model
        config option). This SDK has no method for it, so it is sent as a plain request.
        Raises like `set_mode`."""
        params = {"sessionId": self.session_id, "modelId": model_id}
        await self.conn._conn.send_request("session/set_model", params)

    async def set_config(self, config_id: str, value: str) -> list[Any] | None:
        """session/set_config_option: the options as the agent now has them (cleaned, like
        every update), or None when it did not say. Raises like `set_mode`."""
        response = await self.conn.set_config_option(
            config_id=config_id, session_id=self.session_id, value=value
        )
        return None if response is None else clean(list(response.config_options))

    async def failure(self, reason: str) -> AgentFailed:
        return await describe_failure(self.spec, self.process, reason)


async def describe_failure(spec: LaunchSpec, process: AgentProcess, reason: str) -> AgentFailed:
    """Wait briefly for the exit code (it may lag the closed pipe), then read the stderr tail."""
    exit_code = process.returncode
    if exit_code is None:
        with contextlib.suppress(TimeoutError):
            exit_code = await asyncio.wait_for(process.wait(), timeout=2.0)
    return AgentFailed(spec, reason, exit_code, read_tail(spec.log_path))


async def close_agent(conn: ClientSideConnection | None, process: AgentProcess) -> None:
    """Close the connection and reap the agent, even if cancelled again while doing so."""
    interrupted: asyncio.CancelledError | None = None
    try:
        await shut_down(conn, process)
    except asyncio.CancelledError as error:
        interrupted = error
    except (ConnectionError, OSError) as error:
        # The pipe to a dead agent fails on close; the process is reaped below.
        log.info("closing the agent connection: %s", error)
    process.kill()
    await process.wait()
    process.close_pipes()
    if interrupted is not None:
        raise interrupted


async def shut_down(conn: ClientSideConnection | None, process: AgentProcess) -> None:
    """The SDK's own stdio shutdown: close the connection, then the agent's stdin, and give it
    SHUTDOWN_TIMEOUT_S to exit on that EOF before it is terminated, then killed."""
    if conn is not None:
        await conn.close()
    stdin = process.stdin
    if stdin is not None:
        try:
            stdin.write_eof()
        except (AttributeError, OSError, RuntimeError):
            stdin.close()
        with contextlib.suppress(Exception):
            await stdin.drain()
        with contextlib.suppress(Exception):
            stdin.close()
        with contextlib.suppress(Exception):
            await stdin.wait_closed()
    try:
        await asyncio.wait_for(process.wait(), timeout=SHUTDOWN_TIMEOUT_S)
    except TimeoutError:
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), timeout=SHUTDOWN_TIMEOUT_S)
        except TimeoutError:
            process.kill()


async def start_or_resume(
    conn: ClientSideConnection,
    init: InitializeResponse,
    spec: LaunchSpec,
    resume: str | None,
    choose: SessionChooser | None,
    sink: ClientSink,
) -> tuple[str, NewSessionResponse | LoadSessionResponse, bool]:
    """session/new, or session/load of the given id (or of one the user picks from the list).

    `resume` is None for a new session, "" to pick from session/list, or a session id.
    Replayed history arrives as ordinary updates before session/load answers.
    """
    if resume is not None and not can_load(init):
        sink.on_unsupported("", "session/load: this agent cannot resume sessions")
        resume = None
    if resume == "":
        resume = None
        if choose is not None and can_list(init):
            listed = await conn.list_sessions(cwd=str(spec.cwd))
            resume = await choose(clean(listed.sessions))
    if resume:
        loaded = await conn.load_session(cwd=str(spec.cwd), session_id=resume, mcp_servers=[])
        return resume, clean(loaded or LoadSessionResponse()), True
    created = await conn.new_session(cwd=str(spec.cwd), mcp_servers=[])
    return created.session_id, clean(created), False


@contextlib.asynccontextmanager
async def open_session(
    spec: LaunchSpec,
    sink: ClientSink,
    resume: str | None = None,
    choose: SessionChooser | None = None,
    process: AgentProcess | None = None,
) -> AsyncIterator[AgentSession]:
    """Spawn the agent (or take `process`, already started from `spec`), negotiate, open a
    session, and always reap the process on exit."""
    capabilities = client_capabilities(spec.terminal)
    client = TuiClient(
        sink,
        ConfinedFs([spec.cwd, *spec.allow_dirs]),
        TerminalManager(default_cwd=spec.cwd),
    )
    if process is None:
        process = AgentProcess.start(spec)
    conn: ClientSideConnection | None = None
    try:
        reader, writer = await process.attach(STREAM_LIMIT_BYTES)
        conn = ClientSideConnection(client, writer, reader)
        inspect_incoming(conn, client)
        try:
            init = clean(
                await conn.initialize(
                    protocol_version=PROTOCOL_VERSION,
                    client_capabilities=capabilities,
                    client_info=Implementation(
                        name="dsh-tui", title="dsh-tui", version=__version__
                    ),
                )
            )
            session_id, session, resumed = await start_or_resume(
                conn, init, spec, resume, choose, sink
            )
        except ConnectionError as error:
            raise await describe_failure(
                spec, process, "the agent exited during start-up"
            ) from error
        except RequestError as error:
            raise await describe_failure(
                spec, process, f"the agent refused to start a session: {clean_error(error)}"
            ) from error
        yield AgentSession(
            spec, conn, process, init, session, capabilities, client, session_id, resumed
        )
    finally:
        try:
            await close_agent(conn, process)
        finally:
            await client.terminals.close_all()
