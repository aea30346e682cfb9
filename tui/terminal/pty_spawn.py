"""Client terminals on a pseudo-terminal: the command's stdout and stderr are a pty's slave.

Tools decide on colour, progress bars and column layout by `isatty(stdout)`, so on a pipe they
print plain text the pane could have shown in colour. The pty passes the command's bytes
through unchanged, takes no input (stdin is /dev/null) and is no controlling terminal, so a
command can neither block on a prompt nor get bytes added; a relay process copies the master
into a big pipe so a fast command is not held up while the pane parses. docs/terminals.md has
the details; `spawn` in tui/terminal/process.py is the pipe version (`pty=False`).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import shutil
import struct
import subprocess
import termios
from collections.abc import Mapping

from tui.terminal.process import (
    TerminalProcess,
    TerminalSpawnError,
    command_environment,
    exec_command,
)

__all__ = ["DEFAULT_COLUMNS", "DEFAULT_ROWS", "PTY_ENVIRONMENT", "open_pty", "spawn_on_pty"]

DEFAULT_COLUMNS = 120
# Generous: nothing scrolls off a pty, so the height only matters to programs that fit their
# output to it (a full-screen redraw, `ls` does not care).
DEFAULT_ROWS = 50
# Set before the agent's env, which may override any of them.
PTY_ENVIRONMENT: Mapping[str, str] = {"TERM": "xterm-256color", "PAGER": "cat", "GIT_PAGER": "cat"}
# Left out of a pty command's environment unless the agent's `env` sets them: the pty's size
# says it.
SIZE_VARIABLES = frozenset({"COLUMNS", "LINES"})

_CAT = shutil.which("cat") or "/bin/cat"
_F_SETPIPE_SZ = 1031  # Linux; elsewhere the relay's pipe keeps its default size
_F_GETPIPE_SZ = 1032
_RELAY_PIPE_BYTES = 1024 * 1024  # the default /proc/sys/fs/pipe-max-size
_READ_SIZE = 256 * 1024  # asyncio's read size for a pipe, when its transport does not say
# The reader pauses so long that the relay's pipe holds what a pty delivers meanwhile (a pty
# gives tens of MB/s) with room to spare...
_PAUSE_RATE_BYTES_S = 128e6
# ...and at most half a frame: a stream is shown as it comes.
_MAX_PAUSE_S = 1 / 120
_LOCAL_OFF = termios.ECHO | termios.ECHOCTL | termios.ICANON | termios.ISIG | termios.IEXTEN
_LOCAL_OFF |= termios.ECHOE | termios.ECHOK | termios.ECHONL


def open_pty(columns: int, rows: int) -> tuple[int, int]:
    """A (master, slave) pair sized `columns` x `rows`, whose line discipline passes the
    command's bytes through unchanged (see the module docstring). Both are non-inheritable."""
    master, slave = os.openpty()
    try:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        attrs = termios.tcgetattr(slave)
        attrs[1] &= ~(termios.OPOST | termios.ONLCR)  # oflag: no \n -> \r\n
        attrs[3] &= ~_LOCAL_OFF  # lflag: no echo, no signal characters, no line editing
        attrs[6][termios.VMIN] = 0
        attrs[6][termios.VTIME] = 0
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
    except BaseException:
        os.close(master)
        os.close(slave)
        raise
    return master, slave


class _Relay(asyncio.SubprocessProtocol):
    """The relay process copying the master into the pipe: its exit is part of the end of
    output (so it is reaped before the terminal is done)."""

    def __init__(self) -> None:
        self.exited = asyncio.Event()

    def process_exited(self) -> None:
        self.exited.set()


