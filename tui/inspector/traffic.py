"""Every JSON-RPC line of a session, both ways, kept for the traffic inspector: no Textual here.

`Traffic` is a tap on the transport (`dsh_common.jsonrpc_lines.LineTap`), beside the recorder.
On the event loop it only stamps each line and appends it to a bounded deque: what a line is
(its method, id, tool call) is read later, when the inspector draws or filters it, and then
only from a bounded prefix for long lines. So a stream of thousands of messages a second costs
the transcript an append each, and a 60 MB message is never parsed here.

The `initialize` request and its answer are kept apart from the deque (pinned), so they outlive
the oldest messages the bound drops.
"""

from __future__ import annotations

import json
import re
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

MAX_MESSAGES = 50_000
MAX_BYTES = 256 * 1024 * 1024
"""The store's bounds: the oldest messages go first (counted in `dropped`), the newest stays."""
PARSE_LIMIT = 64 * 1024
"""Lines up to this size are parsed whole to summarise them; longer ones are scanned."""
SCAN_BYTES = 64 * 1024
"""How much of a longer line is scanned for its method, id and tool call."""
SEARCH_BYTES = 1024 * 1024
"""How much of each message a text filter looks through."""
KEEP_BYTES = SEARCH_BYTES
"""How much of a line the store keeps: no more is ever searched, parsed or shown (the
inspector shows 256 KB of a message), so a 60 MB line costs the store 1 MB, not 60."""
PIN_SCAN_BYTES = 256
"""An outgoing line is looked at for `initialize` in its first bytes only (the SDK writes
`id` and `method` before `params`)."""

Direction = Literal["out", "in"]
"""`out`: client to agent; `in`: agent to client."""
TOOL_UPDATES = ("tool_call", "tool_call_update")


@dataclass(frozen=True, slots=True)
class Summary:
    """What the inspector's list shows of a message, beside its direction, size and time."""

    label: str
    """The method, `result`, `error`, or what the line is when it is not one JSON-RPC object."""
    id: str | None = None
    """The JSON-RPC id as written (`0`, `"a"`), None for a notification."""
    update: str | None = None
    """A session/update's `sessionUpdate`."""
    tool_call_id: str | None = None
    """The tool call a message builds: a tool_call or tool_call_update, or a permission
    request for it."""
    exact: bool = True
    """False when read from a prefix of a long line (the scan takes first occurrences)."""


@dataclass(slots=True)
class WireMessage:
    """One line as it crossed the wire. `raw` is the line itself, or its first KEEP_BYTES
    when it was longer, or only its first kilobyte when the transport dropped it at its cap
    (`cut`); `size` is what it had on the wire."""

    seq: int
    direction: Direction
    raw: bytes
    size: int
    at: float
    gap: float
    """Seconds since the message before it, in either direction."""
    valid_json: bool = True
    cut: bool = False
    _summary: Summary | None = None

    @property
    def summary(self) -> Summary:
        if self._summary is None:
            self._summary = summarize(self.raw, self.size, self.valid_json, self.cut)
        return self._summary

    def body(self) -> bytes:
        """The line without its newline (for a cut line: the bytes kept)."""
        return self.raw[:-1] if self.raw.endswith(b"\n") else self.raw

    def parsed(self, limit: int = PARSE_LIMIT) -> Any:
        """The decoded message when it is at most `limit` bytes and valid, else None."""
        if self.cut or not self.valid_json or self.size > limit:
            return None
        try:
            return json.loads(self.raw)
        except (ValueError, RecursionError):
            return None


# -- summaries ------------------------------------------------------------------------------

_STRING = rb'"((?:[^"\\]|\\.){0,256})"'
_METHOD = re.compile(rb'"method"\s*:\s*' + _STRING)
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,128}"|null)')
_BODY = re.compile(rb'"(params|result|error)"\s*:')
_KIND = re.compile(rb'"sessionUpdate"\s*:\s*' + _STRING)
_TOOL = re.compile(rb'"toolCallId"\s*:\s*' + _STRING)


def summarize(raw: bytes, size: int, valid_json: bool = True, cut: bool = False) -> Summary:
    """A message's label, id and tool call: parsed when small, else scanned from a prefix."""
    if valid_json and not cut and size <= PARSE_LIMIT:
        try:
            decoded = json.loads(raw)
        except (ValueError, RecursionError):
            decoded = None
        else:
            return _from_object(decoded)
    scanned = _scan(raw[:SCAN_BYTES])
    if cut:
        return Summary(f"{scanned.label} (dropped: over the cap)", scanned.id, exact=False)
    if not valid_json:
        return Summary("not JSON", exact=False)
    return scanned


