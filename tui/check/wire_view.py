"""A record read as ACP: our requests and their answers, turns, load replays, updates."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tui.check.wire_log import Line, Run

REPLAYING = ("session/load", "session/resume")


@dataclass(frozen=True)
class Exchange:
    """One request of the client's and the agent's answer (None while it has none)."""

    method: str
    index: int
    request: dict[str, Any]
    answer_index: int | None = None
    answer: dict[str, Any] | None = None

    @property
    def params(self) -> dict[str, Any]:
        params = self.request.get("params")
        return params if isinstance(params, dict) else {}

    @property
    def result(self) -> Any:
        return None if self.answer is None else self.answer.get("result")

    @property
    def error(self) -> dict[str, Any] | None:
        error = None if self.answer is None else self.answer.get("error")
        return error if isinstance(error, dict) else None

    @property
    def end(self) -> int:
        """Where the exchange ends: its answer, or past the end of the record."""
        return self.answer_index if self.answer_index is not None else 1 << 62


def exchanges(run: Run, direction: str = "out") -> list[Exchange]:
    """The requests sent in `direction` ("out": the client's), each with its answer."""
    open_: dict[str, int] = {}  # the id's repr -> where its exchange is in `found`
    found: list[Exchange] = []
    for index, line in enumerate(run.lines):
        message = line.message
        if message is None:
            continue
        key = repr(message.get("id"))
        if line.direction == direction and line.is_request and line.method is not None:
            open_[key] = len(found)
            found.append(Exchange(line.method, index, message))
        elif line.direction != direction and line.is_response and key in open_:
            position = open_.pop(key)
            asked = found[position]
            found[position] = Exchange(asked.method, asked.index, asked.request, index, message)
    return found


def exchange(run: Run, method: str) -> Exchange | None:
    """The first request of `method` the client sent."""
    return next((each for each in exchanges(run) if each.method == method), None)


@dataclass(frozen=True)
class Turn:
    """A session/prompt: its exchange, and where a session/cancel was sent during it."""

    session_id: str
    prompt: Exchange
    cancel_index: int | None

    @property
    def stop_reason(self) -> str | None:
        result = self.prompt.result
        reason = result.get("stopReason") if isinstance(result, dict) else None
        return reason if isinstance(reason, str) else None


def turns(run: Run) -> list[Turn]:
    found: list[Turn] = []
    for prompt in exchanges(run):
        if prompt.method != "session/prompt":
            continue
        session_id = str(prompt.params.get("sessionId"))
        cancel = next(
            (
                index
                for index in range(prompt.index + 1, min(prompt.end, len(run.lines)))
                if run.lines[index].direction == "out"
                and run.lines[index].method == "session/cancel"
            ),
            None,
        )
        found.append(Turn(session_id, prompt, cancel))
    return found


@dataclass(frozen=True)
class Update:
    """One session/update from the agent; `replayed` when it came during a load or resume."""

    index: int
    session_id: str
    update: dict[str, Any]
    replayed: bool

    @property
    def kind(self) -> str | None:
        kind = self.update.get("sessionUpdate")
        return kind if isinstance(kind, str) else None


def updates(run: Run) -> list[Update]:
    windows = [(each.index, each.end) for each in exchanges(run) if each.method in REPLAYING]
    found: list[Update] = []
    for index, line in enumerate(run.lines):
        if line.direction != "in" or line.method != "session/update" or line.message is None:
            continue
        params = line.message.get("params")
        update = params.get("update") if isinstance(params, dict) else None
        if not isinstance(params, dict) or not isinstance(update, dict):
            continue
        replayed = any(start < index < end for start, end in windows)
        found.append(Update(index, str(params.get("sessionId")), update, replayed))
    return found


def agent_requests(run: Run) -> Iterator[tuple[int, Line]]:
    """The requests the agent sent to the client, with their index in the record."""
    for index, line in enumerate(run.lines):
        if line.direction == "in" and line.is_request:
            yield index, line


def where(run: Run, index: int) -> str:
    """`run all, line 12`: where a message is, for evidence."""
    return f"{run.name}, line {index + 1}"
