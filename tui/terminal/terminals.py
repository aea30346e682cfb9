"""Client-side terminals: the processes behind ACP's `terminal/*` methods.

An agent asks the client to run a command (`terminal/create`), polls or waits for it
(`terminal/output`, `terminal/wait_for_exit`), stops it (`terminal/kill`) and frees it
(`terminal/release`). `TerminalManager` runs those processes with asyncio, no Textual involved:

* Each command runs on a pseudo-terminal of `pty_size` (tui/terminal/pty_spawn.py: colours and
  `isatty` as in a real terminal, `TERM=xterm-256color`, the output byte for byte, no CRLF
  added), or with `pty=False` on a pipe (tui/terminal/process.py); either way in its own
  session and process group, stdin from /dev/null, stdout and stderr merged.
  tui/terminal/process.py keeps the output as bytes, bounded by `output_byte_limit` (or a
  generous cap), dropping from the head at a UTF-8 boundary.
* Kill reaches the whole tree, background children and double-forked daemons included
  (tui/terminal/process_tree.py): SIGTERM, then SIGKILL after a grace period.
* At most MAX_LIVE_TERMINALS terminals are open (created and not released) at once, for the
  agent and, apart, for the user; a create takes its place before it awaits the spawn, so
  concurrent creates cannot all pass the count.
* The user's own terminals (`!` commands, `create(..., by_user=True)`) have ids of their own
  (`user-N`) and are not the agent's: `agent_owns` tells the two apart, and the ACP client
  answers any `terminal/*` request for an id the agent did not create as for an unknown one.
* After `release` the id is invalid for `terminal/*`, but the output stays readable through
  `subscribe` (with replay) and `info`, because tool-call cards keep showing it. Released
  terminals that nothing subscribes to keep at most `released_bytes_limit` bytes in all: the
  oldest let go of their output first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import signal
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

from tui.terminal.process import (
    MARKER_VARIABLE,
    ExitListener,
    ExitStatus,
    OutputListener,
    TerminalError,
    TerminalInfo,
    TerminalOutput,
    TerminalProcess,
    TerminalSpawnError,
    UnknownTerminalError,
    add_listener,
    default_shell,
    exit_status_from_returncode,
    needs_shell,
    spawn,
    truncate_utf8_head,
)
from tui.terminal.process_tree import ProcessTrees
from tui.terminal.pty_spawn import DEFAULT_COLUMNS, DEFAULT_ROWS, spawn_on_pty

__all__ = [
    "DEFAULT_KILL_GRACE",
    "DEFAULT_MAX_BUFFER_BYTES",
    "DEFAULT_RELEASED_BYTES_LIMIT",
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
# The output kept, in all, for released terminals that no pane follows: enough to bring back
# the cards of a long session, not every byte an agent ever ran.
DEFAULT_RELEASED_BYTES_LIMIT = 32 * 1024 * 1024
# How long to wait for SIGKILLed processes to disappear (only a process stuck in the kernel
# takes longer).
_SIGKILL_CONFIRM_TIMEOUT = 5.0
# Terminals open at once (created and not released): each holds a process tree and up to
# max_buffer_bytes of output, and an agent that never releases must not grow them without end.
MAX_LIVE_TERMINALS = 64


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
        released_bytes_limit: int = DEFAULT_RELEASED_BYTES_LIMIT,
        pty: bool = True,
        pty_size: tuple[int, int] = (DEFAULT_COLUMNS, DEFAULT_ROWS),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.default_cwd = os.fspath(default_cwd) if default_cwd is not None else None
        self.kill_grace = kill_grace
        self.drain_timeout = drain_timeout
        self.max_buffer_bytes = max_buffer_bytes
        self.shell = shell or default_shell()
        self.released_bytes_limit = released_bytes_limit
        # On a pty (the default) or a pipe; the size (columns, rows) is read at each create,
        # so whoever knows the pane's width may set it.
        self.pty = pty
        self.pty_size = pty_size
        # What a terminal's start and exit are timed with: the app configuration's clock, so a
        # snapshot test that fixes it shows a duration that does not depend on machine load.
        self.clock = clock
        self._id_prefix = id_prefix
        self._counter = 0
        self._user_counter = 0
        self._terms: dict[str, TerminalProcess] = {}
        # The ids of the user's own terminals: never the agent's to read, wait for or stop.
        self._user_ids: set[str] = set()
        # Places taken by creates still spawning, per owner (True: the user's).
        self._reserved = {False: 0, True: 0}
        self.max_live = MAX_LIVE_TERMINALS
        self._token = secrets.token_hex(8)
        self._trees = ProcessTrees(
            f"{MARKER_VARIABLE}={self._token}/".encode(), lambda: self._terms
        )

    # ------------------------------------------------------------------------- terminal/*
    async def create(
        self,
        command: str,
        args: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        output_byte_limit: int | None = None,
        *,
        by_user: bool = False,
    ) -> str:
        """Start `command` and return its terminal id (`terminal/create`).

        With no `args` and shell syntax in `command` (see `needs_shell`), it runs as
        `<shell> -c command`; otherwise `command` is executed directly with `args`. `env` is added
        on top of this process's environment (ACP's `[{name, value}]` list becomes a dict).
        The retained output is capped at `output_byte_limit` bytes, and never more than
        `max_buffer_bytes` (then `truncated` is reported, as for the agent's own limit).
        `by_user`: a `!` command of the user's, in its own id space and its own count.
        """
        if not command or command.isspace():
            raise ValueError("command must not be empty")
        live = self._reserved[by_user] + sum(
            1
            for term in self._terms.values()
            if not term.released and (term.id in self._user_ids) == by_user
        )
        if live >= self.max_live:
            raise TerminalError(
                f"too many terminals: {live} are open, the limit is {self.max_live}; "
                "release finished ones (terminal/release) before creating more"
            )
        # The place is taken now, before anything awaits: concurrent creates see it.
        self._reserved[by_user] += 1
        try:
            return await self._start(command, args, env, cwd, output_byte_limit, by_user)
        finally:
            self._reserved[by_user] -= 1

    async def _start(
        self,
        command: str,
        args: Sequence[str] | None,
        env: Mapping[str, str] | None,
        cwd: str | os.PathLike[str] | None,
        output_byte_limit: int | None,
        by_user: bool,
    ) -> str:
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
        limit = self.max_buffer_bytes
        if output_byte_limit is not None:
            limit = min(output_byte_limit, limit)
        if by_user:
            self._user_counter += 1
            terminal_id = f"user-{self._user_counter}"
        else:
            self._counter += 1
            terminal_id = f"{self._id_prefix}{self._counter}"
        term = TerminalProcess(terminal_id, command, arg_list, argv, via_shell, run_cwd, limit)
        term.started_at = self.clock()
        marker = f"{self._token}/{terminal_id}"
        if self.pty:
            await spawn_on_pty(term, env or {}, marker, *self.pty_size)
        else:
            await spawn(term, env or {}, marker)
        self._terms[terminal_id] = term
        if by_user:
            self._user_ids.add(terminal_id)
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
        The output stays readable through `subscribe`, within `released_bytes_limit`.
        """
        term = self._live(terminal_id)
        term.released = True
        await self._kill_tree(term)
        await self._stop_reading(term)
        self._limit_released()

    # ------------------------------------------------------------------------- for the UI
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
        remove = add_listener(
            term.listeners,
            on_output,
            on_exit,
            replay=replay,
            retained=term.text,
            exit_status=term.exit_status,
        )

        def unsubscribe() -> None:
            remove()
            if term.released:
                self._limit_released()

        return unsubscribe

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

    def retained(self, terminal_id: str) -> tuple[str, ExitStatus | None] | None:
        """The output still kept and the exit, also for released terminals (copy, search,
        export); None for an id this manager never created."""
        term = self._terms.get(terminal_id)
        return None if term is None else (term.text(), term.exit_status)

    def agent_owns(self, terminal_id: str) -> bool:
        """Whether the agent created the id (released or not): the user's `!` terminals are
        outside its namespace, as are ids nobody created."""
        return self.knows(terminal_id) and terminal_id not in self._user_ids

    def terminal_ids(
        self, *, include_released: bool = False, agent_only: bool = False
    ) -> list[str]:
        return [
            t.id
            for t in self._terms.values()
            if (include_released or not t.released) and not (agent_only and t.id in self._user_ids)
        ]

    def _limit_released(self) -> None:
        """Keep at most `released_bytes_limit` bytes of output for released terminals that no
        pane follows: the oldest let go of theirs first. A followed terminal keeps its bytes,
        since its pane may be rebuilt from them (a card brought back into the transcript)."""
        idle = [t for t in self._terms.values() if t.released and not t.listeners and t.buf]
        total = sum(len(t.buf) for t in idle)
        for term in idle:  # in creation order: the oldest first
            if total <= self.released_bytes_limit:
                break
            total -= term.drop_output()

    async def close_all(self) -> None:
        """Kill every process tree and wait for them (at quit). All ids become released.

        One /proc scan finds every tree; the wait then checks only the processes found, and
        one more scan before SIGKILL catches what was forked meanwhile: the cost does not grow
        with a scan per terminal.
        """
        terms = list(self._terms.values())
        for term in terms:
            term.released = True
        table = self._trees.scan()
        if table is None:
            # No /proc: one escalation per process group.
            results = await asyncio.gather(
                *(self._kill_tree(t) for t in terms), return_exceptions=True
            )
            for term, result in zip(terms, results, strict=True):
                if isinstance(result, BaseException):
                    log.warning("terminal %s: kill failed at close: %r", term.id, result)
        else:
            pids = self._trees.signal_all(terms, table, signal.SIGTERM)
            if not await self._trees.until_all_gone(terms, pids, self.kill_grace):
                table = self._trees.scan()
                pids = self._trees.signal_all(terms, table or {}, signal.SIGKILL)
                if not await self._trees.until_all_gone(terms, pids, _SIGKILL_CONFIRM_TIMEOUT):
                    log.warning("processes survived SIGKILL at close")
            await asyncio.gather(*(t.exited.wait() for t in terms))
        await asyncio.gather(*(self._stop_reading(t) for t in terms), return_exceptions=True)

    # ------------------------------------------------------------------------- internals
    def _any(self, terminal_id: str) -> TerminalProcess:
        try:
            return self._terms[terminal_id]
        except KeyError:
            raise UnknownTerminalError(terminal_id) from None

    def _live(self, terminal_id: str) -> TerminalProcess:
        term = self._any(terminal_id)
        if term.released:
            raise UnknownTerminalError(terminal_id, released=True)
        return term

    async def _watch(self, term: TerminalProcess) -> None:
        await term.process_gone.wait()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.drain_timeout):
                await term.eof.wait()
        assert term.returncode is not None
        term.exit_status = exit_status_from_returncode(term.returncode)
        term.finished_at = self.clock()
        term.exited.set()
        term.emit_exit(term.exit_status)

    async def _kill_tree(self, term: TerminalProcess) -> None:
        # Concurrent kill/release/close_all share one escalation.
        if term.kill_task is None or term.kill_task.done():
            term.kill_task = asyncio.create_task(self._escalate(term), name=f"{term.id}-kill")
        await asyncio.shield(term.kill_task)

    async def _escalate(self, term: TerminalProcess) -> None:
        if term.returncode is None or self._trees.tree_alive(term):
            self._trees.signal_tree(term, signal.SIGTERM)
            if not await self._trees.until_gone(term, self.kill_grace):
                self._trees.signal_tree(term, signal.SIGKILL)
                # SIGKILL cannot be caught, but delivery is not instant: wait for the tree to be
                # gone, so that "killed" really means nothing of it runs any more.
                if not await self._trees.until_gone(term, _SIGKILL_CONFIRM_TIMEOUT):
                    log.warning("terminal %s: processes survived SIGKILL", term.id)
        await term.exited.wait()

    async def _stop_reading(self, term: TerminalProcess) -> None:
        # Something we could not find (a double fork whose parent is gone) may still hold the
        # pipe; close it rather than keep a released terminal's reader alive forever.
        await term.exited.wait()
        if not term.eof.is_set():
            term.close_output()
            # A pty terminal's output ends once its relay is reaped: soon after the kill.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_SIGKILL_CONFIRM_TIMEOUT):
                    await term.eof.wait()