class _MasterReader(asyncio.Protocol):
    """Feeds what the relay's pipe holds to the terminal, a pipeful at a time.

    The relay writes what a pty master gives, at most 4 KiB a read (the line discipline's
    buffer). Read as it comes while the app has little else to do, a 10 MB burst woke the
    event loop about 1,500 times. So reads are handed on once the pipe is drained (a read
    shorter than asyncio's read size), and after a small one (`SMALL_READ`: this process
    is ahead of the command) reading pauses for `pause_s` while the relay fills the pipe;
    the next reads take all of it. After a bigger read it does not pause: this process is
    the slower side, the pipe gathers the output anyway, and pausing then let the pipe
    fill up and stopped the command (10 MB to the pane in 1.1-1.5x the pipe's time where
    reading on made it 1.0-1.3x). A read after a quiet spell is handed on at once, so an
    `echo` shows without waiting.
    """

    # A read this small means the pipe held little: the command is the slower side.
    SMALL_READ = 16 * 1024

    def __init__(
        self,
        term: TerminalProcess,
        relay: asyncio.SubprocessTransport,
        relay_exited: _Relay,
        pause_s: float,
    ) -> None:
        self.term = term
        self.relay = relay
        self.relay_exited = relay_exited
        self.pause_s = pause_s
        self.transport: asyncio.ReadTransport | None = None
        # asyncio reads at most this much per read: a full read leaves more in the pipe.
        self.read_size = _READ_SIZE
        self.ending: asyncio.Task[None] | None = None
        self.at_eof = False
        self.pending: list[bytes] = []
        self.flush_timer: asyncio.TimerHandle | None = None
        self.resume_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.ReadTransport)
        self.transport = transport
        self.read_size = getattr(transport, "max_size", _READ_SIZE)

    def data_received(self, data: bytes) -> None:
        self.pending.append(data)
        if len(data) >= self.read_size:
            # The pipe may hold more: read on (the next loop iteration) and hand it all on
            # together, or after `pause_s` at the latest if nothing more comes.
            if self.flush_timer is None:
                loop = asyncio.get_running_loop()
                self.flush_timer = loop.call_later(self.pause_s, self.hand_on)
            return
        self.hand_on()
        transport = self.transport
        if len(data) >= self.SMALL_READ or transport is None or transport.is_closing():
            return
        if self.resume_timer is None:
            transport.pause_reading()
            loop = asyncio.get_running_loop()
            self.resume_timer = loop.call_later(self.pause_s, self.resume)

    def resume(self) -> None:
        self.resume_timer = None
        if self.transport is not None:
            self.transport.resume_reading()  # nothing happens once it is closing

    def hand_on(self) -> None:
        if self.flush_timer is not None:
            self.flush_timer.cancel()
            self.flush_timer = None
        if self.pending:
            data = self.pending[0] if len(self.pending) == 1 else b"".join(self.pending)
            self.pending.clear()
            self.term.append(data)

    def eof_received(self) -> bool:
        self.at_eof = True  # the relay is exiting by itself
        return False  # close the transport: connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        # The relay is done (EIO on the master: the command and its children are gone) or
        # this reader was closed on purpose (then the relay is killed): the output ends once
        # the relay is reaped.
        self.hand_on()
        if self.resume_timer is not None:
            self.resume_timer.cancel()
            self.resume_timer = None
        if not self.at_eof and not self.relay_exited.exited.is_set():
            # Only kill a relay that still runs: closing the transport of one that just
            # exited would reap it behind asyncio's child watcher.
            self.relay.close()
        self.ending = asyncio.get_running_loop().create_task(self.end_after_relay())

    async def end_after_relay(self) -> None:
        await self.relay_exited.exited.wait()
        self.relay.close()
        self.term.output_ended()


async def spawn_on_pty(
    term: TerminalProcess,
    env: Mapping[str, str],
    marker: str,
    columns: int = DEFAULT_COLUMNS,
    rows: int = DEFAULT_ROWS,
) -> None:
    """Start `term.argv` in `term.cwd` with stdout and stderr on a new pty, stdin from
    /dev/null, in its own session and process group; the output feeds `term`. `env` goes on
    top of this process's environment and `PTY_ENVIRONMENT`; `marker` as in `spawn`."""
    loop = asyncio.get_running_loop()
    full_env = command_environment({**PTY_ENVIRONMENT, **env}, marker)
    for size_variable in SIZE_VARIABLES.difference(env):
        # Programs prefer these to the pty's size: inherited, they would be dsh-tui's own
        # terminal's (when the user's shell exports them), not the pane's.
        full_env.pop(size_variable, None)
    master, slave = open_pty(columns, rows)
    try:
        await exec_command(term, full_env, slave, slave)
    except TerminalSpawnError:
        os.close(master)
        raise
    finally:
        # Only the command holds the slave now, so the master reads EIO when it is done.
        os.close(slave)
    try:
        term.output_transport = await _start_relay(loop, term, master)
    except OSError as exc:
        if term.transport is not None:
            term.transport.close()  # kills the command: nothing would read its output
        raise TerminalSpawnError(f"cannot relay the output of {term.argv[0]!r}: {exc}") from exc
    finally:
        os.close(master)  # the relay holds it now


async def _start_relay(
    loop: asyncio.AbstractEventLoop, term: TerminalProcess, master: int
) -> asyncio.BaseTransport:
    """Start the relay from `master` into a 1 MB pipe, and read that pipe into `term`."""
    read_end, write_end = os.pipe()
    try:
        with contextlib.suppress(OSError):
            fcntl.fcntl(write_end, _F_SETPIPE_SZ, _RELAY_PIPE_BYTES)
        pause_s = _reader_pause(write_end)
        relay, exited = await loop.subprocess_exec(
            _Relay,
            _CAT,
            stdin=master,
            stdout=write_end,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    reader, _ = await loop.connect_read_pipe(
        lambda: _MasterReader(term, relay, exited, pause_s), os.fdopen(read_end, "rb", buffering=0)
    )
    return reader


def _reader_pause(pipe: int) -> float:
    """How long the reader may pause: as long as `pipe` holds what a pty delivers in that
    time, and at most `_MAX_PAUSE_S`."""
    try:
        size = fcntl.fcntl(pipe, _F_GETPIPE_SZ)
    except OSError:
        size = 65536  # Linux's default
    return min(_MAX_PAUSE_S, size / _PAUSE_RATE_BYTES_S)
