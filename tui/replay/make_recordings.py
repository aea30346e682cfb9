"""Record the bundled demo recordings again: `python -m tui.replay.make_recordings`.

The real client and the real dsh-agent (offline, full-access) play the `demo` prompt once with
the terminal capability and once without, each recorded with `--record` into
tui/replay/recordings/. The workspace is the fixed DEMO_WORKSPACE, emptied first, so a
recording holds no temporary path and replays the same on every machine. Run it from a
checkout (it needs dsh-agent beside dsh-tui) after a change to the demo or to what goes on the
wire.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from tui.agent_log import new_agent_log
from tui.app import DshApp
from tui.config import AppConfig
from tui.launch import AgentProcess, LaunchSpec
from tui.session.events import SessionEvent, TurnEnded
from tui.state import Change

RECORDINGS = Path(__file__).with_name("recordings")
DEMO_WORKSPACE = Path("/tmp/dsh-demo-workspace")
AGENT = shlex.join([sys.executable, "-m", "agent.cli", "--mode", "full-access"])
TURN_TIMEOUT_S = 120.0


def recording_path(terminal: bool) -> Path:
    return RECORDINGS / f"demo-terminal-{'on' if terminal else 'off'}.jsonl"


class _TurnEnded:
    def __init__(self) -> None:
        self.done = asyncio.Event()

    def conversation_changed(self, changes: list[Change]) -> None:
        pass

    def session_event(self, event: SessionEvent) -> None:
        if isinstance(event, TurnEnded):
            self.done.set()


async def record_demo(terminal: bool, out: Path, logs: Path) -> None:
    """One `demo` turn through the real client, recorded to `out`."""
    workspace = DEMO_WORKSPACE / ("terminal-on" if terminal else "terminal-off")
    shutil.rmtree(workspace, ignore_errors=True)
    workspace.mkdir(parents=True)
    spec = LaunchSpec.from_command(
        AGENT, workspace, new_agent_log(logs), terminal, record=out.resolve()
    )
    config = AppConfig(AGENT, workspace, terminal, logs, started=AgentProcess.start(spec))
    app = DshApp(config)
    turn = _TurnEnded()
    app.controller.add_observer(turn)
    async with app.run_test(size=(100, 50)):
        app.controller.submit_prompt("demo")
        await asyncio.wait_for(turn.done.wait(), TURN_TIMEOUT_S)
        await app.action_quit()


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="dsh-recordings-") as scratch:
        # The agent keeps its session logs out of the user's data directory, and offers the
        # models of no one's environment or config file: the recordings are the same whoever
        # makes them.
        for name in [name for name in os.environ if name.startswith(("DSH_", "DEEPSEEK_"))]:
            del os.environ[name]
        os.environ["DSH_SESSION_DIR"] = str(Path(scratch) / "sessions")
        os.environ["XDG_CONFIG_HOME"] = str(Path(scratch) / "config")
        for terminal in (True, False):
            out = recording_path(terminal)
            asyncio.run(record_demo(terminal, out, Path(scratch)))
            print(f"wrote {out}")


if __name__ == "__main__":
    main()
