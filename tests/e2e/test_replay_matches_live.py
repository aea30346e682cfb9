"""Record, then replay: the offline demo through the real client and dsh-agent, recorded, and
the recording played back with no agent, draw the same transcript, terminal on and off."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

import pytest

from support import wait_until
from tui.agent_log import new_agent_log
from tui.app import AppConfig, DshApp
from tui.launch import AgentProcess, LaunchSpec
from tui.pytest_plugin import settle
from tui.replay.app import replay_app

AGENT = shlex.join([sys.executable, "-m", "agent.cli", "--mode", "full-access"])
WORKSPACE = Path("/tmp/dsh-replay-workspace")
SIZE = (100, 230)


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal-on", "terminal-off"])
async def test_replay_draws_the_live_transcript(tmp_path: Path, terminal: bool) -> None:
    workspace = WORKSPACE / ("terminal-on" if terminal else "terminal-off")
    shutil.rmtree(workspace, ignore_errors=True)
    workspace.mkdir(parents=True)
    recording = tmp_path / "demo.jsonl"
    spec = LaunchSpec.from_command(
        AGENT, workspace, new_agent_log(tmp_path), terminal, record=recording
    )
    live = DshApp(
        AppConfig(
            AGENT,
            workspace,
            terminal,
            tmp_path,
            clock=lambda: 0.0,
            started=AgentProcess.start(spec),
        )
    )
    async with live.run_test(size=SIZE) as pilot:
        live.controller.submit_prompt("demo")
        await wait_until(pilot, lambda: live.controller.session is not None)
        await wait_until(
            pilot, lambda: not live.controller.turn_running and not live.controller.queued, 60
        )
        await settle(pilot, live)
        live_svg = live.export_screenshot()
        await live.action_quit()

    replay = replay_app(recording, speed=0, log_dir=tmp_path, clock=lambda: 0.0)
    async with replay.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: replay.replay.agent.finished, 60)
        await wait_until(pilot, lambda: not replay.controller.turn_running)
        await settle(pilot, replay)
        replay_svg = replay.export_screenshot()
        await replay.action_quit()

    # Both pictures stay beside the recording, for a look when they differ.
    (tmp_path / "live.svg").write_text(live_svg, encoding="utf-8")
    (tmp_path / "replay.svg").write_text(replay_svg, encoding="utf-8")
    assert replay.replay.agent.played > 100
    assert "dsh-agent demo" in replay_svg.replace("&#160;", " ")
    assert replay_svg == live_svg
