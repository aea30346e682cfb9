"""Issue 19, the prompt on a real screen: `@` completion attaches a file that the real
dsh-agent (offline model) acknowledges, and `!echo hi` runs here as the user's card."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from harness import SIZES, TtyApp, header_ready, size_id

Start = Callable[..., TtyApp]


def workspace(home: Path) -> None:
    src = home / "work" / "src"
    src.mkdir(parents=True)
    (src / "app.py").write_text("import sys\n\nprint(sys.argv)\n")
    (src / "apply.py").write_text("def apply():\n    pass\n")


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_an_at_mention_is_completed_attached_and_acknowledged(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    workspace(home)
    app = tty(size=size)
    app.wait_for(header_ready)
    app.type("read @sapp")
    # The chip on the border is drawn by the same handler that gives the menu the text: once
    # it shows `@sapp`, the menu lists what matches all of it.
    app.wait_for("@sapp ─")
    app.wait_for(lambda lines: any(line.strip() == "src/app.py" for line in lines))
    app.wait_for(lambda lines: any(line.strip() == "src/apply.py" for line in lines))
    app.key("down")
    app.key("tab")  # right behind Down, as a quick hand types: it takes the path Down chose
    app.wait_for("read @src/apply.py")
    app.type("now")
    app.key("enter")
    app.wait_for("attached: src/apply.py (2 lines)")  # the user message in the transcript
    app.wait_for(lambda lines: any("attached: src/apply.py, 2 lines" in line for line in lines))


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_bang_echo_runs_as_the_users_card(tty: Start, home: Path, size: tuple[int, int]) -> None:
    app = tty(size=size)
    app.wait_for(header_ready)
    app.wait_for("Message the agent")  # the session is open: a ! command runs at once
    app.type("!echo hi")
    app.key("enter")
    app.wait_for("! echo hi")
    app.wait_for("run by you")
    app.wait_for("exit 0")
    app.wait_for(lambda lines: any(line.strip().strip("│").strip() == "hi" for line in lines))


def test_esc_kills_a_running_bang_command(tty: Start, home: Path) -> None:
    app = tty(size=(80, 24))
    app.wait_for(header_ready)
    app.wait_for("Message the agent")
    app.type("!sleep 30")
    app.key("enter")
    app.wait_for("! sleep 30")
    app.wait_for("esc Stop command")  # the footer offers Esc while it runs, and says what it does
    app.key("escape")
    app.wait_for("killed by")
