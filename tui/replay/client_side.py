"""The client's own side of a replay: files and terminals answered from the recording.

Live, the client reads and writes the agent's files and runs its commands. A replay does
neither: each `fs/*` and `terminal/*` request the recording holds is answered with the answer
the client gave then, so replaying a recording someone filed never touches this machine's files
nor runs their commands, and plays the same wherever it runs. A terminal's output is what the
agent read back (`terminal/output`), shown when the replay reaches that read; its duration is
the recorded one.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tui.fs import ConfinedFs, FsError
from tui.replay.recording import Entry, Recording
from tui.terminal.process import add_listener
from tui.terminal.terminals import (
    ExitListener,
    ExitStatus,
    OutputListener,
    TerminalError,
    TerminalInfo,
    TerminalManager,
    TerminalOutput,
    UnknownTerminalError,
)

CLIENT_SIDE = frozenset(
    {
        "fs/read_text_file",
        "fs/write_text_file",
        "terminal/create",
        "terminal/output",
        "terminal/wait_for_exit",
        "terminal/kill",
        "terminal/release",
    }
)


def _key(method: str, params: Mapping[str, Any]) -> tuple[object, ...]:
    """What tells two requests of a method apart, so answers pair up whatever their order."""
    if method == "fs/read_text_file":
        return (method, params.get("path"), params.get("line"), params.get("limit"))
    if method == "fs/write_text_file":
        return (method, params.get("path"))
    if method == "terminal/create":
        return (method, params.get("command"), tuple(params.get("args") or ()))
    return (method, params.get("terminalId"))


@dataclass(frozen=True)
class Answer:
    request: Entry
    response: Entry | None  # None: the recording ends before the client answered

    @property
    def result(self) -> dict[str, Any]:
        message = self.response.message if self.response is not None else None
        result = message.get("result") if message is not None else None
        return result if isinstance(result, dict) else {}

    @property
    def error(self) -> str | None:
        """The recorded error's reason, or why there is no answer to give."""
        message = self.response.message if self.response is not None else None
        if message is None:
            return "the recording holds no answer to this request"
        error = message.get("error")
        if not isinstance(error, dict):
            return None
        data = error.get("data")
        reason = data.get("reason") if isinstance(data, dict) else None
        return str(reason or error.get("message") or "error")


class Answers:
    """The client's recorded answers to the agent's fs and terminal requests, by request."""

    def __init__(self, recording: Recording) -> None:
        self._answers: dict[tuple[object, ...], deque[Answer]] = {}
        asked: dict[object, Entry] = {}
        answered: dict[int, Entry] = {}
        for entry in recording.entries:
            if not isinstance(entry.request_id, str | int):
                continue  # no id, or one the client refused (it answered nothing to pair)
            if entry.incoming and entry.is_request and entry.method in CLIENT_SIDE:
                asked[entry.request_id] = entry
            elif not entry.incoming and entry.is_response and entry.request_id in asked:
                answered[id(asked.pop(entry.request_id))] = entry
        for entry in recording.entries:
            if entry.incoming and entry.is_request and entry.method in CLIENT_SIDE:
                params = entry.message.get("params") if entry.message is not None else None
                key = _key(entry.method or "", params if isinstance(params, dict) else {})
                answer = Answer(entry, answered.get(id(entry)))
                self._answers.setdefault(key, deque()).append(answer)

    def take(self, method: str, **params: Any) -> Answer:
        """The next recorded answer to this request; TerminalError when there is none."""
        queue = self._answers.get(_key(method, params))
        if not queue:
            raise TerminalError(f"{method}: not in the recording")
        return queue.popleft()


class ReplayFs(ConfinedFs):
    """`fs/*` answered from the recording: nothing on this machine is read or written."""

    def __init__(self, answers: Answers) -> None:
        super().__init__([])
        self._answers = answers

    def read_text(self, path: Any, line: int | None = None, limit: int | None = None) -> str:
        answer = self._take("fs/read_text_file", path=str(path), line=line, limit=limit)
        content = answer.result.get("content")
        return content if isinstance(content, str) else ""

    def write_text(self, path: Any, content: str) -> None:
        self._take("fs/write_text_file", path=str(path))

    def _take(self, method: str, **params: Any) -> Answer:
        try:
            answer = self._answers.take(method, **params)
        except TerminalError as error:
            raise FsError(str(error)) from error
        if answer.error is not None:
            raise FsError(answer.error)
        return answer


@dataclass(eq=False)
class _Terminal:
    info: TerminalInfo
    started_t: float  # when the agent asked for it, on the recording's clock
    text: str = ""
    truncated: bool = False
    listeners: list[tuple[OutputListener, ExitListener | None]] = field(default_factory=list)


