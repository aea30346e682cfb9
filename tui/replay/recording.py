"""Reading a recording (`dsh-tui --record FILE`, tui/connection/recording.py) back.

Each line of the file is one line of the wire: `{"dir", "t", "msg"}` for a message, `"raw"`
instead of `msg` for a line that was not valid JSON (with `"size"` when it was dropped at the
transport's cap, `raw` then holding its first bytes), or `{"lost": n}` where the recorder could
not keep up. A message's bytes are taken from the file as they were written, not parsed and
serialised again, so the client reads what it read live. What cannot be read (a line cut by
a crash, a line that is no recording line) is skipped and named in `problems`, never fatal.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_HEAD = re.compile(rb'^\{"dir":"(in|out)","t":(-?[0-9.eE+-]+),"msg":')


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of the wire. `line` is what crossed it (newline included); `message` the
    decoded JSON-RPC object, or None for a line that was not one."""

    incoming: bool  # agent to client
    t: float
    line: bytes
    message: dict[str, Any] | None

    @property
    def method(self) -> str | None:
        method = self.message.get("method") if self.message is not None else None
        return method if isinstance(method, str) else None

    @property
    def has_id(self) -> bool:
        return self.message is not None and "id" in self.message

    @property
    def request_id(self) -> object:
        return self.message.get("id") if self.message is not None else None

    @property
    def is_request(self) -> bool:
        return self.method is not None and self.has_id

    @property
    def is_response(self) -> bool:
        return self.method is None and self.has_id

    def describe(self) -> str:
        """How a notice names it: the method (or "the answer to") and the id."""
        if self.message is None:
            return "a line that is not JSON-RPC"
        if self.method is not None:
            return self.method + (f" (id {self.request_id!r})" if self.has_id else "")
        return f"the answer to id {self.request_id!r}"


@dataclass
class Recording:
    entries: list[Entry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # what was skipped, for the notices

    @classmethod
    def load(cls, path: Path) -> Recording:
        """Raises OSError when the file cannot be read; everything else is a problem."""
        recording = cls()
        with path.open("rb") as file:
            for number, line in enumerate(file, start=1):
                recording.add_line(number, line)
        return recording

    def add_line(self, number: int, line: bytes) -> None:
        if not line.strip():
            return
        head = _HEAD.match(line)
        if head is not None and line.rstrip(b"\r\n").endswith(b"}"):
            body = line[head.end() : len(line.rstrip(b"\r\n")) - 1]
            try:
                message = json.loads(body)
            except (ValueError, RecursionError):
                pass
            else:
                incoming = head.group(1) == b"in"
                decoded = message if isinstance(message, dict) else None
                self.entries.append(Entry(incoming, float(head.group(2)), body + b"\n", decoded))
                return
        try:
            item = json.loads(line)
        except (ValueError, RecursionError):
            self.problems.append(f"line {number} of the recording is cut or not JSON (skipped)")
            return
        if not isinstance(item, dict) or item.get("dir") not in ("in", "out"):
            self.problems.append(f"line {number} of the recording is not a wire line (skipped)")
            return
        self._add_item(number, item)

    def _add_item(self, number: int, item: dict[str, Any]) -> None:
        incoming = item["dir"] == "in"
        t = item.get("t")
        t = float(t) if isinstance(t, int | float) else self.last_t
        if "lost" in item:
            self.problems.append(
                f"the recording lost {item['lost']} lines before line {number} "
                "(its disk could not keep up)"
            )
        if "msg" in item:
            message = item["msg"]
            line = json.dumps(message, separators=(",", ":")).encode() + b"\n"
            decoded = message if isinstance(message, dict) else None
            self.entries.append(Entry(incoming, t, line, decoded))
        elif isinstance(item.get("raw"), str):
            raw = item["raw"].encode("utf-8", "replace")
            size = item.get("size")
            if isinstance(size, int) and size > len(raw) + 1:
                # Dropped live at the cap, only its head kept: as long again, so the client's
                # guard drops it the same way.
                raw += b" " * (size - len(raw) - 1)
            self.entries.append(Entry(incoming, t, raw + b"\n", None))

    @property
    def last_t(self) -> float:
        return self.entries[-1].t if self.entries else 0.0

    def first_request(self, *methods: str) -> Entry | None:
        """The client's first request of one of `methods` (what the replay must start as)."""
        for entry in self.entries:
            if not entry.incoming and entry.method in methods:
                return entry
        return None

    def answer_to(self, request: Entry) -> Entry | None:
        """The recorded answer to a request, from the other side."""
        after = False
        for entry in self.entries:
            if entry is request:
                after = True
            elif (
                after
                and entry.incoming != request.incoming
                and entry.is_response
                and entry.request_id == request.request_id
            ):
                return entry
        return None

    def permission_outcome(self, tool_call_id: str, taken: set[int]) -> dict[str, Any] | None:
        """How the user answered the first permission question about this tool call not in
        `taken` (ids of the requests already used, which this adds to); None when the
        recording holds no answer."""
        for entry in self.entries:
            if not (entry.incoming and entry.method == "session/request_permission"):
                continue
            params = entry.message.get("params") if entry.message is not None else None
            call = params.get("toolCall") if isinstance(params, dict) else None
            if id(entry) in taken or not isinstance(call, dict):
                continue
            if call.get("toolCallId") != tool_call_id:
                continue
            taken.add(id(entry))
            answer = self.answer_to(entry)
            result = answer.message.get("result") if answer and answer.message else None
            outcome = result.get("outcome") if isinstance(result, dict) else None
            return outcome if isinstance(outcome, dict) else None
        return None
