"""Client-side terminals: the processes behind ACP's `terminal/*` methods.

An agent asks the client to run a command (`terminal/create`), polls or waits for it
(`terminal/output`, `terminal/wait_for_exit`), stops it (`terminal/kill`) and frees it
(`terminal/release`). `TerminalManager` runs those processes with asyncio, no Textual involved:

* Each command gets its own session and process group, stdin from /dev/null (it must never read
  the TUI's tty), and stdout and stderr merged into one pipe.
* Kill reaches the whole tree: SIGTERM to the process group and to descendants that left it
  (found through /proc on Linux), then SIGKILL after a grace period. Daemons that double-fork
  away from the tree are found too: dsh-tui is a child subreaper (`become_subreaper`), so they
  are reparented to it, and each command's environment carries a marker naming its terminal.
* At most MAX_LIVE_TERMINALS terminals are open (created and not released) at once.
* Output is kept as bytes, bounded by `output_byte_limit` (or a generous cap), dropping from the
  head at a UTF-8 character boundary, as the spec asks.
* After `release` the id is invalid for `terminal/*`, but the output stays readable through
  `snapshot` and listeners, because tool-call cards keep showing it.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import ctypes
import ctypes.util
import logging
import os
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

__all__ = [
    "DEFAULT_KILL_GRACE",
    "DEFAULT_MAX_BUFFER_BYTES",
    "MARKER_VARIABLE",
    "MAX_LIVE_TERMINALS",
    "ExitListener",
    "ExitStatus",
    "OutputListener",
    "TerminalError",
    "TerminalInfo",
    "TerminalManager",
    "TerminalOutput",
    "TerminalSpawnError",
    "UnknownTerminalError",
    "become_subreaper",
    "exit_status_from_returncode",
    "needs_shell",
    "truncate_utf8_head",
]

log = logging.getLogger(__name__)

DEFAULT_MAX_BUFFER_BYTES = 5 * 1024 * 1024
DEFAULT_KILL_GRACE = 2.5
# After the command exits, how long to keep waiting for the end of its output when a background
# child still holds the pipe open. Without this, `sleep 100 &` would block wait_for_exit.
DEFAULT_DRAIN_TIMEOUT = 0.5
_MIN_SLACK = 65536
# How long to wait for SIGKILLed processes to disappear (only a process stuck in the kernel
# takes longer).
_SIGKILL_CONFIRM_TIMEOUT = 5.0
_SHELL_CHARS = frozenset(";&|<>()$`\\\"'*?~")
# Terminals open at once (created and not released): each holds a process tree and up to
# max_buffer_bytes of output, and an agent that never releases must not grow them without end.
MAX_LIVE_TERMINALS = 64
# Set in every command's environment to "<token>/<terminal id>", so that a daemon reparented to
# dsh-tui can be told apart and traced back to its terminal.
MARKER_VARIABLE = "DSH_TUI_TERMINAL"
_PR_SET_CHILD_SUBREAPER = 36
_subreaper: bool | None = None


def become_subreaper() -> bool:
    """Make this process the child subreaper of its descendants (Linux): an orphan anywhere
    below it is reparented to it rather than to init, so it can still be found and killed.

    Process-wide and inherited by nothing; call it once, early, in the dsh-tui process (not in
    a test process, where the orphans of unrelated tests would become its zombies). Returns
    whether it took effect.
    """
    global _subreaper
    if _subreaper is None:
        _subreaper = False
        name = ctypes.util.find_library("c")
        if os.uname().sysname == "Linux" and name:
            try:
                libc = ctypes.CDLL(name, use_errno=True)
                _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
            except (OSError, AttributeError):
                _subreaper = False
        if not _subreaper:
            log.info("not a child subreaper here: double-forked daemons may outlive terminals")
    return _subreaper


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


def _default_shell() -> str:
    return shutil.which("bash") or "/bin/sh"


class _Terminal(asyncio.SubprocessProtocol):
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
        if fd != 1 or self.eof.is_set():
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


class TerminalManager:
    """Runs the commands of ACP `terminal/*` requests and keeps their output.

    One manager can serve one session or the whole app; ids are unique per manager. Errors for the
    JSON-RPC layer: `UnknownTerminalError` (a `KeyError`) for a bad or released id,
    `TerminalSpawnError` when a command cannot start, `ValueError` for invalid arguments.
    """

    def __init__(
        self,
        *,
        default_cwd: str | os.PathLike[str] | None = None,
        kill_grace: float = DEFAULT_KILL_GRACE,
        drain_timeout: float = DEFAULT_DRAIN_TIMEOUT,
        max_buffer_bytes: int = DEFAULT_MAX_BUFFER_BYTES,
        shell: str | None = None,
        id_prefix: str = "term-",
    ) -> None:
        self.default_cwd = os.fspath(default_cwd) if default_cwd is not None else None
        self.kill_grace = kill_grace
        self.drain_timeout = drain_timeout
        self.max_buffer_bytes = max_buffer_bytes
        self.shell = shell or _default_shell()
        self._id_prefix = id_prefix
        self._counter = 0
        self._terms: dict[str, _Terminal] = {}
        self.max_live = MAX_LIVE_TERMINALS
        self._token = secrets.token_hex(8)
        self._marker = f"{MARKER_VARIABLE}={self._token}/".encode()
        # Processes reparented to this process (see become_subreaper) whose environment names
        # one of our terminals: pid -> terminal.
        self._orphans: dict[int, _Terminal] = {}

    # ------------------------------------------------------------------------- terminal/*
    async def create(
        self,
        command: str,
        args: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        output_byte_limit: int | None = None,
    ) -> str:
        """Start `command` and return its terminal id (`terminal/create`).

        With no `args` and shell syntax in `command` (see `needs_shell`), it runs as
        `<shell> -c command`; otherwise `command` is executed directly with `args`. `env` is added
        on top of this process's environment (ACP's `[{name, value}]` list becomes a dict).
        The retained output is capped at `output_byte_limit` bytes, and never more than
        `max_buffer_bytes` (then `truncated` is reported, as for the agent's own limit).
        """
        if not command or command.isspace():
            raise ValueError("command must not be empty")
        live = sum(1 for term in self._terms.values() if not term.released)
        if live >= self.max_live:
            raise TerminalError(
                f"too many terminals: {live} are open, the limit is {self.max_live}; "
                "release finished ones (terminal/release) before creating more"
            )
        if output_byte_limit is not None and output_byte_limit < 0:
            raise ValueError("outputByteLimit must not be negative")
        base = self.default_cwd or os.getcwd()
        run_cwd = os.path.join(base, os.fspath(cwd)) if cwd is not None else base
        if not os.path.isdir(run_cwd):
            raise TerminalSpawnError(
                f"cannot run {command!r}: working directory {run_cwd!r} does not exist"
            )
        arg_list = tuple(args or ())
        via_shell = needs_shell(command, arg_list, run_cwd)
        argv = (self.shell, "-c", command) if via_shell else (command, *arg_list)
        own = {key: value for key, value in (env or {}).items() if key != MARKER_VARIABLE}
        limit = self.max_buffer_bytes
        if output_byte_limit is not None:
            limit = min(output_byte_limit, limit)
        self._counter += 1
        terminal_id = f"{self._id_prefix}{self._counter}"
        # The marker goes first, where a bounded read of /proc/PID/environ finds it.
        full_env = {MARKER_VARIABLE: f"{self._token}/{terminal_id}", **os.environ, **own}
        full_env[MARKER_VARIABLE] = f"{self._token}/{terminal_id}"
        term = _Terminal(terminal_id, command, arg_list, argv, via_shell, run_cwd, limit)
        loop = asyncio.get_running_loop()
        try:
            await loop.subprocess_exec(
                lambda: term,
                *argv,
                cwd=run_cwd,
                env=full_env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise TerminalSpawnError(f"cannot run {argv[0]!r}: {reason}") from exc
        self._terms[terminal_id] = term
        term.watch = asyncio.create_task(self._watch(term), name=f"{terminal_id}-watch")
        return terminal_id

    def output(self, terminal_id: str) -> TerminalOutput:
        """The retained output, whether it was truncated, and the exit status once exited."""
        return self._live(terminal_id).output()

    async def wait_for_exit(self, terminal_id: str) -> ExitStatus:
        """Wait until the command has exited and its output has been read."""
        term = self._live(terminal_id)
        await term.exited.wait()
        assert term.exit_status is not None
        return term.exit_status

    async def kill(self, terminal_id: str) -> None:
        """Stop the command and its process tree; the id stays valid (`terminal/kill`).

        Returns once the command has exited, so a following `output` has the exit status.
        """
        await self._kill_tree(self._live(terminal_id))

    async def release(self, terminal_id: str) -> None:
        """Kill what still runs and invalidate the id for `terminal/*` (`terminal/release`).

        Background children left in the group are killed too, as when a real terminal closes.
        The output stays readable with `snapshot` and listeners until `forget`.
        """
        term = self._live(terminal_id)
        term.released = True
        await self._kill_tree(term)
        await self._stop_reading(term)

    # ------------------------------------------------------------------------- for the UI
    def snapshot(self, terminal_id: str) -> TerminalOutput:
        """Like `output`, but also for released terminals (the UI keeps showing them)."""
        return self._any(terminal_id).output()

    def info(self, terminal_id: str) -> TerminalInfo:
        """Command line, cwd, pid, timing and exit status, also for released terminals."""
        return self._any(terminal_id).info()

    def subscribe(
        self,
        terminal_id: str,
        on_output: OutputListener,
        on_exit: ExitListener | None = None,
        *,
        replay: bool = True,
    ) -> Callable[[], None]:
        """Call `on_output` with each decoded chunk and `on_exit` once the command has ended.

        With `replay`, the retained output and (if already ended) the exit status are delivered
        first, synchronously, so nothing is lost or doubled between snapshot and stream. Returns a
        function that unsubscribes. Listener exceptions are logged, never raised into the reader.
        """
        term = self._any(terminal_id)
        entry = (on_output, on_exit)
        if replay:
            text = term.text()
            if text:
                on_output(text)
            if term.exit_status is not None and on_exit is not None:
                on_exit(term.exit_status)
        term.listeners.append(entry)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                term.listeners.remove(entry)

        return unsubscribe

    def is_live(self, terminal_id: str) -> bool:
        """Whether the id is valid for `terminal/*` (created and not released)."""
        term = self._terms.get(terminal_id)
        return term is not None and not term.released

    async def kill_unreleased(self, terminal_ids: Iterable[str]) -> list[str]:
        """Kill, all at once, those of `terminal_ids` the agent has not released: their process
        trees, background children included. The ids stay valid, as after `terminal/kill`, so
        the agent can still read the output. Returns the ids whose command was still running,
        in the order given."""
        terms = [
            term
            for terminal_id in terminal_ids
            if (term := self._terms.get(terminal_id)) is not None and not term.released
        ]
        running = [term.id for term in terms if term.returncode is None]
        results = await asyncio.gather(*(self._kill_tree(t) for t in terms), return_exceptions=True)
        for term, result in zip(terms, results, strict=True):
            if isinstance(result, BaseException):
                log.warning("terminal %s: kill failed: %r", term.id, result)
        return running

    def knows(self, terminal_id: str) -> bool:
        """Whether this manager created the id (released or not): a card naming any other id
        has no terminal to show."""
        return terminal_id in self._terms

    def terminal_ids(self, *, include_released: bool = False) -> list[str]:
        return [t.id for t in self._terms.values() if include_released or not t.released]

    def forget(self, terminal_id: str) -> None:
        """Drop a released terminal's retained output."""
        term = self._any(terminal_id)
        if not term.released:
            raise ValueError(f"terminal {terminal_id!r} must be released before it is forgotten")
        del self._terms[terminal_id]

    async def close_all(self) -> None:
        """Kill every process tree and wait for them (at quit). All ids become released.

        One /proc scan finds every tree; the wait then checks only the processes found, and
        one more scan before SIGKILL catches what was forked meanwhile: the cost does not grow
        with a scan per terminal.
        """
        terms = list(self._terms.values())
        for term in terms:
            term.released = True
        table = self._scan()
        if table is None:
            # No /proc: one escalation per process group.
            results = await asyncio.gather(
                *(self._kill_tree(t) for t in terms), return_exceptions=True
            )
            for term, result in zip(terms, results, strict=True):
                if isinstance(result, BaseException):
                    log.warning("terminal %s: kill failed at close: %r", term.id, result)
        else:
            pids = self._signal_all(terms, table, signal.SIGTERM)
            if not await self._until_all_gone(terms, pids, self.kill_grace):
                table = self._scan()
                pids = self._signal_all(terms, table or {}, signal.SIGKILL)
                if not await self._until_all_gone(terms, pids, _SIGKILL_CONFIRM_TIMEOUT):
                    log.warning("processes survived SIGKILL at close")
            await asyncio.gather(*(t.exited.wait() for t in terms))
        await asyncio.gather(*(self._stop_reading(t) for t in terms), return_exceptions=True)

    def kill_all_now(self) -> None:
        """SIGKILL every process tree without waiting: a last resort when no loop can run."""
        table = self._scan()
        if table is None:
            for term in self._terms.values():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(term.pgid, signal.SIGKILL)
            return
        self._signal_all(list(self._terms.values()), table, signal.SIGKILL)

    # ------------------------------------------------------------------------- internals
    def _any(self, terminal_id: str) -> _Terminal:
        try:
            return self._terms[terminal_id]
        except KeyError:
            raise UnknownTerminalError(terminal_id) from None

    def _live(self, terminal_id: str) -> _Terminal:
        term = self._any(terminal_id)
        if term.released:
            raise UnknownTerminalError(terminal_id, released=True)
        return term

    async def _watch(self, term: _Terminal) -> None:
        await term.process_gone.wait()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.drain_timeout):
                await term.eof.wait()
        assert term.returncode is not None
        term.exit_status = exit_status_from_returncode(term.returncode)
        term.finished_at = time.monotonic()
        term.exited.set()
        term.emit_exit(term.exit_status)

    async def _kill_tree(self, term: _Terminal) -> None:
        # Concurrent kill/release/close_all share one escalation.
        if term.kill_task is None or term.kill_task.done():
            term.kill_task = asyncio.create_task(self._escalate(term), name=f"{term.id}-kill")
        await asyncio.shield(term.kill_task)

    async def _escalate(self, term: _Terminal) -> None:
        if term.returncode is None or self._tree_alive(term):
            self._signal_tree(term, signal.SIGTERM)
            if not await self._until_gone(term, self.kill_grace):
                self._signal_tree(term, signal.SIGKILL)
                # SIGKILL cannot be caught, but delivery is not instant: wait for the tree to be
                # gone, so that "killed" really means nothing of it runs any more.
                if not await self._until_gone(term, _SIGKILL_CONFIRM_TIMEOUT):
                    log.warning("terminal %s: processes survived SIGKILL", term.id)
        await term.exited.wait()

    async def _until_gone(self, term: _Terminal, timeout: float) -> bool:
        """Poll until the command has exited and its tree is gone; False on timeout."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        delay = 0.005
        while term.returncode is None or self._tree_alive(term):
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            await asyncio.sleep(min(delay, remaining))
            delay = min(delay * 2, 0.05)
        return True

    async def _stop_reading(self, term: _Terminal) -> None:
        # Something we could not find (a double fork whose parent is gone) may still hold the
        # pipe; close it rather than keep a released terminal's reader alive forever.
        await term.exited.wait()
        if not term.eof.is_set() and term.transport is not None:
            term.transport.close()

    # ------------------------------------------------------------------------- process trees
    def _scan(self) -> dict[int, tuple[int, int, str]] | None:
        """The /proc table, after adopting new orphans and reaping dead ones."""
        table = _proc_table()
        if table is not None:
            self._adopt(table)
        return table

    def _adopt(self, table: dict[int, tuple[int, int, str]]) -> None:
        """Trace processes reparented to us back to their terminal, by the marker in their
        environment; reap those of them that died (they are our children now, and nobody else
        waits for them)."""
        me = os.getpid()
        for pid in [pid for pid in self._orphans if pid not in table]:
            del self._orphans[pid]
        direct = {term.pid for term in self._terms.values()}
        for pid, (ppid, _, state) in table.items():
            if ppid != me or pid in direct or pid in self._orphans or state in ("Z", "X"):
                continue
            owner = self._marked(pid)
            if owner is not None:
                self._orphans[pid] = owner
        for pid in list(self._orphans):
            ppid, pgid, state = table[pid]
            if ppid == me and state in ("Z", "X"):
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
                table[pid] = (ppid, pgid, "X")

    def _marked(self, pid: int) -> _Terminal | None:
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read(_ENVIRON_READ_BYTES)
        except OSError:
            return None
        at = environ.find(self._marker)
        if at != 0 and (at < 0 or environ[at - 1] != 0):
            return None
        end = environ.find(b"\0", at)
        terminal_id = environ[at + len(self._marker) : end if end >= 0 else None]
        return self._terms.get(terminal_id.decode("utf-8", "replace"))

    def _orphans_of(self, term: _Terminal) -> list[int]:
        return [pid for pid, owner in self._orphans.items() if owner is term]

    def _tree_alive(self, term: _Terminal) -> bool:
        table = self._scan()
        if table is None:
            try:
                os.killpg(term.pgid, 0)
            except (ProcessLookupError, PermissionError):
                return False
            return True
        return bool(_living_tree(term, table, self._orphans_of(term)))

    def _signal_tree(self, term: _Terminal, sig: signal.Signals) -> None:
        table = self._scan()
        escaped: Iterable[int] = ()
        if table is not None:
            _living_tree(term, table, self._orphans_of(term))
            escaped = sorted(term.escaped)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(term.pgid, sig)
        for pid in escaped:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)

    def _signal_all(
        self, terms: list[_Terminal], table: dict[int, tuple[int, int, str]], sig: signal.Signals
    ) -> set[int]:
        """Signal every tree found in one table; the pids signalled, to watch for the end."""
        pids: set[int] = set()
        for term in terms:
            living = _living_tree(term, table, self._orphans_of(term)) if table else set()
            if term.returncode is None or living:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(term.pgid, sig)
            for pid in sorted(term.escaped):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, sig)
            pids |= living
        return pids

    async def _until_all_gone(self, terms: list[_Terminal], pids: set[int], timeout: float) -> bool:
        """Poll the given processes (not the whole /proc) until all are gone."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        delay = 0.005
        left = set(pids)
        while True:
            left = {pid for pid in left if self._pid_alive(pid)}
            if not left and all(term.returncode is not None for term in terms):
                return True
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            await asyncio.sleep(min(delay, remaining))
            delay = min(delay * 2, 0.05)

    def _pid_alive(self, pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                raw = f.read()
        except OSError:
            return False
        fields = raw[raw.rfind(b")") + 2 :].split()
        if len(fields) < 2:
            return False
        if fields[0] in (b"Z", b"X"):
            if pid in self._orphans and fields[1] == str(os.getpid()).encode():
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
            return False
        return True


_PROC = Path("/proc")
_ENVIRON_READ_BYTES = 256 * 1024


def _proc_table() -> dict[int, tuple[int, int, str]] | None:
    """pid -> (ppid, pgid, state) from /proc, or None where there is no /proc (macOS)."""
    if not (_PROC / "self" / "stat").exists():
        return None
    table: dict[int, tuple[int, int, str]] = {}
    for entry in os.scandir(_PROC):
        if not entry.name.isdigit():
            continue
        try:
            with open(os.path.join(entry.path, "stat"), "rb") as f:
                raw = f.read()
        except OSError:
            continue  # exited while we looked
        # "pid (comm) state ppid pgrp ..."; comm may contain spaces and parentheses.
        fields = raw[raw.rfind(b")") + 2 :].split()
        try:
            table[int(entry.name)] = (int(fields[1]), int(fields[2]), fields[0].decode())
        except (IndexError, ValueError):
            continue
    return table


def _living_tree(
    term: _Terminal, table: dict[int, tuple[int, int, str]], orphans: Iterable[int] = ()
) -> set[int]:
    """Non-zombie processes of the terminal: its process group, its orphans (reparented to us,
    marked as its own), and every descendant of the command or of one of those, including
    those that left the group with setsid."""
    alive = {pid for pid, (_, _, state) in table.items() if state not in ("Z", "X")}
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found = {pid for pid, (_, pgid, _) in table.items() if pgid == term.pgid}
    found.update(pid for pid in orphans if pid in table)
    # The command's own pid only while it is unreaped: afterwards the number may be reused.
    stack = [*found, term.pid] if term.returncode is None else list(found)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    # Escaped descendants whose parent has died were reparented away: remember them by pid.
    living = (found | term.escaped) & alive
    term.escaped = {pid for pid in living if table[pid][1] != term.pgid}
    return living
