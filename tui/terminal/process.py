"""One client-side terminal's process: how it is started, and the output it keeps.

`spawn` starts a command the way every ACP terminal runs: its own session and process group,
stdin from /dev/null (it must never read the TUI's tty), stdout and stderr merged into one pipe,
and the marker variable that traces a double-forked daemon back to its terminal
(tui/terminal/process_tree.py). tui/terminal/pty_spawn.py starts it the same way on a
pseudo-terminal instead
(the default). `TerminalProcess` is the asyncio protocol fed by either: it keeps the output as
bytes, bounded and trimmed at a UTF-8 boundary as the spec asks, and tells its listeners.
tui/terminal/terminals.py (`TerminalManager`) owns the terminals and their lifecycle.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

__all__ = [
    "MARKER_VARIABLE",
    "ExitListener",
    "ExitStatus",
    "OutputListener",
    "TerminalError",
    "TerminalInfo",
    "TerminalOutput",
    "TerminalProcess",
    "TerminalSpawnError",
    "UnknownTerminalError",
    "add_listener",
    "command_environment",
    "default_shell",
    "exec_command",
    "exit_status_from_returncode",
    "needs_shell",
    "spawn",
    "truncate_utf8_head",
]

log = logging.getLogger(__name__)

_MIN_SLACK = 65536
_SHELL_CHARS = frozenset(";&|<>()$`\\\"'*?~")
# Set in every command's environment to "<token>/<terminal id>", so that a daemon reparented to
# dsh-tui can be told apart and traced back to its terminal.
MARKER_VARIABLE = "DSH_TUI_TERMINAL"


class ExitStatus(NamedTuple):
    """How a command ended: exactly one field is set (ACP `TerminalExitStatus`)."""

    exit_code: int | None
    signal: str | None


class TerminalOutput(NamedTuple):
    """The `terminal/output` answer. `exit_status` is None while the command runs."""

    output: str
    truncated: bool
    exit_status: ExitStatus | None


@dataclass(frozen=True)
class TerminalInfo:
    """What a terminal pane header needs: the command line, cwd and timing."""

    terminal_id: str
    command: str
    args: tuple[str, ...]
    argv: tuple[str, ...]
    via_shell: bool
    cwd: str
    pid: int
    started_at: float  # time.monotonic()
    finished_at: float | None
    exit_status: ExitStatus | None
    released: bool


OutputListener = Callable[[str], None]
ExitListener = Callable[[ExitStatus], None]
Listeners = list[tuple[OutputListener, ExitListener | None]]


def add_listener(
    listeners: Listeners,
    on_output: OutputListener,
    on_exit: ExitListener | None,
    *,
    replay: bool,
    retained: Callable[[], str],
    exit_status: ExitStatus | None,
) -> Callable[[], None]:
    """Add a listener to a terminal's `listeners`; with `replay`, first hand it the `retained`
    output and (if already ended) the exit status, synchronously, so nothing is lost or doubled
    between snapshot and stream. Returns the function that removes it again (twice is harmless).
    Shared by the live and the replayed terminals, which must subscribe alike."""
    entry = (on_output, on_exit)
    if replay:
        text = retained()
        if text:
            on_output(text)
        if exit_status is not None and on_exit is not None:
            on_exit(exit_status)
    listeners.append(entry)

    def remove() -> None:
        with contextlib.suppress(ValueError):
            listeners.remove(entry)

    return remove


class TerminalError(Exception):
    """Base class of the errors this module raises on purpose."""


class UnknownTerminalError(TerminalError, KeyError):
    """The id was never created by this manager, or it was already released."""

    def __init__(self, terminal_id: str, *, released: bool = False) -> None:
        super().__init__(terminal_id)
        self.terminal_id = terminal_id
        self.released = released

    def __str__(self) -> str:
        why = "it was already released" if self.released else "no such terminal"
        return f"Terminal with id {self.terminal_id!r} not found ({why})"


class TerminalSpawnError(TerminalError):
    """The command could not be started (missing program, bad cwd, invalid environment)."""


def exit_status_from_returncode(returncode: int) -> ExitStatus:
    """Map an asyncio return code to ACP's exit status.

    A negative code means "killed by signal -N"; it must become the signal's name, never a
    negative exit code (the SDK's schema would silently turn that into "no exit code").
    """
    if returncode >= 0:
        return ExitStatus(returncode, None)
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"SIG{-returncode}"
    return ExitStatus(None, name)


def truncate_utf8_head(data: bytes | bytearray, limit: int) -> bytes:
    """Keep at most `limit` bytes from the end of `data`, starting at a UTF-8 character boundary."""
    if len(data) <= limit:
        return bytes(data)
    cut = len(data) - max(limit, 0)
    cut = _char_boundary(data, cut)
    return bytes(data[cut:])


def _char_boundary(data: bytes | bytearray, cut: int) -> int:
    # Skip at most three continuation bytes: more than that is invalid UTF-8 anyway, which the
    # decoder replaces, so there is no point scanning further.
    for _ in range(3):
        if cut < len(data) and (data[cut] & 0xC0) == 0x80:
            cut += 1
    return cut


def needs_shell(command: str, args: Sequence[str] | None, cwd: str | None = None) -> bool:
    """Whether `command` is a shell line rather than a program.

    Agents in the wild send a whole shell line as `command` with no `args` (and Zed runs
    everything through a shell), so: no args, whitespace or shell syntax in the command, and no
    file by that exact name.
    """
    if args:
        return False
    if not any(c.isspace() or c in _SHELL_CHARS for c in command):
        return False
    candidate = os.path.join(cwd, command) if cwd else command
    return not os.path.isfile(candidate)


def default_shell() -> str:
    return shutil.which("bash") or "/bin/sh"


class TerminalProcess(asyncio.SubprocessProtocol):
    """The state of one terminal, fed directly by the subprocess transport.

    A protocol rather than `asyncio.subprocess.Process`: `Process.wait()` only returns once every
    pipe is closed, so a background child holding stdout would block it (and `wait_for_exit`)
    forever. Here the exit of the command and the end of its output are tracked separately.
    """

    def __init__(
        self,
        terminal_id: str,
        command: str,
        args: tuple[str, ...],
        argv: tuple[str, ...],
        via_shell: bool,
        cwd: str,
        limit: int,
    ) -> None:
        self.id = terminal_id
        self.command = command
        self.args = args
        self.argv = argv
        self.via_shell = via_shell
        self.cwd = cwd
        self.limit = limit
        # Trim lazily: let the buffer overshoot by `slack` so a stream of chunks does not memmove
        # the whole buffer each time; `text()` trims exactly.
        self.slack = min(max(limit, _MIN_SLACK), 1024 * 1024)
        self.buf = bytearray()
        self.truncated = False
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.listeners: list[tuple[OutputListener, ExitListener | None]] = []
        self.transport: asyncio.SubprocessTransport | None = None
        # Where the output is read when it is not one of the transport's pipes (a pty master).
        self.output_transport: asyncio.BaseTransport | None = None
        self.pid = 0
        self.pgid = 0
        self.returncode: int | None = None
        self.process_gone = asyncio.Event()  # the command has exited (and was reaped)
        self.eof = asyncio.Event()  # its stdout is closed: all output was read
        self.exited = asyncio.Event()  # exit_status is published
        self.exit_status: ExitStatus | None = None
        self.started_at = time.monotonic()
        self.finished_at: float | None = None
        self.released = False
        self.escaped: set[int] = set()  # descendants that left the process group (setsid)
        self.watch: asyncio.Task[None] | None = None
        self.kill_task: asyncio.Task[None] | None = None

    # -------------------------------------------------------------------- protocol callbacks
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.SubprocessTransport)
        self.transport = transport
        self.pid = transport.get_pid()
        self.pgid = self.pid  # start_new_session makes the child its own group leader

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        if isinstance(data, bytes):
            self.append(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self.output_ended()

    def output_ended(self) -> None:
        """Every byte of output was read (the pipe or the pty master is closed)."""
        if self.eof.is_set():
            return
        tail = self.decoder.decode(b"", final=True)
        if tail:
            self.emit(tail)
        self.eof.set()
        self.maybe_close()

    def process_exited(self) -> None:
        assert self.transport is not None
        self.returncode = self.transport.get_returncode()
        self.process_gone.set()
        self.maybe_close()

    def maybe_close(self) -> None:
        if self.eof.is_set() and self.process_gone.is_set() and self.transport is not None:
            self.transport.close()

    def close_output(self) -> None:
        """Stop reading output that something we could not kill still holds open."""
        if self.output_transport is not None:
            self.output_transport.close()
        if self.transport is not None:
            self.transport.close()

    # -------------------------------------------------------------------- output
    def append(self, chunk: bytes) -> None:
        self.buf += chunk
        if len(self.buf) > self.limit + self.slack:
            self.trim()
        text = self.decoder.decode(chunk)
        if text:
            self.emit(text)

    def trim(self) -> None:
        excess = len(self.buf) - self.limit
        if excess > 0:
            del self.buf[: _char_boundary(self.buf, excess)]
            self.truncated = True

    def text(self) -> str:
        """The retained output. While output may still come, an unfinished trailing character is
        left out (the incremental decoder holds it), so this plus later chunks is seamless."""
        self.trim()
        text, _ = codecs.utf_8_decode(bytes(self.buf), "replace", self.eof.is_set())
        return text

    def drop_output(self) -> int:
        """Let go of the retained output (a released terminal that nothing shows); returns the
        bytes freed. A later subscriber gets no replay."""
        freed = len(self.buf)
        self.buf = bytearray()
        return freed

    def emit(self, text: str) -> None:
        for on_output, _ in list(self.listeners):
            try:
                on_output(text)
            except Exception:
                log.exception("terminal %s: output listener failed", self.id)

    def emit_exit(self, status: ExitStatus) -> None:
        for _, on_exit in list(self.listeners):
            if on_exit is None:
                continue
            try:
                on_exit(status)
            except Exception:
                log.exception("terminal %s: exit listener failed", self.id)

    def output(self) -> TerminalOutput:
        return TerminalOutput(self.text(), self.truncated, self.exit_status)

    def info(self) -> TerminalInfo:
        return TerminalInfo(
            terminal_id=self.id,
            command=self.command,
            args=self.args,
            argv=self.argv,
            via_shell=self.via_shell,
            cwd=self.cwd,
            pid=self.pid,
            started_at=self.started_at,
            finished_at=self.finished_at,
            exit_status=self.exit_status,
            released=self.released,
        )


def command_environment(env: Mapping[str, str], marker: str) -> dict[str, str]:
    """This process's environment with `env` on top, and `marker` (`<token>/<terminal id>`)
    as `MARKER_VARIABLE`, whatever `env` says."""
    own = {key: value for key, value in env.items() if key != MARKER_VARIABLE}
    # The marker goes first, where a bounded read of /proc/PID/environ finds it.
    full_env = {MARKER_VARIABLE: marker, **os.environ, **own}
    full_env[MARKER_VARIABLE] = marker
    return full_env


async def spawn(term: TerminalProcess, env: Mapping[str, str], marker: str) -> None:
    """Start `term.argv` in `term.cwd`, feeding `term`: own session and process group, stdin
    from /dev/null, stdout and stderr merged into a pipe. `env` and `marker` as in
    `command_environment`."""
    await exec_command(term, command_environment(env, marker), subprocess.PIPE, subprocess.STDOUT)


async def exec_command(
    term: TerminalProcess, full_env: Mapping[str, str], stdout: int, stderr: int
) -> None:
    """Start `term.argv` in `term.cwd` with exactly `full_env`, feeding `term`: own session and
    process group, stdin from /dev/null. The pipe and the pty spawn differ only in `stdout`
    and `stderr`. TerminalSpawnError, saying why, when it cannot start."""
    loop = asyncio.get_running_loop()
    try:
        await loop.subprocess_exec(
            lambda: term,
            *term.argv,
            cwd=term.cwd,
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
        )
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise TerminalSpawnError(f"cannot run {term.argv[0]!r}: {reason}") from exc