def _from_object(decoded: Any) -> Summary:
    if isinstance(decoded, list):
        return Summary(f"batch of {len(decoded)}")
    if not isinstance(decoded, dict):
        return Summary("not an object")
    request_id = json.dumps(decoded["id"], ensure_ascii=False) if "id" in decoded else None
    method = decoded.get("method")
    if not isinstance(method, str):
        label = "error" if "error" in decoded else "result" if "result" in decoded else "?"
        return Summary(label, request_id)
    params = decoded.get("params")
    params = params if isinstance(params, dict) else {}
    update_kind = tool_call_id = None
    if method == "session/update":
        update = params.get("update")
        update = update if isinstance(update, dict) else {}
        kind = update.get("sessionUpdate")
        update_kind = kind if isinstance(kind, str) else None
        if update_kind in TOOL_UPDATES:
            tool_call_id = _str_or_none(update.get("toolCallId"))
    elif method == "session/request_permission":
        tool_call = params.get("toolCall")
        if isinstance(tool_call, dict):
            tool_call_id = _str_or_none(tool_call.get("toolCallId"))
    return Summary(method, request_id, update_kind, tool_call_id)


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _unquote(found: re.Match[bytes] | None) -> str | None:
    if found is None:
        return None
    try:
        value = json.loads(b'"' + found.group(1) + b'"')
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _scan(head: bytes) -> Summary:
    """The envelope of a long line read from its first bytes: id and method are looked for
    before the body (`params`, `result`, `error`), as the SDK writes them; the update kind and
    tool call are the first ones in the prefix."""
    body = _BODY.search(head)
    envelope = head[: body.start()] if body else head
    found_id = _ID.search(envelope)
    request_id = found_id.group(1).decode("utf-8", "replace") if found_id else None
    method = _unquote(_METHOD.search(envelope))
    if method is None:
        kind = body.group(1).decode() if body else None
        label = kind if kind in ("result", "error") else "?"
        return Summary(label, request_id, exact=False)
    update_kind = tool_call_id = None
    if method == "session/update":
        update_kind = _unquote(_KIND.search(head))
        if update_kind in TOOL_UPDATES:
            tool_call_id = _unquote(_TOOL.search(head))
    elif method == "session/request_permission":
        tool_call_id = _unquote(_TOOL.search(head))
    return Summary(method, request_id, update_kind, tool_call_id, exact=False)


# -- the pinned negotiation -----------------------------------------------------------------


@dataclass(slots=True)
class Negotiation:
    """The latest `initialize` request and its answer (a reconnect negotiates again)."""

    request: WireMessage | None = None
    response: WireMessage | None = None

    @property
    def request_id(self) -> str | None:
        return None if self.request is None else self.request.summary.id


# -- the store --------------------------------------------------------------------------------


