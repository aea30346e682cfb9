"""A finished plan folds to one line, and leaves when the next turn starts, so it is not
pinned above every later prompt."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness import TtyApp, header_ready, turns_ended, wait_until

Start = Callable[..., TtyApp]


def test_a_finished_plan_folds_and_leaves_at_the_next_turn(tty: Start, home: Path) -> None:
    app = tty(size=(80, 24))
    app.wait_for(header_ready)
    app.type("todo [x] Read the code; [x] Fix the bug; [x] Commit")
    app.key("enter")
    wait_until(lambda: turns_ended(home) == 1, what="the plan's turn")
    lines = app.wait_for("▸ plan 3/3 · all done")
    assert not any(line.strip() == "✓  Commit" for line in lines), app.dump()
    assert sum("plan" in line and "3/3" in line for line in lines) == 1, app.dump()
    app.type("help")
    app.key("enter")
    wait_until(lambda: turns_ended(home) == 2, what="the next turn")
    app.wait_gone("▸ plan 3/3", timeout=15)
