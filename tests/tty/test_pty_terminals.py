"""Issue 19: a command the agent runs through the client shows its colours on a real screen,
because client terminals are pseudo-terminals (`ls --color=auto` colours only for a tty)."""

from __future__ import annotations

import os
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


def test_a_client_terminal_holds_no_descriptor_of_the_app(tty: Start, home: Path) -> None:
    """What a client-terminal command can reach of dsh-tui's own terminal, from inside it: none
    of its descriptors is that terminal (stdin is /dev/null, stdout and stderr the pane's pty).
    Its parent is dsh-tui itself, and a process of the same user can open
    `/proc/<dsh-tui>/fd/1`, which is the user's terminal: docs/security.md says so."""
    app = tty(size=(140, 30))
    app.wait_for(header_ready)
    app.wait_for("Message the agent")
    users_terminal = os.readlink(f"/proc/{app.pid}/fd/1")
    app.type(
        "!for f in /proc/self/fd/*; do echo FD $(readlink $f); done;"
        " echo PARENT $(readlink /proc/$PPID/fd/1)"
    )
    app.key("enter")
    app.wait_for("exit 0")
    rows = [line.strip("│ ") for line in app.display()]
    fds = [row.split(" ", 1)[1].strip() for row in rows if row.startswith("FD ")]
    assert "/dev/null" in fds and any(fd.startswith("/dev/pts/") for fd in fds), app.dump()
    assert users_terminal not in fds, (users_terminal, fds)
    parent = next(row for row in rows if row.startswith("PARENT "))
    assert parent.split(" ", 1)[1].strip() == users_terminal, (parent, users_terminal)
