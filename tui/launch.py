"""Starting the agent: which executable, how it is launched, the running process, how it failed.

Nothing here imports the ACP SDK or Textual, so the CLI can start the agent before either is
imported: the agent's own start-up (it imports the SDK too) then overlaps the client's.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from dsh_common.private_files import open_private
from tui.agent_log import watch_agent_log

if TYPE_CHECKING:  # asyncio is imported where it is used: the CLI starts the agent before it
    import asyncio

    from tui.user_config import McpServer

log = logging.getLogger(__name__)

WAIT_POLL_S = 0.01


def script_dirs() -> list[Path]:
    """Where the running interpreter's console scripts live: a venv's bin/ even when the venv
    is not activated (dsh-tui started as .venv/bin/dsh-tui)."""
    found: list[Path] = []
    for directory in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        if directory not in found:
            found.append(directory)
    return found


def find_program(name: str, search_path: str | None = None) -> str | None:
    """The executable to run for an agent's argv[0], or None when there is none.

    A name with a slash is used as it is. A bare name is looked up on PATH (or `search_path`),
    then beside the running interpreter's scripts, where pip put `dsh-agent` next to `dsh-tui`.
    """
    if os.sep in name or (os.altsep and os.altsep in name):
        return name
    found = shutil.which(name, path=search_path)
    if found is not None:
        return found
    for directory in script_dirs():
        beside = shutil.which(name, path=str(directory))
        if beside is not None:
            log.info("%s is not on PATH; using %s beside the interpreter", name, beside)
            return beside
    return None


# The default wait for an answer to initialize or session/new (`handshake_timeout` in the
# settings file, `--handshake-timeout`): an npx agent's first run downloads its package first.
HANDSHAKE_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class LaunchSpec:
    """How to start the agent: argv, working directory, environment and stderr log.

    `program` is the executable argv[0] resolved to (see find_program); None when not found.
    """

    argv: tuple[str, ...]
    cwd: Path
    log_path: Path
    terminal: bool = True
    allow_dirs: tuple[Path, ...] = ()
    program: str | None = None
    record: Path | None = None  # where `--record` writes the wire (tui/connection/recording.py)
    # Added to dsh-tui's own environment; may hold a login's secrets, so never in a repr.
    env: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    mcp_servers: tuple[McpServer, ...] = ()  # offered in session/new, load and resume
    # Seconds to wait for the answer to initialize, and to session/new, before giving up.
    handshake_timeout: float = HANDSHAKE_TIMEOUT_S

    @classmethod
    def from_command(
        cls,
        command: str,
        cwd: Path,
        log_path: Path,
        terminal: bool,
        allow_dirs: tuple[Path, ...] = (),
        record: Path | None = None,
        env: tuple[tuple[str, str], ...] = (),
        mcp_servers: tuple[McpServer, ...] = (),
        handshake_timeout: float = HANDSHAKE_TIMEOUT_S,
    ) -> LaunchSpec:
        argv = tuple(shlex.split(command))
        if not argv:
            raise ValueError("the agent command is empty")
        program = find_program(argv[0], dict(env).get("PATH"))
        return cls(
            argv,
            cwd,
            log_path,
            terminal,
            allow_dirs,
            program,
            record,
            env,
            mcp_servers,
            handshake_timeout,
        )

    @property
    def command_line(self) -> str:
        return shlex.join(self.argv)


class AgentFailed(Exception):
    """The agent could not start or died: what ran, how it ended, and its last words.

    `started` is False when no process ever ran (the executable was not found, or exec failed);
    `exit_code` is then None, as it is for an agent still running after a protocol failure.
    """

    def __init__(
        self,
        spec: LaunchSpec,
        reason: str,
        exit_code: int | None,
        stderr_tail: str,
        started: bool = True,
    ) -> None:
        super().__init__(reason)
        self.spec = spec
        self.reason = reason
        self.exit_code = exit_code
        self.stderr_tail = stderr_tail
        self.started = started


def not_started(spec: LaunchSpec, reason: str) -> AgentFailed:
    """The agent never ran: say so in its log too, which the failure screen points to."""
    with (
        contextlib.suppress(OSError),
        open_private(spec.log_path, "a", encoding="utf-8") as log_file,
    ):
        log_file.write(f"dsh-tui: {reason}\n")
    return AgentFailed(spec, reason, None, "", started=False)


class AgentProcess:
    """The agent's subprocess, with asyncio streams on its stdin and stdout once attached.

    It is started with subprocess.Popen, which needs no event loop: the CLI starts it before
    the UI exists, and the app attaches it to its loop later. It offers the part of
    asyncio.subprocess.Process that the connection uses.
    """

    recorded = False
    """A recording stands in for the agent (a replay): nothing it shows is of this machine."""

    def __init__(self, spec: LaunchSpec, popen: subprocess.Popen[bytes]) -> None:
        self.spec = spec
        self._popen = popen
        self.stdin: asyncio.StreamWriter | None = None
        self._stdout_transport: asyncio.BaseTransport | None = None
        self.claimed = False

    @classmethod
    def start(cls, spec: LaunchSpec) -> AgentProcess:
        """Spawn the agent, its stderr appended to spec.log_path. Raises AgentFailed."""
        if spec.program is None:
            raise not_started(spec, f"could not start the agent: {spec.argv[0]} not found on PATH")
        try:
            with open_private(spec.log_path, "ab") as stderr_file:
                popen = subprocess.Popen(
                    [spec.program, *spec.argv[1:]],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=stderr_file,
                    cwd=spec.cwd,
                    env={**os.environ, **dict(spec.env)},
                )
        except OSError as error:
            raise not_started(spec, f"could not start the agent: {error}") from error
        log.info("started the agent (pid %d): %s", popen.pid, spec.program)
        watch_agent_log(spec.log_path, lambda: popen.poll() is None)
        return cls(spec, popen)

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        return self._popen.poll()

    async def attach(self, limit: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """Asyncio streams on the pipes, on the running loop; only once per process."""
        import asyncio

        if self.claimed:
            raise RuntimeError("the agent process is already attached")
        self.claimed = True
        stdin, stdout = self._popen.stdin, self._popen.stdout
        assert stdin is not None and stdout is not None
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=limit, loop=loop)
        self._stdout_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader, loop=loop), stdout
        )
        # A StreamReaderProtocol on the write side too, as asyncio.open_connection does: it gives
        # the writer flow control and a close waiter; its reader never receives anything.
        transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader(loop=loop), loop=loop),
            stdin,
        )
        self.stdin = asyncio.StreamWriter(transport, protocol, None, loop)
        return reader, self.stdin

    async def wait(self) -> int:
        """Wait for the exit, polling: the child was not started by the loop's child watcher."""
        import asyncio

        while (code := self._popen.poll()) is None:
            await asyncio.sleep(WAIT_POLL_S)
        return code

    def terminate(self) -> None:
        if self._popen.poll() is None:
            self._popen.terminate()

    def kill(self) -> None:
        if self._popen.poll() is None:
            self._popen.kill()

    def close_pipes(self) -> None:
        """Close both pipes now, while the loop runs; once attached, their transports own them.

        Left to the garbage collector, a transport is closed after the loop is gone and asyncio
        reports "Event loop is closed". Anything still buffered for a reaped agent is dropped.
        """
        if self.stdin is not None:
            if not self.stdin.transport.is_closing():
                self.stdin.transport.abort()
        elif self._popen.stdin is not None:
            with contextlib.suppress(OSError):
                self._popen.stdin.close()
        if self._stdout_transport is not None:
            self._stdout_transport.close()
        elif self._popen.stdout is not None:
            with contextlib.suppress(OSError):
                self._popen.stdout.close()

    def discard(self) -> None:
        """Kill and reap a process that was never attached (the app did not get to use it)."""
        if self.claimed:
            return
        self.kill()
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self._popen.wait(timeout=1.0)
        self.close_pipes()
