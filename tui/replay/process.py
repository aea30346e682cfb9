"""A recording standing in for the agent's process: what the connection attaches to in a replay.

It is an `AgentProcess` to everything above the connection (the app's first connection, the
session controller, the demo's sides), so those need no replay case; the connection itself
takes the client's files and terminals from it (`client_side`, see
`tui.connection.session.ServesClientSide`). Nothing is spawned.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from tui.fs import ConfinedFs
from tui.launch import AgentProcess, LaunchSpec
from tui.replay.agent import Driver, ReplayAgent
from tui.replay.client_side import Answers, ReplayFs, ReplayTerminals
from tui.replay.pipes import AgentLines, ClientLines, client_writer
from tui.replay.recording import Recording
from tui.terminal.terminals import TerminalManager


def replay_spec(path: Path, recording: Recording, log_path: Path) -> LaunchSpec:
    """The session the recording was: its workspace and whether the terminal was offered."""
    cwd = Path("/")
    opened = recording.first_request("session/new", "session/load")
    params = opened.message.get("params") if opened and opened.message else None
    if isinstance(params, dict) and isinstance(params.get("cwd"), str):
        cwd = Path(params["cwd"])
    terminal = False
    init = recording.first_request("initialize")
    params = init.message.get("params") if init and init.message else None
    capabilities = params.get("clientCapabilities") if isinstance(params, dict) else None
    if isinstance(capabilities, dict):
        terminal = capabilities.get("terminal") is True
    return LaunchSpec(("dsh-tui", "replay", str(path)), cwd, log_path, terminal, program=None)


def recorded_resume(recording: Recording) -> str | None:
    """The session id to load when the recording resumed one, as the client must too."""
    opened = recording.first_request("session/new", "session/load")
    params = opened.message.get("params") if opened and opened.message else None
    if opened is not None and opened.method == "session/load" and isinstance(params, dict):
        session_id = params.get("sessionId")
        return session_id if isinstance(session_id, str) else None
    return None


class ReplayProcess(AgentProcess):
    recorded = True

    def __init__(
        self, spec: LaunchSpec, recording: Recording, *, speed: float = 1.0, step: bool = False
    ) -> None:
        # Not AgentProcess.__init__: there is no Popen. Every method that would use one is
        # replaced here.
        self.spec = spec
        self.stdin = None
        self.claimed = False
        self.recording = recording
        self.agent = ReplayAgent(recording, speed=speed, step=step)
        self._answers = Answers(recording)
        self._task: asyncio.Task[None] | None = None
        self._client: ClientLines | None = None
        self._reader: AgentLines | None = None

    @classmethod
    def open(
        cls, path: Path, log_path: Path, *, speed: float = 1.0, step: bool = False
    ) -> ReplayProcess:
        """Raises OSError when the recording cannot be read."""
        recording = Recording.load(path)
        return cls(replay_spec(path, recording, log_path), recording, speed=speed, step=step)

    def bind(self, driver: Driver) -> None:
        """The client session the replay asks for what a user did, and tells of drift."""
        self.agent.driver = driver

    def client_side(self) -> tuple[ConfinedFs, TerminalManager]:
        return ReplayFs(self._answers), ReplayTerminals(self._answers, str(self.spec.cwd))

    # -- what the connection uses of a process --------------------------------------------

    @property
    def pid(self) -> int:
        return 0

    @property
    def returncode(self) -> int | None:
        return 0 if self._task is not None and self._task.done() else None

    async def attach(self, limit: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self.claimed:
            raise RuntimeError("the replay is already attached")
        self.claimed = True
        self._reader = AgentLines(limit)
        self._client = ClientLines()
        self.stdin = client_writer(self._client)
        self._task = asyncio.get_running_loop().create_task(
            self.agent.run(self._reader, self._client), name="dsh-tui-replay"
        )
        return self._reader, self.stdin

    async def wait(self) -> int:
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.shield(self._task)
        return 0

    def terminate(self) -> None:
        self.kill()

    def kill(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def close_pipes(self) -> None:
        if self._client is not None:
            self._client.close()
        if self._reader is not None:
            self._reader.feed_eof()

    def discard(self) -> None:
        if not self.claimed:
            self.kill()
