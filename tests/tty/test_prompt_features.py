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


def highlighted(app: TtyApp) -> str | None:
    """The menu row shown in reverse video (the path Tab or Enter takes)."""
    with app.lock:
        for y, line in enumerate(app.screen.display):
            text = line.strip()
            if text.startswith("src/") and app.screen.buffer[y][line.find(text)].reverse:
                return text
    return None


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
    app.wait_for(lambda lines: highlighted(app) == "src/apply.py")
    app.key("tab")
    app.wait_for("read @src/apply.py")
    app.type("now")
    app.key("enter")
    app.wait_for("attached: src/apply.py (2 lines)")  # the user message in the transcript
    app.wait_for(lambda lines: any("attached: src/apply.py, 2 lines" in line for line in lines))


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_bang_echo_runs_as_the_users_card(tty: Start, home: Path, size: tuple[int, int]) -> None:
    app = tty(size=size)
    app.wait_for(header_ready)
    app.type("!echo hi")
    app.key("enter")
    app.wait_for("! echo hi")
    app.wait_for("run by you")
    app.wait_for("exit 0")
    app.wait_for(lambda lines: any(line.strip().strip("│").strip() == "hi" for line in lines))
