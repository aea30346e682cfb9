"""Issue 19: a command the agent runs through the client shows its colours on a real screen,
because client terminals are pseudo-terminals (`ls --color=auto` colours only for a tty)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from harness import SIZES, TtyApp, header_ready, script_agent_command, size_id

Start = Callable[..., TtyApp]


def cell_style(app: TtyApp, word: str) -> tuple[str, bool]:
    """The foreground colour and boldness of the first character of `word` on screen."""
    with app.lock:
        for y, line in enumerate(app.screen.display):
            x = line.find(word)
            if x >= 0:
                char = app.screen.buffer[y][x]
                return char.fg, char.bold
    raise AssertionError(f"{word!r} is not on screen\n{app.dump()}")


def run_in_client_terminal(tty: Start, home: Path, size: tuple[int, int], command: str) -> TtyApp:
    """dsh-tui at `size` on a scripted agent whose one turn runs `command` in a client
    terminal; the prompt is sent."""
    script = {"prompts": [[{"terminal": {"command": command, "toolCallId": "t1"}}]]}
    app = tty(["--agent", script_agent_command(home / "script.json", script)], size=size)
    app.wait_for(header_ready)
    app.type("run it")
    app.key("enter")
    return app


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_ls_in_a_client_terminal_is_coloured(tty: Start, home: Path, size: tuple[int, int]) -> None:
    work = home / "work"
    (work / "somedir").mkdir(parents=True)
    (work / "plainfile").write_text("x")
    app = run_in_client_terminal(tty, home, size, "LS_COLORS='di=01;34' ls --color=auto")
    app.wait_for("exit 0")
    app.wait_for(lambda lines: any("somedir" in line and "plainfile" in line for line in lines))
    directory, plain = cell_style(app, "somedir"), cell_style(app, "plainfile")
    assert directory[1] and not plain[1]  # bold: 01
    assert directory[0] != plain[0]  # blue: 34, in the theme's blue


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_a_client_terminal_is_as_wide_as_its_pane(
    tty: Start, home: Path, size: tuple[int, int]
) -> None:
    """A command that asks its terminal's width (ls, progress bars) gets the pane's, not a
    fixed 120 columns that the pane would cut."""
    app = run_in_client_terminal(tty, home, size, "echo cols=$(tput cols)")
    screen = app.wait_for("exit 0")
    top = next(line for line in screen if "╭" in line and "╮" in line)
    inside = top.index("╮") - top.index("╭") - 1 - 2  # the card's borders and padding
    app.wait_for(f"cols={inside}")
