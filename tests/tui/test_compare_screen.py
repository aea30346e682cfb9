"""The compare screen's own behaviour: F5 starts every side again, `--pace` holds tool calls
back, a narrow screen says how to stack the sides."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from support import wait_until
from tui.agent_log import new_agent_log
from tui.compare.capability_set import parse_side
from tui.compare.pacing import PacedAgentProcess, starts_tool_call
from tui.compare.setup import CompareSetup, SideSetup
from tui.compare.workspaces import SideWorkspaces
from tui.demo import DemoApp
from tui.launch import LaunchSpec
from tui.widgets.compare.screen import CompareApp


async def test_f5_plays_the_demo_again_from_the_start(tmp_path: Path) -> None:
    app = DemoApp(root=tmp_path / "demo", log_dir=tmp_path / "logs")

    def legend_done() -> bool:
        return "done" in str(app.query_one("#legend").render())

    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, legend_done, timeout=60)
        first = app.sides
        assert all(side.turn_done for side in first)
        stray = tmp_path / "demo" / "terminal-on" / "left-over.txt"
        stray.write_text("from the first run\n")
        await pilot.press("tab", "f5")

        def all_new() -> bool:  # every side replaced, not only the first one mounted
            sides = app.sides
            return len(sides) == len(first) and not any(side in first for side in sides)

        await wait_until(pilot, all_new)
        assert not stray.exists()  # a fresh workspace
        assert app.marked == 1 and app.sides[1].has_class("-marked")  # the mark stays
        # (Whether the new sides are still running here depends on the machine's speed.)
        await wait_until(pilot, legend_done, timeout=60)
        # From the start: each new side played the demo's one turn, as the first ones did.
        assert [side.turns_done for side in app.sides] == [1, 1]
        entries = [len(side.controller.conversation.entries) for side in app.sides]
        assert entries == [len(side.controller.conversation.entries) for side in first]
        calls = [set(side.controller.conversation.tool_calls) for side in app.sides]
        assert calls[0] == calls[1] and calls[0]
        await app.action_quit()


def update(kind: str) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": {"sessionUpdate": kind, "toolCallId": "c"}},
    }
    return json.dumps(message).encode()


def test_only_a_tool_call_start_is_paced() -> None:
    assert starts_tool_call(update("tool_call"))
    assert not starts_tool_call(update("tool_call_update"))
    assert not starts_tool_call(update("agent_message_chunk"))
    assert not starts_tool_call(b'{"not json": "tool_call"')
    assert not starts_tool_call(b'["tool_call"]')


async def test_the_paced_reader_passes_every_byte_and_waits_between_tool_calls(
    tmp_path: Path,
) -> None:
    """A real process prints three tool calls between chunks; the client reads all of it,
    in order, and was held back before the second and third call only."""
    lines = [update("tool_call"), update("agent_message_chunk"), update("tool_call")]
    lines += [update("tool_call_update"), update("tool_call")]
    payload = b"\n".join(lines) + b"\n"
    script = tmp_path / "say.py"
    script.write_bytes(b"import sys\nsys.stdout.buffer.write(" + repr(payload).encode() + b")\n")
    spec = LaunchSpec.from_command(
        shlex.join([sys.executable, str(script)]), tmp_path, new_agent_log(tmp_path), True
    )
    waits: list[float] = []

    async def noted_sleep(seconds: float) -> None:
        waits.append(seconds)
        await asyncio.sleep(0)

    process = PacedAgentProcess.start(spec)
    assert isinstance(process, PacedAgentProcess)
    process.pace = 2.0
    process.sleep = noted_sleep
    process.clock = lambda: 100.0  # no time passes between
    reader, _ = await process.attach(1 << 16)
    read = await reader.read()
    await process.wait()
    process.close_pipes()
    assert read == payload
    assert waits == [2.0, 2.0]


async def test_a_narrow_screen_offers_to_stack(tmp_path: Path) -> None:
    command = shlex.join([sys.executable, "-c", "import time; time.sleep(60)"])
    sides = tuple(SideSetup(command, parse_side("all"), f"side {n}") for n in range(3))
    setup = CompareSetup(sides, SideWorkspaces.copy(None, ["a", "b", "c"]), "legend")
    app = CompareApp(setup)
    notes: list[Any] = []
    app.notify = lambda message, **_: notes.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert any("F2 stacks" in note for note in notes)
        await pilot.press("f2")
        assert app.query_one("#sides").has_class("-stacked")
        await app.action_quit()
    assert not setup.workspaces.root.exists()


async def test_side_keys_stay_with_the_sides_screen(tmp_path: Path) -> None:
    """Over F1's list, Tab and PageUp are not the sides'; closed, they are again."""
    command = shlex.join([sys.executable, "-c", "import time; time.sleep(60)"])
    sides = tuple(SideSetup(command, parse_side(spec), spec) for spec in ("all", "none"))
    setup = CompareSetup(sides, SideWorkspaces.copy(None, ["all", "none"]), "legend")
    app = CompareApp(setup)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert app.marked == 0 and app.focused is app.query_one("#prompt")
        await pilot.press("f1")
        assert app.screen is not app.screen_stack[0]
        await pilot.press("tab", "tab")
        assert app.marked == 0
        await pilot.press("escape")
        await pilot.press("tab", "tab")
        assert app.marked == 1 and app.focused is app.sides[1]
        await pilot.press("tab")  # round to the prompt box; the mark stays on the side
        assert app.focused is app.query_one("#prompt") and app.marked == 1
        await app.action_quit()
