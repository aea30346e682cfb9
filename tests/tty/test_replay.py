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
    app.wait_for("4/4 done", timeout=30)
    assert "replay:" not in app.text(), app.dump()
    assert app.quit(timeout=15) == 0, app.dump()


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_step_hands_over_one_message_per_key(tty: Start, size: tuple[int, int]) -> None:
    app = tty(["replay", str(RECORDINGS / "demo-terminal-off.jsonl"), "--step"], size=size)
    app.wait_for("step: press space/n", timeout=30)
    assert "dsh-agent 0.1.0" not in app.text(), app.dump()  # initialize is not answered yet
    app.send(" ")
    app.send(" ")  # initialize and session/new answered: the session is open
    app.wait_for("dsh-agent 0.1.0", timeout=15)
    assert "thought" not in app.text(), app.dump()
    for _ in range(12):
        app.send("n")
    app.wait_for("thought", timeout=15)
    assert "Everything ran" not in app.text(), app.dump()
    assert app.quit(timeout=15) == 0, app.dump()
