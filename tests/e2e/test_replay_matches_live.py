"""Record, then replay: the offline demo through the real client and dsh-agent, recorded, and
the recording played back with no agent, draw the same transcript, terminal on and off."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from snapshot_rows import differing_rows
from support import holding, wait_until
from tui.agent_log import new_agent_log
from tui.app import AppConfig, DshApp
from tui.launch import AgentProcess, LaunchSpec
from tui.pytest_plugin import PINNED_TIME, settle
from tui.replay.app import replay_app
from tui.state import MessageEntry, NoticeEntry

AGENT = shlex.join([sys.executable, "-m", "agent.cli", "--mode", "full-access"])
SCRIPT_AGENT = Path(__file__).with_name("script_agent.py")
WORKSPACE = Path("/tmp/dsh-replay-workspace")
SIZE = (100, 230)
DURATION = re.compile(r"\d+\.\d&#160;s")


@pytest.fixture(autouse=True)
def fixed_workspace() -> Iterator[Path]:
    """WORKSPACE (its path is recorded and drawn), held by one test at a time."""
    with holding(WORKSPACE) as workspace:
        yield workspace


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
            **PINNED_TIME,
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

    replay = replay_app(recording, speed=0, log_dir=tmp_path, **PINNED_TIME)
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
    assert transcript_differences(live_svg, replay_svg) == []


async def record_and_replay(
    tmp_path: Path,
    agent: str,
    workspace: Path,
    terminal: bool,
    before_replay: Any = None,
    while_live: Any = None,
) -> tuple[str, str, Any]:
    """The live session's picture, the replay's, and the replay app."""
    recording = tmp_path / "session.jsonl"
    spec = LaunchSpec.from_command(
        agent, workspace, new_agent_log(tmp_path), terminal, record=recording
    )
    config = AppConfig(
        agent, workspace, terminal, tmp_path, **PINNED_TIME, started=AgentProcess.start(spec)
    )
    live = DshApp(config)
    async with live.run_test(size=SIZE) as pilot:
        live.controller.submit_prompt("go")
        await wait_until(pilot, lambda: live.controller.session is not None)

        def turn_over() -> bool:
            if while_live is not None:
                while_live(live)
            return not (live.controller.turn_running or live.controller.queued)

        await wait_until(pilot, turn_over, 60)
        await settle(pilot, live)
        live_svg = live.export_screenshot()
        await live.action_quit()
    shutil.rmtree(workspace)  # nothing the live session wrote is left for the replay to read
    if before_replay is not None:
        before_replay()
    replay = replay_app(recording, speed=0, log_dir=tmp_path, **PINNED_TIME)
    async with replay.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: replay.replay.agent.finished, 60)
        await wait_until(pilot, lambda: not replay.controller.turn_running)
        await settle(pilot, replay)
        replay_svg = replay.export_screenshot()
        await replay.action_quit()
    (tmp_path / "live.svg").write_text(live_svg, encoding="utf-8")  # for a look when they differ
    (tmp_path / "replay.svg").write_text(replay_svg, encoding="utf-8")
    return live_svg, replay_svg, replay


async def test_replay_answers_files_and_terminals_from_the_recording(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent writes and reads a file through the client and runs a command in a client
    terminal; the replay shows the same cards, with nothing read, written or run."""
    workspace = WORKSPACE / "client-side"
    shutil.rmtree(workspace, ignore_errors=True)
    workspace.mkdir(parents=True)
    note = str(workspace / "note.txt")
    actions = [
        {"write": {"path": note, "content": "first line\nsecond line\n"}},
        {"read": {"path": note, "line": 2}},
        {"terminal": {"command": "printf", "args": ["one\\ntwo\\n"], "toolCallId": "t1"}},
    ]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"prompts": [actions]}), encoding="utf-8")
    agent = shlex.join([sys.executable, str(SCRIPT_AGENT), str(script)])

    import tui.terminal.process
    import tui.terminal.terminals

    def no_commands() -> None:
        async def refuse(*args: Any, **kwargs: Any) -> None:
            raise AssertionError("the replay ran a command")

        monkeypatch.setattr(tui.terminal.terminals, "spawn", refuse)
        monkeypatch.setattr(tui.terminal.terminals, "spawn_on_pty", refuse)
        monkeypatch.setattr(tui.terminal.process, "spawn", refuse)

    live_svg, replay_svg, replay = await record_and_replay(
        tmp_path, agent, workspace, True, no_commands
    )

    assert not workspace.exists()  # nor wrote the file again
    entries = replay.controller.conversation.entries
    assert not [e.text for e in entries if isinstance(e, NoticeEntry)]
    said = " ".join(e.text for e in entries if isinstance(e, MessageEntry))
    assert "read: 'second line\\n'" in said and "output: 'one\\ntwo\\n'" in said
    assert ">two<" in replay_svg.replace("&#160;", " ")  # the pane shows the recorded output
    # A client terminal's duration was measured live; the wire only brackets it (the request
    # read, the exit answered), which can round to another tenth of a second.
    differences = transcript_differences(
        DURATION.sub("N s", live_svg), DURATION.sub("N s", replay_svg)
    )
    assert differences == []


async def test_replay_answers_a_permission_question_as_the_user_did(tmp_path: Path) -> None:
    """Live, the user rejects one question and allows the next; the replay answers them the
    same way on its own, and draws the same cards."""
    workspace = WORKSPACE / "permission"
    shutil.rmtree(workspace, ignore_errors=True)
    workspace.mkdir(parents=True)
    options = [
        {"optionId": "allow", "name": "Allow once", "kind": "allow_once"},
        {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
    ]
    actions = [
        {
            "permission": {
                "toolCall": {"toolCallId": call, "title": f"Run {call}", "kind": "execute"},
                "options": options,
            }
        }
        for call in ("first", "second")
    ]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"prompts": [actions]}), encoding="utf-8")
    agent = shlex.join([sys.executable, str(SCRIPT_AGENT), str(script)])
    answers = iter(["reject", "allow"])

    def answer(app: DshApp) -> None:
        if app.controller.permissions:
            app.controller.permissions[0].choose(next(answers))

    live_svg, replay_svg, replay = await record_and_replay(
        tmp_path, agent, workspace, True, while_live=answer
    )
    entries = replay.controller.conversation.entries
    assert not [e.text for e in entries if isinstance(e, NoticeEntry)]
    said = " ".join(e.text for e in entries if isinstance(e, MessageEntry))
    assert "permission outcome: selected reject" in said
    assert "permission outcome: selected allow" in said
    assert transcript_differences(live_svg, replay_svg) == []


# The last rows are a replay's own on purpose: its prompt is closed and says it is a replay,
# and the footer has the replay's keys, not the agent's.
CHROME_ROWS = 5
ROW = re.compile(r"^  row\s+(\d+) ")


def transcript_differences(live_svg: str, replay_svg: str, rows: int = SIZE[1]) -> list[str]:
    """`differing_rows` above the prompt: the transcript and the plan, text and styles."""
    kept: list[str] = []
    row = 0
    for line in differing_rows(live_svg, replay_svg, shown=rows):
        if match := ROW.match(line):
            row = int(match.group(1))
        if row < rows - CHROME_ROWS:
            kept.append(line)
    return kept
