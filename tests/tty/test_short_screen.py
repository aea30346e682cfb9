"""Item 11 of issue 13: a short screen stays usable. A six-step plan and a bash permission
question, through the real binary and dsh-agent in Ask mode, read back as a person sees them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from harness import SIZES, TtyApp, header_ready, size_id, turns_ended, wait_until

Start = Callable[..., TtyApp]
PLAN = "todo Read the code; Write the test; Fix the bug; Run the suite; Update docs; Commit"


def ask_with_a_plan(app: TtyApp, home: Path) -> list[str]:
    app.wait_for(header_ready)
    app.type(PLAN)
    app.key("enter")
    wait_until(lambda: turns_ended(home) == 1, what="the plan's turn")
    app.type("$ echo hello")
    app.key("enter")
    return app.wait_for("Permission · ❯ echo hello")


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_a_plan_and_a_question_leave_the_transcript_room(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    app = tty(size=size)
    lines = ask_with_a_plan(app, home)
    lines = app.wait_for(lambda lines: any("reject" in line.lower() for line in lines))
    options = [line for line in lines if "reject" in line.lower()]
    assert len(options) == 1, app.dump()  # the keys on one row
    plan_rows = [i for i, line in enumerate(lines) if "plan" in line and "0/6" in line]
    assert len(plan_rows) == 1, app.dump()
    if size == (80, 24):
        # Folded to its summary; the panel's keys a word each; the transcript (from the row
        # under the header to the plan's) keeps most of the screen.
        assert "▸ plan 0/6 · ● Read the code" in lines[plan_rows[0]], app.dump()
        assert not any(line.strip() == "○  Commit" for line in lines), app.dump()
        assert "a allow · A always · r reject · esc cancel" in options[0], app.dump()
        assert plan_rows[0] - 1 >= 10, app.dump()
    else:
        assert not any("▸ plan" in line for line in lines), app.dump()
        assert any(line.strip() == "○  Commit" for line in lines), app.dump()
        assert "[A] Always allow bash in this session" in options[0], app.dump()
    app.key("tab")  # the question takes the keys: typed letters never answer it
    app.wait_for("keys answer · tab back to the prompt", timeout=10)
    app.type("r")
    wait_until(lambda: turns_ended(home) == 2, what="the rejected call's turn")
    app.wait_gone("Permission · ❯ echo hello")
