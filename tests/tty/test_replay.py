"""`dsh-tui replay`, as the installed console script plays a bundled recording in a pty."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from harness import TtyApp, size_id

Start = Callable[..., TtyApp]
RECORDINGS = Path(__file__).parents[2] / "tui" / "replay" / "recordings"
SIZES = [(80, 24), (140, 45)]


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_replay_plays_the_demo_to_its_end(tty: Start, size: tuple[int, int]) -> None:
    app = tty(["replay", str(RECORDINGS / "demo-terminal-on.jsonl"), "--speed", "0"], size=size)
    app.wait_for("Everything ran", timeout=30)
    app.wait_for("plan 4/4 · all done", timeout=30)
    assert "replay:" not in app.text(), app.dump()
    assert app.quit(timeout=15) == 0, app.dump()


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_step_goes_by_message_and_tool_call(tty: Start, home: Path, size: tuple[int, int]) -> None:
    """The session opens with no key; each space shows a whole thought, a whole reply, a tool
    call; `e` plays the rest. The screen says it is a replay: the prompt is closed and says
    so, no Resume key, and no prompt goes to the history."""
    app = tty(["replay", str(RECORDINGS / "demo-terminal-off.jsonl"), "--step"], size=size)
    app.wait_for("space Next", timeout=30)
    app.wait_for("dsh-agent 0.1.0", timeout=15)
    app.wait_for("Replay, nothing is sent", timeout=15)
    assert "^r" not in app.text() and "Resume" not in app.text(), app.dump()
    assert "thought" not in app.text(), app.dump()
    app.send(" ")
    app.wait_for("▶ thought", timeout=15)  # all 38 chunks of it, under its folded title
    assert "dsh-agent demo" not in app.text(), app.dump()
    app.send(" ")
    app.wait_for("First, a plan.", timeout=15)
    assert "Update todo list" not in app.text(), app.dump()
    app.send("n")
    app.wait_for("Update todo list", timeout=15)
    assert "Everything ran" not in app.text(), app.dump()
    app.send("e")
    app.wait_for("plan 4/4 · all done", timeout=30)
    app.wait_for("Replay of a recording: nothing is sent", timeout=15)
    app.wait_gone("space Next", timeout=15)  # the footer's keys change a frame later
    assert app.quit(timeout=15) == 0, app.dump()
    assert not (home / "state" / "dsh-tui" / "history").exists()
