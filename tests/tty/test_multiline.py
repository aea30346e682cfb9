"""Case 3 of issue 12: the prompt is a multi-line input with history, driven by the bytes a
terminal really sends (bracketed paste, CSI-u Shift+Enter, Ctrl+J as LF, Alt+Enter as ESC CR)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from harness import SIZES, TtyApp, agent_command, header_ready, size_id, turns_ended
from harness import wait_until as wait_for_file

Start = Callable[..., TtyApp]


def started(tty: Start, *args: str, **options: object) -> TtyApp:
    app = tty(list(args), **options)
    app.wait_for(header_ready)
    return app


def in_order(*parts: str) -> Callable[[list[str]], bool]:
    """Each part on a line of its own, in this order, top to bottom."""

    def check(lines: list[str]) -> bool:
        row = -1
        for part in parts:
            rows = [i for i, line in enumerate(lines) if part in line and i > row]
            if not rows:
                return False
            row = rows[0]
        return True

    return check


def cursor_line(app: TtyApp) -> str:
    """The line the terminal cursor is on: Textual puts it at the focused input's cursor."""
    return app.display()[app.cursor()[1]]


def wait_in_prompt(app: TtyApp, text: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while text not in cursor_line(app):
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} is not on the prompt's cursor line\n{app.dump()}")
        time.sleep(0.02)


def test_bracketed_paste_keeps_every_line(tty: Start, home: Path) -> None:
    app = started(tty)
    app.paste("alpha line\nbeta line\ngamma line")
    app.wait_for(in_order("alpha line", "beta line", "gamma line"), 10, "all three pasted lines")
    app.key("enter")
    wait_for_file(lambda: turns_ended(home) >= 1, what="the reply")
    # The offline agent quotes the prompt it got: all three lines.
    app.wait_for("offline mode", timeout=10)
    app.wait_for(in_order("alpha line", "beta line", "gamma line", "offline mode"), 10, "the quote")


@pytest.mark.parametrize("newline", ["shift+enter", "ctrl+j", "alt+enter"])
def test_newline_keys_insert_a_newline(tty: Start, home: Path, newline: str) -> None:
    app = started(tty)
    app.type("first row")
    time.sleep(0.1)
    app.key(newline)
    time.sleep(0.1)
    app.type("second row")
    app.wait_for(in_order("first row", "second row"), 10, "two rows in the prompt")
    assert turns_ended(home) == 0 and not any("offline mode" in line for line in app.display()), (
        f"{newline} sent the prompt\n{app.dump()}"
    )
    app.key("enter")
    wait_for_file(lambda: turns_ended(home) >= 1, what="Enter to send the prompt")
    app.wait_for(
        in_order("first row", "second row", "offline mode"), 10, "the two-line prompt sent"
    )
    assert not any("first rowsecond row" in line for line in app.display()), app.dump()


def test_pasted_write_creates_the_file_with_the_pasted_lines(tty: Start, home: Path) -> None:
    app = started(tty, "--agent", agent_command("--mode", "full-access"))
    app.paste("write notes.txt\nalpha\nbeta\ngamma")
    app.wait_for(in_order("write notes.txt", "alpha", "beta", "gamma"), 10, "the pasted lines")
    app.key("enter")
    notes = home / "work" / "notes.txt"
    wait_for_file(lambda: turns_ended(home) >= 1, what="the write to finish")
    assert notes.exists(), f"no notes.txt in the workspace\n{app.dump()}"
    assert notes.read_text() == "alpha\nbeta\ngamma\n"


ROW = re.compile(r"\brow (\d\d)\b")


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_prompt_grows_to_about_eight_lines_then_scrolls(tty: Start, size: tuple[int, int]) -> None:
    app = started(tty, size=size)
    app.paste("\n".join(f"row {i:02d}" for i in range(1, 4)))
    app.wait_for(in_order("row 01", "row 02", "row 03"), 10, "a three-line prompt, whole")
    app.key("ctrl+j")
    app.paste("\n".join(f"row {i:02d}" for i in range(4, 21)))
    app.wait_for("row 20", timeout=10)
    app.wait_stable(0.3)
    shown = [int(n) for line in app.display() for n in ROW.findall(line)]
    assert 5 <= len(shown) <= 10, f"the prompt shows {len(shown)} of 20 lines\n{app.dump()}"
    assert 1 not in shown, f"the prompt did not scroll\n{app.dump()}"
    # The box (content and border) stays short enough to leave the transcript room.
    assert len(shown) + 2 <= 12, app.dump()


def test_up_and_down_recall_prompts_across_runs(tty: Start, home: Path) -> None:
    app = started(tty)
    for turn, prompt in enumerate(("first prompt alpha", "second prompt beta"), start=1):
        app.type(prompt)
        time.sleep(0.1)
        app.key("enter")
        wait_for_file(lambda turn=turn: turns_ended(home) >= turn, what=f"reply {turn}")
    app.wait_stable(0.3)
    app.key("up")
    wait_in_prompt(app, "second prompt beta")
    app.key("up")
    wait_in_prompt(app, "first prompt alpha")
    app.key("down")
    wait_in_prompt(app, "second prompt beta")
    assert app.quit() == 0

    again = started(tty)  # the same home: XDG_STATE_HOME and workspace
    again.wait_stable(0.3)
    again.key("up")
    wait_in_prompt(again, "second prompt beta")
    again.key("up")
    wait_in_prompt(again, "first prompt alpha")


def test_footer_or_placeholder_names_the_newline_key(tty: Start) -> None:
    app = started(tty)
    names = ("ctrl+j", "^j", "shift+enter", "alt+enter")
    app.wait_for(
        lambda lines: any(name in line.lower() for line in lines for name in names),
        timeout=10,
        message="a newline key named on screen",
    )
