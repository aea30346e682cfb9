"""Replay of recordings that went wrong: each shows its notices and ends, never hangs.

The recordings are the bundled demo's, changed where the test says: a malformed line and an
unknown update kind in the middle of the turn, and a recording cut before the turn's answer.
The client plays them with no agent; every wait here has a timeout that fails the test.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest

from support import wait_until
from tui.demo import DemoApp
from tui.replay.app import ReplayApp, replay_app
from tui.replay.process import ReplayProcess
from tui.replay.recording import Recording
from tui.state import NoticeEntry

BUNDLED = Path(__file__).parents[2] / "tui" / "replay" / "recordings"
DEMO = BUNDLED / "demo-terminal-off.jsonl"


def demo_lines() -> list[str]:
    return DEMO.read_text(encoding="utf-8").splitlines()


def session_id(lines: list[str]) -> str:
    for line in lines:
        message = json.loads(line).get("msg", {})
        result = message.get("result")
        if isinstance(result, dict) and "sessionId" in result:
            return str(result["sessionId"])
    raise AssertionError("no session in the recording")


def halfway(lines: list[str]) -> int:
    """The index of a line in the middle of the turn (an agent message after the prompt)."""
    return len(lines) // 2


def write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "recording.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def notices(app: ReplayApp) -> list[str]:
    return [e.text for e in app.controller.conversation.entries if isinstance(e, NoticeEntry)]


async def play(path: Path, tmp_path: Path) -> tuple[ReplayApp, list[str]]:
    app = replay_app(path, speed=0, log_dir=tmp_path / "logs")
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: app.replay.agent.finished, 30)
        await wait_until(pilot, lambda: not app.controller.turn_running, 30)
        await pilot.pause()
        shown = notices(app)
        await app.action_quit()
    return app, shown


async def test_a_malformed_line_reaches_the_clients_guard(tmp_path: Path) -> None:
    lines = demo_lines()
    middle = halfway(lines)
    t = json.loads(lines[middle])["t"]
    lines.insert(middle, json.dumps({"dir": "in", "t": t, "raw": '{"jsonrpc": "2.0", oops'}))
    # The client's answer to it, as it was recorded live (-32700, no id).
    error = {
        "code": -32700,
        "message": "Parse error",
        "data": {"reason": "the line is not valid JSON"},
    }
    answer = {"jsonrpc": "2.0", "id": None, "error": error}
    lines.insert(middle + 1, json.dumps({"dir": "out", "t": t, "msg": answer}))
    app, shown = await play(write(tmp_path, lines), tmp_path)
    # The client's own notice for it, as live (its wording is the client's).
    assert len(shown) == 1 and "malformed message from the agent" in shown[0]
    assert "the line is not valid JSON" in shown[0]
    assert app.controller.failure is None
    assert app.replay.agent.played == sum(json.loads(line)["dir"] == "in" for line in lines)


async def test_an_unknown_update_kind_gets_the_clients_notice(tmp_path: Path) -> None:
    lines = demo_lines()
    middle = halfway(lines)
    update = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session_id(lines), "update": {"sessionUpdate": "hologram"}},
    }
    t = json.loads(lines[middle])["t"]
    lines.insert(middle, json.dumps({"dir": "in", "t": t, "msg": update}))
    app, shown = await play(write(tmp_path, lines), tmp_path)
    assert shown == ["unsupported update kind 'hologram' (not shown)"]
    assert app.controller.failure is None


async def test_a_recording_cut_in_the_middle_of_a_turn_ends_the_turn(tmp_path: Path) -> None:
    lines = demo_lines()[: halfway(demo_lines())]
    lines.append(lines[-1][: len(lines[-1]) // 2])  # the last line cut as a crash leaves it
    app, shown = await play(write(tmp_path, lines), tmp_path)
    assert shown == [
        f"replay: line {len(lines)} of the recording is cut or not JSON (skipped)",
        "replay: the recording ends here, in the middle of the turn",
        "turn ended: cancelled",
    ]
    assert app.controller.failure is None
    assert not any(
        e.status in ("pending", "in_progress")
        for e in app.controller.conversation.tool_calls.values()
    )


async def test_drift_is_a_notice_and_an_unrecorded_prompt_is_refused(tmp_path: Path) -> None:
    app = replay_app(DEMO, speed=0, log_dir=tmp_path / "logs")
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: app.replay.agent.finished, 30)
        await wait_until(pilot, lambda: not app.controller.turn_running, 30)
        app.controller.submit_prompt("one more")
        await wait_until(pilot, lambda: "turn ended: refusal" in notices(app), 30)
        assert [n for n in notices(app) if n.startswith("replay:")] == [
            "replay: the client sent session/prompt (id 3), which the recording does not have"
        ]
        await app.action_quit()


def test_the_recording_is_read_as_it_was_written() -> None:
    recording = Recording.load(DEMO)
    assert not recording.problems
    raw = DEMO.read_bytes().splitlines()
    first = recording.entries[0]
    assert not first.incoming and first.method == "initialize"
    assert raw[0].endswith(first.line.rstrip(b"\n") + b"}")
    spec = ReplayProcess.open(DEMO, Path("/dev/null")).spec
    assert spec.cwd == Path("/tmp/dsh-demo-workspace/terminal-off") and not spec.terminal


async def test_the_demo_plays_its_recordings_with_no_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`dsh-tui demo --replay`: both sides from the bundled recordings; nothing is spawned."""

    def no_process(*args: object, **kwargs: object) -> None:
        raise AssertionError("demo --replay started a process")

    monkeypatch.setattr(subprocess, "Popen", no_process)
    monkeypatch.setattr(asyncio, "create_subprocess_exec", no_process)
    app = DemoApp(root=tmp_path / "demo", log_dir=tmp_path / "logs", replay=True)
    async with app.run_test(size=(110, 50)) as pilot:
        await wait_until(pilot, lambda: all(side.turn_done for side in app.sides), 30)
        left, right = app.sides
        assert left.terminal and not right.terminal
        for side in app.sides:
            assert side.controller.failure is None
            assert len(side.controller.conversation.tool_calls) > 5
            assert not [
                e for e in side.controller.conversation.entries if isinstance(e, NoticeEntry)
            ]
        assert left.workspace == Path("/tmp/dsh-demo-workspace/terminal-on")
        await app.action_quit()
