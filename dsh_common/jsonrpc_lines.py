"""Newline-delimited JSON-RPC 2.0 on asyncio streams, read defensively by both peers.

The ACP SDK's stdio reader buffers a line of any length, and its dispatch assumes every message
is a JSON-RPC object: `42`, `null` or a batch array ended its receive loop, and with it the
connection. dsh-agent (`agent.server`) and dsh-tui (`tui.connection`) both read through
`LineTransport` instead, which frames with a cap, answers what is not one JSON-RPC object, and
hands each side's own checks (`admit`) only what the SDK can dispatch. Sending is the SDK's
framing, byte for byte. Standard library only.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from dataclasses import dataclass
from typing import Any, Protocol

log = logging.getLogger(__name__)

# JSON-RPC 2.0 error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

READ_CHUNK_BYTES = 1024 * 1024
"""The stream reader's own limit: a longer line is read in pieces, so this bounds the reader's
buffer (it holds up to twice this), not the size of a message."""
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""The largest message taken in (a big diff, a flood of output); a longer line is dropped whole."""
MAX_PENDING_REPLIES = 64
"""Answers to refused lines that may wait to be written before more are dropped: a peer that
floods junk without reading must not grow this without bound."""

_HEAD_BYTES = 1024
_HEAD_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,128}"|null)')
_HEAD_BODY = re.compile(rb'"(?:params|result|error)"\s*:')

JsonObject = dict[str, Any]
Payload = JsonObject | list[JsonObject]


class LineTap(Protocol):
    """Sees each line as it crosses the wire, in wire order (a recording of the session)."""

    def line_in(self, line: bytes, valid_json: bool) -> None: ...

    def line_out(self, line: bytes) -> None: ...

    def oversized_in(self, size: int, head: bytes) -> None: ...


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def valid_id(value: object) -> bool:
    return value is None or isinstance(value, str) or is_int(value)


def error_response(request_id: object, code: int, message: str, reason: str) -> JsonObject:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": code, "message": message, "data": {"reason": reason}},
    }


def invalid_request(request_id: object, reason: str) -> JsonObject:
    return error_response(request_id, INVALID_REQUEST, "Invalid Request", reason)


def envelope_problem(message: JsonObject) -> str | None:
    """What in a decoded JSON object would break the SDK's dispatch, which assumes JSON-RPC."""
    if "id" in message and not valid_id(message["id"]):
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


def meta_shadowing(params: object, names: frozenset[str]) -> list[str]:
    """The top-level `_meta` keys of `params` that are in `names`, sorted.

    The SDK's router spreads `_meta` over a handler's keyword arguments after validation, so
    such a key would replace a validated parameter with a raw value.
    """
    if not isinstance(params, dict):
        return []
    meta = params.get("_meta")
    if not isinstance(meta, dict):
        return []
    return sorted(key for key in meta if key in names)


@dataclass(frozen=True, slots=True)
class Oversized:
    """A line dropped for its length, with its first bytes kept to find its envelope."""

    size: int
    head: bytes
    limit: int

    @property
    def reason(self) -> str:
        return f"a message of {self.size} bytes is over the limit of {self.limit}"

    def envelope(self) -> tuple[bool, bool, object]:
        """(is a request, has an id, the id), read from the envelope written before the body
        (the SDK writes `id` and `method` before `params`, `result` or `error`)."""
        body = _HEAD_BODY.search(self.head)
        envelope = self.head[: body.start()] if body else self.head
        found = _HEAD_ID.search(envelope)
        try:
            request_id = None if found is None else json.loads(found.group(1))
        except ValueError:  # a string id with a broken escape: no id to answer to
            return b'"method"' in envelope, False, None
        return b'"method"' in envelope, found is not None, request_id


@dataclass(frozen=True, slots=True)
class Refused:
    """A line that is not one JSON-RPC object: why, and what to answer (None: nothing)."""

    reason: str
    reply: Payload | None
    valid_json: bool = True


def batch_replies(batch: list[Any], reason: str) -> list[JsonObject]:
    """JSON-RPC's batch rules with every member refused (ACP has no batches): an error for each
    request and each member that is neither a request, a notification nor a response; nothing
    for a notification, nor for a response (answering one could start a loop between peers)."""
    replies: list[JsonObject] = []
    for member in batch:
        if not isinstance(member, dict):
            replies.append(invalid_request(None, reason))
        elif "method" in member and "id" in member:
            member_id = member["id"] if valid_id(member["id"]) else None
            replies.append(invalid_request(member_id, reason))
        elif "method" not in member and "id" not in member:
            replies.append(invalid_request(None, reason))
    return replies


