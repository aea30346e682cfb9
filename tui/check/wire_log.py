"""What crossed the wire with one agent process, in order, as the checks read it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

Direction = Literal["in", "out"]  # in: from the agent; out: from the client


@dataclass(frozen=True)
class Line:
    """One line: the JSON object it held (None when it was not one), and its text."""

    direction: Direction
    message: dict[str, Any] | None
    text: str

    @classmethod
    def parse(cls, direction: Direction, raw: bytes) -> Line:
        text = raw.decode("utf-8", "replace").rstrip("\r\n")
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        return cls(direction, value if isinstance(value, dict) else None, text)

    @classmethod
    def of(cls, direction: Direction, message: dict[str, Any]) -> Line:
        return cls(direction, message, json.dumps(message))

    @property
    def method(self) -> str | None:
        method = self.message.get("method") if self.message is not None else None
        return method if isinstance(method, str) else None

    @property
    def is_request(self) -> bool:
        return self.method is not None and self.message is not None and "id" in self.message

    @property
    def is_response(self) -> bool:
        return self.message is not None and self.method is None and "id" in self.message


@dataclass
class Run:
    """One agent process: its name, the capabilities the client sent, the wire, and why it
    stopped early, if it did (`needs_login` when a session needs a login done by hand)."""

    name: str
    capabilities: dict[str, Any]
    lines: list[Line] = field(default_factory=list)
    problem: str | None = None
    needs_login: str | None = None
    # The raw prober only: the exit code once stdin was closed, or None if it kept running.
    exit_code: int | None = None
    eof_sent: bool = False

    def line_in(self, line: bytes, valid_json: bool) -> None:
        self.lines.append(Line.parse("in", line))

    def line_out(self, line: bytes) -> None:
        self.lines.append(Line.parse("out", line))

    def oversized_in(self, size: int, head: bytes) -> None:
        self.lines.append(Line("in", None, f"(a line of {size} bytes, dropped) {head[:80]!r}"))