class ReplayTerminals(TerminalManager):
    """The terminals the recording shows: their output and exit as the agent read them, on
    the recorded timing, and no process behind any of them."""

    def __init__(self, answers: Answers, cwd: str) -> None:
        super().__init__(default_cwd=cwd)
        self._answers = answers
        self._replayed: dict[str, _Terminal] = {}

    async def create(
        self,
        command: str,
        args: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Any = None,
        output_byte_limit: int | None = None,
        *,
        by_user: bool = False,
    ) -> str:
        if by_user:
            raise TerminalError("a replay runs no command")
        answer = self._answers.take("terminal/create", command=command, args=list(args or ()))
        terminal_id = answer.result.get("terminalId")
        if answer.error is not None or not isinstance(terminal_id, str):
            raise TerminalError(answer.error or "terminal/create: the recorded answer has no id")
        arg_list = tuple(args or ())
        info = TerminalInfo(
            terminal_id=terminal_id,
            command=command,
            args=arg_list,
            argv=(command, *arg_list),
            via_shell=False,
            cwd=str(cwd) if cwd is not None else self.default_cwd or "",
            pid=0,
            started_at=time.monotonic(),
            finished_at=None,
            exit_status=None,
            released=False,
        )
        self._replayed[terminal_id] = _Terminal(info, answer.request.t)
        return terminal_id

    def output(self, terminal_id: str) -> TerminalOutput:
        term = self._live(terminal_id)
        answer = self._take("terminal/output", terminal_id)
        result = answer.result
        text = result.get("output")
        self._show(term, text if isinstance(text, str) else "", bool(result.get("truncated")))
        status = result.get("exitStatus")
        if isinstance(status, dict):
            self._exit(term, _status(status), answer)
        return TerminalOutput(term.text, term.truncated, term.info.exit_status)

    async def wait_for_exit(self, terminal_id: str) -> ExitStatus:
        term = self._live(terminal_id)
        answer = self._take("terminal/wait_for_exit", terminal_id)
        status = _status(answer.result)
        self._exit(term, status, answer)
        return status

    async def kill(self, terminal_id: str) -> None:
        self._live(terminal_id)
        self._take("terminal/kill", terminal_id)

    async def release(self, terminal_id: str) -> None:
        term = self._live(terminal_id)
        self._take("terminal/release", terminal_id)
        term.info = _replace(term.info, released=True)

    # -- for the UI -----------------------------------------------------------------------

    def info(self, terminal_id: str) -> TerminalInfo:
        return self._any(terminal_id).info

    def subscribe(
        self,
        terminal_id: str,
        on_output: OutputListener,
        on_exit: ExitListener | None = None,
        *,
        replay: bool = True,
    ) -> Callable[[], None]:
        term = self._any(terminal_id)
        return add_listener(
            term.listeners,
            on_output,
            on_exit,
            replay=replay,
            retained=lambda: term.text,
            exit_status=term.info.exit_status,
        )

    async def kill_unreleased(self, terminal_ids: Iterable[str]) -> list[str]:
        return [
            terminal_id
            for terminal_id in terminal_ids
            if (term := self._replayed.get(terminal_id)) is not None
            and not term.info.released
            and term.info.exit_status is None
        ]

    def knows(self, terminal_id: str) -> bool:
        return terminal_id in self._replayed

    def terminal_ids(
        self, *, include_released: bool = False, agent_only: bool = False
    ) -> list[str]:
        return [
            terminal_id
            for terminal_id, term in self._replayed.items()
            if include_released or not term.info.released
        ]

    async def close_all(self) -> None:
        for term in self._replayed.values():
            term.info = _replace(term.info, released=True)

    # -- internals ------------------------------------------------------------------------

    def _any(self, terminal_id: str) -> _Terminal:  # type: ignore[override]
        term = self._replayed.get(terminal_id)
        if term is None:
            raise UnknownTerminalError(terminal_id)
        return term

    def _live(self, terminal_id: str) -> _Terminal:  # type: ignore[override]
        term = self._any(terminal_id)
        if term.info.released:
            raise UnknownTerminalError(terminal_id, released=True)
        return term

    def _take(self, method: str, terminal_id: str) -> Answer:
        answer = self._answers.take(method, terminalId=terminal_id)
        if answer.error is not None:
            raise TerminalError(answer.error)
        return answer

    def _show(self, term: _Terminal, text: str, truncated: bool) -> None:
        """Output as the agent read it: what is new since the last read goes to the panes."""
        new = text[len(term.text) :] if text.startswith(term.text) else text
        term.text, term.truncated = text, truncated
        for on_output, _ in list(term.listeners):
            if new:
                on_output(new)

    def _exit(self, term: _Terminal, status: ExitStatus, answer: Answer) -> None:
        if term.info.exit_status is not None:
            return
        ended_t = answer.response.t if answer.response is not None else answer.request.t
        finished = term.info.started_at + max(0.0, ended_t - term.started_t)
        term.info = _replace(term.info, exit_status=status, finished_at=finished)
        for _, on_exit in list(term.listeners):
            if on_exit is not None:
                on_exit(status)


def _status(raw: Mapping[str, Any]) -> ExitStatus:
    code, signal = raw.get("exitCode"), raw.get("signal")
    return ExitStatus(
        code if isinstance(code, int) else None, signal if isinstance(signal, str) else None
    )


def _replace(info: TerminalInfo, **changes: Any) -> TerminalInfo:
    import dataclasses

    return dataclasses.replace(info, **changes)