def decode(line: bytes, batch_reason: str) -> JsonObject | Refused | None:
    """One JSON object, a refusal with its answer, or None for a blank line."""
    line = line.strip()
    if not line:
        return None
    try:
        decoded = json.loads(line)
    except (ValueError, RecursionError):
        reason = "the line is not valid JSON"
        reply = error_response(None, PARSE_ERROR, "Parse error", reason)
        return Refused(reason, reply, valid_json=False)
    if isinstance(decoded, list):
        if not decoded:
            return Refused("an empty batch", invalid_request(None, "an empty batch"))
        replies = batch_replies(decoded, batch_reason)
        return Refused(f"a batch of {len(decoded)} messages (refused)", replies or None)
    if not isinstance(decoded, dict):
        kind = "null" if decoded is None else type(decoded).__name__
        reason = f"a JSON {kind}, not an object"
        return Refused(reason, invalid_request(None, reason))
    return decoded


def encode(message: Payload) -> bytes:
    """The SDK's framing: compact JSON and a newline."""
    return (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8")


async def read_line(reader: asyncio.StreamReader, max_bytes: int) -> bytes | Oversized | None:
    """One line, newline included; an Oversized past `max_bytes` (its bytes are not kept, so
    memory stays bounded by the cap); None at the end of the stream."""
    chunks: list[bytes] = []
    size = 0
    head = b""
    while True:
        last = True
        try:
            piece = await reader.readuntil(b"\n")
        except asyncio.LimitOverrunError as exc:
            piece = await reader.readexactly(exc.consumed)
            last = False
        except asyncio.IncompleteReadError as exc:
            piece = exc.partial
        size += len(piece)
        if len(head) < _HEAD_BYTES:
            head += piece[: _HEAD_BYTES - len(head)]
        if size <= max_bytes:
            chunks.append(piece)
        else:
            chunks.clear()
        if last:
            if size > max_bytes:
                return Oversized(size, head, max_bytes)
            return b"".join(chunks) if size else None


class LineTransport:
    """The SDK's `Transport` (send, receive, close) over a stream pair, with the line guard.

    Subclasses decide what a decoded object becomes (`admit`), what an oversized line means
    (`oversized`) and how a refusal is reported (`refused`); answers are written by tasks, so
    the receive loop never waits on the peer reading them. `tap`, when set, sees every line in
    both directions as it crosses the wire (a recording).
    """

    batch_reason = "batches are not supported"

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
        tap: LineTap | None = None,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self.max_message_bytes = max_message_bytes
        self.tap = tap
        self._lock = asyncio.Lock()
        self._replies: set[asyncio.Task[None]] = set()
        self._closed = False

    async def send(self, message: Payload) -> None:
        data = encode(message)
        async with self._lock:
            if self._closed:
                raise ConnectionError("Transport closed")
            if self.tap is not None:
                self.tap.line_out(data)
            self._writer.write(data)
            await self._writer.drain()

    async def close(self) -> None:
        self._closed = True
        for task in list(self._replies):
            task.cancel()

    async def receive(self) -> JsonObject | None:
        while True:
            line = await read_line(self._reader, self.max_message_bytes)
            if line is None:
                return None
            if isinstance(line, Oversized):
                if self.tap is not None:
                    self.tap.oversized_in(line.size, line.head)
                substitute = self.oversized(line)
                if substitute is not None:
                    return substitute
                continue
            decoded = decode(line, self.batch_reason)
            if self.tap is not None and decoded is not None:
                self.tap.line_in(line, not isinstance(decoded, Refused) or decoded.valid_json)
            if decoded is None:
                continue
            if isinstance(decoded, Refused):
                self.refused(decoded)
                continue
            message = self.admit(decoded)
            if message is not None:
                return message

    # -- what each side decides ---------------------------------------------------------

    def admit(self, message: JsonObject) -> JsonObject | None:
        """The message to dispatch, or None once it has been answered (or dropped)."""
        return message

    def oversized(self, line: Oversized) -> JsonObject | None:
        """Answer a request lost in an oversized line; a message to dispatch in its place."""
        is_request, has_id, request_id = line.envelope()
        log.warning("dropped %s", line.reason)
        if is_request and has_id:
            self.reply(invalid_request(request_id, line.reason))
        return None

    def refused(self, refusal: Refused) -> None:
        log.warning("refused a line: %s", refusal.reason)
        if refusal.reply is not None:
            self.reply(refusal.reply)

    # -- answers --------------------------------------------------------------------------

    def reply(self, payload: Payload) -> None:
        """Write an answer without holding up the receive loop."""
        if len(self._replies) >= MAX_PENDING_REPLIES:
            log.warning("not answering a refused line: %d answers are unsent", len(self._replies))
            return
        task = asyncio.get_running_loop().create_task(self._send_quietly(payload))
        self._replies.add(task)
        task.add_done_callback(self._replies.discard)

    async def _send_quietly(self, payload: Payload) -> None:
        try:
            await self.send(payload)
        except (ConnectionError, OSError, RuntimeError) as error:
            log.info("could not answer a refused line: %s", error)