class Traffic:
    """The wire of one session (all its connections), newest `max_messages` kept.

    Messages are numbered in wire order from 1 (`seq`); the deque holds a contiguous run of
    them, so a number finds its message without a search.
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] | None = None,
        max_messages: int = MAX_MESSAGES,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self._clock = clock or time.monotonic
        self._messages: deque[WireMessage] = deque()
        self._max_messages = max_messages
        self._max_bytes = max_bytes
        self._bytes = 0
        self._last_at: float | None = None
        self.total = 0
        """Messages seen so far: the last one's `seq` (the inspector redraws when it moves)."""
        self.dropped = 0
        self.negotiation = Negotiation()
        self._awaiting_answer: bytes | None = None  # the initialize id, as its JSON bytes
        self._by_tool: dict[str, list[int]] = {}
        self._indexed = 0  # messages up to this seq are in _by_tool

    # -- the tap, on the event loop -------------------------------------------------------

    def line_in(self, line: bytes, valid_json: bool) -> None:
        message = self._add("in", line, _size(line), valid_json, False)
        if self._awaiting_answer is not None:
            self._check_answer(message)

    def line_out(self, line: bytes) -> None:
        message = self._add("out", line, _size(line), True, False)
        if b'"initialize"' in line[:PIN_SCAN_BYTES]:
            self._check_request(message)

    def oversized_in(self, size: int, head: bytes) -> None:
        self._add("in", head, size, False, True)

    def _add(
        self, direction: Direction, line: bytes, size: int, valid: bool, cut: bool
    ) -> WireMessage:
        if len(line) > KEEP_BYTES:
            line = line[:KEEP_BYTES]
        now = self._clock()
        gap = 0.0 if self._last_at is None else now - self._last_at
        self._last_at = now
        self.total += 1
        message = WireMessage(self.total, direction, line, size, now, gap, valid, cut)
        self._messages.append(message)
        self._bytes += len(line)
        while len(self._messages) > 1 and (
            len(self._messages) > self._max_messages or self._bytes > self._max_bytes
        ):
            self._bytes -= len(self._messages.popleft().raw)
            self.dropped += 1
        return message

    def _check_request(self, message: WireMessage) -> None:
        summary = message.summary
        if summary.label == "initialize" and summary.id is not None:
            self.negotiation = Negotiation(message)
            self._awaiting_answer = summary.id.encode()

    def _check_answer(self, message: WireMessage) -> None:
        found = _ID.search(message.raw[:PIN_SCAN_BYTES])
        if found is None or found.group(1) != self._awaiting_answer:
            return
        if message.summary.label in ("result", "error"):
            self.negotiation.response = message
            self._awaiting_answer = None

    # -- reading ----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._messages)

    @property
    def first_seq(self) -> int:
        """The oldest number still kept (`total + 1` when there is none)."""
        return self._messages[0].seq if self._messages else self.total + 1

    def get(self, seq: int) -> WireMessage | None:
        index = seq - self.first_seq
        if 0 <= index < len(self._messages):
            return self._messages[index]
        return None

    def since(self, seq: int) -> Iterator[WireMessage]:
        """The kept messages numbered `seq` and after, oldest first."""
        start = max(0, seq - self.first_seq)
        for index in range(start, len(self._messages)):
            yield self._messages[index]

    def for_tool_call(self, tool_call_id: str) -> list[int]:
        """The numbers of the kept messages that built one tool call, in wire order. The
        index grows on each call by the messages that arrived since the last one."""
        for message in self.since(self._indexed + 1):
            found = message.summary.tool_call_id
            if found is not None:
                self._by_tool.setdefault(found, []).append(message.seq)
        self._indexed = self.total
        first = self.first_seq
        seqs = [seq for seq in self._by_tool.get(tool_call_id, ()) if seq >= first]
        self._by_tool[tool_call_id] = seqs
        return seqs


def _size(line: bytes) -> int:
    return len(line) - 1 if line.endswith(b"\n") else len(line)


# -- filtering ----------------------------------------------------------------------------------

TOOL_PREFIX = "tool:"


@dataclass(frozen=True, slots=True)
class Query:
    """What the filter box asks: `tool:ID` for one tool call's messages, else text that a
    message's label or its first SEARCH_BYTES contain (case-insensitive while the text is
    all lower case, as in most editors)."""

    text: str

    @property
    def tool_call_id(self) -> str | None:
        if self.text.startswith(TOOL_PREFIX):
            return self.text[len(TOOL_PREFIX) :].strip()
        return None

    def matcher(self) -> Callable[[WireMessage], bool]:
        tool_call_id = self.tool_call_id
        if tool_call_id is not None:
            return lambda message: message.summary.tool_call_id == tool_call_id
        needle = self.text.strip()
        if not needle:
            return lambda message: True
        folded = needle.lower()
        pattern = re.compile(
            re.escape(needle.encode("utf-8")), re.IGNORECASE if folded == needle else 0
        )

        def matches(message: WireMessage) -> bool:
            summary = message.summary
            if folded in summary.label.lower() or folded in (summary.update or ""):
                return True
            return pattern.search(message.raw, 0, SEARCH_BYTES) is not None

        return matches


# -- words for the list ---------------------------------------------------------------------


def format_size(count: int) -> str:
    """`812 B`, `1.2 KB`, `54 KB`, `57.2 MB` (1024-based, as the terminal panes count)."""
    if count < 1024:
        return f"{count} B"
    if count < 10 * 1024:
        return f"{count / 1024:.1f} KB"
    if count < 1024 * 1024:
        return f"{count / 1024:.0f} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def format_gap(seconds: float) -> str:
    """`+0ms`, `+12ms`, `+1.4s`, `+2m05s`: time since the message before."""
    seconds = max(seconds, 0.0)
    if seconds < 1:
        return f"+{seconds * 1000:.0f}ms"
    if seconds < 60:
        return f"+{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    return f"+{minutes}m{secs:02d}s"
