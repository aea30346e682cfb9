"""`dsh-tui replay` of a crafted recording, in a pty: a diff of a file that exists here (cwd
"/") is not numbered from it, and a recorded gap of 1e12 s is shortened with a notice."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness import TtyApp
from replay_lines import edit, session, write

Start = Callable[..., TtyApp]


def test_a_crafted_recording_reads_no_file_and_does_not_stall(tty: Start, home: Path) -> None:
    target = home / "hello.py"
    target.write_text("x\ny\nB\n")  # `newText` unique on line 3 here
    recording = write(home, session("/", [edit(1e12, target)], end_t=1e12 + 0.1))
    app = tty(["replay", str(recording)], size=(100, 30))
    app.wait_for("replay: the recording pauses 1e+12 s here; shortened to 5 s", timeout=30)
    lines = app.wait_for("+ B", timeout=30)  # the card's added line, with its gutter
    gutters = [line.split("+ B")[0] for line in lines if "+ B" in line]
    assert gutters and all("?" in g and "3" not in g for g in gutters), app.dump()
    assert app.quit(timeout=15) == 0, app.dump()
