"""`dsh-tui compare` with real agent processes: each side negotiates its own capabilities,
works in its own copy of the workspace, and answers its own questions."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from support import wait_until
from tui.compare.cli import compare_setup
from tui.replay.process import ReplayProcess
from tui.state import MessageEntry
from tui.widgets.compare.screen import CompareApp
from tui.widgets.terminal.pane import TerminalPane

SCRIPT_AGENT = Path(__file__).with_name("script_agent.py")


def args(agents: list[str], sides: list[str], **more: Any) -> argparse.Namespace:
    values: dict[str, Any] = {"workspace": None, "record": None, "pace": 0.0, "log_dir": None}
    values.update(more)
    return argparse.Namespace(agent=agents, side=sides, **values)


def console_texts(side: Any) -> list[str]:
    return [
        item.content.text
        for entry in side.controller.conversation.tool_calls.values()
        for item in entry.content
        if getattr(item, "type", "") == "content" and getattr(item.content, "type", "") == "text"
    ]


def said(side: Any) -> str:
    """Every message of the side's conversation, the agent's and the user's."""
    entries = side.controller.conversation.entries
    return " ".join(entry.text for entry in entries if isinstance(entry, MessageEntry))


def initialize_params(recording: Path) -> dict[str, Any]:
    for line in recording.read_text().splitlines():
        record = json.loads(line)
        message = record["msg"]
        if isinstance(message, dict) and message.get("method") == "initialize":
            params: dict[str, Any] = message["params"]
            return params
    raise AssertionError(f"no initialize in {recording}")


async def test_dsh_agent_under_two_capability_sets(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("the project's own file\n")
    setup = compare_setup(
        args(
            ["dsh-agent --mode full-access"],
            ["all", "no-terminal"],
            workspace=project,
            record=tmp_path / "recordings",
            log_dir=tmp_path / "logs",
        )
    )
    app = CompareApp(setup)
    async with app.run_test(size=(160, 50)) as pilot:
        left, right = app.sides
        await wait_until(pilot, lambda: all(s.controller.session is not None for s in app.sides))
        prompt = app.query_one("#prompt")
        assert app.focused is prompt
        await pilot.press(*"demo", "enter")
        await wait_until(pilot, lambda: all(side.turn_done for side in app.sides), timeout=60)
        await pilot.pause()
        # Same calls, different negotiation: live panes on the left, console text on the right.
        assert set(left.controller.conversation.tool_calls) == set(
            right.controller.conversation.tool_calls
        )
        assert left.query(TerminalPane) and not right.query(TerminalPane)
        assert any(text.startswith("```console\n") for text in console_texts(right))
        assert not any(text.startswith("```console\n") for text in console_texts(left))
        assert "terminal cards on" in str(left.strip.render())
        assert "console text" in str(right.strip.render())
        # Each side wrote into its own copy; the project itself is untouched.
        assert left.workspace != right.workspace
        for side in app.sides:
            assert (side.workspace / "notes.txt").read_text() == "the project's own file\n"
            assert (side.workspace / "dsh-demo").is_dir()
        assert sorted(path.name for path in project.iterdir()) == ["notes.txt"]
        await app.action_quit()
    assert not setup.workspaces.root.exists()  # the copies go with the app
    left_caps, right_caps = (
        initialize_params(path)["clientCapabilities"]
        for path in sorted((tmp_path / "recordings").glob("*.jsonl"))
    )
    assert sorted(p.name for p in (tmp_path / "recordings").iterdir()) == [
        "side-1-all.jsonl",
        "side-2-no-terminal.jsonl",
    ]
    assert left_caps["terminal"] is True and left_caps["_meta"] == {"terminal_output": True}
    assert not right_caps.get("terminal") and right_caps["_meta"] == {"terminal_output": False}
    assert right_caps["fs"] == {"readTextFile": True, "writeTextFile": True}
    # Each is a recording `dsh-tui replay` plays.
    for path in (tmp_path / "recordings").iterdir():
        replay = ReplayProcess.open(path, tmp_path / "replay.log")
        assert replay.spec.cwd.name.startswith("side-")


OPTIONS = [
    {"optionId": "allow", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]


async def test_a_question_is_answered_on_its_own_side(tmp_path: Path) -> None:
    """Both scripted agents ask; `a` on the focused second side answers only that one."""
    call = {"toolCallId": "c1", "title": "Run the build", "kind": "execute"}
    script = {"prompts": [[{"permission": {"toolCall": call, "options": OPTIONS}}]]}
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    command = shlex.join([sys.executable, str(SCRIPT_AGENT), str(path)])
    (tmp_path / "empty").mkdir()
    setup = compare_setup(
        args([command, command], ["all", "read-only-fs"], workspace=tmp_path / "empty")
    )
    app = CompareApp(setup)
    async with app.run_test(size=(140, 40)) as pilot:
        first, second = app.sides
        await wait_until(pilot, lambda: all(s.controller.session is not None for s in app.sides))
        await pilot.press(*"go", "enter")
        await wait_until(pilot, lambda: all(s.controller.permissions for s in app.sides))
        assert "Run the build" in str(second.question.render())
        # Typed into the prompt box, `a` answers nothing.
        await pilot.press("a")
        assert all(s.controller.permissions for s in app.sides)
        await pilot.press("tab", "tab")  # prompt box → side 1 → side 2
        assert app.focused is second and app.marked == 1 and second.has_class("-marked")
        await pilot.press("a")
        await wait_until(pilot, lambda: second.turn_done)
        assert first.controller.permissions and not first.turn_done
        assert "permission outcome: selected allow" in said(second)
        assert first.question.has_class("-open") and not second.question.has_class("-open")
        await pilot.press("shift+tab", "r")
        await wait_until(pilot, lambda: first.turn_done)
        assert "permission outcome: selected reject" in said(first)
        await app.action_quit()
